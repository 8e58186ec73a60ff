// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols kunwind needs but the kernel does not export (the text
 * and table boundaries, get_stack_info(), ...): kallsyms_lookup_name(),
 * itself unexported since 5.7, whose address a kprobe on it gives.  The
 * one copy of this trick.
 *
 * Every function found here is called with kuw_call() (kuw_call.h): a
 * static call typed from the kernel header that declares the function, a
 * direct call on x86 (IBT-safe).  Each one found is listed in debugfs
 * kunwind/internals with its calls (a guest check compares the addresses
 * with /proc/kallsyms and asserts each was called).
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include "kunwind_internal.h"
#include "kuw_call.h"

KUW_INTERNAL(kallsyms_lookup_name);
KUW_INTERNAL(kallsyms_lookup_size_offset);
KUW_INTERNAL(put_task_stack);
KUW_INTERNAL(__kernel_text_address);

/* The functions found so far, for debugfs kunwind/internals. */
static const struct kuw_internal *kuw_internals[KUW_MAX_INTERNALS];
static unsigned int kuw_ninternals;
static DEFINE_MUTEX(kuw_internals_lock);

/**
 * kuw_note_internal() - list a function kunwind calls in debugfs internals
 * @in: its struct kuw_internal, after kuw_set_fn()
 *
 * Listed once, and only when found.
 *
 * Return: its address, or 0.
 */
unsigned long kuw_note_internal(struct kuw_internal *in)
{
	unsigned long addr = READ_ONCE(in->addr);
	unsigned int i;

	if (!addr)
		return 0;
	mutex_lock(&kuw_internals_lock);
	for (i = 0; i < kuw_ninternals; i++)
		if (kuw_internals[i] == in)
			break;
	if (i == kuw_ninternals && i < ARRAY_SIZE(kuw_internals)) {
		kuw_internals[i] = in;
		/* the entry before the count: kuw_internal() reads locklessly */
		smp_store_release(&kuw_ninternals, i + 1);
	}
	mutex_unlock(&kuw_internals_lock);
	return addr;
}

/**
 * kuw_internal() - one of the kernel functions kunwind found and calls
 * @i: its index
 *
 * Return: the entry, or NULL past the last.
 */
const struct kuw_internal *kuw_internal(unsigned int i)
{
	/* pairs with the release in kuw_note_internal() */
	return i < smp_load_acquire(&kuw_ninternals) ? kuw_internals[i] : NULL;
}

/*
 * A kprobe on kallsyms_lookup_name() gives its address: past the ENDBR on
 * an IBT kernel (arch_adjust_kprobe_addr()).  The static call's direct
 * call works there too; kallsyms then gives the function's start, kept
 * instead (the address debugfs lists is the symbol's).
 */
static bool kuw_find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long start;

	if (register_kprobe(&kp) < 0)
		return false;
	unregister_kprobe(&kp);
	if (!kuw_set_fn(kallsyms_lookup_name, (unsigned long)kp.addr)->addr)
		return false;
	start = kuw_call(kallsyms_lookup_name, "kallsyms_lookup_name");
	if (start && start != KUW_FN(kallsyms_lookup_name))
		kuw_set_fn(kallsyms_lookup_name, start);
	kuw_note_internal(KUW_INTERNAL_OF(kallsyms_lookup_name));
	return true;
}

/**
 * kuw_lookup_name() - address of a kernel symbol
 * @name: symbol name
 *
 * Return: the address, or 0 when unknown.  Process context.
 */
unsigned long kuw_lookup_name(const char *name)
{
	if (!KUW_FN(kallsyms_lookup_name) && !kuw_find_lookup_name())
		return 0;
	return kuw_call(kallsyms_lookup_name, name);
}

/**
 * kuw_ksyms_init() - look up the unexported functions kunwind calls
 *
 * Return: 0.
 */
int kuw_ksyms_init(void)
{
	kuw_lookup_fn(put_task_stack);
	kuw_lookup_fn(__kernel_text_address);
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
notrace bool kuw_kernel_text(unsigned long addr)
{
	return KUW_FN(__kernel_text_address) &&
	       kuw_call(__kernel_text_address, addr);
}

/* on the walk's path: neither traced nor kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_kernel_text);

/**
 * kuw_put_task_stack() - put_task_stack(), not exported to modules
 * @task: a task whose stack was pinned with try_get_task_stack()
 *
 * Without it (kallsyms does not know it) the reference is leaked: the
 * stack stays allocated, which is safe.
 */
notrace void kuw_put_task_stack(struct task_struct *task)
{
	if (KUW_FN(put_task_stack))
		kuw_call(put_task_stack, task);
}

NOKPROBE_SYMBOL(kuw_put_task_stack);

/**
 * kuw_fn_extent() - the function (kallsyms symbol) that holds an address
 * @addr: a kernel address
 * @start: set to the symbol's start
 * @size: set to its size
 *
 * Process context (load time).
 *
 * Return: true when kallsyms knows a symbol with a size there.
 */
bool kuw_fn_extent(unsigned long addr, unsigned long *start,
		   unsigned long *size)
{
	unsigned long off;

	if (!KUW_FN(kallsyms_lookup_size_offset))
		kuw_lookup_fn(kallsyms_lookup_size_offset);
	if (!KUW_FN(kallsyms_lookup_size_offset) ||
	    !kuw_call(kallsyms_lookup_size_offset, addr, size, &off) ||
	    !*size || off >= *size)
		return false;
	*start = addr - off;
	return true;
}

/**
 * kuw_lookup_range() - [start, end) of the function holding a symbol
 * @name: symbol name
 * @range: set to its start and end (end 0 when kallsyms has no size)
 */
void kuw_lookup_range(const char *name, unsigned long *range)
{
	unsigned long size, off;

	if (!KUW_FN(kallsyms_lookup_size_offset))
		kuw_lookup_fn(kallsyms_lookup_size_offset);
	range[0] = kuw_lookup_name(name);
	range[1] = 0;
	if (!range[0] || !KUW_FN(kallsyms_lookup_size_offset))
		return;
	if (kuw_call(kallsyms_lookup_size_offset, range[0], &size, &off) &&
	    !off)
		range[1] = range[0] + size;
}
