/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64 facts of the kernel glue's arch seam (module/kuw_arch.h). */
#ifndef KUNWIND_ARCH_X86_64_H
#define KUNWIND_ARCH_X86_64_H

#include <asm/ptrace.h>
#include <asm/unwind.h>
#include "arch.h"

#define KUW_ARCH_THIS	KUW_ARCH_X86_64
#define KUW_REG_PC	KUW_X86_RA
#define KUW_REG_SP	KUW_X86_RSP
#define KUW_REG_FP	KUW_X86_RBP

/* A call pushes the return address: every caller's sp is above its callee's. */
#define KUW_ARCH_SP_MAY_STAY	0

#define KUW_X86_CALLEE_SAVED	(BIT_ULL(KUW_X86_RA) | BIT_ULL(KUW_X86_RSP) | \
				 BIT_ULL(KUW_X86_RBP) | BIT_ULL(KUW_X86_RBX) | \
				 GENMASK_ULL(15, 12))

/**
 * kuw_arch_capture() - the registers of the current context
 * @r: filled with pc, sp and the callee-saved registers
 *
 * The registers of the function this is inlined into, at the instruction
 * the asm stands at (its pc, not a return address); the function's own
 * CFI row there (kunwind.ko is built with asynchronous unwind tables)
 * steps to its caller.  Callee-saved registers are what they are there.
 */
static __always_inline void kuw_arch_capture(struct kuw_regs *r)
{
	asm volatile("leaq (%%rip), %%rax\n\t"
		     "movq %%rax, %0\n\t"
		     "movq %%rsp, %1\n\t"
		     "movq %%rbp, %2\n\t"
		     "movq %%rbx, %3\n\t"
		     "movq %%r12, %4\n\t"
		     "movq %%r13, %5\n\t"
		     "movq %%r14, %6\n\t"
		     "movq %%r15, %7\n\t"
		     : "=m" (r->r[KUW_X86_RA]), "=m" (r->r[KUW_X86_RSP]),
		       "=m" (r->r[KUW_X86_RBP]), "=m" (r->r[KUW_X86_RBX]),
		       "=m" (r->r[12]), "=m" (r->r[13]), "=m" (r->r[14]),
		       "=m" (r->r[15])
		     : : "rax", "memory");
	r->valid = KUW_X86_CALLEE_SAVED;
	r->lazy = 0;
}

/*
 * call_on_irqstack() stores the task's sp in the IRQ stack's top word and
 * calls the handler with sp right below it: a caller whose sp is that word
 * goes on with the saved sp.
 */
static __always_inline bool kuw_arch_stack_link(const struct kunwind_stack *st,
						u64 *sp)
{
	if (likely(st->type != KUNWIND_STACK_IRQ || *sp != st->end - 8))
		return false;
	*sp = st->next_sp;
	return true;
}

/* return_to_handler, the kretprobe/rethook trampoline (0: none) */
extern unsigned long kuw_x86_tramp[2];
void kuw_x86_ret_addr(struct kunwind_state *s);

static __always_inline void kuw_arch_ret_addr(struct kunwind_state *s)
{
	u64 pc = s->regs.r[KUW_REG_PC];

	if (unlikely(pc == kuw_x86_tramp[0] || pc == kuw_x86_tramp[1]))
		kuw_x86_ret_addr(s);
}

/* the trampolines, which a walk copies into locals once (unwind.c) */
#define kuw_arch_tramp	kuw_x86_tramp

/*
 * A return address read from a frame as the caller's pc (*@pc), when no
 * tracing trampoline (@t0, @t1: kuw_arch_tramp[]) needs translating: what
 * kuw_arch_ret_addr() makes of it.
 * Return: false for a trampoline.
 */
static __always_inline bool kuw_arch_plain_ret(u64 ra, u64 *pc,
					       unsigned long t0,
					       unsigned long t1)
{
	*pc = ra;
	return likely(*pc != t0 && *pc != t1);
}

/*
 * The boundary steps' memory (struct kuw_work, per CPU and context, not
 * the stack: README, "Stack use"): an entry frame's pt_regs, or the ORC
 * step's state, the pt_regs it starts from and the one it crosses.
 */
struct kuw_arch_work {
	union {
		struct pt_regs regs;
		struct {
			struct unwind_state os;
			struct pt_regs fake;
			struct pt_regs full;
		} orc;
	};
};

#endif /* KUNWIND_ARCH_X86_64_H */
