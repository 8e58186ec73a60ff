/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 side of the chain suites (unwind_test.c, context_test.c):
 * kunit/Kbuild puts kunit/arch/$(SRCARCH) on the include path, so that the
 * suites themselves have no architecture #ifdef.
 *
 *   kt_ref_walk()        the kernel's own unwinder (ORC, or frame pointers
 *                        on the fp kernel): unwind_start()/unwind_next_frame()
 *   KT_REF_FRAME_RECORDS it follows frame pointers: it misses the caller of
 *                        a function stopped before it saved its frame
 *   KT_CAPTURE_REGS()    this function's registers, as an exception saves them
 *   kt_set_regs()        a kernel-mode pt_regs at (pc, sp, fp)
 *   kt_abi_entry_rule()  the ABI's rule at a function's first instruction
 *   kt_nmi_*()           an NMI to this CPU
 */
#ifndef KUNWIND_KUNIT_KT_ARCH_H
#define KUNWIND_KUNIT_KT_ARCH_H

#include <kunit/test.h>
#include <linux/sched.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/unwind.h>
#include "kunwind.h"
#include "arch.h"

#define KT_ARCH			KUW_ARCH_X86_64
#define KT_REG_SP		KUW_X86_RSP
#define KT_REG_FP		KUW_X86_RBP
#define KT_REG_RA		KUW_X86_RA
#define KT_REF_FRAME_RECORDS	IS_ENABLED(CONFIG_UNWINDER_FRAME_POINTER)
/* a function's first row starts at its symbol (arm64's kt_arch.h) */
#define KT_ENTRY_PAD		0
/* the outermost frame of a user task asleep in a system call */
#define KT_USER_ENTRY		"entry_SYSCALL_64_after_hwframe"

/*
 * The kernel's unwinder from a sleeping @task, from @regs (its caller on:
 * unwind_start() skips the regs' own frame) or from here; like
 * stack_trace_save(), no 0 for a user-mode pt_regs at the end.
 */
static noinline unsigned int kt_ref_walk(struct task_struct *task,
					 struct pt_regs *regs,
					 unsigned long *pcs, unsigned int max)
{
	struct unwind_state os;
	unsigned int n = 0;

	for (unwind_start(&os, task ? task : current, regs, NULL);
	     !unwind_done(&os); unwind_next_frame(&os))
		if (n < max && unwind_get_return_address(&os))
			pcs[n++] = unwind_get_return_address(&os);
	return n;
}

/* The registers of the function this is expanded in, at this point. */
#define KT_CAPTURE_REGS(r) do {						\
	struct pt_regs *__r = (r);					\
	asm volatile("leaq (%%rip), %%rax\n\t"				\
		     "movq %%rax, %0\n\t"				\
		     "movq %%rsp, %1\n\t"				\
		     "movq %%rbp, %2\n\t"				\
		     "movq %%rbx, %3\n\t"				\
		     "movq %%r12, %4\n\t"				\
		     "movq %%r13, %5\n\t"				\
		     "movq %%r14, %6\n\t"				\
		     "movq %%r15, %7\n\t"				\
		     : "=m" (__r->ip), "=m" (__r->sp), "=m" (__r->bp),	\
		       "=m" (__r->bx), "=m" (__r->r12), "=m" (__r->r13),	\
		       "=m" (__r->r14), "=m" (__r->r15)			\
		     : : "rax", "memory");				\
	__r->cs = __KERNEL_CS;						\
	__r->ss = __KERNEL_DS;						\
} while (0)

static inline void kt_set_regs(struct pt_regs *r, unsigned long pc,
			       unsigned long sp, unsigned long fp)
{
	memset(r, 0, sizeof(*r));
	r->cs = __KERNEL_CS;
	r->ip = pc;
	r->sp = sp;
	r->bp = fp;
}

/* At a function's first instruction the x86_64 ABI says: CFA = rsp + 8, RA at CFA - 8. */
static inline void kt_abi_entry_rule(struct kunit *test,
				     const struct kunwind_rule_info *info)
{
	const struct kuw_reg_rule *ra;

	KUNIT_EXPECT_EQ(test, info->rule.cfa_kind, KUW_CFA_REG);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_reg, KUW_X86_RSP);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_off, 8);
	ra = kuw_rule_find(&info->rule, KUW_X86_RA);
	KUNIT_ASSERT_NOT_NULL(test, ra);
	KUNIT_EXPECT_EQ(test, ra->kind, KUW_R_OFFSET);
	KUNIT_EXPECT_EQ(test, ra->off, -8);
}

/* An NMI to this CPU, through the local APIC. */
#define KT_NMI_DONE		NMI_DONE
#define KT_NMI_HANDLED		NMI_HANDLED
#define kt_nmi_register(fn, name) register_nmi_handler(NMI_LOCAL, fn, 0, name)
#define kt_nmi_unregister(name)	unregister_nmi_handler(NMI_LOCAL, name)
#define kt_nmi_self()		apic->send_IPI_self(NMI_VECTOR)

#endif /* KUNWIND_KUNIT_KT_ARCH_H */
