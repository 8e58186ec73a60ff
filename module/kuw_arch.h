/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel glue's one architecture seam.  Everything that differs between
 * architectures (capture of the current context, pt_regs, the stacks a
 * context may run on and how they link, entry and exception frames,
 * return-address translation, pointer authentication) lives in
 * module/arch/<arch>.{c,h}; the rest of the glue calls only what is
 * declared here and has no architecture #ifdef.
 *
 * Each arch header defines:
 *   KUW_ARCH_THIS	the engine's enum kuw_arch of this kernel
 *   KUW_REG_PC		struct kuw_regs column holding a frame's pc
 *   KUW_REG_SP		the stack pointer's column
 *   KUW_REG_FP		the frame pointer's column
 *   KUW_ARCH_SP_MAY_STAY	1 when a frame may have no stack of its own
 *			(its caller's sp is its own): the sp check then
 *			accepts an unchanged sp when the pc changed
 * and two inline hooks of the per-frame path:
 *   bool kuw_arch_stack_link(const struct kunwind_stack *st, u64 *sp)
 *	after a table step left the caller's sp at @sp on @st: is that a
 *	stack switch the tables do not describe?  If so, set *@sp to the
 *	sp on the previous stack and return true.
 *   void kuw_arch_ret_addr(struct kunwind_state *s)
 *	after a table step: replace a tracing trampoline's return address
 *	(function graph, kretprobe) by the real one, or clear reliable.
 */
#ifndef KUNWIND_KUW_ARCH_H
#define KUNWIND_KUW_ARCH_H

#include <linux/sched.h>
#include <asm/ptrace.h>
#include "kunwind.h"

#if defined(CONFIG_X86_64)
#include "arch/x86_64.h"
#elif defined(CONFIG_ARM64)
#include "arch/arm64.h"
#else
#error "kunwind: no module/arch/ file for this architecture"
#endif

/*
 * A consumer's answer being made (serve.c): kernel/stacktrace.c's cookie,
 * which the kernel's walk fills too when kunwind's stops early.
 */
struct kuw_cookie {
	unsigned long *store;
	unsigned int size;
	unsigned int skip;
	unsigned int len;
	bool nosched;
	u8 self;		/* kernel's walk from here: see kuw_sink_kernel() */
	bool joined;		/* splice: the kernel's walk reached @join */
	unsigned long join;	/* splice: kunwind's last entry */
	unsigned int nth;	/* splice: @join's entries still to pass */
	unsigned int kskip;	/* splice: @skip of the kernel's walk */
};

/**
 * struct kuw_work - what a walk needs beyond its state
 * @step: the engine's: a generic step's new values, the DW_OP stack
 * @undo: the registers before a table step, which a failed step restores
 * @arch: the arch's boundary steps'
 * @prev: kuw_step_frame_any()'s stack before a step that moved to another
 * @sink: a consumer's batch of pcs (serve.c)
 * @cookie: a consumer's answer (serve.c), held with the slot until it is
 *	    made, the kernel's fallback walk included
 *
 * One per CPU and context (unwind.c), never on the stack: kunwind walks
 * in perf's NMI and on exception stacks (README, "Stack use").
 */
struct kuw_work {
	struct kuw_step_work step;
	struct kuw_regs undo;
	struct kuw_arch_work arch;
	struct kunwind_stack prev;
	unsigned long sink[8];
	struct kuw_cookie cookie;
};

int kuw_arch_init(void);
void kuw_arch_exit(void);
void kuw_arch_regs_from_pt(struct kuw_regs *r, const struct pt_regs *p);
int kuw_arch_task_regs(struct task_struct *task, struct kuw_regs *r,
		       bool *signal);
bool kuw_arch_stack_of(struct task_struct *task, unsigned long addr,
		       struct kunwind_stack *st, unsigned long *mask);
bool kuw_arch_at_end(const struct kunwind_state *s);
int kuw_arch_boundary_step(struct kunwind_state *s, u64 pc, u64 sp, u64 fp,
			   bool fp_ok, bool signal);
bool kuw_arch_in_module_area(unsigned long addr);
int kuw_arch_unknown_pc(struct kunwind_state *s, u64 pc);
bool kuw_arch_perf_full_regs(const struct pt_regs *regs);
struct kuw_entry;
int kuw_arch_entry_pad_lookup(struct kunwind_state *s,
			      const struct kuw_entry *e, u64 pc,
			      const struct kuw_table **t,
			      const struct kuw_rule **r, u64 *row);

/* unwind.c, for the arch's boundary step */
int kuw_check_stack(struct kunwind_state *s, u64 old_pc, u64 old_sp,
		    struct kunwind_stack *prev, unsigned long *prev_mask,
		    bool *moved);

#endif /* KUNWIND_KUW_ARCH_H */
