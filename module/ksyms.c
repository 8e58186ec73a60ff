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
static bool (*kuw_kernel_text_fn)(unsigned long addr);

/**
 * kuw_ksyms_init() - look up the unexported functions kunwind calls
 *
 * Return: 0.
 */
int kuw_ksyms_init(void)
{
	kuw_put_task_stack_fn = (void *)kuw_lookup_name("put_task_stack");
	kuw_kernel_text_fn = (void *)kuw_lookup_name("__kernel_text_address");
	return 0;
}

/**
 * kuw_kernel_text() - __kernel_text_address(), not exported to modules
 * @addr: an address
 *
 * Kernel and module text, and text that exists at run time only (BPF JIT
 * images, ftrace trampolines, kprobe slots).
 *
 * Return: true for kernel text; false when unknown.
 */
bool kuw_kernel_text(unsigned long addr)
{
	return kuw_kernel_text_fn && kuw_kernel_text_fn(addr);
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

/**
 * kuw_lookup_range() - [start, end) of the function holding a symbol
 * @name: symbol name
 * @range: set to its start and end (end 0 when kallsyms has no size)
 */
void kuw_lookup_range(const char *name, unsigned long *range)
{
	static int (*size_off)(unsigned long addr, unsigned long *size,
			       unsigned long *off);
	unsigned long size, off;

	if (!size_off)
		size_off = (void *)kuw_lookup_name("kallsyms_lookup_size_offset");
	range[0] = kuw_lookup_name(name);
	range[1] = 0;
	if (range[0] && size_off && size_off(range[0], &size, &off) && !off)
		range[1] = range[0] + size;
}
