/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 side of the chain suites (unwind_test.c, context_test.c):
 * kunit/Kbuild puts kunit/arch/$(SRCARCH) on the include path, so that the
 * suites themselves have no architecture #ifdef.
 *
 *   kt_ref_walk()        the kernel's own unwinder: arm64 follows frame
 *                        records (arch_stack_walk(), not exported: found
 *                        with kallsyms_lookup_name())
 *   KT_REF_FRAME_RECORDS it follows frame records: it misses the caller of
 *                        a function stopped before it saved its record
 *   kt_ref_reliable()    arch_stack_walk_reliable(), where arm64 has it
 *   KT_KRP_HANDLER_WALK  a walk from a kretprobe's return handler reaches
 *                        the probed function's caller
 *   KT_CAPTURE_REGS()    this function's registers, as an exception saves them
 *   kt_set_regs()        a kernel-mode pt_regs at (pc, sp, fp)
 *   kt_abi_entry_rule()  the ABI's rule at a function's first instruction
 *   kt_nmi_*()           none: the test kernel has no pseudo-NMI
 */
#ifndef KUNWIND_KUNIT_KT_ARCH_H
#define KUNWIND_KUNIT_KT_ARCH_H

#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include "../../kt_lookup.h"
#include <asm/ptrace.h>
#include "kunwind.h"
#include "arch.h"

#define KT_ARCH			KUW_ARCH_ARM64
#define KT_REG_SP		KUW_A64_SP
#define KT_REG_FP		KUW_A64_X29
#define KT_REG_RA		KUW_A64_X30
#define KT_REF_FRAME_RECORDS	1
/*
 * How far after its symbol a function's first row may start: GCC 12 puts
 * dynamic ftrace's two patchable entry slots (-fpatchable-function-entry=2)
 * before .cfi_startproc, and kunwind answers there with the first row.
 */
#define KT_ENTRY_PAD		(IS_ENABLED(CONFIG_DYNAMIC_FTRACE) ? 8 : 0)
/* the outermost frame of a user task asleep in a system call */
#define KT_USER_ENTRY		"el0t_64_sync"
/* kunwind crosses the kretprobe trampoline from the return handler */
#define KT_KRP_HANDLER_WALK	1

struct kt_ref_buf {
	unsigned long *pcs;
	unsigned int n, max;
};

static bool kt_ref_consume(void *cookie, unsigned long pc)
{
	struct kt_ref_buf *b = cookie;

	if (b->n >= b->max)
		return false;
	b->pcs[b->n++] = pc;
	return true;
}

/*
 * arch_stack_walk() and arch_stack_walk_reliable(), not exported: static
 * calls typed from <linux/stacktrace.h> (kuw_call.h), set on first use,
 * which must be in process context (the look-up sleeps).
 */
KUW_INTERNAL(arch_stack_walk);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
KUW_INTERNAL(arch_stack_walk_reliable);
#endif

/*
 * The kernel's unwinder, arch_stack_walk() itself (stack_trace_save_tsk()
 * would leave out the scheduler's functions): from a sleeping @task, from
 * @regs (its caller on, as x86's unwind_start() does: arch_stack_walk()
 * reports the regs' own pc first, dropped here), or from here.  0 when
 * arch_stack_walk() cannot be found (the caller's comparison then fails).
 */
static noinline unsigned int kt_ref_walk(struct task_struct *task,
					 struct pt_regs *regs,
					 unsigned long *pcs, unsigned int max)
{
	struct kt_ref_buf b = { .pcs = pcs, .max = max };

	if (!KUW_FN(arch_stack_walk) && !kt_lookup_fn(arch_stack_walk))
		return 0;
	kuw_call(arch_stack_walk, kt_ref_consume, &b, task ? task : current,
		 regs);
	if (regs && b.n && pcs[0] == instruction_pointer(regs)) {
		memmove(pcs, pcs + 1, (b.n - 1) * sizeof(*pcs));
		b.n--;
	}
	return b.n;
}

#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
static inline bool kt_ref_take_all(void *cookie, unsigned long pc)
{
	return true;
}

/*
 * The kernel's reliable walk, arch_stack_walk_reliable() (arm64 has one
 * since 6.17: it gives up at every exception boundary), of a sleeping
 * @task or of current from here: 1 when it calls the stack reliable, 0
 * when not, -1 when it cannot be found.
 */
static inline int kt_ref_reliable(struct task_struct *task)
{
	if (!KUW_FN(arch_stack_walk_reliable) &&
	    !kt_lookup_fn(arch_stack_walk_reliable))
		return -1;
	return !kuw_call(arch_stack_walk_reliable, kt_ref_take_all, NULL,
			 task ? task : current);
}

#define kt_ref_reliable kt_ref_reliable
#endif

/*
 * The registers of the function this is expanded in, at this point: pc,
 * sp, x29, x30 and x19-x28 (pt_regs: regs[n] at 8 * n, sp 248, pc 256).
 */
#define KT_CAPTURE_REGS(r) do {						\
	struct pt_regs *__r = (r);					\
	BUILD_BUG_ON(offsetof(struct pt_regs, sp) != 248 ||		\
		     offsetof(struct pt_regs, pc) != 256);		\
	asm volatile("adr x9, .\n\t"					\
		     "str x9, [%0, #256]\n\t"				\
		     "mov x9, sp\n\t"					\
		     "str x9, [%0, #248]\n\t"				\
		     "stp x29, x30, [%0, #232]\n\t"			\
		     "stp x19, x20, [%0, #152]\n\t"			\
		     "stp x21, x22, [%0, #168]\n\t"			\
		     "stp x23, x24, [%0, #184]\n\t"			\
		     "stp x25, x26, [%0, #200]\n\t"			\
		     "stp x27, x28, [%0, #216]\n\t"			\
		     : : "r" (__r->regs) : "x9", "memory");		\
	__r->pstate = PSR_MODE_EL1h;					\
} while (0)

static inline void kt_set_regs(struct pt_regs *r, unsigned long pc,
			       unsigned long sp, unsigned long fp)
{
	memset(r, 0, sizeof(*r));
	r->pstate = PSR_MODE_EL1h;
	r->pc = pc;
	r->sp = sp;
	r->regs[29] = fp;
}

/*
 * At a function's first instruction AAPCS64 says: CFA = sp, the return
 * address is still in x30 (no rule, or same value), not signed yet.
 */
static inline void kt_abi_entry_rule(struct kunit *test,
				     const struct kunwind_rule_info *info)
{
	const struct kuw_reg_rule *ra;

	KUNIT_EXPECT_EQ(test, info->rule.cfa_kind, KUW_CFA_REG);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_reg, KUW_A64_SP);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_off, 0);
	ra = kuw_rule_find(&info->rule, KUW_A64_X30);
	KUNIT_EXPECT_TRUE(test, !ra || ra->kind == KUW_R_SAME);
	KUNIT_EXPECT_FALSE(test, info->rule.flags & KUW_RF_MANGLED_RA);
}

/* No NMI: the test kernel has no pseudo-NMI (CONFIG_ARM64_PSEUDO_NMI). */
#define KT_NMI_DONE		0
#define KT_NMI_HANDLED		1
#define kt_nmi_register(fn, name) ((void)(fn), (void)(name), -EOPNOTSUPP)
#define kt_nmi_unregister(name)	((void)(name))
#define kt_nmi_self()		do { } while (0)

#endif /* KUNWIND_KUNIT_KT_ARCH_H */
