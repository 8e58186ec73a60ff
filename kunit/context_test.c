// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite: kunwind alone (KUNWIND_NO_ORC: tables and kunwind's own
 * knowledge of entry frames, stack switches and trampolines, never the
 * kernel's unwinder) from every kind of context, against the kernel's own
 * unwinder on the same stack (kt_ref_walk() of
 * kunit/arch/$(SRCARCH)/kt_arch.h: ORC on the base x86_64 kernel, frame
 * pointers on the fp kernel, frame records on arm64).
 *
 * Each case asserts that the walk reaches the end of the task's stack, that
 * the kernel's trace is ours frame for frame, from its first frame (where
 * the two walks start, ct_align()) to the end, and the reliable flag: true
 * for a sleeping task (user or kernel thread), and true across a
 * kernel-mode interrupt (hard IRQ, softirq, NMI) that interrupted the
 * chain's leaf, whose row at the interrupted pc says where its return
 * address is: kunwind's reliable goes further than
 * arch_stack_walk_reliable(), which gives up at every exception boundary
 * on arm64 (and on x86 with frame pointers).  Where the
 * kernel has that function (kt_ref_reliable(): arm64 since 6.17) and calls
 * the stack reliable, kunwind must too, with the same frames.
 *
 * Contexts: a sleeping user task (pid 1, the test bed's /init waiting for
 * insmod), a sleeping kthread, a hard IRQ (hrtimer), a softirq (timer),
 * an IPI on another CPU (usually idle: the walk ends at the idle task's
 * start), an NMI (skipped if the guest delivers no self-NMI), a kprobe
 * pre-handler (an exception), from the probe's pt_regs at a function's
 * first instruction, where frame pointers miss the caller (asserted where
 * the kernel's unwinder follows them: the x86_64 fp kernel, arm64), and
 * through a kretprobe's trampoline (the real caller must show), from the
 * probed function and from the return handler.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include "compat.h"
#include "kunwind.h"
#include "kt_arch.h"
#include "chain.c"

#define CT_MAX	96

#ifndef KT_KRP_HANDLER_WALK
/* kunwind crosses the kretprobe trampoline from the return handler */
#define KT_KRP_HANDLER_WALK	0
#endif

#ifndef kt_ref_reliable
/* no reliable walk of the kernel's to compare with (kt_arch.h) */
#define kt_ref_reliable(task)	((void)(task), -1)
#endif

struct ct_trace {
	unsigned long pc[CT_MAX];	/* kunwind */
	u8 how[CT_MAX];
	unsigned int n;
	int err;
	bool reliable;
	unsigned long kpc[CT_MAX];	/* the kernel's unwinder */
	unsigned int kn;
	int kreliable;	/* its reliable walk: 1, 0, or -1 (none, or regs) */
	u8 from;	/* enum ct_from: where both walks started */
};

enum ct_from { CT_FROM_HERE, CT_FROM_TASK, CT_FROM_REGS };

/* kunwind alone, then the kernel's unwinder, from the same point. */
static noinline void ct_walk(struct ct_trace *t, struct task_struct *task,
			     struct pt_regs *regs)
{
	struct kunwind_state st;

	t->n = 0;
	for (__kunwind_start(&st, task, regs, NULL,
			     KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
	     !kunwind_done(&st); kunwind_next_frame(&st))
		if (t->n < CT_MAX) {
			t->how[t->n] = st.how;
			t->pc[t->n++] = kunwind_get_return_address(&st);
		}
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
	t->kn = kt_ref_walk(task, regs, t->kpc, CT_MAX);
	t->kreliable = regs ? -1 : kt_ref_reliable(task);
	t->from = regs ? CT_FROM_REGS :
		  task && task != current ? CT_FROM_TASK : CT_FROM_HERE;
	barrier();
}

static bool ct_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	/* "name", "name [module]", or a compiler's clone "name.isra.0" */
	return !strncmp(sym, name, n) &&
	       (sym[n] == 0 || sym[n] == ' ' || sym[n] == '.');
}

static void ct_dump(struct kunit *test, const struct ct_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		kunit_info(test, "kunwind %2u %pS how %u\n", i,
			   (void *)t->pc[i], t->how[i]);
	kunit_info(test, "kunwind stop: %s, %s\n", kunwind_strerror(t->err),
		   t->reliable ? "reliable" : "unreliable");
	for (i = 0; i < t->kn; i++)
		kunit_info(test, "kernel  %2u %pS\n", i, (void *)t->kpc[i]);
}

/* Index in ours of @name, or -1. */
static int ct_find(const struct ct_trace *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (ct_is(t->pc[i], name))
			return i;
	return -1;
}

static bool ct_crossed_regs(const struct ct_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->how[i] == KUNWIND_FRAME_PT_REGS ||
		    t->how[i] == KUNWIND_FRAME_FP)
			return true;
	return false;
}

/*
 * Where the two traces start to be the same: @s in ours, @j in the
 * kernel's.  Walked from here (ct_walk(): the current context, an
 * interrupt's included), ours starts at ct_walk's call of kunwind and the
 * kernel's at its own walker (kt_ref_walk() and what it calls), then in
 * ct_walk at another call site: both go on identically from ct_walk's
 * caller.  From @regs, ours starts at the regs' pc, which kt_ref_walk()
 * drops (the kernel's unwinder reports the regs' caller first): the
 * kernel's first frame is our second.  From a sleeping task, both start
 * at the return address its context switch saved.
 * Return: false when the start is not where it must be.
 */
static bool ct_align(struct kunit *test, const struct ct_trace *t,
		     unsigned int *s, unsigned int *j)
{
	*s = 0;
	*j = 0;
	if (t->from == CT_FROM_REGS) {
		*s = 1;
	} else if (t->from == CT_FROM_HERE) {
		KUNIT_EXPECT_TRUE_MSG(test, t->n && ct_is(t->pc[0], "ct_walk"),
				      "the first frame is %pS, not ct_walk",
				      t->n ? (void *)t->pc[0] : NULL);
		if (!t->n || !ct_is(t->pc[0], "ct_walk"))
			return false;
		while (*j < t->kn && !ct_is(t->kpc[*j], "ct_walk"))
			(*j)++;
		KUNIT_EXPECT_LT_MSG(test, *j, t->kn,
				    "ct_walk is not in the kernel's trace");
		if (*j >= t->kn)
			return false;
		*s = 1;
		(*j)++;
	}
	return true;
}

/*
 * The end was reached; the kernel's trace, every frame of it from its
 * first (ct_align()), is ours, in order, to the end; reliable as expected.
 * Where the kernel follows frame records (KT_REF_FRAME_RECORDS), it misses
 * the caller of a function stopped before it saved its record: ours may
 * have such frames between, never fewer, never others in their place.
 */
static void ct_expect(struct kunit *test, const struct ct_trace *t,
		      int reliable)
{
	unsigned int i = 0, j = 0, k = 0, same = 0, extra = 0;
	bool ok;

	KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(t->err));
	KUNIT_EXPECT_GT_MSG(test, t->kn, 0U, "the kernel's walk is empty");
	ok = ct_align(test, t, &i, &j);
	if (ok && KT_REF_FRAME_RECORDS) {
		for (k = 0; i + k < t->n && j + same < t->kn; k++) {
			if (t->pc[i + k] == t->kpc[j + same])
				same++;
			else
				extra++;
		}
		/* every frame of the kernel's, and ours end with it */
		KUNIT_EXPECT_EQ_MSG(test, same, t->kn - j,
				    "kernel frame %u (%pS) not in ours in order",
				    j + same, j + same < t->kn ?
				    (void *)t->kpc[j + same] : NULL);
		KUNIT_EXPECT_EQ_MSG(test, i + k, t->n,
				    "ours has %u frames past the kernel's last",
				    t->n - i - k);
		ok = same == t->kn - j && i + k == t->n;
		if (extra)
			kunit_info(test, "kunwind has %u frames the frame-pointer unwinder skipped\n",
				   extra);
	} else if (ok) {
		KUNIT_EXPECT_EQ_MSG(test, t->n - i, t->kn - j,
				    "frames from the start: kunwind %u, kernel %u",
				    t->n - i, t->kn - j);
		for (k = 0; i + k < t->n && j + k < t->kn; k++) {
			if (t->pc[i + k] == t->kpc[j + k]) {
				same++;
				continue;
			}
			KUNIT_EXPECT_EQ_MSG(test, t->pc[i + k], t->kpc[j + k],
					    "frame %u: kunwind %pS, kernel %pS",
					    i + k, (void *)t->pc[i + k],
					    (void *)t->kpc[j + k]);
		}
		ok = same == k && t->n - i == t->kn - j;
	}
	/* reliable: 1 or 0 as asserted, -1 not asserted */
	if (reliable >= 0)
		KUNIT_EXPECT_EQ(test, t->reliable, (bool)reliable);
	/* where the kernel's reliable walk says reliable, kunwind's must */
	if (t->kreliable == 1)
		KUNIT_EXPECT_TRUE_MSG(test, t->reliable,
				      "arch_stack_walk_reliable() says reliable");
	ok = ok && t->kn && t->err == -KUW_E_END &&
	     (reliable < 0 || t->reliable == (bool)reliable) &&
	     (t->kreliable != 1 || t->reliable);
	if (!ok)
		ct_dump(test, t);
	kunit_info(test, "frames: kunwind %u (compared from %u), kernel %u (from %u), %s%s\n",
		   t->n, i, t->kn, j, t->reliable ? "reliable" : "unreliable",
		   t->kreliable < 0 ? "" : t->kreliable ?
		   " (kernel: reliable)" : " (kernel: unreliable)");
}

/* The chain's frames, in order, from where its leaf was called. */
static void ct_expect_chain(struct kunit *test, const struct ct_trace *t)
{
	int at = ct_find(t, kuw_chain_frames_plain[0]);
	unsigned int i;

	KUNIT_ASSERT_GE_MSG(test, at, 0, "the chain is not in the trace");
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain); i++)
		KUNIT_EXPECT_TRUE_MSG(test, at + i < t->n &&
				      ct_is(t->pc[at + i],
					    kuw_chain_frames_plain[i]),
				      "frame %u: %pS, expected %s", at + i,
				      (void *)t->pc[at + i],
				      kuw_chain_frames_plain[i]);
}

/* ---- sleeping tasks ---- */

static void ct_user_task(struct kunit *test)
{
	struct ct_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;

	KUNIT_ASSERT_NOT_NULL(test, t);
	task = get_pid_task(find_vpid(1), PIDTYPE_PID);
	KUNIT_ASSERT_NOT_NULL(test, task);
	if (READ_ONCE(task->on_cpu) || !try_get_task_stack(task)) {
		put_task_struct(task);
		kunit_skip(test, "pid 1 is running");
	}
	ct_walk(t, task, NULL);
	kunwind_put_task_stack(task);
	put_task_struct(task);
	ct_expect(test, t, 1);
	KUNIT_EXPECT_TRUE(test, t->n && ct_is(t->pc[t->n - 1], KT_USER_ENTRY));
}

static void ct_kthread(struct kunit *test)
{
	struct kuw_chain_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct ct_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	int tries;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	init_completion(&s->ready);
	init_completion(&s->go);
	task = kthread_run(kuw_chain_sleeper_fn, s, "ct_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wait_for_completion(&s->ready);
	for (tries = 0; tries < 2000; tries++) {
		if (READ_ONCE(task->__state) != TASK_RUNNING &&
		    !READ_ONCE(task->on_cpu))
			break;
		usleep_range(100, 200);
	}
	ct_walk(t, task, NULL);
	complete(&s->go);
	kthread_stop(task);
	put_task_struct(task);
	ct_expect(test, t, 1);
	ct_expect_chain(test, t);
	/* x86 6.12, 7.3: ret_from_fork_asm (then the C ret_from_fork()) */
	KUNIT_EXPECT_TRUE(test, t->n &&
			  (ct_is(t->pc[t->n - 1], "ret_from_fork") ||
			   ct_is(t->pc[t->n - 1], "ret_from_fork_asm")));
}

/* ---- interrupts: the chain spins until a handler has walked ---- */

struct ct_async {
	struct ct_trace t;
	int done;
};

static noinline int ct_spin_leaf(struct kuw_chain *c)
{
	struct ct_async *a = c->priv;
	unsigned long end = jiffies + 2 * HZ;

	/* pairs with the release in the handlers */
	while (!smp_load_acquire(&a->done) && time_before(jiffies, end))
		cpu_relax();
	return 0;
}

static void ct_handler_walk(struct ct_async *a)
{
	ct_walk(&a->t, NULL, NULL);
	/* publish the trace before the flag the spinning chain polls */
	smp_store_release(&a->done, 1);
}

/* Run the chain on this CPU, preemption off, with @arm started inside. */
static void ct_run_spinning(struct ct_async *a, int (*leaf)(struct kuw_chain *))
{
	struct kuw_chain c = { .leaf = leaf, .priv = a, .alloca_n = 32 };

	preempt_disable();
	kuw_chain_run(&c);
	preempt_enable();
}

/*
 * @reliable: what the trace must say (-1: not asserted).  An interrupt of
 * the chain's leaf is crossed exactly (the entry's pt_regs, the IRQ stack's
 * link) and the leaf's row at the interrupted pc steps it: reliable.
 */
static void ct_expect_interrupted(struct kunit *test, struct ct_async *a,
				  const char *handler, int reliable)
{
	/* pairs with the release in ct_handler_walk() */
	KUNIT_ASSERT_EQ(test, smp_load_acquire(&a->done), 1);
	KUNIT_EXPECT_GE_MSG(test, ct_find(&a->t, handler), 0,
			    "%s not in the trace", handler);
	ct_expect(test, &a->t, reliable);
}

/*
 * The handler interrupted ct_spin_leaf, called from @caller: kunwind has
 * that caller right after it.  Where the leaf's CFI at the interrupted pc
 * has no rule for the return address (an arm64 leaf keeps it in x30 and
 * saves no frame record), an unwinder that follows frame records goes from
 * the leaf straight to the frame record of the caller's caller: asserted
 * when the kernel's unwinder is one (KT_REF_FRAME_RECORDS).
 */
static void ct_expect_leaf_caller(struct kunit *test, struct ct_async *a,
				  const char *caller)
{
	struct kunwind_rule_info *info;
	const struct ct_trace *t = &a->t;
	int at = ct_find(t, "ct_spin_leaf");
	bool in_x30, kernel_has = false;
	unsigned int i;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_GE_MSG(test, at, 0, "ct_spin_leaf is not in the trace");
	KUNIT_ASSERT_LT(test, at + 1, (int)t->n);
	KUNIT_EXPECT_TRUE_MSG(test, ct_is(t->pc[at + 1], caller),
			      "frame %d: %pS, expected %s", at + 1,
			      (void *)t->pc[at + 1], caller);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(t->pc[at], KUNWIND_SRC_ANY,
						  info), 0);
	in_x30 = !kuw_rule_find(&info->rule, KT_REG_RA);
	for (i = 0; i < t->kn; i++)
		kernel_has |= t->kpc[i] == t->pc[at + 1];
	if (KT_REF_FRAME_RECORDS && in_x30)
		KUNIT_EXPECT_FALSE_MSG(test, kernel_has,
				       "the kernel's unwinder found %s", caller);
	kunit_info(test, "interrupted at %pS (return address %s): the kernel's unwinder %s %s\n",
		   (void *)t->pc[at], in_x30 ? "in a register" : "saved",
		   kernel_has ? "has" : "misses", caller);
}

struct ct_hrtimer {
	struct hrtimer timer;
	struct ct_async a;
};

static enum hrtimer_restart ct_hrtimer_fn(struct hrtimer *h)
{
	ct_handler_walk(&container_of(h, struct ct_hrtimer, timer)->a);
	return HRTIMER_NORESTART;
}

static noinline int ct_hrtimer_leaf(struct kuw_chain *c)
{
	struct ct_hrtimer *k = container_of(c->priv, struct ct_hrtimer, a);

	hrtimer_start(&k->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return ct_spin_leaf(c);
}

static void ct_hardirq(struct kunit *test)
{
	struct ct_hrtimer *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	kuw_hrtimer_setup(&k->timer, ct_hrtimer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	ct_run_spinning(&k->a, ct_hrtimer_leaf);
	hrtimer_cancel(&k->timer);
	ct_expect_interrupted(test, &k->a, "ct_hrtimer_fn", 1);
	ct_expect_chain(test, &k->a.t);
	ct_expect_leaf_caller(test, &k->a, "ct_hrtimer_leaf");
}

struct ct_timer {
	struct timer_list timer;
	struct ct_async a;
};

static void ct_timer_fn(struct timer_list *tl)
{
	ct_handler_walk(&container_of(tl, struct ct_timer, timer)->a);
}

static noinline int ct_timer_leaf(struct kuw_chain *c)
{
	struct ct_timer *k = container_of(c->priv, struct ct_timer, a);

	add_timer_on(&k->timer, smp_processor_id());
	return ct_spin_leaf(c);
}

static void ct_softirq(struct kunit *test)
{
	struct ct_timer *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	timer_setup(&k->timer, ct_timer_fn, 0);
	k->timer.expires = jiffies + 1;
	ct_run_spinning(&k->a, ct_timer_leaf);
	kuw_timer_delete_sync(&k->timer);
	ct_expect_interrupted(test, &k->a, "ct_timer_fn", 1);
	KUNIT_EXPECT_GE(test, ct_find(&k->a.t, "run_timer_softirq"), 0);
	ct_expect_leaf_caller(test, &k->a, "ct_timer_leaf");
}

static void ct_ipi_fn(void *arg)
{
	ct_handler_walk(arg);
}

static void ct_ipi(struct kunit *test)
{
	struct ct_async *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	int cpu, other;

	KUNIT_ASSERT_NOT_NULL(test, a);
	cpu = get_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	put_cpu();
	if (other >= nr_cpu_ids)
		kunit_skip(test, "one CPU online");
	/* the other CPU is most likely idle: the walk crosses into it */
	msleep(20);
	KUNIT_ASSERT_EQ(test, smp_call_function_single(other, ct_ipi_fn, a, 1),
			0);
	/*
	 * Taken as an interrupt, the walk crosses its regs into what the
	 * other CPU ran (mostly its idle loop, whose arch code may have no
	 * rows: reliable is not asserted).  It may also run its queue
	 * itself, in task context, before the interrupt comes (the
	 * stopper's migration_cpu_stop(), the idle loop:
	 * flush_smp_call_function_queue()): then no regs are crossed, and
	 * the trace must be reliable, as the kernel's.
	 */
	ct_expect_interrupted(test, a, "ct_ipi_fn",
			      ct_crossed_regs(&a->t) ? -1 : 1);
	if (ct_crossed_regs(&a->t)) {
		kunit_info(test, "across the interrupt: %s\n",
			   a->t.reliable ? "reliable" : "unreliable");
	} else {
		unsigned int i;

		/*
		 * Which task-context path ran the queue varies (7.3 inlines
		 * flush_smp_call_function_queue() into some callers): the
		 * frames are listed, and ct_expect_interrupted() asserted
		 * they are the kernel's own.
		 */
		for (i = 0; i < a->t.n; i++)
			kunit_info(test, "task-context frame %u %pS\n", i,
				   (void *)a->t.pc[i]);
	}
	kunit_info(test, "last frame %pS\n",
		   (void *)(a->t.n ? a->t.pc[a->t.n - 1] : 0));
}

static struct ct_async *ct_nmi_cur;

static int ct_nmi_fn(unsigned int type, struct pt_regs *regs)
{
	struct ct_async *a = READ_ONCE(ct_nmi_cur);

	/* one trace only */
	if (!a || smp_load_acquire(&a->done))
		return KT_NMI_DONE;
	ct_handler_walk(a);
	return KT_NMI_HANDLED;
}

static noinline int ct_nmi_leaf(struct kuw_chain *c)
{
	kt_nmi_self();
	return ct_spin_leaf(c);
}

static void ct_nmi(struct kunit *test)
{
	struct ct_async *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, a);
	WRITE_ONCE(ct_nmi_cur, a);
	ret = kt_nmi_register(ct_nmi_fn, "kunwind_ctx");
	if (ret == -EOPNOTSUPP)
		kunit_skip(test, "no NMI to send to this CPU in this kernel");
	KUNIT_ASSERT_EQ(test, ret, 0);
	ct_run_spinning(a, ct_nmi_leaf);
	kt_nmi_unregister("kunwind_ctx");
	WRITE_ONCE(ct_nmi_cur, NULL);
	/* pairs with the release in ct_handler_walk() */
	if (!smp_load_acquire(&a->done))
		kunit_skip(test, "no self-NMI delivered in this guest");
	ct_expect_interrupted(test, a, "ct_nmi_fn", 1);
	ct_expect_chain(test, &a->t);
}

/* ---- a kprobe on kuw_chain_f3's first instruction ---- */

struct ct_probe {
	struct kprobe kp;
	struct ct_trace cur;	/* from the handler: across the exception */
	struct ct_trace regs;	/* from the probe's pt_regs */
	int hits;
};

static struct ct_probe *ct_probe_cur;

static int ct_probe_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ct_probe *k = READ_ONCE(ct_probe_cur);

	if (!k || k->hits++)
		return 0;
	ct_walk(&k->cur, NULL, NULL);
	ct_walk(&k->regs, current, regs);
	return 0;
}

/* A post handler keeps the probe from being optimized into a jump. */
static void ct_probe_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
}

/* Does the kernel's trace reach @next without @skipped before it? */
static bool ct_skips(const struct ct_trace *t, const char *skipped,
		     const char *next)
{
	unsigned int i;

	for (i = 0; i < t->kn; i++) {
		if (ct_is(t->kpc[i], skipped))
			return false;
		if (ct_is(t->kpc[i], next))
			return true;
	}
	return false;
}

static noinline int ct_probe_leaf(struct kuw_chain *c)
{
	return 0;
}

static void ct_kprobe(struct kunit *test)
{
	struct ct_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kuw_chain c = { .leaf = ct_probe_leaf, .alloca_n = 16 };
	struct ct_trace *r;
	bool fp_skips;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->kp.addr = (kprobe_opcode_t *)kuw_chain_f3;
	k->kp.pre_handler = ct_probe_pre;
	k->kp.post_handler = ct_probe_post;
	WRITE_ONCE(ct_probe_cur, k);
	KUNIT_ASSERT_EQ(test, register_kprobe(&k->kp), 0);
	kuw_chain_run(&c);
	unregister_kprobe(&k->kp);
	WRITE_ONCE(ct_probe_cur, NULL);
	KUNIT_ASSERT_GE(test, k->hits, 1);

	/*
	 * From inside the handler: across the exception to the end.  With
	 * the function tracer a probe on a function's first instruction is
	 * an ftrace call: the handler runs from an ftrace trampoline, code
	 * with no tables.  Passing it by frame pointer is allowed, and so is
	 * a clean stop there, never reliable.
	 */
	KUNIT_EXPECT_GE(test, ct_find(&k->cur, "ct_probe_pre"), 0);
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
	    k->cur.err == -KUW_E_NOINFO) {
		KUNIT_EXPECT_FALSE(test, k->cur.reliable);
		KUNIT_EXPECT_GE(test, ct_find(&k->cur, "kprobe_ftrace_handler"),
				0);
		kunit_info(test, "stopped at the ftrace trampoline, after %u frames\n",
			   k->cur.n);
	} else {
		/*
		 * Across the breakpoint exception: reliable when the
		 * probed instruction's row steps kuw_chain_f3, not when
		 * an optimized probe's trampoline (no tables) ran the
		 * handler: not asserted.
		 */
		ct_expect(test, &k->cur, -1);
		KUNIT_EXPECT_GE(test, ct_find(&k->cur, "kuw_chain_f3"), 0);
	}

	/*
	 * From the probe's pt_regs: f3 (its first instruction), its caller
	 * f2, f2's caller f1, in order.  An unwinder that follows frame
	 * pointers (x86_64's fp kernel: the rbp f3 has not pushed yet; arm64:
	 * the x29 of the frame record f3 has not saved yet) takes f2's frame
	 * for f3's, whose return address is in f1, so it skips f2.  Both are
	 * asserted: kunwind has f2, and the kernel's unwinder misses it
	 * exactly when it follows frame records (ORC has it).
	 */
	r = &k->regs;
	KUNIT_ASSERT_GE(test, r->n, 3U);
	/* a breakpoint at f3, or the ftrace call there (x86: regs->ip is f3 + 1) */
	KUNIT_EXPECT_TRUE(test, ct_is(r->pc[0], "kuw_chain_f3") &&
			  r->pc[0] - (unsigned long)kuw_chain_f3 < 8);
	KUNIT_EXPECT_TRUE(test, ct_is(r->pc[1], "kuw_chain_f2"));
	KUNIT_EXPECT_TRUE(test, ct_is(r->pc[2], "kuw_chain_f1"));
	KUNIT_EXPECT_EQ_MSG(test, r->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(r->err));
	fp_skips = ct_skips(r, "kuw_chain_f2", "kuw_chain_f1");
	KUNIT_EXPECT_EQ_MSG(test, fp_skips, (bool)KT_REF_FRAME_RECORDS,
			    "the kernel's unwinder %s f2",
			    fp_skips ? "skipped" : "did not skip");
	if (fp_skips != KT_REF_FRAME_RECORDS)
		ct_dump(test, r);
	kunit_info(test, "from the probe's regs: kunwind %pS %pS %pS; kernel %pS %pS\n",
		   (void *)r->pc[0], (void *)r->pc[1], (void *)r->pc[2],
		   (void *)(r->kn ? r->kpc[0] : 0),
		   (void *)(r->kn > 1 ? r->kpc[1] : 0));
}

/* ---- a kretprobe on kuw_chain_f2: its return address is a trampoline ---- */

/* the walk from inside the return handler, once */
static struct ct_trace *ct_krp_ret;

static int ct_krp_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ct_trace *t = xchg(&ct_krp_ret, NULL);

	if (t)
		ct_walk(t, NULL, NULL);
	return 0;
}

static noinline int ct_krp_leaf(struct kuw_chain *c)
{
	ct_walk(c->priv, NULL, NULL);
	return 0;
}

static void ct_kretprobe(struct kunit *test)
{
	struct ct_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ct_trace *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct kretprobe *krp = kunit_kzalloc(test, sizeof(*krp), GFP_KERNEL);
	struct kuw_chain c = { .leaf = ct_krp_leaf, .alloca_n = 16 };
	unsigned int i;
	int at;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, krp);
	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "no CONFIG_KRETPROBES");
	krp->kp.addr = (kprobe_opcode_t *)kuw_chain_f2;
	krp->handler = ct_krp_handler;
	krp->maxactive = 4;
	WRITE_ONCE(ct_krp_ret, h);
	KUNIT_ASSERT_EQ(test, register_kretprobe(krp), 0);
	c.priv = t;
	kuw_chain_run(&c);
	unregister_kretprobe(krp);
	WRITE_ONCE(ct_krp_ret, NULL);
	KUNIT_EXPECT_EQ(test, krp->nmissed, 0);
	for (i = 0; i < t->n; i++)
		KUNIT_EXPECT_FALSE_MSG(test,
				       ct_is(t->pc[i], "arch_rethook_trampoline") ||
				       ct_is(t->pc[i], "__kretprobe_trampoline"),
				       "frame %u is the trampoline", i);
	ct_expect_chain(test, t);
	ct_expect(test, t, 1);

	/*
	 * From the return handler: f2 has returned into the trampoline,
	 * whose handler runs called from it (x86 rethook, 6.1 arm64: a
	 * frame in the trampoline shows) or in the exception its BRK raised
	 * (arm64 after 6.1: a pt_regs whose pc is the trampoline, crossed
	 * as the kernel does).  Either way the chain goes on at f1, where
	 * f2 returns to.  Not asserted where kt_arch.h says kunwind does not
	 * cross the trampoline yet (KT_KRP_HANDLER_WALK 0).
	 */
	KUNIT_ASSERT_GT(test, h->n, 0U);
	if (!KT_KRP_HANDLER_WALK) {
		kunit_info(test, "from the return handler: %u frames, stop: %s (not asserted here)\n",
			   h->n, kunwind_strerror(h->err));
		return;
	}
	at = ct_find(h, "ct_krp_handler");
	KUNIT_EXPECT_GE(test, at, 0);
	KUNIT_EXPECT_GT_MSG(test, ct_find(h, "kuw_chain_f1"), at,
			    "f1 is not in the trace after the handler");
	KUNIT_EXPECT_LT(test, ct_find(h, "kuw_chain_f2"), 0);
	/*
	 * Reliable or not, depending on how the trampoline is crossed: 6.12+
	 * arm64's BRK trampoline hands its handler a pt_regs whose pc the
	 * kernel already set to the real return address (exact: the regs
	 * are those of that return); 6.1's call into the handler and x86's
	 * rethook trampoline are passed by frame record (a guess).  The
	 * frames are asserted above and against the kernel's.
	 */
	ct_expect(test, h, ct_crossed_regs(h) ? -1 : 1);
}

static struct kunit_case kunwind_context_cases[] = {
	KUNIT_CASE(ct_user_task),
	KUNIT_CASE(ct_kthread),
	KUNIT_CASE(ct_hardirq),
	KUNIT_CASE(ct_softirq),
	KUNIT_CASE(ct_ipi),
	KUNIT_CASE(ct_nmi),
	KUNIT_CASE(ct_kprobe),
	KUNIT_CASE(ct_kretprobe),
	{}
};

static struct kunit_suite kunwind_context_suite = {
	.name = "kunwind_context",
	.test_cases = kunwind_context_cases,
};

kunit_test_suite(kunwind_context_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind alone from every context, against the kernel's unwinder");
