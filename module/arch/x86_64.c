// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 side of the arch seam (module/kuw_arch.h): register capture,
 * pt_regs, the stacks of a context (the kernel's get_stack_info(): task,
 * IRQ, exception (IST) and entry stacks), the start of a sleeping task,
 * and the frames no table covers.
 *
 * No CFI covers x86 entry code (interrupt and exception entry, the IRQ
 * stack switch, ret_from_fork, syscall entry).  Two cases are handled:
 *   - the bottom of a task stack: a frame without unwind info whose sp is
 *     the task's top pt_regs (syscall entry, ret_from_fork) is the
 *     outermost frame: a clean end;
 *   - anywhere else, when the tables cannot step a frame, the kernel's own
 *     ORC unwinder (objtool annotated entry code) steps that one frame
 *     unless the unwind asked for KUNWIND_NO_ORC; the walk then goes on
 *     with tables but is no longer reliable.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kernel.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/stacktrace.h>
#include <asm/switch_to.h>
#include <asm/unwind.h>
#include "kunwind_internal.h"
#include "kuw_arch.h"

typedef int (*kuw_get_stack_info_t)(unsigned long *stack,
				    struct task_struct *task,
				    struct stack_info *info,
				    unsigned long *visit_mask);

/* The kernel's get_stack_info(): not exported, found through kallsyms. */
static kuw_get_stack_info_t kuw_get_stack_info;

/**
 * kuw_arch_init() - find what the x86 unwinder needs from the kernel
 *
 * Return: 0.  Without get_stack_info() only the task stack is known.
 */
int kuw_arch_init(void)
{
	kuw_get_stack_info = (kuw_get_stack_info_t)
		kuw_lookup_name("get_stack_info");
	if (!kuw_get_stack_info)
		pr_warn("get_stack_info not found: only task stacks are walked\n");
	return 0;
}

static u8 kuw_stack_type(enum stack_type t)
{
	switch (t) {
	case STACK_TYPE_TASK:
		return KUNWIND_STACK_TASK;
	case STACK_TYPE_IRQ:
	case STACK_TYPE_SOFTIRQ:
		return KUNWIND_STACK_IRQ;
	case STACK_TYPE_ENTRY:
		return KUNWIND_STACK_ENTRY;
	case STACK_TYPE_UNKNOWN:
		return KUNWIND_STACK_NONE;
	default:
		return KUNWIND_STACK_EXCEPTION;
	}
}

/**
 * kuw_arch_stack_of() - which stack of a task's context holds an address
 * @task: the task
 * @addr: the address
 * @st: set to the stack's bounds and type
 * @mask: stacks entered so far; the new one is added (NULL: just look)
 *
 * Return: true when @addr is on a stack not entered before.
 */
bool kuw_arch_stack_of(struct task_struct *task, unsigned long addr,
		       struct kunwind_stack *st, unsigned long *mask)
{
	struct stack_info info;
	unsigned long begin, end;

	if (kuw_get_stack_info) {
		if (kuw_get_stack_info((unsigned long *)addr, task, &info,
				       mask))
			return false;
		st->begin = (unsigned long)info.begin;
		st->end = (unsigned long)info.end;
		st->next_sp = (unsigned long)info.next_sp;
		st->type = kuw_stack_type(info.type);
		return st->type != KUNWIND_STACK_NONE;
	}
	begin = (unsigned long)task_stack_page(task);
	end = begin + THREAD_SIZE;
	if (addr < begin || addr >= end || (mask && (*mask & 1)))
		return false;
	if (mask)
		*mask |= 1;
	st->type = KUNWIND_STACK_TASK;
	st->begin = begin;
	st->end = end;
	st->next_sp = 0;
	return true;
}

/**
 * kuw_arch_regs_from_pt() - every general register of a pt_regs
 * @r: engine registers to fill
 * @p: the pt_regs (already bounds-checked or the caller's own)
 */
void kuw_arch_regs_from_pt(struct kuw_regs *r, const struct pt_regs *p)
{
	r->r[KUW_X86_RAX] = p->ax;
	r->r[KUW_X86_RDX] = p->dx;
	r->r[KUW_X86_RCX] = p->cx;
	r->r[KUW_X86_RBX] = p->bx;
	r->r[KUW_X86_RSI] = p->si;
	r->r[KUW_X86_RDI] = p->di;
	r->r[KUW_X86_RBP] = p->bp;
	r->r[KUW_X86_RSP] = p->sp;
	r->r[8] = p->r8;
	r->r[9] = p->r9;
	r->r[10] = p->r10;
	r->r[11] = p->r11;
	r->r[12] = p->r12;
	r->r[13] = p->r13;
	r->r[14] = p->r14;
	r->r[15] = p->r15;
	r->r[KUW_X86_RA] = p->ip;
	r->valid = (1ULL << KUW_X86_NREGS) - 1;
	r->lazy = 0;
}

/* Callee-saved registers: what a capture or a switch frame gives. */
#define KUW_X86_CALLEE_SAVED	(BIT_ULL(KUW_X86_RA) | BIT_ULL(KUW_X86_RSP) | \
				 BIT_ULL(KUW_X86_RBP) | BIT_ULL(KUW_X86_RBX) | \
				 GENMASK_ULL(15, 12))

/**
 * kuw_arch_capture() - the registers of the current context
 * @r: filled with pc, sp and the callee-saved registers
 *
 * The registers of this very function at the instruction the asm stands
 * at; its own CFI row (kunwind.ko is built with unwind tables) describes
 * that point.  Callee-saved registers are what they are there.
 */
noinline void kuw_arch_capture(struct kuw_regs *r)
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

/**
 * kuw_arch_task_regs() - where a sleeping task stands
 * @task: a task that is not running
 * @r: filled from the frame its context switch saved
 * @signal: set when the pc is not a return address
 *
 * Return: 0, -KUW_E_INVAL for a task running on another CPU,
 * -KUW_E_FAULT when its switch frame cannot be read.
 */
int kuw_arch_task_regs(struct task_struct *task, struct kuw_regs *r,
		       bool *signal)
{
	struct inactive_task_frame frame;
	unsigned long tsp;

	if (task_on_another_cpu(task))
		return -KUW_E_INVAL;
	tsp = READ_ONCE(task->thread.sp);
	if (copy_from_kernel_nofault(&frame, (void *)tsp, sizeof(frame)))
		return -KUW_E_FAULT;
	r->r[KUW_X86_RBX] = frame.bx;
	r->r[KUW_X86_RBP] = frame.bp;
	r->r[12] = frame.r12;
	r->r[13] = frame.r13;
	r->r[14] = frame.r14;
	r->r[15] = frame.r15;
	r->r[KUW_REG_SP] = tsp + sizeof(frame);
	r->r[KUW_REG_PC] = frame.ret_addr;
	r->valid = KUW_X86_CALLEE_SAVED;
	r->lazy = 0;
	/*
	 * A task that never ran "returns" to ret_from_fork's first
	 * instruction, right on its pt_regs: not a call's return address,
	 * so look it up as is (ORC does the same).
	 */
	*signal = r->r[KUW_REG_SP] == (unsigned long)task_pt_regs(task);
	return 0;
}

/**
 * kuw_arch_at_end() - is the current frame the outermost one of its task?
 * @s: the unwind
 *
 * Entry code right above the task's top pt_regs (syscall entry,
 * ret_from_fork) has no unwind info and is the end of the stack.
 *
 * Return: true at the end.
 */
bool kuw_arch_at_end(const struct kunwind_state *s)
{
	return s->stack.type == KUNWIND_STACK_TASK &&
	       s->regs.r[KUW_REG_SP] == (unsigned long)task_pt_regs(s->task);
}

/**
 * kuw_arch_in_module_area() - is @addr in the module mapping area?
 * @addr: an address
 *
 * Return: true when it is in [MODULES_VADDR, MODULES_END).
 */
bool kuw_arch_in_module_area(unsigned long addr)
{
	return addr >= MODULES_VADDR && addr < MODULES_END;
}

#ifdef CONFIG_UNWINDER_ORC
/*
 * Step one frame with the kernel's ORC unwinder, from pc/sp/bp only.  The
 * start is a fake pt_regs; ORC looks its ip up as is, so a return address
 * is passed as pc - 1.  When ORC crosses into an exception frame, its
 * pt_regs give every register of the interrupted code.
 */
static int kuw_orc_step(struct kunwind_state *s, u64 pc, u64 sp, u64 bp,
			bool bp_ok, bool signal)
{
	struct unwind_state os;
	struct pt_regs fake, full;
	unsigned long ip;

	memset(&fake, 0, sizeof(fake));
	fake.ip = signal ? pc : pc - 1;
	fake.sp = sp;
	fake.bp = bp_ok ? bp : 0;
	fake.cs = __KERNEL_CS;
	fake.ss = __KERNEL_DS;
	__unwind_start(&os, s->task, &fake, NULL);
	if (unwind_done(&os))
		return unwind_error(&os) ? -KUW_E_NOINFO : -KUW_E_END;
	if (unwind_error(&os))
		return -KUW_E_NOINFO;	/* ORC guessed: not better than us */
	ip = unwind_get_return_address(&os);
	if (!ip)
		return -KUW_E_BADRA;
	if (os.regs && os.full_regs &&
	    !kuw_read_mem(s, (unsigned long)os.regs, &full, sizeof(full))) {
		kuw_arch_regs_from_pt(&s->regs, &full);
		s->how = KUNWIND_FRAME_PT_REGS;
	} else {
		s->regs.valid = 1ULL << KUW_REG_SP | 1ULL << KUW_REG_PC;
		s->regs.lazy = 0;
		if (os.bp) {
			s->regs.r[KUW_REG_FP] = os.bp;
			s->regs.valid |= 1ULL << KUW_REG_FP;
		}
		s->how = os.regs ? KUNWIND_FRAME_PT_REGS : KUNWIND_FRAME_ORC;
	}
	s->regs.r[KUW_REG_PC] = ip;
	s->regs.r[KUW_REG_SP] = os.sp;
	s->signal = os.signal;
	this_cpu_inc(kuw_counters.orc_frames);
	return 0;
}
#else
static int kuw_orc_step(struct kunwind_state *s, u64 pc, u64 sp, u64 bp,
			bool bp_ok, bool signal)
{
	return -KUW_E_NOINFO;
}
#endif

/**
 * kuw_arch_boundary_step() - step a frame the tables could not step
 * @s: the unwind, at the frame (pc, sp) with the tables' attempt undone
 * @pc: the frame's pc
 * @sp: its sp
 * @fp: its frame pointer, if @fp_ok
 * @fp_ok: @fp is known
 * @signal: @pc is not a return address
 *
 * Return: 0 when stepped (@s->how says how; @s->reliable is cleared),
 * -KUW_E_END at the outermost frame, or another negative enum kuw_err.
 */
int kuw_arch_boundary_step(struct kunwind_state *s, u64 pc, u64 sp, u64 fp,
			   bool fp_ok, bool signal)
{
	if (s->no_orc)
		return -KUW_E_NOINFO;
	return kuw_orc_step(s, pc, sp, fp, fp_ok, signal);
}
