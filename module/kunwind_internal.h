/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel glue internals shared by the glue files (main, ksyms, registry,
 * modules, blob_load, unwind, oops, debugfs).  No format knowledge here:
 * tables come from the engine; no arch knowledge: that is kuw_arch.h.
 */
#ifndef KUNWIND_INTERNAL_H
#define KUNWIND_INTERNAL_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include "engine.h"
#include "fast.h"
#include "kunwind.h"
#include "kuw_call.h"

/*
 * One object with text: the kernel image or one module.  Published on an
 * RCU list; never changed in place except @text[KUW_RANGE_INIT], which is
 * cleared once a module's init text is gone.  Replaced (not edited) when a
 * table is added, freed after a grace period.
 */
enum { KUW_RANGE_CORE, KUW_RANGE_INIT, KUW_NRANGES };

struct kuw_entry {
	struct list_head list;
	struct module *mod;			/* NULL for vmlinux */
	char name[MODULE_NAME_LEN];
	unsigned long text[KUW_NRANGES][2];	/* [start, end) */
	struct kuw_table *tab[KUW_SRC__COUNT];
	u64 sec_addr[KUW_SRC__COUNT];		/* where each table came from */
	u64 sec_size[KUW_SRC__COUNT];
	const char *how[KUW_SRC__COUNT];	/* "symbols", "kprobe", "sysfs", "blob" */
	void *blob[KUW_SRC__COUNT];		/* owns a blob table's section */
};

/*
 * Counters; per CPU so the unwind path touches no shared cache line.  The
 * unwind path's (lookups, frames) count with raw_cpu_inc() or, once per
 * batch of steps (unwind.c), raw_cpu_add(): a plain read-modify-write
 * where the arch has no single instruction for it (arm64), so that an IRQ
 * or NMI walk on the same CPU in between may lose its count, a statistic.
 */
struct kuw_counters {
	unsigned long lookups;
	unsigned long frames;
	unsigned long unwinds;
	unsigned long orc_frames;
	unsigned long rc_held;	/* batches that found the row cache held */
	unsigned long stops[KUW_E__COUNT];
	unsigned long load_fail;
};

DECLARE_PER_CPU(struct kuw_counters, kuw_counters);

static inline void kuw_count_stop(int err)
{
	if (err < 0)
		err = -err;
	if (err < KUW_E__COUNT)
		this_cpu_inc(kuw_counters.stops[err]);
}

/* ksyms.c */
struct kuw_internal;
#define KUW_MAX_INTERNALS	16
unsigned long kuw_lookup_name(const char *name);
unsigned long kuw_note_internal(struct kuw_internal *in);
const struct kuw_internal *kuw_internal(unsigned int i);

/*
 * kuw_lookup_fn(fn): look up the function @fn (KUW_INTERNAL(fn), kuw_call.h)
 * in kallsyms, point its static call there and list it in debugfs
 * kunwind/internals.  Process context.  Return: its address, or 0.
 */
#define kuw_lookup_fn(fn)						\
	kuw_note_internal(kuw_set_fn(fn, kuw_lookup_name(#fn)))
void kuw_lookup_range(const char *name, unsigned long *range);
bool kuw_fn_extent(unsigned long addr, unsigned long *start,
		   unsigned long *size);
int kuw_ksyms_init(void);
void kuw_put_task_stack(struct task_struct *task);
bool kuw_kernel_text(unsigned long addr);

/* registry.c */
extern struct list_head kuw_entries;	/* RCU list of struct kuw_entry */
extern struct mutex kuw_reg_mutex;	/* writers */
extern unsigned long kuw_stext, kuw_etext;	/* the kernel text */

int kuw_registry_init(void);
void kuw_registry_exit(void);
extern unsigned int kuw_reg_seq;	/* bumped when an entry goes */
struct kuw_entry *kuw_entry_alloc(const char *name);
void kuw_entry_free(struct kuw_entry *e);
void kuw_reg_changed(void);
struct kuw_entry *kuw_find_mod(struct module *mod);
void kuw_build(struct kuw_entry *e, const struct kuw_obj *o, int src,
	       u64 addr, u64 size, const char *how);

int kuw_registry_lookup(u64 pc, u8 src, const struct kuw_entry **entry,
			const struct kuw_table **table,
			const struct kuw_rule **rule, u64 *row_pc);
bool kuw_registry_text(u64 pc);

/* blob_load.c */
struct kuw_blob;
int kuw_registry_load_blob(const u8 *buf, size_t len, bool trusted,
			   struct kuw_diag *d);
size_t kuw_blob_total(const u8 *hdr);
int kuw_blob_apply(u8 *buf, size_t len);
int kuw_registry_drop_table(const char *owner, int src, bool user);

/* lockdown.c */
int kuw_lockdown_init(void);
int kuw_lockdown_blob(const char *owner, bool *trusted);
int kuw_lockdown_drop(const char *owner, int src);

/* dev.c */
int kuw_dev_init(void);
void kuw_dev_exit(void);
struct cred;
bool kuw_show_addresses(const struct cred *cred);

/* modules.c */
int kuw_modules_init(void);
void kuw_modules_exit(void);
int kuw_registry_add_module(struct module *mod);
ssize_t kuw_read_file(const char *path, void *buf, size_t len);
unsigned long kuw_sysfs_table_end(struct module *mod, int src,
				  unsigned long addr);
struct module *kuw_module_get(const char *name);
int kuw_module_remap(struct module *mod, struct kuw_blob *b,
		     struct kuw_remap *map, struct kuw_diag *d);

/* The unwind path's look-ups, inline: one call less per frame. */

static __always_inline bool kuw_entry_covers(const struct kuw_entry *e, u64 pc)
{
	return (pc >= READ_ONCE(e->text[KUW_RANGE_CORE][0]) &&
		pc < READ_ONCE(e->text[KUW_RANGE_CORE][1])) ||
	       (pc >= READ_ONCE(e->text[KUW_RANGE_INIT][0]) &&
		pc < READ_ONCE(e->text[KUW_RANGE_INIT][1]));
}

/**
 * kuw_registry_find() - the object whose text holds a pc
 * @pc: the address
 * @hint: an entry to try first (the previous frame's), or NULL
 *
 * Caller holds rcu_read_lock(); a @hint must come from the same read-side
 * section or be validated with kuw_reg_seq.
 *
 * Return: the entry or NULL.
 */
static __always_inline const struct kuw_entry *
kuw_registry_find(u64 pc, const struct kuw_entry *hint)
{
	const struct kuw_entry *e;

	if (hint && kuw_entry_covers(hint, pc))
		return hint;
	list_for_each_entry_rcu(e, &kuw_entries, list)
		if (kuw_entry_covers(e, pc))
			return e;
	return NULL;
}

/**
 * __kuw_entry_lookup() - the row of one object's tables for a pc, uncounted
 * @e: the object
 * @pc: the address (already pc - 1 for a return address)
 * @src: KUNWIND_SRC_ANY or one enum kuw_src
 * @table: set to the table used
 * @rule: set to the rule
 * @row_pc: set to the row's start
 *
 * Without a forced source: .eh_frame, then .debug_frame, then .sframe.
 * Return: 0 or -KUW_E_NOINFO.
 */
static __always_inline int __kuw_entry_lookup(const struct kuw_entry *e,
					      u64 pc, u8 src,
					      const struct kuw_table **table,
					      const struct kuw_rule **rule,
					      u64 *row_pc)
{
	static const u8 order[KUW_SRC__COUNT] = {
		KUW_SRC_EH_FRAME, KUW_SRC_DEBUG_FRAME, KUW_SRC_SFRAME,
	};
	const struct kuw_table *t;
	int i;

	for (i = 0; i < KUW_SRC__COUNT; i++) {
		t = e->tab[src < KUW_SRC__COUNT ? src : order[i]];
		if (t && !kuw_table_find(t, pc, rule, row_pc)) {
			*table = t;
			return 0;
		}
		if (src < KUW_SRC__COUNT)
			break;
	}
	return -KUW_E_NOINFO;
}

/*
 * __kuw_entry_lookup(), counted in the lookups statistic (the unwind
 * path's batches count their common steps' look-ups once, unwind.c).
 */
static __always_inline int kuw_entry_lookup(const struct kuw_entry *e, u64 pc,
					    u8 src,
					    const struct kuw_table **table,
					    const struct kuw_rule **rule,
					    u64 *row_pc)
{
	raw_cpu_inc(kuw_counters.lookups);	/* see struct kuw_counters */
	return __kuw_entry_lookup(e, pc, src, table, rule, row_pc);
}

/* unwind.c */
void kuw_unwind_init(void);
struct kunwind_state *kuw_walk_get(bool oops);
void kuw_walk_put(struct kunwind_state *st);
void kuw_walk_start(struct kunwind_state *state, struct task_struct *task,
		    struct pt_regs *regs, bool lean);
void kuw_unwind_exit(void);
const char *kuw_how_name(u8 how);

/* oops.c */
int kuw_oops_init(void);
void kuw_oops_exit(void);

/* serve.c: kunwind's versions of the kernel's stack-trace consumers */
enum kuw_consumer {
	KUW_CONS_SAVE,		/* stack_trace_save() */
	KUW_CONS_SAVE_TSK,	/* stack_trace_save_tsk() */
	KUW_CONS_SAVE_REGS,	/* stack_trace_save_regs() */
	KUW_CONS_SAVE_RELIABLE,	/* stack_trace_save_tsk_reliable() */
	KUW_CONS_PERF,		/* perf_callchain_kernel() */
	KUW_CONS__COUNT
};

struct kuw_serve_counters {
	unsigned long n[KUW_CONS__COUNT][KUNWIND_CONS__N];
};

DECLARE_PER_CPU(struct kuw_serve_counters, kuw_serve_counters);

int kuw_serve_init(void);
void *kuw_serve_fn(int c, const char **name);

/* consumers.c: the switch */
struct seq_file;
int kuw_consumers_init(void);
void kuw_consumers_exit(void);
int kuw_consumers_show(struct seq_file *m, void *v);
int kuw_consumers_switch(bool on);

/* debugfs.c */
int kuw_debugfs_init(void);
void kuw_debugfs_exit(void);

#endif /* KUNWIND_INTERNAL_H */
