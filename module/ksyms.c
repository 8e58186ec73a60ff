// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols kunwind needs but the kernel does not export (the text
 * and table boundaries, get_stack_info(), ...): kallsyms_lookup_name(),
 * itself unexported since 5.7, whose address a kprobe on it gives.  The
 * one copy of this trick.
 *
 * Every function found here is called with kuw_call() (kuw_arch.h): typed
 * from the kernel header that declares it, and safe from x86 IBT.  Each
 * one looked up is listed in debugfs kunwind/internals (a guest check
 * compares it with /proc/kallsyms).
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include "kunwind_internal.h"
#include "kuw_arch.h"

static unsigned long KUW_FN(kallsyms_lookup_name);
static unsigned long KUW_FN(kallsyms_lookup_size_offset);
static unsigned long KUW_FN(put_task_stack);
static unsigned long KUW_FN(__kernel_text_address);

/* The functions looked up so far, for debugfs kunwind/internals. */
static struct kuw_internal kuw_internals[KUW_MAX_INTERNALS];
static unsigned int kuw_ninternals;
static DEFINE_MUTEX(kuw_internals_lock);

static void kuw_note(const char *name, unsigned long addr)
{
	unsigned int i;

	mutex_lock(&kuw_internals_lock);
	for (i = 0; i < kuw_ninternals; i++)
		if (!strcmp(kuw_internals[i].name, name))
			break;
	if (i < ARRAY_SIZE(kuw_internals)) {
		kuw_internals[i].name = name;
		kuw_internals[i].addr = addr;
		if (i == kuw_ninternals)
			kuw_ninternals++;
	}
	mutex_unlock(&kuw_internals_lock);
}

/**
 * kuw_internal() - one of the kernel functions kunwind looked up
 * @i: its index
 *
 * Return: the entry, or NULL past the last.
 */
const struct kuw_internal *kuw_internal(unsigned int i)
{
	return i < READ_ONCE(kuw_ninternals) ? &kuw_internals[i] : NULL;
}

/*
 * A kprobe on kallsyms_lookup_name() gives its address: past the ENDBR on
 * an IBT kernel (arch_adjust_kprobe_addr()), which kuw_call() can call
 * too.  kallsyms then gives the function's start, kept instead.
 */
static bool kuw_find_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long start;

	if (register_kprobe(&kp) < 0)
		return false;
	KUW_FN(kallsyms_lookup_name) = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	if (!KUW_FN(kallsyms_lookup_name))
		return false;
	start = kuw_call(kallsyms_lookup_name, "kallsyms_lookup_name");
	if (start)
		KUW_FN(kallsyms_lookup_name) = start;
	kuw_note("kallsyms_lookup_name", KUW_FN(kallsyms_lookup_name));
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
 * kuw_lookup_fn() - address of a kernel function kunwind will call
 * @name: the function's name
 *
 * Like kuw_lookup_name(), and listed in debugfs kunwind/internals.  The
 * result goes to KUW_FN(@name); only kuw_call() calls it.
 *
 * Return: the address, or 0 when unknown.  Process context.
 */
unsigned long kuw_lookup_fn(const char *name)
{
	unsigned long addr = kuw_lookup_name(name);

	if (addr)
		kuw_note(name, addr);
	return addr;
}

/**
 * kuw_ksyms_init() - look up the unexported functions kunwind calls
 *
 * Return: 0.
 */
int kuw_ksyms_init(void)
{
	KUW_FN(put_task_stack) = kuw_lookup_fn("put_task_stack");
	KUW_FN(__kernel_text_address) = kuw_lookup_fn("__kernel_text_address");
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
	return KUW_FN(__kernel_text_address) &&
	       kuw_call(__kernel_text_address, addr);
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
	if (KUW_FN(put_task_stack))
		kuw_call(put_task_stack, task);
}

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
		KUW_FN(kallsyms_lookup_size_offset) =
			kuw_lookup_fn("kallsyms_lookup_size_offset");
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
		KUW_FN(kallsyms_lookup_size_offset) =
			kuw_lookup_fn("kallsyms_lookup_size_offset");
	range[0] = kuw_lookup_name(name);
	range[1] = 0;
	if (!range[0] || !KUW_FN(kallsyms_lookup_size_offset))
		return;
	if (kuw_call(kallsyms_lookup_size_offset, range[0], &size, &off) &&
	    !off)
		range[1] = range[0] + size;
}
