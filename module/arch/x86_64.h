/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64 facts of the kernel glue's arch seam (module/kuw_arch.h). */
#ifndef KUNWIND_ARCH_X86_64_H
#define KUNWIND_ARCH_X86_64_H

#include "arch.h"

#define KUW_ARCH_THIS	KUW_ARCH_X86_64
#define KUW_REG_PC	KUW_X86_RA
#define KUW_REG_SP	KUW_X86_RSP
#define KUW_REG_FP	KUW_X86_RBP

/* A call pushes the return address: every caller's sp is above its callee's. */
#define KUW_ARCH_SP_MAY_STAY	0

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

#endif /* KUNWIND_ARCH_X86_64_H */
