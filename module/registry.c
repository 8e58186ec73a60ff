// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of unwind tables: one entry per object with text (the kernel
 * image, every module), each holding the compiled tables of its .eh_frame,
 * .debug_frame (blob) and .sframe.
 *
 * Readers (the unwinder, in any context) walk an RCU list without locks;
 * writers (modules.c, blob_load.c, init/exit) hold kuw_reg_mutex, publish
 * a complete entry with list_add_rcu()/list_replace_rcu() and free what
 * they unlinked only after synchronize_rcu().  Tables are built in process
 * context by the engine; nothing here understands their format.
 *
 * The kernel image's tables come from the section-boundary symbols
 * __eh_frame_start/__eh_frame_end and __sframe_start/__sframe_end of a
 * kernel that keeps them (the test kernel's linker-script patch); a stock
 * kernel keeps none, and takes a blob (blob_load.c).  Modules: modules.c.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kunwind.h"
#include "kunwind_internal.h"
#include "kuw_arch.h"

LIST_HEAD(kuw_entries);
/* serializes writers of kuw_entries; readers use RCU */
DEFINE_MUTEX(kuw_reg_mutex);
DEFINE_PER_CPU(struct kuw_counters, kuw_counters);

/**
 * kuw_entry_alloc() - a new, unlinked entry
 * @name: its owner's name
 *
 * Return: the entry or NULL.
 */
struct kuw_entry *kuw_entry_alloc(const char *name)
{
	struct kuw_entry *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (e) {
		INIT_LIST_HEAD(&e->list);
		strscpy(e->name, name, sizeof(e->name));
	}
	return e;
}

/**
 * kuw_entry_free() - free an entry already unlinked and past a grace period
 * @e: the entry, or NULL
 */
void kuw_entry_free(struct kuw_entry *e)
{
	int i;

	if (!e)
		return;
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		if (e->tab[i])
			kuw_table_free(e->tab[i]);
		kvfree(e->blob[i]);
	}
	kfree(e);
}

/**
 * kuw_registry_lookup() - the row in force at a pc
 * @pc: address to look up (already pc - 1 for a return address)
 * @src: KUNWIND_SRC_ANY (0x7f) or one enum kuw_src
 * @entry: set to the object's entry when @pc is in known text (may be NULL)
 * @table: set to the table used
 * @rule: set to the rule
 * @row_pc: set to the row's start
 *
 * Caller holds rcu_read_lock() (or has preemption disabled); the results
 * stay valid until it drops it.  Allocates nothing, takes no lock.
 *
 * Return: 0 or -KUW_E_NOINFO.
 */
int kuw_registry_lookup(u64 pc, u8 src, const struct kuw_entry **entry,
			const struct kuw_table **table,
			const struct kuw_rule **rule, u64 *row_pc)
{
	const struct kuw_entry *e = kuw_registry_find(pc, NULL);

	if (entry)
		*entry = e;
	if (!e)
		return -KUW_E_NOINFO;
	return kuw_entry_lookup(e, pc, src, table, rule, row_pc);
}

/**
 * kuw_registry_text() - is @pc in the text of the kernel or a module?
 * @pc: the address
 *
 * Caller holds rcu_read_lock().
 *
 * Return: true when some entry covers @pc.
 */
notrace bool kuw_registry_text(u64 pc)
{
	return kuw_registry_find(pc, NULL);
}

/* on the walk's path: neither traced nor kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_registry_text);

/*
 * Bumped (before the grace period) whenever an entry is unlinked, so that
 * an unwind can tell whether pointers it cached in an earlier read-side
 * section may be stale.
 */
unsigned int kuw_reg_seq;

/**
 * kuw_reg_changed() - note that an entry was unlinked or edited
 */
void kuw_reg_changed(void)
{
	WRITE_ONCE(kuw_reg_seq, kuw_reg_seq + 1);
	smp_wmb();	/* the new value is seen before the grace period ends */
}

/**
 * kuw_find_mod() - the entry of a module (NULL: of vmlinux)
 * @mod: the module
 *
 * Caller holds kuw_reg_mutex.
 *
 * Return: the entry or NULL.
 */
struct kuw_entry *kuw_find_mod(struct module *mod)
{
	struct kuw_entry *e;

	list_for_each_entry(e, &kuw_entries, list)
		if (e->mod == mod)
			return e;
	return NULL;
}

static void kuw_log_fail(const char *owner, int src, const struct kuw_diag *d,
			 int ret)
{
	this_cpu_inc(kuw_counters.load_fail);
	pr_warn("%s: %s rejected: %s at %s+0x%llx\n", owner,
		kuw_src_section(src), kuw_strerror(d->err ? d->err : ret),
		d->section ? d->section : kuw_src_section(src),
		(unsigned long long)d->off);
}

/**
 * kuw_build() - build one table of an entry
 * @e: the entry (not yet published)
 * @o: the object the table describes
 * @src: enum kuw_src
 * @addr: the section's address
 * @size: its size
 * @how: where it was found, for debugfs "tables"
 *
 * A failure leaves the entry without the table and logs one line naming
 * owner, section, offset and reason.
 */
void kuw_build(struct kuw_entry *e, const struct kuw_obj *o, int src,
	       u64 addr, u64 size, const char *how)
{
	struct kuw_sec s = { .data = (const u8 *)(unsigned long)addr,
			     .size = size, .addr = addr };
	struct kuw_diag d = {};
	struct kuw_table *t = NULL;
	u64 ns;
	int ret;

	if (!addr || !size)
		return;
	ns = ktime_get_ns();
	ret = kuw_table_build(o, src, &s, &t, &d);
	ns = ktime_get_ns() - ns;
	if (ret) {
		kuw_log_fail(e->name, src, &d, ret);
		return;
	}
	/* load cost and size, for make bench (scripts/bench.sh parses it) */
	pr_info("%s %s: %u fdes %u rows %u rules %llu bytes built in %llu ns\n",
		e->name, kuw_src_section(src), t->nfde, t->nrows, t->nrules,
		(unsigned long long)t->bytes, (unsigned long long)ns);
	e->tab[src] = t;
	e->sec_addr[src] = addr;
	e->sec_size[src] = size;
	e->how[src] = how;
}

/**
 * kunwind_tables_of() - the tables kunwind holds for one object
 * @owner: "vmlinux" or a module name
 * @info: filled with up to @max tables
 * @max: room in @info
 *
 * Process context.
 *
 * Return: the number of tables the object has (0 when kunwind knows no such
 * object or it has none), even if above @max.
 */
int kunwind_tables_of(const char *owner, struct kunwind_table_info *info,
		      int max)
{
	const struct kuw_entry *e;
	int n = 0, i;

	mutex_lock(&kuw_reg_mutex);
	list_for_each_entry(e, &kuw_entries, list) {
		if (strcmp(e->name, owner))
			continue;
		for (i = 0; i < KUW_SRC__COUNT; i++) {
			if (!e->tab[i])
				continue;
			if (n < max) {
				info[n].src = i;
				info[n].nfde = e->tab[i]->nfde;
				info[n].nrows = e->tab[i]->nrows;
				info[n].bytes = e->tab[i]->bytes;
				info[n].text_start = e->text[KUW_RANGE_CORE][0];
				info[n].text_end = e->text[KUW_RANGE_CORE][1];
				info[n].sec_addr = e->sec_addr[i];
				info[n].sec_size = e->sec_size[i];
			}
			n++;
		}
	}
	mutex_unlock(&kuw_reg_mutex);
	return n;
}
EXPORT_SYMBOL_GPL(kunwind_tables_of);

/* the kernel text, for blobs */
unsigned long kuw_stext, kuw_etext;

static int kuw_add_vmlinux(void)
{
	unsigned long end, sinit, einit;
	struct kuw_obj o = { .owner = "vmlinux", .arch = KUW_ARCH_THIS };
	struct kuw_entry *e;
	unsigned long a, b;

	kuw_stext = kuw_lookup_name("_stext");
	kuw_etext = kuw_lookup_name("_etext");
	end = kuw_lookup_name("_end");
	if (!kuw_stext || !kuw_etext || kuw_etext <= kuw_stext) {
		pr_warn("cannot find the kernel text (kallsyms)\n");
		return -ENOENT;
	}
	e = kuw_entry_alloc("vmlinux");
	if (!e)
		return -ENOMEM;
	e->text[KUW_RANGE_CORE][0] = kuw_stext;
	e->text[KUW_RANGE_CORE][1] = kuw_etext;
	/*
	 * Init text is freed after boot, but its addresses are never reused
	 * for other code, and the boot CPU's idle task keeps returning into
	 * it (start_kernel's chain): keep its rows.
	 */
	sinit = kuw_lookup_name("_sinittext");
	einit = kuw_lookup_name("_einittext");
	if (sinit && einit > sinit) {
		e->text[KUW_RANGE_INIT][0] = sinit;
		e->text[KUW_RANGE_INIT][1] = einit;
	}
	o.text_start = min(kuw_stext, sinit ? sinit : kuw_stext);
	o.text_end = max3(kuw_etext, end, einit);

	a = kuw_lookup_name("__eh_frame_start");
	b = kuw_lookup_name("__eh_frame_end");
	if (a && b > a)
		kuw_build(e, &o, KUW_SRC_EH_FRAME, a, b - a, "symbols");
	a = kuw_lookup_name("__sframe_start");
	b = kuw_lookup_name("__sframe_end");
	if (a && b > a)
		kuw_build(e, &o, KUW_SRC_SFRAME, a, b - a, "symbols");
	if (!e->tab[KUW_SRC_EH_FRAME] && !e->tab[KUW_SRC_SFRAME])
		pr_info("the kernel image keeps no unwind tables; write a blob to /dev/kunwind/load\n");

	mutex_lock(&kuw_reg_mutex);
	list_add_rcu(&e->list, &kuw_entries);
	mutex_unlock(&kuw_reg_mutex);
	return 0;
}

/**
 * kuw_registry_init() - register the kernel image and its tables
 *
 * Return: 0 or -errno (the kernel text could not be found).
 */
int kuw_registry_init(void)
{
	return kuw_add_vmlinux();
}

/**
 * kuw_registry_exit() - drop every table
 */
void kuw_registry_exit(void)
{
	struct kuw_entry *e, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&kuw_reg_mutex);
	kuw_reg_changed();
	/* unlinks, waits for a grace period, then hands the nodes over */
	list_splice_init_rcu(&kuw_entries, &dead, synchronize_rcu);
	mutex_unlock(&kuw_reg_mutex);
	list_for_each_entry_safe(e, tmp, &dead, list)
		kuw_entry_free(e);
}
