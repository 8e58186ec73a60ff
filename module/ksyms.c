// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols kunwind needs but the kernel does not export (the text
 * and table boundaries, get_stack_info(), ...): kallsyms_lookup_name(),
 * itself unexported since 5.7, whose address a kprobe on it gives.  The
 * one copy of this trick.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kprobes.h>
#include <linux/sched.h>
#include "kunwind_internal.h"

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

static void (*kuw_put_task_stack_fn)(struct task_struct *task);

/**
 * kuw_ksyms_init() - look up the unexported functions kunwind calls
 *
 * Return: 0.
 */
int kuw_ksyms_init(void)
{
	kuw_put_task_stack_fn = (void *)kuw_lookup_name("put_task_stack");
	return 0;
}

/**
 * kuw_put_task_stack() - put_task_stack(), not exported to modules
 * @task: a task whose stack was pinned with try_get_task_stack()
 *
 * Without it (kallsyms does not know it) the reference is leaked: the
 * stack stays allocated, which is safe.
 */
void kuw_put_task_stack(struct task_struct *task)
{
	if (kuw_put_task_stack_fn)
		kuw_put_task_stack_fn(task);
}
