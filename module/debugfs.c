// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kunwind/: a read-only view (root only), which stays
 * readable on a locked-down kernel (debugfs refuses there only files that
 * can be written, or have ioctl or mmap).  kunwind's controls are the
 * nodes of /dev/kunwind/ (dev.c).
 *   tables     one line per table: owner, section, text range, FDEs, rows,
 *              bytes, where it came from
 *   stats      lookups, frames, unwinds, ORC-stepped frames, table load
 *              failures, and a counter for each stop reason
 *   internals  the unexported kernel functions kunwind found through
 *              kallsyms and calls (kuw_call(), kuw_call.h): "NAME 0xADDRESS
 *              CALLS" each, CALLS the kuw_call()s of it so far
 * Addresses (tables' text ranges, internals') are printed only when
 * kallsyms_show_value() allows the opener (kptr_restrict, CAP_SYSLOG), as
 * in /proc/kallsyms; else as 0.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include "kunwind.h"
#include "kunwind_internal.h"

static struct dentry *kuw_dir;

/* ---- tables ---- */

static int kuw_tables_show(struct seq_file *m, void *v)
{
	bool show = kuw_show_addresses(m->file->f_cred);
	const struct kuw_entry *e;
	int i;

	seq_puts(m, "owner section text fdes rows bytes from\n");
	mutex_lock(&kuw_reg_mutex);
	list_for_each_entry(e, &kuw_entries, list) {
		for (i = 0; i < KUW_SRC__COUNT; i++) {
			const struct kuw_table *t = e->tab[i];

			if (!t)
				continue;
			seq_printf(m, "%s %s 0x%lx-0x%lx %u %u %llu %s\n",
				   e->name, kuw_src_section(i),
				   show ? e->text[KUW_RANGE_CORE][0] : 0,
				   show ? e->text[KUW_RANGE_CORE][1] : 0, t->nfde,
				   t->nrows, (unsigned long long)t->bytes,
				   e->how[i] ? e->how[i] : "?");
		}
	}
	mutex_unlock(&kuw_reg_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kuw_tables);

/* ---- stats ---- */

static int kuw_stats_show(struct seq_file *m, void *v)
{
	struct kuw_counters sum = {};
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct kuw_counters *c = per_cpu_ptr(&kuw_counters, cpu);

		sum.lookups += READ_ONCE(c->lookups);
		sum.frames += READ_ONCE(c->frames);
		sum.unwinds += READ_ONCE(c->unwinds);
		sum.orc_frames += READ_ONCE(c->orc_frames);
		sum.rc_held += READ_ONCE(c->rc_held);
		sum.load_fail += READ_ONCE(c->load_fail);
		for (i = 0; i < KUW_E__COUNT; i++)
			sum.stops[i] += READ_ONCE(c->stops[i]);
	}
	seq_printf(m, "lookups %lu\nframes %lu\nunwinds %lu\norc_frames %lu\ntable_load_failures %lu\nrow_cache_held %lu\n",
		   sum.lookups, sum.frames, sum.unwinds, sum.orc_frames,
		   sum.load_fail, sum.rc_held);
	for (i = 1; i < KUW_E__COUNT; i++)
		seq_printf(m, "stop %lu %s\n", sum.stops[i], kuw_strerror(i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kuw_stats);

static int kuw_internals_show(struct seq_file *m, void *v)
{
	bool show = kuw_show_addresses(m->file->f_cred);
	const struct kuw_internal *in;
	unsigned int i;

	for (i = 0; (in = kuw_internal(i)); i++)
		seq_printf(m, "%s 0x%lx %lu\n", in->name,
			   show ? READ_ONCE(in->addr) : 0,
			   kuw_internal_calls(in));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kuw_internals);

/**
 * kuw_debugfs_init() - create /sys/kernel/debug/kunwind/
 *
 * Return: 0 (debugfs is optional).
 */
int kuw_debugfs_init(void)
{
	kuw_dir = debugfs_create_dir("kunwind", NULL);
	if (IS_ERR(kuw_dir))
		return 0;
	debugfs_create_file("tables", 0400, kuw_dir, NULL, &kuw_tables_fops);
	debugfs_create_file("stats", 0400, kuw_dir, NULL, &kuw_stats_fops);
	debugfs_create_file("internals", 0400, kuw_dir, NULL,
			    &kuw_internals_fops);
	return 0;
}

/**
 * kuw_debugfs_exit() - remove it
 */
void kuw_debugfs_exit(void)
{
	debugfs_remove_recursive(kuw_dir);
}
