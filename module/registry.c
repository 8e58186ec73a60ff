// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of unwind tables: one entry per object with text (the kernel
 * image, every module), each holding the compiled tables of its .eh_frame,
 * .debug_frame (vmlinux blob) and .sframe.
 *
 * Readers (the unwinder, in any context) walk an RCU list without locks;
 * writers (module notifier, debugfs load, init/exit) hold kuw_reg_mutex,
 * publish a complete entry with list_add_rcu()/list_replace_rcu() and free
 * what they unlinked only after synchronize_rcu().  Tables are built in
 * process context by the engine; nothing here understands their format.
 *
 * Where the tables come from:
 * - vmlinux: the section-boundary symbols __eh_frame_start/__eh_frame_end
 *   and __sframe_start/__sframe_end of a kernel that keeps them (the test
 *   kernel's linker-script patch), found with kallsyms_lookup_name(), whose
 *   address a kprobe gives us (it is not exported since 5.7).  A stock
 *   kernel keeps none: debugfs "load" takes a blob (kuw_registry_load_blob).
 * - modules loaded after kunwind: a kprobe on module_finalize(hdr, sechdrs,
 *   mod), which every architecture calls after relocation with the full
 *   ELF section headers, records where .eh_frame and .sframe landed and
 *   their exact sizes; the module notifier builds the tables at
 *   MODULE_STATE_COMING, before the module's init and before its KUnit
 *   suites run (the notifier is registered with a priority above KUnit's).
 * - modules already loaded (and kunwind itself, and any module whose load
 *   the kprobe missed): /sys/module/<name>/sections/, the public ABI that
 *   gives each loaded section's address (root only).  It gives no sizes:
 *   a section ends at the next section's address at most, and the module
 *   loader zero-fills its memory, so the padding after .eh_frame reads as
 *   a zero-length terminator; .sframe is bounded by its own header.
 * Only public struct module fields are used (name, state, list,
 * core_layout/init_layout base and text_size); no private structure.
 *
 * A module's FDEs of .init.text stay in its table, but the init range is
 * dropped from the entry at MODULE_STATE_LIVE, before the loader frees the
 * init text, so they are never matched again.
 */
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/elf.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/pgtable.h>
#include "kunwind.h"
#include "kunwind_internal.h"
#include "blob.h"
#include "arch.h"

LIST_HEAD(kuw_entries);
/* serializes writers of kuw_entries; readers use RCU */
DEFINE_MUTEX(kuw_reg_mutex);
DEFINE_PER_CPU(struct kuw_counters, kuw_counters);

static const char *const kuw_secnames[KUW_SRC__COUNT] = {
	[KUW_SRC_EH_FRAME] = ".eh_frame",
	[KUW_SRC_DEBUG_FRAME] = ".debug_frame",
	[KUW_SRC_SFRAME] = ".sframe",
};

/* ---- kallsyms_lookup_name through a kprobe ---- */

static unsigned long (*kuw_kallsyms_lookup_name)(const char *name);

/**
 * kuw_lookup_name() - address of a kernel symbol
 * @name: symbol name
 *
 * Return: the address, or 0 when unknown.  Process context.
 */
unsigned long kuw_lookup_name(const char *name)
{
	if (!kuw_kallsyms_lookup_name) {
		struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

		if (register_kprobe(&kp) < 0)
			return 0;
		kuw_kallsyms_lookup_name = (void *)kp.addr;
		unregister_kprobe(&kp);
		if (!kuw_kallsyms_lookup_name)
			return 0;
	}
	return kuw_kallsyms_lookup_name(name);
}

/* ---- entries ---- */

static struct kuw_entry *kuw_entry_alloc(const char *name)
{
	struct kuw_entry *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (e) {
		INIT_LIST_HEAD(&e->list);
		strscpy(e->name, name, sizeof(e->name));
	}
	return e;
}

/* Free an entry already unlinked and past a grace period. */
static void kuw_entry_free(struct kuw_entry *e)
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
bool kuw_registry_text(u64 pc)
{
	return kuw_registry_find(pc, NULL);
}

/*
 * Bumped (before the grace period) whenever an entry is unlinked, so that
 * an unwind can tell whether pointers it cached in an earlier read-side
 * section may be stale.
 */
unsigned int kuw_reg_seq;

static void kuw_reg_changed(void)
{
	WRITE_ONCE(kuw_reg_seq, kuw_reg_seq + 1);
	smp_wmb();	/* the new value is seen before the grace period ends */
}

static struct kuw_entry *kuw_find_mod(struct module *mod)
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
	pr_warn("kunwind: %s: %s rejected: %s at %s+0x%llx\n", owner,
		kuw_secnames[src], kuw_strerror(d->err ? d->err : ret),
		d->section ? d->section : kuw_secnames[src],
		(unsigned long long)d->off);
}

/* Build one table; a failure leaves the entry without it and says why. */
static void kuw_build(struct kuw_entry *e, const struct kuw_obj *o, int src,
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
	pr_info("kunwind: %s %s: %u fdes %u rows %u rules %llu bytes built in %llu ns\n",
		e->name, kuw_secnames[src], t->nfde, t->nrows, t->nrules,
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

/* ---- vmlinux ---- */

static unsigned long kuw_stext, kuw_etext;

static int kuw_add_vmlinux(void)
{
	unsigned long end, sinit, einit;
	struct kuw_obj o = { .owner = "vmlinux", .arch = KUW_ARCH_X86_64 };
	struct kuw_entry *e;
	unsigned long a, b;

	kuw_stext = kuw_lookup_name("_stext");
	kuw_etext = kuw_lookup_name("_etext");
	end = kuw_lookup_name("_end");
	if (!kuw_stext || !kuw_etext || kuw_etext <= kuw_stext) {
		pr_warn("kunwind: cannot find the kernel text (kallsyms)\n");
		return -ENOENT;
	}
	e = kuw_entry_alloc("vmlinux");
	if (!e)
		return -ENOMEM;
	e->text[KUW_RANGE_CORE][0] = kuw_stext;
	e->text[KUW_RANGE_CORE][1] = kuw_etext;
	/* init text is freed after boot: not matched, but FDEs point there */
	sinit = kuw_lookup_name("_sinittext");
	einit = kuw_lookup_name("_einittext");
	o.text_start = kuw_stext;
	o.text_end = max3(kuw_etext, end, einit);
	(void)sinit;

	a = kuw_lookup_name("__eh_frame_start");
	b = kuw_lookup_name("__eh_frame_end");
	if (a && b > a)
		kuw_build(e, &o, KUW_SRC_EH_FRAME, a, b - a, "symbols");
	a = kuw_lookup_name("__sframe_start");
	b = kuw_lookup_name("__sframe_end");
	if (a && b > a)
		kuw_build(e, &o, KUW_SRC_SFRAME, a, b - a, "symbols");
	if (!e->tab[KUW_SRC_EH_FRAME] && !e->tab[KUW_SRC_SFRAME])
		pr_info("kunwind: the kernel image keeps no unwind tables; write a blob to debugfs kunwind/load\n");

	mutex_lock(&kuw_reg_mutex);
	list_add_rcu(&e->list, &kuw_entries);
	mutex_unlock(&kuw_reg_mutex);
	return 0;
}

/**
 * kuw_registry_load_blob() - add the kernel image's table from a blob
 * @buf: the blob (vmalloc'ed; on success the registry owns it)
 * @len: its length
 * @d: where a rejection was found
 *
 * The blob is parsed and the table built and relocated before anything is
 * published: a bad blob changes nothing.  A new vmlinux entry replaces the
 * old one; the old one is freed after a grace period.
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kuw_registry_load_blob(const u8 *buf, size_t len, struct kuw_diag *d)
{
	struct kuw_entry *old, *e;
	struct kuw_table *t = NULL;
	struct kuw_blob b;
	s64 delta;
	int ret, i;

	ret = kuw_blob_parse(buf, len, &b, d);
	if (ret)
		return ret;
	if (b.obj.arch != KUW_ARCH_X86_64)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_ARCH, KUW_E_INVAL);
	if (!kuw_stext)
		return kuw_fail(d, "blob", 0, KUW_E_INVAL);
	delta = (s64)(kuw_stext - b.stext);
	/* the blob's text must be this kernel's text once moved */
	if (b.obj.text_start + delta > kuw_stext ||
	    b.obj.text_end + delta < kuw_etext)
		return kuw_fail(d, "blob", KUW_BLOB_OFF_TEXT_START,
				KUW_E_BADRANGE);
	ret = kuw_table_build(&b.obj, b.src, &b.sec, &t, d);
	if (ret)
		return ret;
	kuw_table_relocate(t, delta);

	mutex_lock(&kuw_reg_mutex);
	old = kuw_find_mod(NULL);
	e = kuw_entry_alloc("vmlinux");
	if (!old || !e) {
		mutex_unlock(&kuw_reg_mutex);
		kfree(e);
		kuw_table_free(t);
		return old ? -KUW_E_NOMEM : -KUW_E_INVAL;
	}
	/*
	 * The new entry takes over every table (and the blob backing it) but
	 * the one of the blob's source; the old entry keeps that one and
	 * frees it after the grace period.
	 */
	memcpy(e->text, old->text, sizeof(e->text));
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		if (i == b.src)
			continue;
		e->tab[i] = old->tab[i];
		e->blob[i] = old->blob[i];
		e->sec_addr[i] = old->sec_addr[i];
		e->sec_size[i] = old->sec_size[i];
		e->how[i] = old->how[i];
		old->tab[i] = NULL;
		old->blob[i] = NULL;
	}
	e->tab[b.src] = t;
	e->blob[b.src] = (void *)buf;
	e->sec_addr[b.src] = b.sec.addr + delta;
	e->sec_size[b.src] = b.sec.size;
	e->how[b.src] = "blob";
	list_replace_rcu(&old->list, &e->list);
	kuw_reg_changed();
	mutex_unlock(&kuw_reg_mutex);
	synchronize_rcu();
	kuw_entry_free(old);
	return 0;
}

/**
 * kunwind_load_blob() - add the kernel image's table from a vmlinux blob
 * @buf: the blob (copied; see include/kunwind/blob.h for the format)
 * @len: its length
 *
 * What debugfs kunwind/load does, for in-kernel users (a blob fetched with
 * request_firmware(), tests).  Process context.  The blob is validated
 * whole first: a bad one changes nothing.
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kunwind_load_blob(const void *buf, size_t len)
{
	struct kuw_diag d = {};
	u8 *copy;
	int ret;

	if (!buf || !len || len > KUW_BLOB_HDR_SIZE + (size_t)KUW_BLOB_MAX_SEC)
		return -KUW_E_INVAL;
	copy = kvmalloc(len, GFP_KERNEL);
	if (!copy)
		return -KUW_E_NOMEM;
	memcpy(copy, buf, len);
	ret = kuw_registry_load_blob(copy, len, &d);
	if (ret) {
		pr_warn_ratelimited("kunwind: blob refused: %s at %s+0x%llx\n",
				    kuw_strerror(d.err ? d.err : ret),
				    d.section ? d.section : "blob",
				    (unsigned long long)d.off);
		kvfree(copy);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(kunwind_load_blob);

/* ---- modules ---- */

/* What the module_finalize kprobe saw, consumed at MODULE_STATE_COMING. */
#define KUW_PENDING 8
struct kuw_pending {
	struct module *mod;
	u64 addr[KUW_SRC__COUNT];
	u64 size[KUW_SRC__COUNT];
	u64 init_lo, init_hi;	/* where freed init text was (sysfs) */
};

/*
 * The kprobe handler runs in int3 context (NMI-like for lockdep), so the
 * slots take no lock: a slot is claimed by moving its state FREE or READY
 * -> BUSY with cmpxchg, written or read, then released (READY or FREE).
 */
enum { KUW_SLOT_FREE, KUW_SLOT_BUSY, KUW_SLOT_READY };

static struct kuw_pending kuw_pend[KUW_PENDING];
static atomic_t kuw_pend_state[KUW_PENDING];
static atomic_t kuw_pend_next;

/* Claim a READY slot holding @mod; returns the slot or -1. */
static int kuw_pend_claim(struct module *mod)
{
	int i;

	for (i = 0; i < KUW_PENDING; i++) {
		if (atomic_read_acquire(&kuw_pend_state[i]) != KUW_SLOT_READY ||
		    READ_ONCE(kuw_pend[i].mod) != mod)
			continue;
		if (atomic_cmpxchg(&kuw_pend_state[i], KUW_SLOT_READY,
				   KUW_SLOT_BUSY) != KUW_SLOT_READY)
			continue;
		if (kuw_pend[i].mod == mod)
			return i;
		atomic_set_release(&kuw_pend_state[i], KUW_SLOT_READY);
	}
	return -1;
}

/*
 * module_finalize(hdr, sechdrs, mod) runs after relocation, before the
 * COMING notifier; the section headers carry final addresses and sizes.
 * Atomic context: record them, build later.
 */
static int kuw_finalize_pre(struct kprobe *p, struct pt_regs *regs)
{
	const Elf_Ehdr *hdr = (const Elf_Ehdr *)regs->di;
	const Elf_Shdr *sechdrs = (const Elf_Shdr *)regs->si;
	struct module *mod = (struct module *)regs->dx;
	struct kuw_pending rec = { .mod = mod };
	const char *secstrings;
	unsigned int i;
	int src, slot;

	if (!hdr || !sechdrs || !mod || hdr->e_shstrndx >= hdr->e_shnum)
		return 0;
	secstrings = (const char *)hdr + sechdrs[hdr->e_shstrndx].sh_offset;
	for (i = 1; i < hdr->e_shnum; i++) {
		const Elf_Shdr *s = &sechdrs[i];

		if (!(s->sh_flags & SHF_ALLOC) || !s->sh_size)
			continue;
		for (src = 0; src < KUW_SRC__COUNT; src++) {
			if (strcmp(secstrings + s->sh_name, kuw_secnames[src]))
				continue;
			rec.addr[src] = s->sh_addr;
			rec.size[src] = s->sh_size;
		}
	}
	/* a new load at the same struct module address overrides */
	slot = kuw_pend_claim(mod);
	for (i = 0; slot < 0 && i < 2 * KUW_PENDING; i++) {
		/* a free slot, else the next one round (a load that failed) */
		int n = (unsigned int)atomic_inc_return(&kuw_pend_next) %
			KUW_PENDING;

		if (atomic_cmpxchg(&kuw_pend_state[n], KUW_SLOT_FREE,
				   KUW_SLOT_BUSY) == KUW_SLOT_FREE ||
		    (i >= KUW_PENDING &&
		     atomic_cmpxchg(&kuw_pend_state[n], KUW_SLOT_READY,
				    KUW_SLOT_BUSY) == KUW_SLOT_READY))
			slot = n;
	}
	if (slot < 0)
		return 0;	/* eight loads at once: this one gets no record */
	kuw_pend[slot] = rec;
	atomic_set_release(&kuw_pend_state[slot], KUW_SLOT_READY);
	return 0;
}

static struct kprobe kuw_finalize_kp = {
	.symbol_name = "module_finalize",
	.pre_handler = kuw_finalize_pre,
};

static bool kuw_finalize_kp_on;

static bool kuw_take_pending(struct module *mod, struct kuw_pending *out)
{
	int slot = kuw_pend_claim(mod);

	if (slot < 0)
		return false;
	if (out)
		*out = kuw_pend[slot];
	kuw_pend[slot].mod = NULL;
	atomic_set_release(&kuw_pend_state[slot], KUW_SLOT_FREE);
	return true;
}

static void kuw_mod_ranges(struct kuw_entry *e, struct module *mod,
			   struct kuw_obj *o)
{
	unsigned long cs = (unsigned long)mod->core_layout.base;
	unsigned long ce = cs + mod->core_layout.text_size;
	unsigned long is = (unsigned long)mod->init_layout.base;
	unsigned long ie = is + mod->init_layout.text_size;

	e->mod = mod;
	e->text[KUW_RANGE_CORE][0] = cs;
	e->text[KUW_RANGE_CORE][1] = ce;
	if (is && ie > is && mod->state != MODULE_STATE_LIVE) {
		e->text[KUW_RANGE_INIT][0] = is;
		e->text[KUW_RANGE_INIT][1] = ie;
	}
	o->owner = e->name;
	o->arch = KUW_ARCH_X86_64;
	o->flags = KUW_OBJ_RELOCATED;
	o->text_start = cs;
	o->text_end = ce;
	if (is && ie > is) {	/* FDEs of init text, freed or not */
		o->text_start = min(o->text_start, is);
		o->text_end = max(o->text_end, ie);
	}
}

/* ---- /sys/module/<name>/sections ---- */

#define KUW_MAX_SECTS	256
struct kuw_sect {
	char name[48];
	unsigned long addr;
};

struct kuw_dirctx {
	struct dir_context ctx;
	struct kuw_sect *s;
	unsigned int n;
};

static bool kuw_filldir(struct dir_context *ctx, const char *name, int len,
			loff_t off, u64 ino, unsigned int type)
{
	struct kuw_dirctx *c = container_of(ctx, struct kuw_dirctx, ctx);

	if (c->n >= KUW_MAX_SECTS)
		return false;
	if (len <= 0 || len >= (int)sizeof(c->s[0].name) ||
	    (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.'))))
		return true;
	memcpy(c->s[c->n].name, name, len);
	c->s[c->n].name[len] = 0;
	c->n++;
	return true;
}

static int kuw_read_addr(const char *mod, const char *sec, unsigned long *v)
{
	char path[128], buf[32];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", mod, sec);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return n ? n : -EINVAL;
	buf[n] = 0;
	return kstrtoul(strim(buf), 16, v);
}

/* The lowest section address above @a, at most @limit. */
static unsigned long kuw_next_sect(const struct kuw_dirctx *c,
				   unsigned long a, unsigned long limit)
{
	unsigned int j;

	for (j = 0; j < c->n; j++)
		if (c->s[j].addr > a && c->s[j].addr < limit)
			limit = c->s[j].addr;
	return limit;
}

/*
 * Addresses of @mod's loaded sections from sysfs; for each table source,
 * the section's address and an upper bound of its size.
 */
static int kuw_sysfs_sections(struct module *mod, struct kuw_pending *rec)
{
	struct kuw_dirctx c = { .ctx.actor = kuw_filldir };
	unsigned long core_end = (unsigned long)mod->core_layout.base +
				 mod->core_layout.size;
	char path[96];
	struct file *dir;
	bool found = false;
	unsigned int i;
	int ret, src;

	c.s = kvcalloc(KUW_MAX_SECTS, sizeof(*c.s), GFP_KERNEL);
	if (!c.s)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/sys/module/%s/sections", mod->name);
	dir = filp_open(path, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(dir)) {
		ret = PTR_ERR(dir);
		goto out;
	}
	ret = iterate_dir(dir, &c.ctx);
	filp_close(dir, NULL);
	if (ret)
		goto out;
	/* most modules have no unwind table: read no address then */
	for (i = 0; i < c.n && !found; i++)
		for (src = 0; src < KUW_SRC__COUNT; src++)
			if (!strcmp(c.s[i].name, kuw_secnames[src]))
				found = true;
	if (!found)
		goto out;
	for (i = 0; i < c.n; i++)
		if (kuw_read_addr(mod->name, c.s[i].name, &c.s[i].addr))
			c.s[i].addr = 0;
	for (src = 0; src < KUW_SRC__COUNT; src++) {
		unsigned long a = 0, bound = core_end;

		for (i = 0; i < c.n; i++)
			if (!strcmp(c.s[i].name, kuw_secnames[src]))
				a = c.s[i].addr;
		if (!a || a < (unsigned long)mod->core_layout.base ||
		    a >= core_end)
			continue;
		bound = kuw_next_sect(&c, a, core_end);
		rec->addr[src] = a;
		rec->size[src] = bound - a;
		/*
		 * .eh_frame entries are 4-byte multiples and the padding up
		 * to the next section is zeros: whole zero words, read as a
		 * terminator.
		 */
		if (src == KUW_SRC_EH_FRAME)
			rec->size[src] &= ~3ULL;
	}
	/*
	 * Init text is gone once a module is live, but its FDEs are still in
	 * .eh_frame: sysfs keeps the old address, so they still validate.
	 */
	for (i = 0; i < c.n; i++) {
		if (strcmp(c.s[i].name, ".init.text") || !c.s[i].addr)
			continue;
		rec->init_lo = c.s[i].addr;
		rec->init_hi = kuw_next_sect(&c, c.s[i].addr,
					     c.s[i].addr + SZ_16M);
	}
out:
	kvfree(c.s);
	return ret;
}

/*
 * Register @mod (once): tables from the kprobe's record, else from sysfs.
 * Process context, kuw_reg_mutex not held.
 */
static int kuw_add_mod(struct module *mod, bool sysfs)
{
	struct kuw_pending rec = {};
	struct kuw_entry *e;
	struct kuw_obj o = {};
	const char *how = "kprobe";
	int src;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_mod(mod);
	mutex_unlock(&kuw_reg_mutex);
	if (e)
		return 0;
	if (!kuw_take_pending(mod, &rec) || rec.mod != mod) {
		memset(&rec, 0, sizeof(rec));
		if (sysfs && !kuw_sysfs_sections(mod, &rec))
			how = "sysfs";
	}
	e = kuw_entry_alloc(mod->name);
	if (!e)
		return -ENOMEM;
	kuw_mod_ranges(e, mod, &o);
	if (rec.init_lo && rec.init_hi > rec.init_lo) {
		o.text_start = min(o.text_start, rec.init_lo);
		o.text_end = max(o.text_end, rec.init_hi);
	}
	for (src = 0; src < KUW_SRC__COUNT; src++)
		kuw_build(e, &o, src, rec.addr[src], rec.size[src], how);

	mutex_lock(&kuw_reg_mutex);
	if (kuw_find_mod(mod)) {	/* raced with the notifier */
		mutex_unlock(&kuw_reg_mutex);
		kuw_entry_free(e);
		return 0;
	}
	list_add_tail_rcu(&e->list, &kuw_entries);
	mutex_unlock(&kuw_reg_mutex);
	return 0;
}

/**
 * kuw_registry_add_module() - register a module now (tests, init)
 * @mod: a module in state COMING or LIVE
 *
 * Return: 0 or -errno.
 */
int kuw_registry_add_module(struct module *mod)
{
	return kuw_add_mod(mod, true);
}

static void kuw_del_mod(struct module *mod)
{
	struct kuw_entry *e;
	unsigned int i;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_mod(mod);
	if (e) {
		list_del_rcu(&e->list);
		kuw_reg_changed();
	}
	mutex_unlock(&kuw_reg_mutex);
	for (i = 0; i < KUW_PENDING; i++)	/* a load that never came */
		if (!kuw_take_pending(mod, NULL))
			break;
	if (!e)
		return;
	synchronize_rcu();	/* no unwinder still reads its tables */
	kuw_entry_free(e);
}

/**
 * kunwind_reread_module() - rebuild a module's tables from sysfs
 * @name: a loaded module's name
 *
 * Drops the module's tables and builds them again from
 * /sys/module/<name>/sections, the path taken for modules loaded before
 * kunwind (tests compare it with the kprobe path).  Process context; the
 * module has no tables for a moment.
 *
 * Return: 0, -ENOENT when kunwind knows no such module, or -errno.
 */
int kunwind_reread_module(const char *name)
{
	struct module *mod = NULL;
	struct kuw_entry *e;
	int ret;

	mutex_lock(&kuw_reg_mutex);
	list_for_each_entry(e, &kuw_entries, list)
		if (e->mod && !strcmp(e->name, name) && try_module_get(e->mod))
			mod = e->mod;
	mutex_unlock(&kuw_reg_mutex);
	if (!mod)
		return -ENOENT;
	kuw_del_mod(mod);
	ret = kuw_add_mod(mod, true);
	module_put(mod);
	return ret;
}
EXPORT_SYMBOL_GPL(kunwind_reread_module);

static void kuw_mod_live(struct module *mod)
{
	struct kuw_entry *e;

	mutex_lock(&kuw_reg_mutex);
	e = kuw_find_mod(mod);
	if (e) {
		/* the loader frees init text after a grace period */
		WRITE_ONCE(e->text[KUW_RANGE_INIT][1], 0);
		WRITE_ONCE(e->text[KUW_RANGE_INIT][0], 0);
		kuw_reg_changed();
	}
	mutex_unlock(&kuw_reg_mutex);
	if (!e)		/* the kprobe missed it: sysfs exists by now */
		kuw_add_mod(mod, true);
}

static int kuw_module_notify(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct module *mod = data;

	switch (val) {
	case MODULE_STATE_COMING:
		kuw_add_mod(mod, false);
		break;
	case MODULE_STATE_LIVE:
		kuw_mod_live(mod);
		break;
	case MODULE_STATE_GOING:
		kuw_del_mod(mod);
		break;
	}
	return NOTIFY_OK;
}

/* Above KUnit's (0): a module's suites run from its COMING notifier. */
static struct notifier_block kuw_module_nb = {
	.notifier_call = kuw_module_notify,
	.priority = 10,
};

/* x86_64 modules live in [MODULES_VADDR, MODULES_END). */
static bool kuw_in_module_area(const void *p)
{
	unsigned long a = (unsigned long)p;

	return a >= MODULES_VADDR && a < MODULES_END;
}

/*
 * Modules loaded before kunwind (and kunwind itself).  The module list's
 * head is not exported; walk the ring from our own node and skip the head,
 * the one node outside the module area.  Pin each with try_module_get()
 * under RCU, register them after.
 */
static void kuw_scan_loaded(void)
{
	struct module **pin, *m;
	struct list_head *p;
	unsigned int n = 0, i;

	pin = kvcalloc(1024, sizeof(*pin), GFP_KERNEL);
	if (!pin)
		return;
	rcu_read_lock();
	for (p = rcu_dereference(list_next_rcu(&THIS_MODULE->list));
	     p != &THIS_MODULE->list && n < 1023;
	     p = rcu_dereference(list_next_rcu(p))) {
		if (!kuw_in_module_area(p))
			continue;
		m = list_entry(p, struct module, list);
		if (m->state == MODULE_STATE_UNFORMED)
			continue;
		if (try_module_get(m))
			pin[n++] = m;
	}
	rcu_read_unlock();
	pin[n++] = THIS_MODULE;
	for (i = 0; i < n; i++) {
		kuw_add_mod(pin[i], true);
		if (pin[i] != THIS_MODULE)
			module_put(pin[i]);
	}
	kvfree(pin);
}

/**
 * kuw_registry_init() - find the tables of the kernel and of every module
 *
 * Return: 0 or -errno (the kernel text could not be found).
 */
int kuw_registry_init(void)
{
	int ret;

	ret = kuw_add_vmlinux();
	if (ret)
		return ret;
	ret = register_kprobe(&kuw_finalize_kp);
	if (ret)
		pr_warn("kunwind: no kprobe on module_finalize (%d): new modules are read from sysfs once live\n",
			ret);
	else
		kuw_finalize_kp_on = true;
	ret = register_module_notifier(&kuw_module_nb);
	if (ret) {
		if (kuw_finalize_kp_on)
			unregister_kprobe(&kuw_finalize_kp);
		kuw_registry_exit();
		return ret;
	}
	kuw_scan_loaded();
	return 0;
}

/**
 * kuw_registry_exit() - drop every table
 */
void kuw_registry_exit(void)
{
	struct kuw_entry *e, *tmp;
	LIST_HEAD(dead);

	if (kuw_finalize_kp_on) {
		unregister_kprobe(&kuw_finalize_kp);
		kuw_finalize_kp_on = false;
	}
	unregister_module_notifier(&kuw_module_nb);
	mutex_lock(&kuw_reg_mutex);
	kuw_reg_changed();
	/* unlinks, waits for a grace period, then hands the nodes over */
	list_splice_init_rcu(&kuw_entries, &dead, synchronize_rcu);
	mutex_unlock(&kuw_reg_mutex);
	list_for_each_entry_safe(e, tmp, &dead, list)
		kuw_entry_free(e);
}
