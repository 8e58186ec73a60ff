/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls of kernel functions that are not exported to modules, found
 * through kallsyms: the one way kunwind.ko and its test modules call them
 * (make lint checks, scripts/lint-internals.sh).
 *
 * Each such function gets a static call (linux/static_call.h) typed from
 * the kernel header that declares it, pointed at the address kallsyms
 * gave, once, in process context:
 *
 *   KUW_INTERNAL(fn);		at file scope: the static call kuw_sc_<fn>,
 *				typeof(fn) from fn's header, NULL until set,
 *				and a per-CPU count of calls
 *   kuw_set_fn(fn, where)	point it at @where (0: not found); may sleep
 *   KUW_FN(fn)			the address it points at, 0 when not found
 *   kuw_call(fn, args...)	call it (the caller checks KUW_FN(fn))
 *
 * Why a static call: on x86 (HAVE_STATIC_CALL_INLINE, objtool patches
 * the module's call sites) kuw_call() is a direct CALL to the function,
 * or a direct CALL to a trampoline in kunwind's text that is a direct JMP
 * to it.  A direct branch needs no ENDBR64 at its target, so with IBT
 * (CONFIG_X86_KERNEL_IBT) the call is fine even though the kernel sealed
 * the function's ENDBR at boot (its address is never taken), and ENDBR
 * tracking stays on all the time.  A kprobe's address of a function (past
 * its ENDBR) works the same.  On arm64 (no HAVE_STATIC_CALL up to 7.3 for
 * GCC) the static call is a function pointer read with READ_ONCE() and a
 * BLR: every non-static kernel function starts with a landing pad for it
 * (README).  Nothing here takes a lock: kuw_call() is safe in NMI context
 * (the perf callchain), the count being a this_cpu_inc().
 *
 * The typing: the static call is declared with typeof(fn), so a function
 * whose signature changes in a later release is a build error, never a
 * call with the wrong arguments, and kuw_set_fn() is the only place an
 * address becomes a function pointer.
 */
#ifndef KUNWIND_KUW_CALL_H
#define KUNWIND_KUW_CALL_H

#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/static_call.h>

/**
 * struct kuw_internal - one kernel function called through kuw_call()
 * @name: its name
 * @addr: where its static call points, 0 when not found
 * @calls: per-CPU count of kuw_call()s
 */
struct kuw_internal {
	const char *name;
	unsigned long addr;
	unsigned long __percpu *calls;
};

#define KUW_INTERNAL(fn)						\
	DEFINE_STATIC_CALL_NULL(kuw_sc_##fn, fn);			\
	static DEFINE_PER_CPU(unsigned long, kuw_calls_##fn);		\
	static struct kuw_internal kuw_in_##fn = {			\
		.name = #fn,						\
		.calls = &kuw_calls_##fn,				\
	}

/* the struct kuw_internal of @fn */
#define KUW_INTERNAL_OF(fn)	(&kuw_in_##fn)

/* the address @fn's static call points at, 0 when not found */
#define KUW_FN(fn)	READ_ONCE(kuw_in_##fn.addr)

/*
 * kuw_set_fn() - point @fn's static call at @where
 * @fn: the function's name, as its kernel header declares it
 * @where: its address from kallsyms (or a kprobe), 0 when not found
 *
 * Process context (static_call_update() patches text on x86), before any
 * caller may test KUW_FN(@fn) on another CPU, or on the caller's own: the
 * call is set before the address is published.
 *
 * Return: KUW_INTERNAL_OF(@fn), its ->addr @where.
 */
#define kuw_set_fn(fn, where) ({					\
	unsigned long __kuw_a = (where);				\
									\
	static_call_update(kuw_sc_##fn, (typeof(fn) *)__kuw_a);	\
	WRITE_ONCE(kuw_in_##fn.addr, __kuw_a);				\
	&kuw_in_##fn;							\
})

/*
 * kuw_call() - call a kernel function found through kallsyms
 * @fn: its name, KUW_INTERNAL() at file scope, KUW_FN(@fn) not 0
 * @...: its arguments
 *
 * Return: what @fn returns.
 */
#define kuw_call(fn, ...) ({						\
	this_cpu_inc(kuw_calls_##fn);					\
	static_call(kuw_sc_##fn)(__VA_ARGS__);				\
})

/* the calls of @in so far, summed over the CPUs */
static inline unsigned long kuw_internal_calls(const struct kuw_internal *in)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*per_cpu_ptr(in->calls, cpu));
	return n;
}

#endif /* KUNWIND_KUW_CALL_H */
