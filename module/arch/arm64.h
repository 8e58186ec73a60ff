/* SPDX-License-Identifier: GPL-2.0 */
/* arm64 facts of the kernel glue's arch seam (module/kuw_arch.h). */
#ifndef KUNWIND_ARCH_ARM64_H
#define KUNWIND_ARCH_ARM64_H

#include <asm/pointer_auth.h>
#include <asm/ptrace.h>
#include "arch.h"
#include "compat.h"

#define KUW_ARCH_THIS	KUW_ARCH_ARM64
#define KUW_REG_PC	KUW_A64_PC
#define KUW_REG_SP	KUW_A64_SP
#define KUW_REG_FP	KUW_A64_X29

/*
 * Meta frame records (since 6.13): exception entry leaves a frame record of
 * two zeros in pt_regs with a type after it, FRAME_META_TYPE_PT_REGS for a
 * kernel-mode exception, FRAME_META_TYPE_FINAL at a task's top pt_regs.
 * 6.1 and 6.12 have none: their kernel-mode entry writes a plain record
 * {x29, elr} there.  Decided by the probe arm64_frame_meta
 * (module/compat/probes/).
 */
#define KUW_A64_META_RECORDS	KUW_HAVE_ARM64_FRAME_META
#if KUW_A64_META_RECORDS
#define KUW_A64_META_FINAL	FRAME_META_TYPE_FINAL
#define KUW_A64_META_PT_REGS	FRAME_META_TYPE_PT_REGS
#else
#define KUW_A64_META_FINAL	1	/* never compared without them */
#define KUW_A64_META_PT_REGS	2
#endif

/*
 * A leaf, or a function stopped before its prologue, has CFA = sp and its
 * return address in x30: its caller's sp is its own.
 */
#define KUW_ARCH_SP_MAY_STAY	1

/* a kernel return address without its pointer authentication code */
#if KUW_HAVE_PTRAUTH_STRIP_KERNEL_INSN_PAC
#define kuw_ptrauth_strip(pc)	ptrauth_strip_kernel_insn_pac(pc)
#elif KUW_HAVE_PTRAUTH_STRIP_INSN_PAC
#define kuw_ptrauth_strip(pc)	ptrauth_strip_insn_pac(pc)
#else
#error "kunwind: no ptrauth_strip_kernel_insn_pac() (probes ptrauth_strip_*)"
#endif

#define KUW_A64_CALLEE_SAVED	(GENMASK_ULL(30, 19) | BIT_ULL(KUW_A64_SP) | \
				 BIT_ULL(KUW_A64_PC))

/**
 * kuw_arch_capture() - the registers of the current context
 * @r: filled with pc, sp, x29, x30 and x19-x28
 *
 * The registers of the function this is inlined into, at the instruction
 * the asm stands at (its pc, not a return address); the function's own
 * CFI row there (kunwind.ko is built with asynchronous unwind tables)
 * steps to its caller.  Inline, so that no frame of a leaf without a
 * frame record of its own has to be stepped first.
 */
static __always_inline void kuw_arch_capture(struct kuw_regs *r)
{
	/* r->r[n] is at byte 8 * n: x19 152, x29 232, sp 248, pc 256 */
	asm volatile("adr x9, .\n\t"
		     "str x9, [%0, #256]\n\t"
		     "mov x9, sp\n\t"
		     "str x9, [%0, #248]\n\t"
		     "stp x29, x30, [%0, #232]\n\t"
		     "stp x19, x20, [%0, #152]\n\t"
		     "stp x21, x22, [%0, #168]\n\t"
		     "stp x23, x24, [%0, #184]\n\t"
		     "stp x25, x26, [%0, #200]\n\t"
		     "stp x27, x28, [%0, #216]\n\t"
		     : : "r" (r->r) : "x9", "memory");
	BUILD_BUG_ON(KUW_A64_PC != 32 || KUW_A64_SP != 31);
	r->valid = KUW_A64_CALLEE_SAVED;
	r->lazy = 0;
}

/*
 * arm64's IRQ stack switch (call_on_irq_stack) leaves a frame record on
 * the task stack; it is crossed by the boundary step, not here.
 */
static __always_inline bool kuw_arch_stack_link(const struct kunwind_stack *st,
						u64 *sp)
{
	return false;
}

/* the function-graph and kretprobe trampolines (0: none) */
extern unsigned long kuw_a64_tramp[2];
void kuw_a64_ret_addr(struct kunwind_state *s);

/*
 * A return address loaded from the stack or x30 may carry a pointer
 * authentication code: strip it as the kernel's unwinder does, then
 * translate the tracing trampolines.
 */
static __always_inline void kuw_arch_ret_addr(struct kunwind_state *s)
{
	u64 pc = kuw_ptrauth_strip(s->regs.r[KUW_REG_PC]);

	s->regs.r[KUW_REG_PC] = pc;
	if (unlikely(pc == kuw_a64_tramp[0] || pc == kuw_a64_tramp[1]))
		kuw_a64_ret_addr(s);
}

/* the trampolines, which a walk copies into locals once (unwind.c) */
#define kuw_arch_tramp	kuw_a64_tramp

/*
 * A return address read from a frame as the caller's pc (*@pc), when no
 * tracing trampoline (@t0, @t1: kuw_arch_tramp[]) needs translating: what
 * kuw_arch_ret_addr() makes of it (its pointer authentication code
 * stripped).  Return: false for a trampoline.
 */
static __always_inline bool kuw_arch_plain_ret(u64 ra, u64 *pc,
					       unsigned long t0,
					       unsigned long t1)
{
	*pc = kuw_ptrauth_strip(ra);
	return likely(*pc != t0 && *pc != t1);
}

/*
 * The boundary steps' memory (struct kuw_work, per CPU and context, not
 * the stack: README, "Stack use"): the pt_regs of an exception entry or of
 * the kretprobe trampoline.
 */
struct kuw_arch_work {
	struct pt_regs regs;
};

#endif /* KUNWIND_ARCH_ARM64_H */
