// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 side of the arch seam (module/kuw_arch.h): register capture,
 * pt_regs, the stacks of a context (the kernel's get_stack_info(): task,
 * IRQ, exception (IST) and entry stacks), the start of a sleeping task,
 * and the frames no table covers.
 *
 * No CFI covers x86 entry code (interrupt, exception and NMI entry, the IRQ
 * stack switch, ret_from_fork, syscall entry, the idle tasks' start).  It
 * is crossed without the kernel's unwinder:
 *   - the bottom of a task stack: a frame without unwind info whose sp is
 *     the task's top pt_regs (syscall entry, ret_from_fork) is the end;
 *     so is an idle task's secondary_startup_64 (the boot CPU's idle
 *     task gets there through start_kernel's chain: vmlinux keeps the
 *     rows of its init text, see registry.c);
 *   - a return address into entry text, right after a call: every
 *     idtentry, the NMI and syscall entries call their C handler with
 *     sp = the pt_regs they built (entry_64.S "movq %rsp, %rdi; call").
 *     A user-mode pt_regs ends the walk; a kernel-mode one gives every
 *     register of the interrupted code, and the walk goes on from there,
 *     still reliable (as ORC's reliable walk) when a table row at the
 *     interrupted pc steps the interrupted frame;
 *   - the same for FRED's event stubs (6.9+, entry_64_fred.S, in
 *     .noinstr.text, not entry text): asm_fred_entrypoint_user/_kernel
 *     push a pt_regs inside the struct fred_frame the CPU began (the
 *     fred_info above it, a 64-byte red zone below the interrupted sp on a
 *     kernel-mode event), then "movq %rsp, %rdi; call fred_entry_from_*";
 *     events of higher stack levels (NMI, #DB, #MC, #DF) arrive on the
 *     same exception stacks IST uses, which get_stack_info() knows;
 *   - the IRQ stack: call_on_irqstack() keeps the previous sp in the
 *     stack's top word (kuw_arch_stack_link() in x86_64.h);
 *   - return_to_handler (function graph) and the rethook/kretprobe
 *     trampoline as return addresses: the kernel's own records give the
 *     real one;
 *   - code with no tables at all (BPF JIT, ftrace trampolines, kprobe
 *     slots): the kernel's ORC unwinder (if built in and the unwind did
 *     not ask for KUNWIND_NO_ORC: it knows ftrace trampolines), else one
 *     step by frame pointer when rbp points at a frame record above sp
 *     (not in an ftrace trampoline of a kernel without frame pointers:
 *     there the walk stops); not reliable either way.
 * When all that fails, ORC steps the frame, not reliably.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/stacktrace.h>
#include <asm/switch_to.h>
#include <asm/unwind.h>
#include "kunwind_internal.h"
#include "kuw_arch.h"

/*
 * Unexported kernel functions, found through kallsyms and called with
 * kuw_call(), typed from <asm/stacktrace.h>, <linux/ftrace.h> and
 * <linux/rethook.h>.
 */
KUW_INTERNAL(get_stack_info);
KUW_INTERNAL(ftrace_graph_ret_addr);
KUW_INTERNAL(rethook_find_ret_addr);
KUW_INTERNAL(is_ftrace_trampoline);
static unsigned long kuw_entry_text[2];		/* [start, end) */
static unsigned long kuw_fred_entry[2][2];	/* user, kernel event stubs */
static unsigned long kuw_idle_start[2];		/* secondary_startup_64 */
unsigned long kuw_x86_tramp[2];

/**
 * kuw_arch_exit() - free what kuw_arch_init() built (nothing on x86)
 */
void kuw_arch_exit(void)
{
}

/**
 * kuw_arch_init() - find what the x86 unwinder needs from the kernel
 *
 * Return: 0.  Without get_stack_info() only the task stack is known; each
 * other symbol missing only costs the boundary it serves.
 */
int kuw_arch_init(void)
{
	unsigned long no_verify[2];

	kuw_lookup_fn(get_stack_info);
	if (!KUW_FN(get_stack_info))
		pr_warn("get_stack_info not found: only task stacks are walked\n");
	kuw_entry_text[0] = kuw_lookup_name("__entry_text_start");
	kuw_entry_text[1] = kuw_lookup_name("__entry_text_end");
	/* FRED (6.9+): in .noinstr.text, not entry text; absent without it */
	kuw_lookup_range("asm_fred_entrypoint_user", kuw_fred_entry[0]);
	kuw_lookup_range("asm_fred_entrypoint_kernel", kuw_fred_entry[1]);
	/* .Lafter_lret lies in the _no_verify part: both, as one range */
	kuw_lookup_range("secondary_startup_64", kuw_idle_start);
	kuw_lookup_range("secondary_startup_64_no_verify", no_verify);
	if (kuw_idle_start[0] && no_verify[1] > kuw_idle_start[0])
		kuw_idle_start[1] = max(kuw_idle_start[1], no_verify[1]);
	kuw_x86_tramp[0] = kuw_lookup_name("return_to_handler");
	if (kuw_x86_tramp[0])
		kuw_lookup_fn(ftrace_graph_ret_addr);
	kuw_x86_tramp[1] = kuw_lookup_name("arch_rethook_trampoline");
	if (kuw_x86_tramp[1])
		kuw_lookup_fn(rethook_find_ret_addr);
	if (!IS_ENABLED(CONFIG_FRAME_POINTER))
		kuw_lookup_fn(is_ftrace_trampoline);
	return 0;
}

static bool kuw_in(const unsigned long *range, u64 pc)
{
	return pc >= range[0] && pc < range[1];
}

/* Entry code that calls its C handler with sp = the pt_regs it built. */
static bool kuw_in_entry(u64 pc)
{
	return kuw_in(kuw_entry_text, pc) || kuw_in(kuw_fred_entry[0], pc) ||
	       kuw_in(kuw_fred_entry[1], pc);
}

/**
 * kuw_x86_ret_addr() - the real return address behind a trampoline's
 * @s: the unwind, just stepped to a caller whose pc is return_to_handler
 *     or the rethook trampoline; its sp is the callee's CFA, so the return
 *     address was read from sp - 8, where the tracer put its trampoline
 *
 * Unknown to the tracer's records: the pc stays, and the walk is no
 * longer reliable.
 */
void kuw_x86_ret_addr(struct kunwind_state *s)
{
	u64 pc = s->regs.r[KUW_REG_PC];
	unsigned long retp = s->regs.r[KUW_REG_SP] - 8, real = 0;

	if (pc == kuw_x86_tramp[0] && KUW_FN(ftrace_graph_ret_addr))
		real = kuw_call(ftrace_graph_ret_addr, s->task, &s->ret_idx,
				pc, (unsigned long *)retp);
	else if (pc == kuw_x86_tramp[1] && KUW_FN(rethook_find_ret_addr))
		real = kuw_call(rethook_find_ret_addr, s->task, retp,
				&s->ret_cur);
	if (real && real != pc)
		s->regs.r[KUW_REG_PC] = real;
	else
		s->reliable = false;
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

	if (KUW_FN(get_stack_info)) {
		if (kuw_call(get_stack_info, (unsigned long *)addr, task,
			     &info, mask))
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
/**
 * kuw_arch_task_regs() - where a sleeping task stands
 * @task: a task that is not running
 * @r: filled from the frame its context switch saved
 * @signal: set when the pc is not a return address
 *
 * Return: 0, -KUW_E_RUNNING for a task running on another CPU,
 * -KUW_E_FAULT when its switch frame cannot be read.
 */
int kuw_arch_task_regs(struct task_struct *task, struct kuw_regs *r,
		       bool *signal)
{
	struct inactive_task_frame frame;
	unsigned long tsp;

	if (task_on_another_cpu(task))
		return -KUW_E_RUNNING;
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
 * kuw_arch_unknown_pc() - may a caller's pc be outside every table's text?
 * @s: the unwind, at the caller's frame
 * @pc: its pc
 *
 * Code that exists at run time only (BPF JIT, ftrace trampolines, kprobe
 * slots) is kernel text without tables: the frame is kept, its step will
 * be by frame pointer.  (vmlinux's freed init text, where the boot CPU's
 * idle task returns, is in the registry: its rows are kept.)
 *
 * Return: 0 to keep the frame, or -KUW_E_BADRA.
 */
int kuw_arch_unknown_pc(struct kunwind_state *s, u64 pc)
{
	if (kuw_kernel_text(pc)) {
		s->ahead_ok = false;
		return 0;
	}
	return -KUW_E_BADRA;
}

/**
 * kuw_arch_perf_full_regs() - were perf's regs saved by the CPU's entry?
 * @regs: the regs perf_callchain_kernel() was given
 *
 * x86 marks them as the kernel's perf_hw_regs() does: an exception or
 * interrupt frame holds EFLAGS with its always-set bit 1, regs filled by
 * perf_fetch_caller_regs() (tracepoints) have no flags.
 *
 * Return: true for an exception's or interrupt's registers.
 */
bool kuw_arch_perf_full_regs(const struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_FIXED;
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
 * pt_regs give every register of the interrupted code.  ORC's state and
 * both pt_regs are in the walk's memory (s->work), not on the stack.
 */
static int kuw_orc_step(struct kunwind_state *s, u64 pc, u64 sp, u64 bp,
			bool bp_ok, bool signal)
{
	struct unwind_state *os = &s->work->arch.orc.os;
	struct pt_regs *fake = &s->work->arch.orc.fake;
	struct pt_regs *full = &s->work->arch.orc.full;
	unsigned long ip;

	memset(fake, 0, sizeof(*fake));
	fake->ip = signal ? pc : pc - 1;
	fake->sp = sp;
	fake->bp = bp_ok ? bp : 0;
	fake->cs = __KERNEL_CS;
	fake->ss = __KERNEL_DS;
	__unwind_start(os, s->task, fake, NULL);
	if (unwind_done(os))
		return unwind_error(os) ? -KUW_E_NOINFO : -KUW_E_END;
	if (unwind_error(os))
		return -KUW_E_NOINFO;	/* ORC guessed: not better than us */
	ip = unwind_get_return_address(os);
	if (!ip)
		return -KUW_E_BADRA;
	if (os->regs && os->full_regs &&
	    !kuw_read_mem(s, (unsigned long)os->regs, full, sizeof(*full))) {
		kuw_arch_regs_from_pt(&s->regs, full);
		s->how = KUNWIND_FRAME_PT_REGS;
	} else {
		s->regs.valid = 1ULL << KUW_REG_SP | 1ULL << KUW_REG_PC;
		s->regs.lazy = 0;
		if (os->bp) {
			s->regs.r[KUW_REG_FP] = os->bp;
			s->regs.valid |= 1ULL << KUW_REG_FP;
		}
		s->how = os->regs ? KUNWIND_FRAME_PT_REGS : KUNWIND_FRAME_ORC;
	}
	s->regs.r[KUW_REG_PC] = ip;
	s->regs.r[KUW_REG_SP] = os->sp;
	s->signal = os->signal;
	s->reliable = false;	/* the kernel's step, not one of ours */
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

/*
 * A return address right after "call rel32" in entry text: the handler
 * was called with sp = &pt_regs.  Load the interrupted registers.
 */
static int kuw_entry_step(struct kunwind_state *s, u64 pc, u64 sp)
{
	struct pt_regs *regs = &s->work->arch.regs;
	u8 op;

	if (copy_from_kernel_nofault(&op, (void *)(unsigned long)(pc - 5), 1) ||
	    op != 0xe8)
		return -KUW_E_NOINFO;
	if (kuw_read_mem(s, sp, regs, sizeof(*regs)))
		return -KUW_E_BADSTACK;
	if (user_mode(regs))
		return -KUW_E_END;	/* from user space: the end */
	if (regs->cs != __KERNEL_CS)
		return -KUW_E_BADSP;
	kuw_arch_regs_from_pt(&s->regs, regs);
	s->signal = true;
	s->how = KUNWIND_FRAME_PT_REGS;
	/*
	 * An exception or interrupt in the kernel: exact, as for ORC's
	 * reliable walk; the interrupted frame must be left by its own row
	 * (kuw_step_frame()).
	 */
	s->rel_pending = true;
	return 0;
}

/* Code without tables that keeps a frame record: rbp -> [rbp, ra]. */
static int kuw_fp_step(struct kunwind_state *s, u64 sp, u64 bp, bool bp_ok)
{
	u64 rec[2];

	if (!bp_ok || bp < sp || (bp & 7) ||
	    kuw_read_mem(s, bp, rec, sizeof(rec)))
		return -KUW_E_NOINFO;
	s->regs.valid = BIT_ULL(KUW_REG_SP) | BIT_ULL(KUW_REG_PC) |
			BIT_ULL(KUW_REG_FP);
	s->regs.lazy = 0;
	s->regs.r[KUW_REG_FP] = rec[0];
	s->regs.r[KUW_REG_PC] = rec[1];
	s->regs.r[KUW_REG_SP] = bp + 16;
	s->signal = false;
	s->how = KUNWIND_FRAME_FP;
	s->reliable = false;
	kuw_arch_ret_addr(s);
	return 0;
}

/*
 * May code without tables at @pc keep a frame record?  With frame pointers
 * all code does.  Without, ftrace's trampolines make none (save_mcount_regs
 * pushes no frame then): rbp there is what the traced function's callers
 * left, maybe a real frame record higher up, whose step would skip frames.
 * (is_ftrace_trampoline() walks the ops list locklessly, as
 * kernel_text_address() does from any context.)
 */
static bool kuw_fp_code(u64 pc)
{
	if (!KUW_FN(is_ftrace_trampoline))
		return true;
	return !kuw_call(is_ftrace_trampoline, pc);
}

/* Is @ra a return address: kernel text right after a call instruction? */
static bool kuw_after_call(u64 ra)
{
	u8 insn[6];

	if (!kuw_kernel_text(ra) ||
	    copy_from_kernel_nofault(insn, (void *)(unsigned long)(ra - 6), 6))
		return false;
	return insn[1] == 0xe8 ||				/* call rel32 */
	       (insn[4] == 0xff && (insn[5] & 0x38) == 0x10) ||	/* call *%reg */
	       (insn[3] == 0xff && (insn[4] & 0x38) == 0x10);	/* call *disp8 */
}

/*
 * An interrupted pc in assembly without tables (x86 lib and entry asm has
 * no CFI): most such functions are leaves, so try "return address at sp"
 * when that word is a return address.  A guess: never reliable.
 */
static int kuw_leaf_step(struct kunwind_state *s, u64 sp)
{
	u64 ra;

	if (kuw_read_mem(s, sp, &ra, sizeof(ra)) || !kuw_after_call(ra))
		return -KUW_E_NOINFO;
	s->regs.valid &= ~(BIT_ULL(KUW_X86_RAX) | BIT_ULL(KUW_X86_RCX) |
			   BIT_ULL(KUW_X86_RDX) | BIT_ULL(KUW_X86_RSI) |
			   BIT_ULL(KUW_X86_RDI) | GENMASK_ULL(11, 8));
	s->regs.r[KUW_REG_PC] = ra;
	s->regs.r[KUW_REG_SP] = sp + 8;
	s->signal = false;
	s->how = KUNWIND_FRAME_FP;
	s->reliable = false;
	kuw_arch_ret_addr(s);
	return 0;
}

/**
 * kuw_arch_boundary_step() - step a frame the tables could not step
 * @s: the unwind, at the frame (pc, sp) with the tables' attempt undone
 * @pc: the frame's pc
 * @sp: its sp
 * @fp: its frame pointer, if @fp_ok
 * @fp_ok: @fp is known
 * @signal: @pc is not a return address
 *
 * Return: 0 when stepped (@s->how says how; @s->reliable is cleared by a
 * step that guesses, @s->rel_pending set by a kernel-mode pt_regs),
 * -KUW_E_END at the outermost frame, or another negative enum kuw_err.
 */
int kuw_arch_boundary_step(struct kunwind_state *s, u64 pc, u64 sp, u64 fp,
			   bool fp_ok, bool signal)
{
	u64 look = signal ? pc : pc - 1;
	bool orc_tried = false;
	int ret = -KUW_E_NOINFO;

	if (kuw_in_entry(look)) {
		if (!signal)
			ret = kuw_entry_step(s, pc, sp);
	} else if (is_idle_task(s->task) && kuw_in(kuw_idle_start, look)) {
		return -KUW_E_END;
	} else if (!kuw_registry_text(look) ||
		   IS_ENABLED(CONFIG_FRAME_POINTER)) {
		/*
		 * Without frame pointers rbp may hold anything, even an
		 * address that looks like a frame record higher up the
		 * stack: ORC first (it knows ftrace trampolines, from their
		 * template), the frame-pointer guess where it has nothing
		 * (BPF JIT code keeps frame records).
		 */
		if (!IS_ENABLED(CONFIG_FRAME_POINTER) && !s->no_orc) {
			orc_tried = true;
			ret = kuw_orc_step(s, pc, sp, fp, fp_ok, signal);
		}
		if (ret == -KUW_E_NOINFO && kuw_fp_code(look))
			ret = kuw_fp_step(s, sp, fp, fp_ok);
	}
	if (ret != -KUW_E_NOINFO)
		return ret;
	if (!s->no_orc && !orc_tried) {
		ret = kuw_orc_step(s, pc, sp, fp, fp_ok, signal);
		if (ret != -KUW_E_NOINFO)
			return ret;
	}
	if (signal && !kuw_in_entry(look))
		ret = kuw_leaf_step(s, sp);
	return ret;
}

/**
 * kuw_arch_entry_pad_lookup() - the row of an interrupted pc in entry padding
 * @s: the unwind
 * @e: the object whose text holds @pc
 * @pc: an interrupted pc no row covers
 * @t: the table
 * @r: the rule
 * @row: the row's start
 *
 * With CONFIG_CALL_PADDING (call depth tracking, Linux 6.2+: Debian's 6.12
 * and 7.3) every function is aligned and has CONFIG_FUNCTION_PADDING_BYTES
 * of NOPs before it (-fpatchable-function-entry=16,16, the __pfx_ symbol),
 * ahead of its FDE.  At run time the last bytes may be the call-depth
 * accounting thunk callers enter through ("sarq $5, %gs:..."), which only
 * changes memory: sp and the return address are as at the function's
 * entry, so its FDE's first row holds there.  It is used when @pc lies in
 * the padding of the next aligned function, the padding up to @pc is still
 * the NOPs it was built with, and a row starts at that function.  (The
 * ENDBR64 at an IBT kernel's function start, and a kprobe right after it,
 * are inside the FDE already.)
 *
 * Return: 0 with the row, or -KUW_E_NOINFO.
 */
int kuw_arch_entry_pad_lookup(struct kunwind_state *s,
			      const struct kuw_entry *e, u64 pc,
			      const struct kuw_table **t,
			      const struct kuw_rule **r, u64 *row)
{
#ifdef CONFIG_CALL_PADDING
	u8 pad[CONFIG_FUNCTION_PADDING_BYTES];
	u64 fn = round_up(pc + 1, CONFIG_FUNCTION_ALIGNMENT);
	u64 start = fn - sizeof(pad), i;

	BUILD_BUG_ON(sizeof(pad) > CONFIG_FUNCTION_ALIGNMENT);
	if (pc < start ||
	    copy_from_kernel_nofault(pad, (void *)(unsigned long)start,
				     sizeof(pad)))
		return -KUW_E_NOINFO;
	for (i = 0; i < pc - start; i++)
		if (pad[i] != 0x90)	/* nop */
			return -KUW_E_NOINFO;
	if (!kuw_entry_lookup(e, fn, s->src, t, r, row) && *row == fn)
		return 0;
#endif
	return -KUW_E_NOINFO;
}

/* the walk's path: never kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_x86_ret_addr);
NOKPROBE_SYMBOL(kuw_arch_stack_of);
NOKPROBE_SYMBOL(kuw_arch_regs_from_pt);
NOKPROBE_SYMBOL(kuw_arch_task_regs);
NOKPROBE_SYMBOL(kuw_arch_at_end);
NOKPROBE_SYMBOL(kuw_arch_unknown_pc);
NOKPROBE_SYMBOL(kuw_arch_perf_full_regs);
NOKPROBE_SYMBOL(kuw_orc_step);
NOKPROBE_SYMBOL(kuw_arch_boundary_step);
NOKPROBE_SYMBOL(kuw_arch_entry_pad_lookup);
NOKPROBE_SYMBOL(kuw_in_entry);
