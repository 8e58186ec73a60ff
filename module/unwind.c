// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder: the kunwind_* API over the registry and the engine's
 * kuw_step().  One frame is: look up the row for the pc (pc - 1 for a
 * return address), step, then check the caller's frame:
 *   - its sp is on a known stack of the context (the arch's
 *     kuw_arch_stack_of()) and, on the same stack, above the callee's; a
 *     stack is entered at most once;
 *   - its pc is in the text of the kernel or a module.
 * Frames no table covers (entry code, the ends of tasks) go to the arch's
 * kuw_arch_boundary_step().  Every memory read of a step is bounds-checked
 * against those stacks: a plain load on the walk's stack of the current
 * task (mapped whole, it cannot fault), copy_from_kernel_nofault()
 * anywhere else (kuw_read_mem()).  The common frame (a KUW_RF_FAST rule
 * whose slots lie on that stack) is stepped inline, kuw_step_common().
 *
 * Nothing here allocates or sleeps: safe in IRQ, NMI and oops context.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include "kunwind.h"
#include "kunwind_internal.h"
#include "kuw_arch.h"
#include "blob.h"
#include "fast.h"
#include "compat.h"

/* kunwind.ko's own text, from kuw_unwind_init() */
static struct kuw_range kuw_self;

static bool kuw_on(const struct kunwind_stack *st, u64 addr, u32 len)
{
	return st->type != KUNWIND_STACK_NONE && addr >= st->begin &&
	       addr < st->end && len <= st->end - addr;
}

/*
 * @addr, @len on a stack of @task's context other than the walk's: out of
 * line, so that its stack's bounds are not in kuw_read_mem()'s frame on
 * the path to copy_from_kernel_nofault() (README, "Stack use").
 */
static noinline bool kuw_on_other(struct task_struct *task, u64 addr, u32 len)
{
	struct kunwind_stack st;

	return kuw_arch_stack_of(task, addr, &st, NULL) &&
	       kuw_on(&st, addr, len);
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
	u64 v;

	if (unlikely(!s))
		return -KUW_E_BADSTACK;
	if (likely(kuw_on(&s->stack, addr, len))) {
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
	} else if (!kuw_on_other(s->task, addr, len)) {
		return -KUW_E_BADSTACK;
	}
	/* another task's stack may go away under us: fault-safe copy */
	if (copy_from_kernel_nofault(dst, (const void *)(unsigned long)addr,
				     len))
		return -KUW_E_FAULT;
	return 0;
}

/*
 * kuw_read_mem() for one word, inline for the common case: an address on
 * the stack the walk is on, of the current task (mapped whole), read with
 * a plain load; anything else goes through kuw_read_mem() itself.
 */
static __always_inline int kuw_read_word(struct kunwind_state *s, u64 addr,
					 u64 *v)
{
	if (likely(kuw_on(&s->stack, addr, 8) && s->task == current)) {
		*v = READ_ONCE_NOCHECK(*(const u64 *)(unsigned long)addr);
		return 0;
	}
	return kuw_read_mem(s, addr, v, sizeof(*v));
}

/*
 * kuw_step() of the frame at @r, taking the engine's one-pass step for a
 * KUW_RF_FAST rule (fast.h) here, with its reads inline: the step most
 * frames take, without a call.  The same result as kuw_step().
 */
static __always_inline int kuw_step_row(struct kunwind_state *s,
					const struct kuw_table *t,
					const struct kuw_rule *r)
{
	struct kuw_regs *regs = &s->regs;
	u64 bit = 1ULL << r->cfa_reg;
	u64 cfa, ra, slot;
	int ret;

	if (!(r->flags & KUW_RF_FAST) || t->arch != KUW_ARCH_THIS ||
	    !(regs->valid & bit)) {
		s->work->step.sec = t->sec;
		s->work->step.sec_size = t->sec_size;
		return kuw_step_in(t->arch, r, regs, s, &s->work->step);
	}
	if (regs->lazy & bit) {	/* kuw_regs_get() */
		ret = kuw_read_word(s, regs->r[r->cfa_reg], &cfa);
		if (ret)
			return ret;
		regs->r[r->cfa_reg] = cfa;
		regs->lazy &= ~bit;
	} else {
		cfa = regs->r[r->cfa_reg];
	}
	slot = kuw_fast_ra_slot(r, cfa, &cfa);
	ret = kuw_read_word(s, slot, &ra);
	if (ret)
		return ret;
	kuw_fast_commit(KUW_ARCH_THIS, r, r->nregs - 1, regs, cfa,
			kuw_fast_ra(KUW_ARCH_THIS, r, ra));
	return 0;
}

/*
 * nvcsw + nivcsw: __schedule() counts every switch away from a task (the
 * task that leaves, before it stops being on its CPU)
 */
static __always_inline unsigned long kuw_switches(struct task_struct *task)
{
	return READ_ONCE(task->nvcsw) + READ_ONCE(task->nivcsw);
}

/*
 * Did another task than current run at some point since the walk of it
 * began (see struct kunwind_state, @switches)?  It is on a CPU now, or it
 * was switched away from since.  After the walk's reads: a task that ran
 * set on_cpu before it wrote its stack, and counts its switch away before
 * it clears on_cpu (finish_task(), a release).
 */
static bool kuw_task_ran(const struct kunwind_state *s)
{
	smp_rmb();	/* the walk's reads of the stack, then the task's state */
	/*
	 * acquire: an on_cpu of 0 is finish_task()'s release, which came
	 * after the switch away was counted; the counts read below are then
	 * at least that switch's (a plain read could take them first)
	 */
	if (smp_load_acquire(&s->task->on_cpu))
		return true;
	return kuw_switches(s->task) != s->switches;
}

/*
 * The walk ends with @err.  A clean end of a walk of another task that
 * ran meanwhile is no end: what the walk read may have changed under it.
 */
static void kuw_stop(struct kunwind_state *s, int err)
{
	if (err == -KUW_E_END && s->task != current && kuw_task_ran(s))
		err = -KUW_E_RUNNING;
	s->error = err;
	if (err != -KUW_E_END)
		s->reliable = false;
	kuw_count_stop(err);
}

/*
 * Stack checks on the caller's frame after a step from a callee at
 * (@old_pc, @old_sp).  On the same stack the sp must move up; where the
 * arch lets a frame have no stack of its own (KUW_ARCH_SP_MAY_STAY: an
 * arm64 leaf, or a function stopped before its prologue, keeps its return
 * address in x30), it may also stay, as long as the pc moves.  On a move to
 * another stack the old stack's info is kept in @prev (and *@moved set) so
 * that a failed step can be undone.
 */
static __always_inline int __kuw_check_stack(struct kunwind_state *s,
					     u64 old_pc, u64 old_sp,
					     struct kunwind_stack *prev,
					     unsigned long *prev_mask,
					     bool *moved)
{
	u64 sp = s->regs.r[KUW_REG_SP];
	u64 b = s->stack.begin;
	u64 e = s->stack.end;
	u64 need = 1ULL << KUW_REG_SP | 1ULL << KUW_REG_PC;

	if ((s->regs.valid & ~s->regs.lazy & need) != need)
		return -KUW_E_BADSP;
	if (sp >= b && sp <= e) {
		if (sp < old_sp || (sp == old_sp &&
				    (!KUW_ARCH_SP_MAY_STAY ||
				     s->regs.r[KUW_REG_PC] == old_pc)))
			return -KUW_E_BADSP;
		/* a stack switch the tables do not describe (IRQ stack) */
		if (likely(!kuw_arch_stack_link(&s->stack, &sp)))
			return 0;
		s->regs.r[KUW_REG_SP] = sp;
	}
	*prev = s->stack;
	*prev_mask = s->stack_mask;
	*moved = true;
	if (!kuw_arch_stack_of(s->task, sp, &s->stack, &s->stack_mask))
		return -KUW_E_BADSTACK;
	return 0;
}

/**
 * kuw_check_stack() - check the caller's sp after a step
 * @s: the unwind, at the caller's frame
 * @old_pc: the callee's pc
 * @old_sp: the callee's sp
 * @prev: set to the callee's stack when the step moved to another stack
 * @prev_mask: set to the stacks entered before the move
 * @moved: set when the step moved to another stack
 *
 * Return: 0, or -KUW_E_BADSP / -KUW_E_BADSTACK.
 */
int kuw_check_stack(struct kunwind_state *s, u64 old_pc, u64 old_sp,
		    struct kunwind_stack *prev, unsigned long *prev_mask,
		    bool *moved)
{
	return __kuw_check_stack(s, old_pc, old_sp, prev, prev_mask, moved);
}

/*
 * The registers a walk that only wants the pcs keeps (kunwind_next_frames()):
 * what common steps need (a CFA is sp- or frame-pointer-based in kernel
 * code) and what the arch's boundary steps read.  The others' slots are
 * not worth computing for a trace: they become unknown, and a rule that
 * needs one fails like a rule whose register was never known.
 */
#define KUW_LEAN_REGS	(BIT_ULL(KUW_REG_PC) | BIT_ULL(KUW_REG_SP) | \
			 BIT_ULL(KUW_REG_FP) | \
			 BIT_ULL(kuw_arch(KUW_ARCH_THIS)->ra))

/*
 * The row cache: per CPU, the look-ups of the walk by look-up address,
 * two-way set-associative (128 sets, 12 KiB a CPU; a walk's 20-60
 * addresses would often share a slot of a direct-mapped one, and then
 * miss on every walk).  An entry is the
 * answer of __kuw_entry_lookup() for (address, object, source) under one
 * registry generation: tables of a registered object never change (an
 * edit replaces the entry, and kuw_reg_changed() bumps kuw_reg_seq before
 * the grace period that frees), so an entry whose generation is the
 * walk's gives what a look-up would, with pointers that stay valid for
 * the walk's read-side section, as the look-ahead's do.  Only successful
 * look-ups are kept.  NMI-safe without locks or atomics: only the
 * outermost batch on a CPU uses it (@busy, set and cleared by that batch
 * with preemption off; a walk in an IRQ or NMI that interrupts it finds
 * @busy set and looks up without the cache, and one that comes before
 * @busy is set leaves it as it found it), so no entry is ever read while
 * another context writes it.  kunwind.row_cache=0 turns it off.
 */
#define KUW_RC_BITS	8

struct kuw_rc_ent {
	u64 look;
	const struct kuw_entry *e;
	u64 gen;		/* kuw_rc_gen() */
	const struct kuw_table *t;
	const struct kuw_rule *r;
	u64 row;
};

struct kuw_rcache {
	unsigned int busy;
	struct kuw_rc_ent ent[1 << KUW_RC_BITS];
};

static struct kuw_rcache __percpu *kuw_rc;
static bool kuw_row_cache = true;
module_param_named(row_cache, kuw_row_cache, bool, 0644);
MODULE_PARM_DESC(row_cache, "cache row look-ups per CPU (default 1)");

/* the set of a look-up address: its instruction bits, folded */
static __always_inline struct kuw_rc_ent *kuw_rc_set(struct kuw_rcache *rc,
						     u64 look)
{
	u64 x = look >> 2;

	return &rc->ent[(x ^ x >> KUW_RC_BITS) & ((1 << KUW_RC_BITS) - 2)];
}

/* the rest of an entry's tag: the registry generation and the source */
static __always_inline u64 kuw_rc_gen(unsigned int seq, u8 src)
{
	/* bit 63: no generation is 0, the tag of an entry never filled */
	return BIT_ULL(63) | (u64)seq << 8 | src;
}

/* The cache of this CPU for a batch, or NULL: kuw_rc_put() after. */
static __always_inline struct kuw_rcache *kuw_rc_get(void)
{
	struct kuw_rcache __percpu *pc = READ_ONCE(kuw_rc);
	struct kuw_rcache *rc;

	if (!pc || !READ_ONCE(kuw_row_cache))
		return NULL;
	rc = this_cpu_ptr(pc);
	if (READ_ONCE(rc->busy)) {
		/* an interrupted batch of this CPU has it (debugfs stats) */
		this_cpu_inc(kuw_counters.rc_held);
		return NULL;
	}
	WRITE_ONCE(rc->busy, 1);
	barrier();	/* busy before any entry is touched */
	return rc;
}

/**
 * kunwind_row_cache_held() - walks that found this CPU's row cache held
 *
 * A walk in an IRQ or NMI that interrupts a walk holding its CPU's row
 * cache looks its rows up without it; each such walk (each batch of it)
 * counts here, per CPU (debugfs stats, row_cache_held, sums them).  Call
 * it with preemption off to read one CPU's count.
 *
 * Return: this CPU's count since kunwind was loaded.
 */
unsigned long kunwind_row_cache_held(void)
{
	return raw_cpu_read(kuw_counters.rc_held);
}
EXPORT_SYMBOL_GPL(kunwind_row_cache_held);

static __always_inline void kuw_rc_put(struct kuw_rcache *rc)
{
	if (rc) {
		barrier();	/* every entry access before busy is cleared */
		WRITE_ONCE(rc->busy, 0);
	}
}

/*
 * The walks' memory (README, "Stack use"): per CPU, one slot per context
 * a walk can run in, as perf's get_recursion_context() has them (task,
 * softirq, hardirq, NMI), and one for the oops hook, which may run on an
 * exception stack in any of them.  A slot holds what does not fit a 1 KiB
 * stack budget: a consumer's whole struct kunwind_state and the struct
 * kuw_work every walk needs (a step's new values and DW_OP stack, the
 * undo copy of the registers, the arch's pt_regs and ORC state).  A walk
 * takes its context's slot with preemption off and gives it back before
 * it enables preemption: an interrupt or NMI uses another slot, so the
 * only walk that finds its slot taken is one nested in a walk of the same
 * context, which only a callback of the walk can start (the walk's own
 * functions can be neither kprobed nor traced, the kernel's that it calls
 * can).  That walk is refused (-KUW_E_NESTED, a debugfs stop counter);
 * kunwind's consumers then answer with the kernel's unwinder.
 */
enum { KUW_CTX_TASK, KUW_CTX_SOFTIRQ, KUW_CTX_HARDIRQ, KUW_CTX_NMI,
	KUW_CTX_OOPS, KUW_CTX__N };

struct kuw_slot {
	unsigned int busy;
	struct kunwind_state st;
	struct kuw_work work;
};

struct kuw_slots {
	struct kuw_slot slot[KUW_CTX__N];
};

static struct kuw_slots __percpu *kuw_slots;

/* this context's slot: perf's get_recursion_context() */
static __always_inline int kuw_ctx(void)
{
	if (in_nmi())
		return KUW_CTX_NMI;
	if (in_hardirq())
		return KUW_CTX_HARDIRQ;
	if (in_serving_softirq())
		return KUW_CTX_SOFTIRQ;
	return KUW_CTX_TASK;
}

/*
 * Take slot @ctx of this CPU (preemption off).  Return: the slot, or NULL
 * when a walk of the same context has it (or there is no memory).
 */
static __always_inline struct kuw_slot *kuw_slot_get(int ctx)
{
	struct kuw_slots __percpu *p = READ_ONCE(kuw_slots);
	struct kuw_slot *sl;

	if (unlikely(!p))
		return NULL;
	sl = &this_cpu_ptr(p)->slot[ctx];
	if (unlikely(READ_ONCE(sl->busy)))
		return NULL;
	WRITE_ONCE(sl->busy, 1);
	barrier();	/* busy before anything of the slot is used */
	return sl;
}

static __always_inline void kuw_slot_put(struct kuw_slot *sl)
{
	barrier();	/* every use of the slot before it is free */
	WRITE_ONCE(sl->busy, 0);
}

/**
 * kuw_walk_get() - a walk state for a consumer, off the stack
 * @oops: for the oops hook (its own slot), else this context's
 *
 * Disables preemption; kuw_walk_put() gives the state back and enables it.
 * The state's @work is set and kept by kuw_walk_start().
 *
 * Return: the state, or NULL (preemption as it was) when a walk of the
 * same context on this CPU holds it: counted as a stop, -KUW_E_NESTED.
 */
struct kunwind_state *kuw_walk_get(bool oops)
{
	struct kuw_slot *sl;

	preempt_disable_notrace();
	sl = kuw_slot_get(oops ? KUW_CTX_OOPS : kuw_ctx());
	if (unlikely(!sl)) {
		preempt_enable_notrace();
		kuw_count_stop(-KUW_E_NESTED);
		return NULL;
	}
	sl->st.work = &sl->work;
	return &sl->st;
}
EXPORT_SYMBOL_GPL(kuw_walk_get);	/* kunit/budget_test.c holds a slot */
NOKPROBE_SYMBOL(kuw_walk_get);

/* kunit/budget_test.c reads the nested-walk stop count */
EXPORT_PER_CPU_SYMBOL_GPL(kuw_counters);

/**
 * kuw_walk_put() - give back a state of kuw_walk_get()
 * @st: the state
 */
void kuw_walk_put(struct kunwind_state *st)
{
	kuw_slot_put(container_of(st, struct kuw_slot, st));
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(kuw_walk_put);
NOKPROBE_SYMBOL(kuw_walk_put);

/**
 * kuw_unwind_init() - note kunwind.ko's text, allocate the row cache and
 * the walks' memory
 *
 * Without the cache (no memory), walks look every row up; without the
 * walks' memory, every walk is refused.
 */
void kuw_unwind_init(void)
{
	kuw_self = kuw_module_text(THIS_MODULE);
	kuw_rc = alloc_percpu(struct kuw_rcache);
	kuw_slots = alloc_percpu(struct kuw_slots);
}

/**
 * kuw_unwind_exit() - free the row cache and the walks' memory, once no
 * walk can use them
 */
void kuw_unwind_exit(void)
{
	struct kuw_rcache __percpu *rc = kuw_rc;
	struct kuw_slots __percpu *sl = kuw_slots;

	WRITE_ONCE(kuw_rc, NULL);
	WRITE_ONCE(kuw_slots, NULL);
	/*
	 * batches run in read-side sections, slots are held with
	 * preemption off
	 */
	synchronize_rcu();
	free_percpu(rc);
	free_percpu(sl);
}

/*
 * A look-up through the row cache @rc (NULL: none).  Under one generation
 * the entry that covers a look-up address stays the same (an entry is
 * unlinked or its text edited only with kuw_reg_changed(); new entries
 * cover text no live entry covers), so an entry tagged (@look, @gen)
 * names the object as well as the row.  Return: true on a hit, with
 * *@e, *@t, *@r, *@row set.
 */
static __always_inline bool kuw_rc_hit(struct kuw_rcache *rc, u64 look,
				       u64 gen, const struct kuw_entry **e,
				       const struct kuw_table **t,
				       const struct kuw_rule **r, u64 *row)
{
	struct kuw_rc_ent *ce;

	if (!rc)
		return false;
	ce = kuw_rc_set(rc, look);
	if (ce->look != look || ce->gen != gen) {
		ce++;
		if (ce->look != look || ce->gen != gen)
			return false;
	}
	*e = ce->e;
	*t = ce->t;
	*r = ce->r;
	*row = ce->row;
	return true;
}

/*
 * Keep a successful __kuw_entry_lookup() in @rc (NULL: none): first in its
 * set, the entry that was first second (the other one is dropped).
 */
static __always_inline void kuw_rc_fill(struct kuw_rcache *rc, u64 look,
					u64 gen, const struct kuw_entry *e,
					const struct kuw_table *t,
					const struct kuw_rule *r, u64 row)
{
	struct kuw_rc_ent *ce;

	if (!rc)
		return;
	ce = kuw_rc_set(rc, look);
	ce[1] = ce[0];
	ce->look = look;
	ce->e = e;
	ce->gen = gen;
	ce->t = t;
	ce->r = r;
	ce->row = row;
}

/*
 * The look-ahead (s->ahead_*) for the look-up address @look: from the row
 * cache, else from the object whose text holds it (tried from @hint
 * first) and its tables; with @pad, a row found in entry slots before an
 * FDE (kuw_arch_entry_pad_lookup()), which is not a look-up's answer and
 * so not kept in the cache.  Return: the object, NULL when no object's
 * text holds @look (the look-ahead then says -KUW_E_NOINFO).
 */
static __always_inline const struct kuw_entry *
kuw_ahead_fill(struct kunwind_state *s, u64 look, unsigned int seq,
	       struct kuw_rcache *rc, const struct kuw_entry *hint, bool pad)
{
	const u64 gen = kuw_rc_gen(seq, s->src);
	const struct kuw_entry *e;
	int ret = 0;

	if (!kuw_rc_hit(rc, look, gen, &e, &s->ahead_table, &s->ahead_rule,
			&s->ahead_row)) {
		e = kuw_registry_find(look, hint);
		ret = e ? kuw_entry_lookup(e, look, s->src, &s->ahead_table,
					   &s->ahead_rule, &s->ahead_row) :
			  -KUW_E_NOINFO;
		if (!ret)
			kuw_rc_fill(rc, look, gen, e, s->ahead_table,
				    s->ahead_rule, s->ahead_row);
		else if (e && pad)
			ret = kuw_arch_entry_pad_lookup(s, e, look,
							&s->ahead_table,
							&s->ahead_rule,
							&s->ahead_row);
	}
	s->ahead_entry = e;
	s->ahead_seq = seq;
	s->ahead_look = look;
	s->ahead_ret = ret;
	s->ahead_ok = true;
	return e;
}

/*
 * The new frame's pc must be in kernel or module text: finding its object
 * is most of a look-up, so finish it and keep the row for the next step.
 */
static __always_inline int kuw_lookahead(struct kunwind_state *s,
					 unsigned int seq,
					 struct kuw_rcache *rc)
{
	u64 pc = s->regs.r[KUW_REG_PC];
	const struct kuw_entry *hint = NULL;

	/* the previous look-ahead's object, if of this generation */
	if (s->ahead_entry && s->ahead_seq == seq)
		hint = s->ahead_entry;
	/*
	 * An interrupted pc (a pt_regs crossed) may sit in entry slots
	 * before its function's FDE, as the first frame's may
	 */
	if (likely(kuw_ahead_fill(s, s->signal ? pc : pc - 1, seq, rc, hint,
				  s->signal)))
		return 0;
	s->ahead_ok = false;
	return kuw_arch_unknown_pc(s, pc);
}

/*
 * The row for a pc the previous step did not look up (the first frame,
 * after a boundary step's fallback...), into the look-ahead, as
 * kuw_lookahead() leaves it otherwise.
 */
static noinline void kuw_find_row(struct kunwind_state *s, u64 look,
				  bool signal, unsigned int seq,
				  struct kuw_rcache *rc)
{
	kuw_ahead_fill(s, look, seq, rc, NULL, signal);
}

/*
 * Is the look-ahead the current frame's, of this generation?  If not,
 * look it up (kuw_find_row()), so that the frame can be a common one.
 */
static __always_inline void kuw_ahead_here(struct kunwind_state *s,
					   unsigned int seq,
					   struct kuw_rcache *rc)
{
	u64 pc = s->regs.r[KUW_REG_PC];
	u64 look = s->signal ? pc : pc - 1;

	if (!s->ahead_ok || s->ahead_seq != seq || s->ahead_look != look)
		kuw_find_row(s, look, s->signal, seq, rc);
}

/* A copy of the registers the arch has (kuw_step_frame_any()'s undo). */
static __always_inline void kuw_regs_copy(struct kuw_regs *d,
					  const struct kuw_regs *s)
{
	memcpy(d->r, s->r, kuw_arch(KUW_ARCH_THIS)->nregs * sizeof(d->r[0]));
	d->valid = s->valid;
	d->lazy = s->lazy;
}

/*
 * One frame up, any frame.  Return: 0 or the stop reason.
 *
 * A row's step writes the caller's registers before the checks of the
 * caller's frame (its sp, its pc's object) can fail; the fallback then
 * steps the callee's frame again, with the arch's own means (a frame
 * record, a leaf guess, ORC), some of which keep registers they do not
 * restore.  So a failed step is undone whole: every register (a callee-
 * saved one the row restored would otherwise pass as the callee's own),
 * the stack, the return-address translation state and the reliable flag,
 * as they were before it (the copy in s->work, not on the stack).  The
 * common steps (kuw_step_common()) need no undo: they write nothing of a
 * frame before every check of it passed.
 */
static noinline int kuw_step_frame_any(struct kunwind_state *s,
				       unsigned int seq,
				       struct kuw_rcache *rc)
{
	u64 pc = s->regs.r[KUW_REG_PC], sp = s->regs.r[KUW_REG_SP];
	u64 bp = s->regs.r[KUW_REG_FP];
	bool bp_ok = (s->regs.valid & ~s->regs.lazy) & (1ULL << KUW_REG_FP);
	bool signal = s->signal;
	bool sp_guess = s->sp_guess;
	bool reliable = s->reliable;
	int ret_idx = s->ret_idx;
	struct llist_node *ret_cur = s->ret_cur;
	struct kuw_regs *saved = &s->work->undo;
	struct kunwind_stack *si = &s->work->prev;
	unsigned long mask;
	bool moved = false;
	const struct kuw_table *t;
	const struct kuw_rule *r;
	int ret, oret;

	kuw_ahead_here(s, seq, rc);
	ret = s->ahead_ret;
	s->ahead_ok = false;
	s->table = NULL;
	s->rule = NULL;
	if (!ret) {
		t = s->ahead_table;
		r = s->ahead_rule;
		s->table = t;
		/* a table root gave under lockdown: kuw_lockdown_blob() */
		if (unlikely(t->untrusted))
			s->reliable = false;
		s->rule = r;
		s->row_pc = s->ahead_row;
		kuw_regs_copy(saved, &s->regs);
		/*
		 * After a frame record the sp is a guess: hidden from the
		 * step, so that only a row whose CFA is not sp-based (x29)
		 * can step the frame; the others fail and the frame record
		 * steps it again below.
		 */
		if (sp_guess)
			s->regs.valid &= ~BIT_ULL(KUW_REG_SP);
		s->sp_guess = false;
		ret = kuw_step_row(s, t, r);
		if (!ret)
			ret = __kuw_check_stack(s, pc, sp, si, &mask, &moved);
		if (!ret) {
			s->signal = r->flags & KUW_RF_SIGNAL;
			kuw_arch_ret_addr(s);
			ret = kuw_lookahead(s, seq, rc);
		}
		if (!ret) {
			s->how = KUNWIND_FRAME_CFI;
			/* an interrupted frame left by its own row: exact */
			s->rel_pending = false;
			return 0;
		}
		if (ret == -KUW_E_END)
			return ret;
		/* put the callee's frame back, whole, for the fallback */
		if (moved) {
			s->stack = *si;
			s->stack_mask = mask;
			moved = false;
		}
		s->signal = signal;
		s->reliable = reliable;
		s->ret_idx = ret_idx;
		s->ret_cur = ret_cur;
		kuw_regs_copy(&s->regs, saved);
	} else if (kuw_arch_at_end(s)) {
		return -KUW_E_END;
	} else if (!bp_ok && (s->regs.valid & s->regs.lazy & BIT_ULL(KUW_REG_FP))) {
		/* no step was tried: the frame pointer may be read for it */
		bp_ok = !kuw_regs_get(&s->regs, KUW_REG_FP, s, &bp);
	}
	/*
	 * A frame an exception interrupted, which no row steps: where its
	 * return address is, is a guess (a leaf's x30, a prologue).  The
	 * arch clears @reliable for every step of its own that guesses, and
	 * keeps it for exact crossings (entry pt_regs, known stack links),
	 * setting @rel_pending again after a kernel-mode pt_regs.
	 */
	if (s->rel_pending)
		s->reliable = false;
	s->rel_pending = false;
	s->sp_guess = false;	/* the arch's step says */
	oret = kuw_arch_boundary_step(s, pc, sp, bp, bp_ok, signal);
	if (oret == -KUW_E_END)
		return ret == -KUW_E_NOINFO ? -KUW_E_END : ret;
	if (oret)
		return ret;
	s->table = NULL;
	s->rule = NULL;
	oret = __kuw_check_stack(s, pc, sp, si, &mask, &moved);
	if (!oret)
		oret = kuw_lookahead(s, seq, rc);
	return oret;
}

/*
 * Common frames, without a call, as many in a row as come (up to @lim):
 * the previous step looked the frame's row up (s->ahead_*), its rule is
 * KUW_RF_FAST, the slots it reads lie on the walk's stack of the current
 * task (mapped whole: plain loads), the caller's sp (the CFA) stays on
 * that stack above the callee's, the caller's pc is no tracing trampoline
 * and lies in some object's text.  Everything of a frame is checked before
 * anything of it is written; each frame is what kuw_step_frame_any() does
 * for such a frame (kuw_step_row(), __kuw_check_stack(),
 * kuw_arch_ret_addr(), kuw_lookahead()).
 *
 * The caller checked that s->ahead_* is for the pc the walk is at, under
 * the generation of this RCU read-side section (s->ahead_entry is still
 * registered), that the sp is no guess and that s->task is current.  What
 * only the next frame reads (the look-ahead) is kept in locals and
 * written to @s when the run ends; the registers and the row used are
 * written per frame.  Not inline: the caller's loop keeps its own
 * variables in the registers this loop needs.  The stack does not change
 * in a run (a stack link ends it), so its bounds are locals too, as are
 * the trampolines and the text range that held the last look-up address.
 * s->ahead_ok, s->ahead_seq and s->sp_guess stay as they are.
 *
 * With @lean, only the registers in KUW_LEAN_REGS are kept (the others
 * become unknown): no slot is computed but the frame pointer's.
 *
 * Return: the frames stepped (their pcs in @pcs, unless NULL); fewer than
 * @lim when the next frame is not a common one, with nothing of it
 * changed.
 */
static __always_inline unsigned int __kuw_step_common(struct kunwind_state *s,
						      unsigned long *pcs,
						      unsigned int lim,
						      unsigned int seq,
						      struct kuw_rcache *rc,
						      const bool lean)
{
	struct kuw_regs *regs = &s->regs;
	const struct kunwind_stack st = s->stack;
	const unsigned long t0 = READ_ONCE(kuw_arch_tramp[0]);
	const unsigned long t1 = READ_ONCE(kuw_arch_tramp[1]);
	const struct kuw_entry *e = s->ahead_entry;
	const struct kuw_table *t = s->ahead_table;
	const struct kuw_rule *r = s->ahead_rule;
	u64 row = s->ahead_row, look = s->ahead_look;
	u64 tlo = 0, tlen = 0;	/* e's text range that holds look */
	u64 b = st.begin, size = st.end - st.begin;
	int aret = s->ahead_ret;
	const u64 gen = kuw_rc_gen(seq, s->src);
	unsigned int n = 0;
	const struct kuw_entry *ne;
	const struct kuw_reg_rule *rr;
	u64 base, cfa, slot, ra, pc, link, bit, nlook;
	/* regs->valid and ->lazy, written back when the run ends */
	u64 valid = regs->valid, lazy = regs->lazy;
	const u64 fixed = BIT_ULL(KUW_REG_PC) | BIT_ULL(KUW_REG_SP) |
			  BIT_ULL(kuw_arch(KUW_ARCH_THIS)->ra);

	/* kuw_on() below is one compare: addr - begin <= size - 8 */
	if (st.type == KUNWIND_STACK_NONE || st.end < st.begin || size < 8)
		return 0;
	while (n < lim && !aret) {
		/* every table in the registry is of this arch (blob_load.c) */
		if (!(r->flags & KUW_RF_FAST))
			break;
		bit = BIT_ULL(r->cfa_reg);
		if (!(valid & bit))
			break;
		base = regs->r[r->cfa_reg];
		if (lazy & bit) {	/* kuw_regs_get() */
			if (base - b > size - 8)
				break;
			base = READ_ONCE_NOCHECK(*(const u64 *)(unsigned long)base);
		}
		slot = kuw_fast_ra_slot(r, base, &cfa);
		if (unlikely(slot - b > size - 8))
			break;
		/* __kuw_check_stack() on the same stack */
		if (unlikely(cfa <= regs->r[KUW_REG_SP] || cfa - b > size))
			break;
		link = cfa;
		if (unlikely(kuw_arch_stack_link(&st, &link)))
			break;
		ra = kuw_fast_ra(KUW_ARCH_THIS, r,
				 READ_ONCE_NOCHECK(*(const u64 *)(unsigned long)slot));
		if (unlikely(!kuw_arch_plain_ret(ra, &pc, t0, t1)))
			break;
		nlook = r->flags & KUW_RF_SIGNAL ? pc : pc - 1;
		if (unlikely(nlook - tlo >= tlen)) {
			/* kuw_entry_covers(), remembering the range that did */
			ne = e;
			if (!kuw_entry_covers(ne, nlook)) {
				ne = kuw_registry_find(nlook, NULL);
				if (!ne)
					break;
			}
			e = ne;
			tlo = READ_ONCE(e->text[KUW_RANGE_CORE][0]);
			tlen = READ_ONCE(e->text[KUW_RANGE_CORE][1]) - tlo;
			if (nlook - tlo >= tlen) {
				tlo = READ_ONCE(e->text[KUW_RANGE_INIT][0]);
				tlen = READ_ONCE(e->text[KUW_RANGE_INIT][1]) - tlo;
			}
			if (nlook - tlo >= tlen)	/* changed meanwhile */
				tlen = 0;
		}

		/* the step (nothing above breaks once e is the new pc's) */
		look = nlook;
		if (lazy & bit) {
			regs->r[r->cfa_reg] = base;
			lazy &= ~bit;
		}
		/* kuw_fast_commit(), on the locals */
		if (lean) {
			/* the frame pointer's slot only: KUW_LEAN_REGS */
			rr = kuw_fast_find(r, r->nregs - 1, KUW_REG_FP);
			bit = 0;
			if (rr) {
				regs->r[KUW_REG_FP] = cfa + (s64)rr->off;
				bit = BIT_ULL(KUW_REG_FP);
			}
			valid &= KUW_LEAN_REGS;
			lazy &= KUW_LEAN_REGS;
		} else {
			bit = kuw_fast_slots(r, r->nregs - 1, regs->r, cfa);
		}
		regs->r[kuw_arch(KUW_ARCH_THIS)->ra] = ra;
		regs->r[KUW_REG_SP] = cfa;
		regs->r[KUW_REG_PC] = pc;
		valid |= bit | fixed;
		lazy = (lazy | bit) & ~fixed;
		s->table = t;
		s->rule = r;
		s->row_pc = row;
		s->reliable &= !t->untrusted;
		/* the look-ahead, whose failure is the next step's */
		if (!kuw_rc_hit(rc, look, gen, &ne, &t, &r, &row)) {
			aret = __kuw_entry_lookup(e, look, (u8)gen, &t, &r,
						  &row);
			if (!aret)
				kuw_rc_fill(rc, look, gen, e, t, r, row);
		}
		if (pcs)
			pcs[n] = pc;
		n++;
	}
	regs->valid = valid;
	regs->lazy = lazy;
	if (n) {
		s->signal = s->rule->flags & KUW_RF_SIGNAL;
		s->how = KUNWIND_FRAME_CFI;
		s->rel_pending = false;
		s->nframes += n;
		s->ahead_entry = e;
		s->ahead_look = look;
		s->ahead_ret = aret;
		s->ahead_table = t;
		s->ahead_rule = r;
		s->ahead_row = row;
	}
	return n;
}

/* Every register tracked: what kunwind_next_frame() steps. */
static noinline __noclone unsigned int kuw_step_common(struct kunwind_state *s,
						       unsigned long *pcs,
						       unsigned int lim,
						       unsigned int seq,
						       struct kuw_rcache *rc)
{
	return __kuw_step_common(s, pcs, lim, seq, rc, false);
}

/* Only KUW_LEAN_REGS tracked: what kunwind_next_frames() steps. */
static noinline __noclone unsigned int kuw_step_lean(struct kunwind_state *s,
						     unsigned long *pcs,
						     unsigned int lim,
						     unsigned int seq,
						     struct kuw_rcache *rc)
{
	return __kuw_step_common(s, pcs, lim, seq, rc, true);
}

/*
 * Up to @max frames, each reached frame's pc into @pcs: the steps of
 * kunwind_next_frame(), in one preemption-disabled RCU read-side section.
 * @seq: kuw_reg_seq, read (then smp_rmb()) in that section: a look-ahead
 * cached under @seq is still registered, or at least not freed before the
 * section ends (kuw_reg_changed() bumps it before the grace period that
 * frees).  Runs of common frames go to kuw_step_common(), the others to
 * kuw_step_frame_any().  The statistics (debugfs stats) count the steps
 * tried and the common steps' look-ups once.
 * Return: the frames reached; on a stop, the reason is in @s.
 */
static __always_inline unsigned int kuw_next_frames(struct kunwind_state *s,
						    unsigned long *pcs,
						    unsigned int max)
{
	unsigned int n = 0, nfast = 0, k, lim, seq;
	struct kuw_rcache *rc;
	struct kuw_slot *sl = NULL;
	u32 n0 = s->nframes;
	bool mine = s->task == current;
	int ret = 0;

	/*
	 * RCU keeps tables alive; no preemption keeps this CPU's IRQ and
	 * exception stacks the ones kuw_arch_stack_of() checks against.
	 */
	preempt_disable();
	/* a caller's state: this context's memory for the call */
	if (!s->work) {
		sl = kuw_slot_get(kuw_ctx());
		if (unlikely(!sl)) {
			preempt_enable();
			kuw_stop(s, -KUW_E_NESTED);
			return 0;
		}
		s->work = &sl->work;
	}
	rcu_read_lock();
	seq = READ_ONCE(kuw_reg_seq);
	smp_rmb();	/* seq before the cached pointers; see kuw_reg_changed() */
	rc = mine ? kuw_rc_get() : NULL;
	while (n < max) {
		if (s->nframes >= KUNWIND_MAX_FRAMES) {
			ret = -KUW_E_LIMIT;
			break;
		}
		if (mine && !s->sp_guess) {
			kuw_ahead_here(s, seq, rc);
			lim = min_t(unsigned int, max - n,
				    KUNWIND_MAX_FRAMES - s->nframes);
			k = pcs ? kuw_step_lean(s, pcs + n, lim, seq, rc) :
				  kuw_step_common(s, NULL, lim, seq, rc);
			n += k;
			nfast += k;
			/* the end of the batch, or of KUNWIND_MAX_FRAMES */
			if (n == max || s->nframes >= KUNWIND_MAX_FRAMES)
				continue;
		}
		s->nframes++;
		ret = kuw_step_frame_any(s, seq, rc);
		if (unlikely(ret))
			break;
		if (pcs)
			pcs[n] = s->regs.r[KUW_REG_PC];
		n++;
	}
	kuw_rc_put(rc);
	rcu_read_unlock();
	if (sl) {
		s->work = NULL;
		kuw_slot_put(sl);
	}
	preempt_enable();
	/* see struct kuw_counters */
	raw_cpu_add(kuw_counters.frames, s->nframes - n0);
	raw_cpu_add(kuw_counters.lookups, nfast);
	if (ret)
		kuw_stop(s, ret);
	return n;
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
	if (kunwind_done(state))
		return false;
	return kuw_next_frames(state, NULL, 1);
}
EXPORT_SYMBOL_GPL(kunwind_next_frame);

/**
 * kunwind_next_frames() - move up to @max frames, storing their pcs
 * @state: the unwind
 * @pcs: where to store each frame's pc (kunwind_get_return_address() of
 *	 the frame), @max entries
 * @max: frames to move at most
 *
 * The same frames as calling kunwind_next_frame() up to @max times and
 * storing kunwind_get_return_address() after each call that returned
 * true, at less cost per frame (one call, one RCU read-side section, and
 * only the registers a walk needs tracked: pc, sp, frame pointer and
 * return address; the others become unknown in @state->regs): what a
 * stack_trace_save()-like walk wants.  The pc of the frame the unwind is
 * at before the call is not stored; the state is left at the last frame
 * stored (or done, kunwind_error() saying why).
 *
 * Return: the frames moved, which is @max unless the unwind ended.
 */
unsigned int kunwind_next_frames(struct kunwind_state *state,
				 unsigned long *pcs, unsigned int max)
{
	if (kunwind_done(state) || !max)
		return 0;
	return kuw_next_frames(state, pcs, max);
}
EXPORT_SYMBOL_GPL(kunwind_next_frames);

/**
 * kuw_how_name() - how a frame was reached, for debugfs and the oops trace
 * @how: enum kunwind_how
 *
 * Return: "orc", "pt_regs", "fp", or "" for a table row or the start.
 */
const char *kuw_how_name(u8 how)
{
	switch (how) {
	case KUNWIND_FRAME_ORC:
		return "orc";
	case KUNWIND_FRAME_PT_REGS:
		return "pt_regs";
	case KUNWIND_FRAME_FP:
		return "fp";
	}
	return "";
}

static __always_inline bool kuw_in_self(u64 pc)
{
	return pc >= kuw_self.start && pc < kuw_self.end;
}

/*
 * The first frame's registers and stack.  Inline: the current context is
 * captured in __kunwind_start() itself.  Return: 0 or the stop reason.
 */
static __always_inline int kuw_start_regs(struct kunwind_state *state, struct pt_regs *regs)
{
	struct task_struct *task = state->task;
	bool ok;
	int ret;

	if (regs) {
		if (user_mode(regs))
			return -KUW_E_END;
		kuw_arch_regs_from_pt(&state->regs, regs);
		state->signal = true;
	} else if (task == current) {
		kuw_arch_capture(&state->regs);
		state->signal = true;
	} else {
		ret = kuw_arch_task_regs(task, &state->regs, &state->signal);
		if (ret)
			return ret;
	}
	preempt_disable();
	ok = kuw_arch_stack_of(task, state->regs.r[KUW_REG_SP], &state->stack,
			       &state->stack_mask);
	if (!ok && regs) {
		/*
		 * A stack overflow leaves sp in the guard page below a stack:
		 * walk on from the page above, like ORC, but not reliably.
		 */
		ok = kuw_arch_stack_of(task,
				       PAGE_ALIGN(state->regs.r[KUW_REG_SP] + 1),
				       &state->stack, &state->stack_mask);
		state->reliable = false;
	}
	preempt_enable();
	return ok ? 0 : -KUW_E_BADSTACK;
}

/*
 * __kunwind_start()'s skips, in one preemption-disabled RCU read-side
 * section with the row cache, as kuw_next_frames() steps: kunwind's own
 * frames first (@self; with tables of any source, kunwind.ko has only
 * .eh_frame), then the frames whose sp is at or below @ff (0: none), with
 * the tables of @src.  The frames are counted in the statistics, not in
 * s->nframes (which the start clears).
 * Return: 0, or the reason the walk stopped.
 */
static noinline int kuw_skip(struct kunwind_state *s, bool self,
			     unsigned long ff, u8 src, bool lean)
{
	bool mine = s->task == current;
	struct kuw_rcache *rc;
	struct kuw_slot *sl = NULL;
	unsigned int seq, nfast = 0;
	int ret = 0;
	u64 pc;

	preempt_disable();
	/* a caller's state: this context's memory for the call */
	if (!s->work) {
		sl = kuw_slot_get(kuw_ctx());
		if (unlikely(!sl)) {
			preempt_enable();
			return -KUW_E_NESTED;
		}
		s->work = &sl->work;
	}
	if (self)
		s->src = KUNWIND_SRC_ANY;
	rcu_read_lock();
	seq = READ_ONCE(kuw_reg_seq);
	smp_rmb();	/* seq before the cached pointers; see kuw_reg_changed() */
	rc = mine ? kuw_rc_get() : NULL;
	for (;;) {
		pc = s->regs.r[KUW_REG_PC];
		if (self && !kuw_in_self(pc)) {
			self = false;
			if (s->src != src) {
				/* the look-ahead was of the other source */
				s->src = src;
				s->ahead_ok = false;
			}
		}
		if (!self && (!ff || (kuw_on(&s->stack, ff, 8) &&
				      s->regs.r[KUW_REG_SP] > ff)))
			break;
		if (s->nframes >= KUNWIND_MAX_FRAMES) {
			ret = -KUW_E_LIMIT;
			break;
		}
		if (mine && !s->sp_guess) {
			kuw_ahead_here(s, seq, rc);
			if (lean ? kuw_step_lean(s, NULL, 1, seq, rc) :
				   kuw_step_common(s, NULL, 1, seq, rc)) {
				nfast++;
				continue;
			}
		}
		s->nframes++;
		ret = kuw_step_frame_any(s, seq, rc);
		if (ret)
			break;
	}
	kuw_rc_put(rc);
	rcu_read_unlock();
	if (sl) {
		s->work = NULL;
		kuw_slot_put(sl);
	}
	preempt_enable();
	/* as kuw_next_frames() counts them */
	raw_cpu_add(kuw_counters.frames, s->nframes);
	raw_cpu_add(kuw_counters.lookups, nfast);
	s->src = src;
	return ret;
}

/*
 * The start, inline in its two entry points (the current context is
 * captured in the entry point itself).  @lean: the skipped frames are
 * stepped keeping only KUW_LEAN_REGS, see kuw_walk_start().
 */
static __always_inline void __kuw_start(struct kunwind_state *state,
					struct task_struct *task,
					struct pt_regs *regs,
					unsigned long *first_frame, u8 src,
					bool lean, struct kuw_work *work)
{
	bool self;
	int ret;

	task = task ? task : current;
	/*
	 * Everything zero but the register values, which mean nothing until
	 * regs.valid says so (the engine and the arch read none else): the
	 * start fills those it knows.
	 */
	BUILD_BUG_ON(offsetof(struct kunwind_state, stack) !=
		     offsetofend(struct kunwind_state, regs));
	/*
	 * the fields after the registers, through a char pointer: the clear
	 * spans many fields, and FORTIFY_SOURCE would check a memset() of
	 * &state->stack against that one field's size
	 */
	memset((char *)state + offsetof(struct kunwind_state, stack), 0,
	       sizeof(*state) - offsetof(struct kunwind_state, stack));
	state->regs.valid = 0;
	state->regs.lazy = 0;
	state->work = work;
	state->task = task;
	state->src = src & ~KUNWIND_NO_ORC;
	state->no_orc = src & KUNWIND_NO_ORC;
	state->reliable = true;
	state->how = KUNWIND_FRAME_START;
	this_cpu_inc(kuw_counters.unwinds);
	if (task != current) {
		state->switches = kuw_switches(task);
		smp_rmb();	/* the count, then the task's registers and stack */
	}

	ret = kuw_start_regs(state, regs);
	if (ret) {
		kuw_stop(state, ret);
		return;
	}
	/*
	 * Skip kunwind's own frames, then up to the requested frame.  Skipped
	 * frames are not reported, but the first reported frame is only as
	 * sure as every step that led to it: a guessed, ORC or untrusted
	 * step among them leaves the trace unreliable.
	 */
	self = !regs && task == current;
	if (self || first_frame)
		ret = kuw_skip(state, self, (unsigned long)first_frame,
			       src & ~KUNWIND_NO_ORC, lean);
	if (ret)
		kuw_stop(state, ret);
	else
		state->how = KUNWIND_FRAME_START;
	state->nframes = 0;
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
 * With @regs, the first frame is the pc of @regs itself.  For current without
 * @regs, the first frame is the caller of kunwind_start() (frames of
 * kunwind itself are skipped).  A sleeping task starts at the return
 * address its context switch saved; a task running on another CPU is
 * refused (kunwind_error() -EBUSY), and a walk of a task that runs before
 * it ends stops with -EBUSY too, not at the end (struct kunwind_state,
 * @switches).
 */
void __kunwind_start(struct kunwind_state *state, struct task_struct *task,
		     struct pt_regs *regs, unsigned long *first_frame, u8 src)
{
	__kuw_start(state, task, regs, first_frame, src, false, NULL);
}
EXPORT_SYMBOL_GPL(__kunwind_start);
NOKPROBE_SYMBOL(__kunwind_start);

/**
 * kuw_walk_start() - kunwind_start() for a consumer's state
 * @state: a state of kuw_walk_get(), whose memory it keeps
 * @task: task whose stack to walk (NULL: current)
 * @regs: start from these registers, or NULL
 * @lean: step kunwind's own frames as kunwind_next_frames() steps: only
 *	  pc, sp, frame pointer and return address are kept, so registers
 *	  the first frame's caller saved are not known.  For kunwind's
 *	  stack_trace_save() and the like, which go on with
 *	  kunwind_next_frames() anyway.
 */
void kuw_walk_start(struct kunwind_state *state, struct task_struct *task,
		    struct pt_regs *regs, bool lean)
{
	__kuw_start(state, task, regs, NULL, KUNWIND_SRC_ANY, lean,
		    state->work);
}

NOKPROBE_SYMBOL(kuw_walk_start);

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
	return state->regs.r[KUW_REG_PC];
}
EXPORT_SYMBOL_GPL(kunwind_get_return_address);

/**
 * kunwind_errno() - the -errno of an engine stop reason
 * @err: 0 or a negative enum kuw_err
 *
 * Return: 0 for none or a clean end, else a negative errno.
 */
int kunwind_errno(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
	case KUW_E_END:
		return 0;
	case KUW_E_NOMEM:
		return -ENOMEM;
	case KUW_E_FAULT:
		return -EFAULT;
	case KUW_E_NOINFO:
		return -ENOENT;
	case KUW_E_LIMIT:
		return -E2BIG;
	case KUW_E_BADSP:
	case KUW_E_BADSTACK:
	case KUW_E_BADRA:
		return -ERANGE;
	case KUW_E_INVAL:
		return -EINVAL;
	case KUW_E_RUNNING:
	case KUW_E_NESTED:
		return -EBUSY;
	case KUW_E_BUILDID:
		return -ESTALE;
	case KUW_E_EXISTS:
		return -EEXIST;
	case KUW_E_NOOWNER:
		return -ENOENT;
	default:
		return -EBADMSG;	/* a malformed table or expression */
	}
}
EXPORT_SYMBOL_GPL(kunwind_errno);

/**
 * kunwind_error() - did the unwind stop before the end of the stack?
 * @state: the unwind
 *
 * Return: 0 while going or after a clean end at the outermost frame;
 * otherwise a negative errno (-ENOENT no unwind info, -ERANGE a frame
 * outside the context's stacks or text, -EFAULT a read faulted, -E2BIG
 * too many frames, -EBUSY the task runs on another CPU or ran during the
 * walk, -EBADMSG a malformed rule).  kunwind_stop_reason() gives the precise reason.
 */
int kunwind_error(struct kunwind_state *state)
{
	return kunwind_errno(state->error);
}
EXPORT_SYMBOL_GPL(kunwind_error);

/**
 * kunwind_reliable() - may the trace be trusted whole (livepatch-style)?
 * @state: the unwind, after it is done
 *
 * Return: true only when the walk reached the outermost frame cleanly,
 * every step came from a table row, and no exception or interrupt frame
 * was crossed with the kernel's ORC unwinder.  For a task other than
 * current, a clean end also means that the task did not run between the
 * start and the end of the walk (see struct kunwind_state, @switches).
 */
bool kunwind_reliable(struct kunwind_state *state)
{
	return state->error == -KUW_E_END && state->reliable;
}
EXPORT_SYMBOL_GPL(kunwind_reliable);

/**
 * kunwind_rule_for_pc() - the unwind row in force at an address
 * @pc: the address (looked up as is, not as a return address; where the
 *      arch has entry slots before a function's FDE, the row the unwinder
 *      uses there: kuw_arch_entry_pad_lookup())
 * @src: KUNWIND_SRC_ANY or one enum kuw_src
 * @info: filled with the owner, source, row start and a copy of the rule
 *
 * Return: 0, or -ENOENT when no table covers @pc.
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
	if (ret && e) {
		/* the row the unwinder uses in entry slots before an FDE */
		struct kunwind_state s = { .src = src };

		ret = kuw_arch_entry_pad_lookup(&s, e, pc, &t, &r, &row);
	}
	if (!ret) {
		strscpy(info->owner, e->name, sizeof(info->owner));
		info->src = t->src;
		info->arch = t->arch;
		info->row_pc = row;
		memcpy(&info->rule, r, kuw_rule_size(r));
	}
	rcu_read_unlock();
	return kunwind_errno(ret);
}
EXPORT_SYMBOL_GPL(kunwind_rule_for_pc);

/**
 * kunwind_strerror() - name of a stop reason
 * @err: a negative (or positive) enum kuw_err (kunwind_stop_reason()), or 0
 *
 * Return: a static string, the one debugfs, the oops hook and the CLI print.
 */
const char *kunwind_strerror(int err)
{
	return kuw_strerror(err);
}
EXPORT_SYMBOL_GPL(kunwind_strerror);

/**
 * kunwind_put_task_stack() - drop a task stack reference
 * @task: a task whose stack was pinned with try_get_task_stack()
 *
 * Walking another task's stack, pin it first (it may exit meanwhile);
 * put_task_stack() itself is not exported to modules.
 */
void kunwind_put_task_stack(struct task_struct *task)
{
	kuw_put_task_stack(task);
}
EXPORT_SYMBOL_GPL(kunwind_put_task_stack);

/* the walk's path: never kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_read_mem);
NOKPROBE_SYMBOL(kuw_on_other);
NOKPROBE_SYMBOL(kuw_stop);
NOKPROBE_SYMBOL(kuw_check_stack);
NOKPROBE_SYMBOL(kuw_find_row);
NOKPROBE_SYMBOL(kuw_step_frame_any);
NOKPROBE_SYMBOL(kuw_step_common);
NOKPROBE_SYMBOL(kuw_step_lean);
NOKPROBE_SYMBOL(kunwind_next_frame);
NOKPROBE_SYMBOL(kunwind_next_frames);
NOKPROBE_SYMBOL(kuw_how_name);
NOKPROBE_SYMBOL(kuw_skip);
NOKPROBE_SYMBOL(kunwind_start);
NOKPROBE_SYMBOL(kunwind_get_return_address);
NOKPROBE_SYMBOL(kunwind_errno);
NOKPROBE_SYMBOL(kunwind_error);
NOKPROBE_SYMBOL(kunwind_reliable);
NOKPROBE_SYMBOL(kunwind_strerror);
