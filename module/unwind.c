// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder: the kunwind_* API over the registry and the engine's
 * kuw_step().  One frame is: look up the row for the pc (pc - 1 for a
 * return address), step, then check the caller's frame:
 *   - its sp is on a known stack of the context (task, IRQ, exception,
 *     entry stacks: the kernel's get_stack_info()) and, on the same stack,
 *     above the callee's; a stack is entered at most once;
 *   - its pc is in the text of the kernel or a module.
 * Every memory read of a step goes through kuw_read_mem(): bounds-checked
 * against those stacks, then copy_from_kernel_nofault().
 *
 * No CFI covers x86 entry code (interrupt and exception entry, the IRQ
 * stack switch, ret_from_fork, syscall entry).  Two cases are handled:
 *   - the bottom of a task stack: a frame without unwind info whose sp is
 *     the task's top pt_regs (syscall entry, ret_from_fork) is the
 *     outermost frame: a clean end;
 *   - anywhere else, when the tables cannot step a frame (no info, or the
 *     step leaves the known stacks), the kernel's own ORC unwinder, which
 *     objtool annotated for entry code, steps that one frame; the walk
 *     then goes on with tables but is no longer reliable.
 *
 * Nothing here allocates or sleeps: safe in IRQ, NMI and oops context.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/switch_to.h>
#include <asm/unwind.h>
#include "kunwind.h"
#include "kunwind_internal.h"
#include "arch.h"
#include "blob.h"

#define KUW_PC	KUW_X86_RA
#define KUW_SP	KUW_X86_RSP
#define KUW_BP	KUW_X86_RBP

typedef int (*kuw_get_stack_info_t)(unsigned long *stack,
				    struct task_struct *task,
				    struct stack_info *info,
				    unsigned long *visit_mask);

/* The kernel's get_stack_info(): not exported, found through kallsyms. */
static kuw_get_stack_info_t kuw_get_stack_info;

/**
 * kuw_unwind_init() - find what the unwinder needs from the kernel
 *
 * Return: 0.  Without get_stack_info() only the task stack is known.
 */
int kuw_unwind_init(void)
{
	kuw_get_stack_info = (kuw_get_stack_info_t)
		kuw_lookup_name("get_stack_info");
	if (!kuw_get_stack_info)
		pr_warn("kunwind: get_stack_info not found: only task stacks are walked\n");
	return 0;
}

/* Which stack is @addr on?  @mask: stacks visited (NULL: just look). */
static bool kuw_stack_of(struct kunwind_state *s, u64 addr,
			 struct stack_info *info, unsigned long *mask)
{
	unsigned long begin, end;

	if (kuw_get_stack_info)
		return !kuw_get_stack_info((unsigned long *)addr, s->task,
					   info, mask);
	begin = (unsigned long)task_stack_page(s->task);
	end = begin + THREAD_SIZE;
	if (addr < begin || addr >= end || (mask && (*mask & 1)))
		return false;
	if (mask)
		*mask |= 1;
	info->type = STACK_TYPE_TASK;
	info->begin = (unsigned long *)begin;
	info->end = (unsigned long *)end;
	info->next_sp = NULL;
	return true;
}

static bool kuw_on(const struct stack_info *info, u64 addr, u32 len)
{
	u64 b = (unsigned long)info->begin, e = (unsigned long)info->end;

	return info->type != STACK_TYPE_UNKNOWN && addr >= b && addr < e &&
	       len <= e - addr;
}

/**
 * kuw_read_mem() - the engine's memory read, for the kernel
 * @mem_ctx: the struct kunwind_state of the unwind
 * @addr: address to read
 * @dst: where to copy
 * @len: bytes
 *
 * Only the stacks of the unwound context are readable: the read is checked
 * against them first, then done either directly (the current task's
 * stacks, mapped whole) or with copy_from_kernel_nofault().
 *
 * Return: 0, -KUW_E_BADSTACK outside them, -KUW_E_FAULT when the read
 * faults.
 */
int kuw_read_mem(void *mem_ctx, u64 addr, void *dst, u32 len)
{
	struct kunwind_state *s = mem_ctx;
	struct stack_info info;
	u64 v;

	if (unlikely(!s))
		return -KUW_E_BADSTACK;
	if (likely(kuw_on(&s->stack_info, addr, len))) {
		/*
		 * The stacks of the current task and CPU are mapped whole
		 * (guard pages lie outside the bounds): a read inside them
		 * cannot fault.  KASAN-quiet, like ORC's reads.
		 */
		if (len == 8 && s->task == current) {
			v = READ_ONCE_NOCHECK(*(const u64 *)(unsigned long)addr);
			memcpy(dst, &v, 8);
			return 0;
		}
	} else if (!kuw_stack_of(s, addr, &info, NULL) ||
		   !kuw_on(&info, addr, len)) {
		return -KUW_E_BADSTACK;
	}
	/* another task's stack may go away under us: fault-safe copy */
	if (copy_from_kernel_nofault(dst, (const void *)(unsigned long)addr,
				     len))
		return -KUW_E_FAULT;
	return 0;
}

static void kuw_stop(struct kunwind_state *s, int err)
{
	s->error = err;
	if (err != -KUW_E_END)
		s->reliable = false;
	kuw_count_stop(err);
}

/* Load every general register of a pt_regs (already bounds-checked). */
static void kuw_regs_from_pt(struct kuw_regs *r, const struct pt_regs *p)
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

/* The outermost frame of a task: entry code right above the top pt_regs. */
static bool kuw_at_stack_end(struct kunwind_state *s)
{
	return s->stack_info.type == STACK_TYPE_TASK &&
	       s->regs.r[KUW_SP] == (unsigned long)task_pt_regs(s->task);
}

/*
 * Stack checks on the caller's frame after a step from a callee at @old_sp.
 * On a move to another stack the old stack's info is kept in @prev (and
 * *@moved set) so that a failed step can be undone.
 */
static __always_inline int kuw_check_stack(struct kunwind_state *s,
					   u64 old_sp, struct stack_info *prev,
					   unsigned long *prev_mask, bool *moved)
{
	u64 sp = s->regs.r[KUW_SP];
	u64 b = (unsigned long)s->stack_info.begin;
	u64 e = (unsigned long)s->stack_info.end;
	u64 need = 1ULL << KUW_SP | 1ULL << KUW_PC;

	if ((s->regs.valid & ~s->regs.lazy & need) != need)
		return -KUW_E_BADSP;
	if (sp >= b && sp <= e)
		return sp > old_sp ? 0 : -KUW_E_BADSP;
	*prev = s->stack_info;
	*prev_mask = s->stack_mask;
	*moved = true;
	if (!kuw_stack_of(s, sp, &s->stack_info, &s->stack_mask))
		return -KUW_E_BADSTACK;
	return 0;
}

/*
 * The new frame's pc must be in kernel or module text: finding its object
 * is most of a look-up, so finish it and keep the row for the next step.
 */
static __always_inline int kuw_lookahead(struct kunwind_state *s,
					 unsigned int seq)
{
	u64 pc = s->regs.r[KUW_PC];
	u64 look = s->signal ? pc : pc - 1;
	const struct kuw_entry *hint = NULL;
	const struct kuw_entry *e;

	if (s->ahead_entry && s->ahead_seq == seq)
		hint = s->ahead_entry;
	e = kuw_registry_find(look, hint);
	if (!e)
		return -KUW_E_BADRA;
	s->ahead_entry = e;
	s->ahead_seq = seq;
	s->ahead_look = look;
	s->ahead_ret = kuw_entry_lookup(e, look, s->src, &s->ahead_table,
					&s->ahead_rule, &s->ahead_row);
	s->ahead_ok = true;
	return 0;
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
		kuw_regs_from_pt(&s->regs, &full);
		s->how = KUNWIND_FRAME_PT_REGS;
	} else {
		s->regs.valid = 1ULL << KUW_SP | 1ULL << KUW_PC;
		s->regs.lazy = 0;
		s->regs.r[KUW_SP] = os.sp;
		if (os.bp) {
			s->regs.r[KUW_BP] = os.bp;
			s->regs.valid |= 1ULL << KUW_BP;
		}
		s->how = os.regs ? KUNWIND_FRAME_PT_REGS : KUNWIND_FRAME_ORC;
	}
	s->regs.r[KUW_PC] = ip;
	s->regs.r[KUW_SP] = os.sp;
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

/* One frame up.  Return: 0 or the stop reason. */
static __always_inline int kuw_step_frame(struct kunwind_state *s)
{
	u64 pc = s->regs.r[KUW_PC], sp = s->regs.r[KUW_SP];
	u64 bp = s->regs.r[KUW_BP];
	bool bp_ok = (s->regs.valid & ~s->regs.lazy) & (1ULL << KUW_BP);
	bool signal = s->signal;
	u64 look = signal ? pc : pc - 1;
	unsigned int seq = READ_ONCE(kuw_reg_seq);
	struct stack_info si;
	unsigned long mask;
	bool moved = false;
	const struct kuw_entry *e;
	const struct kuw_table *t = NULL;
	const struct kuw_rule *r = NULL;
	u64 row = 0;
	int ret, oret;

	if (s->nframes >= KUNWIND_MAX_FRAMES)
		return -KUW_E_LIMIT;
	s->nframes++;
	this_cpu_inc(kuw_counters.frames);
	smp_rmb();	/* seq before the cached pointers; see kuw_reg_changed() */
	if (s->ahead_ok && s->ahead_seq == seq && s->ahead_look == look) {
		ret = s->ahead_ret;
		t = s->ahead_table;
		r = s->ahead_rule;
		row = s->ahead_row;
	} else {
		e = kuw_registry_find(look, NULL);
		ret = e ? kuw_entry_lookup(e, look, s->src, &t, &r, &row) :
			  -KUW_E_NOINFO;
	}
	s->ahead_ok = false;
	s->table = NULL;
	s->rule = NULL;
	if (!ret) {
		s->table = t;
		s->rule = r;
		s->row_pc = row;
		ret = kuw_step(t->arch, t->sec, t->sec_size, r, &s->regs, s);
		if (!ret)
			ret = kuw_check_stack(s, sp, &si, &mask, &moved);
		if (!ret) {
			s->signal = r->flags & KUW_RF_SIGNAL;
			ret = kuw_lookahead(s, seq);
		}
		if (!ret) {
			s->how = KUNWIND_FRAME_CFI;
			return 0;
		}
		if (ret == -KUW_E_END)
			return ret;
		/* put the callee's frame back for the fallback */
		if (moved) {
			s->stack_info = si;
			s->stack_mask = mask;
			moved = false;
		}
		s->signal = signal;
		s->regs.r[KUW_PC] = pc;
		s->regs.r[KUW_SP] = sp;
	} else if (kuw_at_stack_end(s)) {
		return -KUW_E_END;
	}
	if (s->no_orc)
		return ret;
	oret = kuw_orc_step(s, pc, sp, bp, bp_ok, signal);
	if (oret == -KUW_E_END)
		return ret == -KUW_E_NOINFO ? -KUW_E_END : ret;
	if (oret)
		return ret;
	s->reliable = false;
	s->table = NULL;
	s->rule = NULL;
	oret = kuw_check_stack(s, sp, &si, &mask, &moved);
	if (!oret)
		oret = kuw_lookahead(s, seq);
	return oret;
}

/**
 * kunwind_next_frame() - move to the caller's frame
 * @state: the unwind
 *
 * After the call, @state->table and @state->rule name the row that was
 * used to leave the previous frame (NULL if the kernel's ORC stepped it).
 *
 * Return: true when there is a frame, false when the unwind has ended
 * (kunwind_error() says why).
 */
bool kunwind_next_frame(struct kunwind_state *state)
{
	int ret;

	if (kunwind_done(state))
		return false;
	/*
	 * RCU keeps tables alive; no preemption keeps this CPU's IRQ and
	 * exception stacks the ones get_stack_info() checks against.
	 */
	preempt_disable();
	rcu_read_lock();
	ret = kuw_step_frame(state);
	rcu_read_unlock();
	preempt_enable();
	if (ret) {
		kuw_stop(state, ret);
		return false;
	}
	return true;
}
EXPORT_SYMBOL_GPL(kunwind_next_frame);

/*
 * The registers of this very function at the instruction the asm stands
 * at; its own CFI row (kunwind.ko is built with unwind tables) describes
 * that point.  Callee-saved registers are what they are there.
 */
static noinline void kuw_capture(struct kuw_regs *r)
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
	r->valid = 1ULL << KUW_X86_RA | 1ULL << KUW_X86_RSP |
		   1ULL << KUW_X86_RBP | 1ULL << KUW_X86_RBX |
		   0xfULL << 12;
	r->lazy = 0;
}

static bool kuw_in_self(u64 pc)
{
	return within_module_core(pc, THIS_MODULE);
}

/**
 * __kunwind_start() - begin an unwind, choosing the table source
 * @state: the unwind to set up
 * @task: task whose stack to walk (NULL: current)
 * @regs: start from these registers (oops, kprobe), or NULL
 * @first_frame: skip frames whose sp is at or below this stack address
 *		 (NULL: report from the first frame)
 * @src: KUNWIND_SRC_ANY or one enum kuw_src (KUW_SRC_EH_FRAME, ...),
 *	 optionally OR'ed with KUNWIND_NO_ORC
 *
 * With @regs, the first frame is @regs->ip itself.  For current without
 * @regs, the first frame is the caller of kunwind_start() (frames of
 * kunwind itself are skipped).  A sleeping task starts at the return
 * address its context switch saved; a task running on another CPU is
 * refused (-KUW_E_INVAL).
 */
void __kunwind_start(struct kunwind_state *state, struct task_struct *task,
		     struct pt_regs *regs, unsigned long *first_frame, u8 src)
{
	struct inactive_task_frame frame;
	unsigned long tsp;
	int ret = 0;
	bool ok, reliable;

	memset(state, 0, sizeof(*state));
	task = task ? task : current;
	state->task = task;
	state->src = src & ~KUNWIND_NO_ORC;
	state->no_orc = src & KUNWIND_NO_ORC;
	state->reliable = true;
	state->how = KUNWIND_FRAME_START;
	this_cpu_inc(kuw_counters.unwinds);

	if (regs) {
		if (user_mode(regs)) {
			kuw_stop(state, -KUW_E_END);
			return;
		}
		kuw_regs_from_pt(&state->regs, regs);
		state->signal = true;
	} else if (task == current) {
		kuw_capture(&state->regs);
		state->signal = true;
	} else {
		if (task_on_another_cpu(task)) {
			kuw_stop(state, -KUW_E_INVAL);
			return;
		}
		tsp = READ_ONCE(task->thread.sp);
		if (copy_from_kernel_nofault(&frame, (void *)tsp,
					     sizeof(frame))) {
			kuw_stop(state, -KUW_E_FAULT);
			return;
		}
		state->regs.r[KUW_X86_RBX] = frame.bx;
		state->regs.r[KUW_X86_RBP] = frame.bp;
		state->regs.r[12] = frame.r12;
		state->regs.r[13] = frame.r13;
		state->regs.r[14] = frame.r14;
		state->regs.r[15] = frame.r15;
		state->regs.r[KUW_SP] = tsp + sizeof(frame);
		state->regs.r[KUW_PC] = frame.ret_addr;
		/*
		 * A task that never ran "returns" to ret_from_fork's first
		 * instruction, right on its pt_regs: not a call's return
		 * address, so look it up as is (ORC does the same).
		 */
		state->signal = state->regs.r[KUW_SP] ==
				(unsigned long)task_pt_regs(task);
		state->regs.valid = 1ULL << KUW_X86_RA | 1ULL << KUW_X86_RSP |
				    1ULL << KUW_X86_RBP | 1ULL << KUW_X86_RBX |
				    0xfULL << 12;
	}
	preempt_disable();
	ok = kuw_stack_of(state, state->regs.r[KUW_SP], &state->stack_info,
			  &state->stack_mask);
	if (!ok && regs) {
		/*
		 * A stack overflow leaves sp in the guard page below a stack:
		 * walk on from the page above, like ORC, but not reliably.
		 */
		ok = kuw_stack_of(state, PAGE_ALIGN(state->regs.r[KUW_SP] + 1),
				  &state->stack_info, &state->stack_mask);
		state->reliable = false;
	}
	preempt_enable();
	if (!ok) {
		kuw_stop(state, -KUW_E_BADSTACK);
		return;
	}
	/*
	 * Skip kunwind's own frames (with any table: kunwind.ko has only
	 * .eh_frame), then up to the requested frame.  Skipped frames are not
	 * reported, so how they were stepped does not make the trace
	 * unreliable.
	 */
	reliable = state->reliable;
	if (!regs && task == current) {
		state->src = KUNWIND_SRC_ANY;
		while (!ret && kuw_in_self(state->regs.r[KUW_PC]))
			ret = kunwind_next_frame(state) ? 0 : 1;
		state->src = src & ~KUNWIND_NO_ORC;
	}
	while (!ret && first_frame &&
	       (!kuw_on(&state->stack_info, (unsigned long)first_frame, 8) ||
		state->regs.r[KUW_SP] <= (unsigned long)first_frame))
		ret = kunwind_next_frame(state) ? 0 : 1;
	if (!ret) {
		state->reliable = reliable;
		state->how = KUNWIND_FRAME_START;
	}
	state->nframes = 0;
}
EXPORT_SYMBOL_GPL(__kunwind_start);

/**
 * kunwind_start() - begin an unwind
 * @state: the unwind to set up
 * @task: task whose stack to walk (NULL: current)
 * @regs: start from these registers (oops, kprobe), or NULL
 * @first_frame: skip frames whose sp is at or below this stack address
 *
 * Like the kernel's unwind_start(); tables of any source are used, see
 * __kunwind_start().
 */
void kunwind_start(struct kunwind_state *state, struct task_struct *task,
		   struct pt_regs *regs, unsigned long *first_frame)
{
	__kunwind_start(state, task, regs, first_frame, KUNWIND_SRC_ANY);
}
EXPORT_SYMBOL_GPL(kunwind_start);

/**
 * kunwind_get_return_address() - pc of the current frame
 * @state: the unwind
 *
 * Return: the pc (the return address for every frame but a first or
 * signal frame), or 0 once the unwind is done.
 */
unsigned long kunwind_get_return_address(struct kunwind_state *state)
{
	if (kunwind_done(state))
		return 0;
	return state->regs.r[KUW_PC];
}
EXPORT_SYMBOL_GPL(kunwind_get_return_address);

/**
 * kunwind_error() - did the unwind stop before the end of the stack?
 * @state: the unwind
 *
 * Return: 0 while going or after a clean end at the outermost frame;
 * otherwise the stop reason, a negative enum kuw_err (kunwind_strerror()).
 */
int kunwind_error(struct kunwind_state *state)
{
	return state->error == -KUW_E_END ? 0 : state->error;
}
EXPORT_SYMBOL_GPL(kunwind_error);

/**
 * kunwind_reliable() - may the trace be trusted whole (livepatch-style)?
 * @state: the unwind, after it is done
 *
 * Return: true only when the walk reached the outermost frame cleanly,
 * every step came from a table row, and no exception or interrupt frame
 * was crossed with the kernel's ORC unwinder.
 */
bool kunwind_reliable(struct kunwind_state *state)
{
	return state->error == -KUW_E_END && state->reliable;
}
EXPORT_SYMBOL_GPL(kunwind_reliable);

/**
 * kunwind_rule_for_pc() - the unwind row in force at an address
 * @pc: the address (looked up as is, not as a return address)
 * @src: KUNWIND_SRC_ANY or one enum kuw_src
 * @info: filled with the owner, source, row start and a copy of the rule
 *
 * Return: 0, or -KUW_E_NOINFO when no table covers @pc.
 */
int kunwind_rule_for_pc(unsigned long pc, u8 src,
			struct kunwind_rule_info *info)
{
	const struct kuw_entry *e = NULL;
	const struct kuw_table *t;
	const struct kuw_rule *r;
	u64 row;
	int ret;

	memset(info, 0, sizeof(*info));
	rcu_read_lock();
	ret = kuw_registry_lookup(pc, src, &e, &t, &r, &row);
	if (!ret) {
		strscpy(info->owner, e->name, sizeof(info->owner));
		info->src = t->src;
		info->arch = t->arch;
		info->row_pc = row;
		memcpy(&info->rule, r, kuw_rule_size(r));
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(kunwind_rule_for_pc);

/**
 * kunwind_strerror() - name of a stop reason or error
 * @err: a negative (or positive) enum kuw_err, or 0
 *
 * Return: a static string, the one debugfs, the oops hook and the CLI print.
 */
const char *kunwind_strerror(int err)
{
	return kuw_strerror(err);
}
EXPORT_SYMBOL_GPL(kunwind_strerror);

/*
 * Engine helpers that users of struct kunwind_rule_info need.  The engine
 * has no linux/ include, so its symbols are exported here.
 */
EXPORT_SYMBOL_GPL(kuw_rule_find);
EXPORT_SYMBOL_GPL(kuw_format_row);
EXPORT_SYMBOL_GPL(kuw_src_name);
/* For tests that make a vmlinux blob in the kernel. */
EXPORT_SYMBOL_GPL(kuw_blob_write);
EXPORT_SYMBOL_GPL(kuw_blob_size);
