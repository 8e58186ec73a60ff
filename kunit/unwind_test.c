// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kunwind's unwinder, run at load under QEMU (make check).
 * The chain of kunit/chain.c is part of this translation unit, so this
 * module carries .eh_frame and .sframe for it (kunit/Kbuild).
 *
 * Independent truths: the kernel's own unwinder (kt_kernel_save(), which is
 * stack_trace_save() with the kernel's arch_stack_walk() called directly,
 * and kt_ref_walk() of kunit/arch/$(SRCARCH)/kt_arch.h: ORC or frame
 * pointers on x86_64, frame records on arm64) on the same stack, the
 * function names the chain is made of, the ABI's rule at a function's
 * first instruction, and frames laid out by hand for rows written in
 * assembly (kunit/arch/$(SRCARCH)/kt_rollback.h).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include "compat.h"
#include "kunwind.h"
#include "kunwind_internal.h"
#include "arch.h"
#include "blob.h"
#include "kt_arch.h"
#include "kt_sframe.h"
#include "kt_lookup.h"
#include "kt_rollback.h"
#include "chain.c"

#define KT_MAX	96

struct kt_trace {
	unsigned long pc[KT_MAX];
	u8 how[KT_MAX];
	bool rel[KT_MAX];	/* every frame up to this one from tables */
	unsigned int n;
	unsigned int total;	/* frames walked, KT_MAX or not */
	int err;
	bool reliable;
};

/* The first frame of a trace from here is kt_unwind itself. */
static noinline void kt_unwind(struct kt_trace *t, struct task_struct *task,
			       struct pt_regs *regs, u8 src)
{
	struct kunwind_state st;

	t->n = 0;
	t->total = 0;
	for (__kunwind_start(&st, task, regs, NULL, src); !kunwind_done(&st);
	     kunwind_next_frame(&st)) {
		t->total++;
		if (t->n < KT_MAX) {
			t->how[t->n] = st.how;
			t->rel[t->n] = st.reliable;
			t->pc[t->n++] = kunwind_get_return_address(&st);
		}
	}
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
	barrier();
}

/*
 * The walk of kt_unwind() through the batch API, kunwind_next_frames(), in
 * batches of varied sizes: the same frames, stop reason and reliability
 * (kt_expect_batch()), though it keeps fewer registers.  Its first frame
 * is kt_unwind_batch itself.
 */
static noinline void kt_unwind_batch(struct kt_trace *t,
				     struct task_struct *task,
				     struct pt_regs *regs, u8 src)
{
	static const unsigned int sizes[] = { 1, 3, 2, 16, 5 };
	struct kunwind_state st;
	unsigned int i = 0, n;

	t->n = 0;
	__kunwind_start(&st, task, regs, NULL, src);
	if (!kunwind_done(&st))
		t->pc[t->n++] = kunwind_get_return_address(&st);
	while (!kunwind_done(&st) && t->n < KT_MAX) {
		n = min_t(unsigned int, sizes[i++ % ARRAY_SIZE(sizes)],
			  KT_MAX - t->n);
		t->n += kunwind_next_frames(&st, t->pc + t->n, n);
	}
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
	barrier();
}

/*
 * @b, kt_unwind_batch()'s, is @t, kt_unwind()'s, from frame @from on
 * (from the current context, frame 0 is the walker and frame 1 its call
 * site in the caller; from a task or regs, the frames are the same from 0)
 */
static void kt_expect_batch(struct kunit *test, const struct kt_trace *t,
			    const struct kt_trace *b, unsigned int from)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, b->n, t->n);
	for (i = from; i < min(b->n, t->n); i++)
		KUNIT_EXPECT_EQ_MSG(test, b->pc[i], t->pc[i],
				    "frame %u: batch %pS, one by one %pS", i,
				    (void *)b->pc[i], (void *)t->pc[i]);
	KUNIT_EXPECT_EQ_MSG(test, b->err, t->err, "batch stopped: %s",
			    kunwind_strerror(b->err));
	KUNIT_EXPECT_EQ(test, b->reliable, t->reliable);
}

/*
 * Is @pc in the function called @name (of any module or vmlinux), or in a
 * clone the compiler made of it (name.isra.0, name.constprop.0, ...)?
 */
static bool kt_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) &&
	       (sym[n] == 0 || sym[n] == ' ' || sym[n] == '.');
}

static void kt_dump(struct kunit *test, const char *what,
		    const unsigned long *pc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kunit_info(test, "%s %2u %pS\n", what, i, (void *)pc[i]);
}

/*
 * The kernel's own unwinder as stack_trace_save() calls it
 * (kernel/stacktrace.c: arch_stack_walk() of current from the caller,
 * this function's own frame skipped), but called directly: kunwind's
 * consumers switch sends stack_trace_save() itself to kunwind, which a
 * reference taken through it would then compare with itself.
 * arch_stack_walk() is not exported: kt_kernel_unwinder() finds it (in
 * process context, before any walk in an interrupt or NMI needs it).
 */
#ifdef CONFIG_X86_64
KUW_INTERNAL(arch_stack_walk);	/* arm64's kt_arch.h has it already */
#endif

struct kt_save {
	unsigned long *store;
	unsigned int size, skip, len;
};

static bool kt_save_entry(void *cookie, unsigned long addr)
{
	struct kt_save *c = cookie;

	if (c->len >= c->size)
		return false;
	if (c->skip > 0) {
		c->skip--;
		return true;
	}
	c->store[c->len++] = addr;
	return c->len < c->size;
}

static noinline unsigned int kt_kernel_save(unsigned long *store,
					    unsigned int size)
{
	struct kt_save c = { .store = store, .size = size, .skip = 1 };

	if (!KUW_FN(arch_stack_walk))
		return 0;
	kuw_call(arch_stack_walk, kt_save_entry, &c, current, NULL);
	return c.len;
}

static void kt_kernel_unwinder(struct kunit *test)
{
	unsigned long a = KUW_FN(arch_stack_walk);

	if (!a)
		a = kt_lookup_fn(arch_stack_walk);
	KUNIT_ASSERT_NE_MSG(test, a, 0UL,
			    "the kernel's arch_stack_walk() not found");
}

/* ---- unwinding from inside the chain ---- */

struct kt_leaf {
	u8 src;
	struct kt_trace ours;
	struct kt_trace batch;	/* kt_unwind_batch() */
	unsigned long ref[KT_MAX];
	unsigned int nref;
};

static noinline int kt_leaf(struct kuw_chain *c)
{
	struct kt_leaf *l = c->priv;

	kt_unwind(&l->ours, NULL, NULL, l->src);
	kt_unwind_batch(&l->batch, NULL, NULL, l->src);
	l->nref = kt_kernel_save(l->ref, KT_MAX);
	barrier();
	return 0;
}

/* ours: kt_unwind, kt_leaf, then @names, then the test function */
static void kt_expect_chain(struct kunit *test, const struct kt_trace *t,
			    const char *const *names, unsigned int nnames,
			    const char *test_fn)
{
	unsigned int i;

	KUNIT_ASSERT_GE(test, t->n, nnames + 3);
	KUNIT_EXPECT_TRUE(test, kt_is(t->pc[0], "kt_unwind"));
	KUNIT_EXPECT_TRUE(test, kt_is(t->pc[1], "kt_leaf"));
	for (i = 0; i < nnames; i++)
		KUNIT_EXPECT_TRUE_MSG(test, kt_is(t->pc[2 + i], names[i]),
				      "frame %u: %pS, expected %s", 2 + i,
				      (void *)t->pc[2 + i], names[i]);
	KUNIT_EXPECT_TRUE_MSG(test, kt_is(t->pc[2 + nnames], test_fn),
			      "frame %u: %pS, expected %s", 2 + nnames,
			      (void *)t->pc[2 + nnames], test_fn);
}

/*
 * Same return addresses as the kernel's unwinder, from the leaf's caller to
 * the end.  @may_skip: an unwinder that follows frame records misses the
 * caller of a function interrupted before it saved its record; then the
 * kernel's trace must be ours with such frames left out, in order, down to
 * the same last frame.
 */
static void kt_expect_ref(struct kunit *test, const struct kt_leaf *l,
			  bool may_skip)
{
	unsigned int i, same = 0;

	if (may_skip) {
		for (i = 2; i < l->ours.n && same + 1 < l->nref; i++)
			if (l->ours.pc[i] == l->ref[same + 1])
				same++;
		KUNIT_EXPECT_EQ(test, same, l->nref - 1);
		KUNIT_EXPECT_TRUE(test, l->ours.n > 2 && l->nref > 1 &&
				  l->ours.pc[l->ours.n - 1] ==
				  l->ref[l->nref - 1]);
		if (same == l->nref - 1 && l->ours.n - 2 > same)
			kunit_info(test, "kunwind has %u frames the kernel's unwinder skipped\n",
				   l->ours.n - 2 - same);
	} else {
		KUNIT_EXPECT_EQ(test, l->ours.n - 2, l->nref - 1);
		for (i = 0; i + 2 < l->ours.n && i + 1 < l->nref; i++)
			if (l->ours.pc[i + 2] == l->ref[i + 1])
				same++;
		KUNIT_EXPECT_EQ(test, same, l->nref - 1);
	}
	if (same != l->nref - 1 || (!may_skip && l->ours.n - 2 != l->nref - 1)) {
		kt_dump(test, "kunwind", l->ours.pc, l->ours.n);
		kt_dump(test, "kernel", l->ref, l->nref);
	}
}

/*
 * The trace is reliable: every frame came from tables.  With the source
 * forced to .sframe on a kernel whose vmlinux .sframe kunwind refused
 * (kt_sframe.h), vmlinux's frames are stepped by the kernel's unwinder:
 * then it is reliable up to the first frame past this module's (the last
 * one the module's own .sframe stepped to), and not as a whole.
 */
static bool kt_expect_reliable(struct kunit *test, const struct kt_trace *t,
			       u8 src)
{
	unsigned int k;
	bool ok;

	if (src != KUW_SRC_SFRAME || !kt_vmlinux_sframe_refused()) {
		KUNIT_EXPECT_TRUE(test, t->reliable);
		return t->reliable;
	}
	k = kt_past_module(t->pc, t->n);
	ok = k < t->n && t->rel[k];
	KUNIT_EXPECT_TRUE_MSG(test, ok,
			      "unreliable before frame %u of %u (the first past this module's)",
			      k, t->n);
	KUNIT_EXPECT_FALSE(test, t->reliable);
	kunit_info(test, "vmlinux .sframe refused: reliable through this module's table to frame %u of %u, then the kernel's unwinder\n",
		   k, t->n);
	return ok;
}

static noinline __noclone void kt_chain_case(struct kunit *test, u8 src,
					     bool sig)
{
	unsigned int i;
	struct kt_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_leaf, .alloca_n = 200, .sig = sig };

	KUNIT_ASSERT_NOT_NULL(test, l);
	kt_kernel_unwinder(test);
	l->src = src;
	c.priv = l;
	kuw_chain_run(&c);
	if (sig)
		kt_expect_chain(test, &l->ours, kuw_chain_frames_sig,
				ARRAY_SIZE(kuw_chain_frames_sig), "kt_chain_case");
	else
		kt_expect_chain(test, &l->ours, kuw_chain_frames_plain,
				ARRAY_SIZE(kuw_chain_frames_plain),
				"kt_chain_case");
	KUNIT_EXPECT_EQ_MSG(test, l->ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->ours.err));
	if (!kt_expect_reliable(test, &l->ours, src))
		for (i = 0; i < l->ours.n; i++)
			kunit_info(test, "%2u %pS how %u\n", i,
				   (void *)l->ours.pc[i], l->ours.how[i]);
	if (!sig)
		kt_expect_ref(test, l, false);
	kt_expect_batch(test, &l->ours, &l->batch, 2);
}

static void kt_chain_eh_frame(struct kunit *test)
{
	kt_chain_case(test, KUW_SRC_EH_FRAME, false);
}

static void kt_chain_sframe(struct kunit *test)
{
	kt_chain_case(test, KUW_SRC_SFRAME, false);
}

static void kt_chain_any(struct kunit *test)
{
	kt_chain_case(test, KUNWIND_SRC_ANY, false);
}

/* The victim's frame is an exact pc: its first instruction. */
static void kt_chain_signal_frame(struct kunit *test)
{
	struct kt_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_leaf, .alloca_n = 24, .sig = true };
	unsigned int i;
	bool seen = false;

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->src = KUW_SRC_EH_FRAME;
	c.priv = l;
	kuw_chain_run(&c);
	kt_expect_chain(test, &l->ours, kuw_chain_frames_sig,
			ARRAY_SIZE(kuw_chain_frames_sig), __func__);
	for (i = 0; i < l->ours.n; i++)
		if (l->ours.pc[i] == (unsigned long)kuw_chain_sig_victim)
			seen = true;
	KUNIT_EXPECT_TRUE(test, seen);
	KUNIT_EXPECT_EQ_MSG(test, l->ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->ours.err));
}

/* ---- a sleeping task ---- */

static void kt_sleeping_task(struct kunit *test)
{
	struct kuw_chain_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct kt_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct kt_trace *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	unsigned long *ref = kunit_kcalloc(test, KT_MAX, sizeof(long),
					   GFP_KERNEL);
	struct task_struct *task;
	unsigned int n, i, first = 0;
	int tries;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	init_completion(&s->ready);
	init_completion(&s->go);
	task = kthread_run(kuw_chain_sleeper_fn, s, "kuw_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wait_for_completion(&s->ready);
	for (tries = 0; tries < 2000; tries++) {
		if (READ_ONCE(task->__state) != TASK_RUNNING &&
		    !READ_ONCE(task->on_cpu))
			break;
		usleep_range(100, 200);
	}
	kt_unwind(t, task, NULL, KUNWIND_SRC_ANY);
	kt_unwind_batch(b, task, NULL, KUNWIND_SRC_ANY);
	n = kt_ref_walk(task, NULL, ref, KT_MAX);
	complete(&s->go);
	kthread_stop(task);
	put_task_struct(task);

	KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(t->err));
	KUNIT_EXPECT_EQ(test, t->n, n);
	for (i = 0; i < min(t->n, n); i++)
		KUNIT_EXPECT_EQ_MSG(test, t->pc[i], ref[i], "frame %u", i);
	/* the chain is there, below the leaf */
	for (i = 0; i < t->n; i++)
		if (kt_is(t->pc[i], "kuw_chain_sleep_leaf"))
			first = i + 1;
	KUNIT_ASSERT_GT(test, first, 0U);
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain) &&
	     first + i < t->n; i++)
		KUNIT_EXPECT_TRUE(test, kt_is(t->pc[first + i],
					      kuw_chain_frames_plain[i]));
	if (t->n != n)
		kt_dump(test, "kunwind", t->pc, t->n), kt_dump(test, "kernel", ref, n);
	kt_expect_batch(test, t, b, 0);
}

static int kt_never_fn(void *arg)
{
	return 0;
}

/*
 * A kthread created but not woken: it waits in kthread() for its first
 * wake-up.  Same frames as the kernel's unwinder, down to ret_from_fork,
 * and a clean end.
 */
static void kt_new_task(struct kunit *test)
{
	struct kt_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	unsigned long ref[KT_MAX / 4];
	unsigned int n, i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	task = kthread_create(kt_never_fn, NULL, "kuw_new");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kt_unwind(t, task, NULL, KUNWIND_SRC_ANY);
	n = kt_ref_walk(task, NULL, ref, ARRAY_SIZE(ref));
	kthread_stop(task);
	KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(t->err));
	KUNIT_EXPECT_EQ(test, t->n, n);
	for (i = 0; i < min(t->n, n); i++)
		KUNIT_EXPECT_EQ(test, t->pc[i], ref[i]);
	/* x86 6.12, 7.3: ret_from_fork_asm (then the C ret_from_fork()) */
	KUNIT_EXPECT_TRUE(test, t->n &&
			  (kt_is(t->pc[t->n - 1], "ret_from_fork") ||
			   kt_is(t->pc[t->n - 1], "ret_from_fork_asm")));
	KUNIT_EXPECT_TRUE(test, t->reliable);
}

/* ---- from a hard interrupt, across the IRQ entry into the chain ---- */

struct kt_irq {
	struct hrtimer timer;
	struct kt_leaf l;
	int done;
};

static struct kt_irq *kt_irq_cur;

static enum hrtimer_restart kt_irq_fn(struct hrtimer *h)
{
	struct kt_irq *k = container_of(h, struct kt_irq, timer);

	kt_unwind(&k->l.ours, NULL, NULL, KUNWIND_SRC_ANY);
	kt_unwind_batch(&k->l.batch, NULL, NULL, KUNWIND_SRC_ANY);
	k->l.nref = kt_kernel_save(k->l.ref, KT_MAX);
	/* publish the traces before the flag the spinning chain polls */
	smp_store_release(&k->done, 1);
	return HRTIMER_NORESTART;
}

static noinline int kt_spin_leaf(struct kuw_chain *c)
{
	struct kt_irq *k = c->priv;
	unsigned long end = jiffies + 2 * HZ;

	/* pairs with the release in kt_irq_fn() */
	while (!smp_load_acquire(&k->done) && time_before(jiffies, end))
		cpu_relax();
	return 0;
}

static void kt_irq_context(struct kunit *test)
{
	struct kt_irq *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_spin_leaf, .alloca_n = 32 };
	unsigned int i, chain_at = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	kt_kernel_unwinder(test);
	c.priv = k;
	kt_irq_cur = k;
	kuw_hrtimer_setup(&k->timer, kt_irq_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	preempt_disable();	/* the timer fires on this CPU, in the chain */
	hrtimer_start(&k->timer, ns_to_ktime(200 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	kuw_chain_run(&c);
	preempt_enable();
	hrtimer_cancel(&k->timer);
	/* pairs with the release in kt_irq_fn(): the traces are complete */
	KUNIT_ASSERT_EQ(test, smp_load_acquire(&k->done), 1);

	/* ours[2..] (after kt_unwind and the callback) == ref[1..] */
	KUNIT_EXPECT_TRUE(test, kt_is(k->l.ours.pc[1], "kt_irq_fn"));
	kt_expect_ref(test, &k->l, KT_REF_FRAME_RECORDS);
	/* the interrupted chain is in the trace */
	for (i = 0; i < k->l.ours.n; i++)
		if (kt_is(k->l.ours.pc[i], "kt_spin_leaf"))
			chain_at = i + 1;
	KUNIT_EXPECT_GT(test, chain_at, 0U);
	if (chain_at && chain_at < k->l.ours.n)
		KUNIT_EXPECT_TRUE(test, kt_is(k->l.ours.pc[chain_at],
					      "kuw_chain_f7"));
	/*
	 * The IRQ entry has no CFI: crossed exactly with its pt_regs; the
	 * interrupted leaf's row at the interrupted pc says where its
	 * return address is: still reliable (more than arm64's
	 * arch_stack_walk_reliable(), which gives up there).
	 */
	KUNIT_EXPECT_TRUE(test, k->l.ours.reliable);
	KUNIT_EXPECT_EQ_MSG(test, k->l.ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(k->l.ours.err));
	kt_expect_batch(test, &k->l.ours, &k->l.batch, 2);
}

/* ---- walks in interrupts that land inside a walk ---- */

/*
 * The file at @path, NUL-terminated, or NULL (opened from PID 1's root: a
 * KUnit case runs in a kernel thread).
 */
static char *kt_file(struct kunit *test, const char *path)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	char *buf;

	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	if (!buf)
		return NULL;
	f = kuw_filp_open_init(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return NULL;
	n = kernel_read(f, buf, 4095, &pos);
	filp_close(f, NULL);
	return n > 0 ? buf : NULL;
}

/* kunwind.row_cache, the parameter: is the cache on (its default)? */
static bool kt_rc_on(struct kunit *test)
{
	char *buf = kt_file(test, "/sys/module/kunwind/parameters/row_cache");

	return !buf || buf[0] != 'N';
}

struct kt_nest {
	struct hrtimer timer;
	struct kt_trace t, b;	/* the interrupt's walks */
	unsigned int irqs, bad;	/* interrupts that walked; walks that differed */
	unsigned int held;	/* interrupts whose walks found the cache held */
	int stop;
};

/*
 * Every 200 us while the chain walks in batches: both walks from here
 * (those of an interrupt that lands in a batch look up without the row
 * cache, which the batch holds), compared at once.
 */
static enum hrtimer_restart kt_nest_fn(struct hrtimer *h)
{
	struct kt_nest *k = container_of(h, struct kt_nest, timer);
	unsigned long held = kunwind_row_cache_held();
	unsigned int i;
	bool same;

	kt_unwind(&k->t, NULL, NULL, KUNWIND_SRC_ANY);
	kt_unwind_batch(&k->b, NULL, NULL, KUNWIND_SRC_ANY);
	/* this CPU's count: a walk here found the interrupted batch's cache */
	k->held += kunwind_row_cache_held() != held;
	same = k->t.n == k->b.n && k->t.err == k->b.err &&
	       k->t.err == -KUW_E_END && k->t.reliable == k->b.reliable;
	for (i = 2; same && i < k->t.n; i++)
		same = k->t.pc[i] == k->b.pc[i];
	k->irqs++;
	k->bad += !same;
	if (READ_ONCE(k->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(h, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

struct kt_nest_leaf {
	struct kt_nest *k;
	struct kt_trace first, again;
	unsigned int walks, differ;
	bool want_held;		/* the row cache is on: wait for a held one */
	unsigned long waited;	/* jiffies the walks took */
};

/* enough interrupts and walks (and one inside a batch) to judge by? */
static bool kt_nest_enough(struct kt_nest_leaf *l)
{
	struct kt_nest *k = l->k;

	return l->walks > 10 && READ_ONCE(k->irqs) > 10 &&
	       (!l->want_held || READ_ONCE(k->held));
}

/*
 * Batch walks, each compared with the first from frame 2: for 100 ms, then
 * on until the interrupts have walked often enough (on a loaded host the
 * timer may fire only a few times in 100 ms), 2 s at most.
 */
static noinline int kt_nest_leaf(struct kuw_chain *c)
{
	struct kt_nest_leaf *l = c->priv;
	unsigned long start = jiffies;
	unsigned long end = start + HZ / 10, limit = start + 2 * HZ;
	unsigned int i;
	bool same;

	kt_unwind_batch(&l->first, NULL, NULL, KUNWIND_SRC_ANY);
	while (time_before(jiffies, end) ||
	       (time_before(jiffies, limit) && !kt_nest_enough(l))) {
		kt_unwind_batch(&l->again, NULL, NULL, KUNWIND_SRC_ANY);
		same = l->again.n == l->first.n &&
		       l->again.err == l->first.err;
		/* frame 1 is this function, at another call */
		for (i = 2; same && i < l->first.n; i++)
			same = l->again.pc[i] == l->first.pc[i];
		l->walks++;
		l->differ += !same;
	}
	l->waited = jiffies - start;
	return 0;
}

static void kt_nested_walks(struct kunit *test)
{
	struct kt_nest *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kt_nest_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_nest_leaf, .alloca_n = 16 };

	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->k = k;
	l->want_held = kt_rc_on(test);
	c.priv = l;
	kuw_hrtimer_setup(&k->timer, kt_nest_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	preempt_disable();	/* the interrupts hit this CPU's walks */
	hrtimer_start(&k->timer, ns_to_ktime(200 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	kuw_chain_run(&c);
	WRITE_ONCE(k->stop, 1);
	preempt_enable();
	hrtimer_cancel(&k->timer);
	kunit_info(test, "%u batch walks in %u ms, %u differed from the first; %u interrupts walked, %u of them differently one by one and in batches, %u inside a batch that held the row cache\n",
		   l->walks, jiffies_to_msecs(l->waited), l->differ, k->irqs,
		   k->bad, k->held);
	KUNIT_EXPECT_EQ_MSG(test, l->first.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->first.err));
	KUNIT_EXPECT_GT(test, l->walks, 10U);
	KUNIT_EXPECT_EQ(test, l->differ, 0U);
	KUNIT_EXPECT_GT(test, k->irqs, 10U);
	KUNIT_EXPECT_EQ(test, k->bad, 0U);
	/*
	 * some interrupts landed inside a batch while it held this CPU's row
	 * cache (their own walks found it held), unless the cache is off
	 */
	if (l->want_held)
		KUNIT_EXPECT_GT(test, k->held, 0U);
	else
		kunit_info(test, "row cache off: no walk can find it held\n");
}

/* ---- from an NMI, across the NMI entry (its own stack) into the chain ---- */

static struct kt_irq *kt_nmi_cur;

static int kt_nmi_fn(unsigned int type, struct pt_regs *regs)
{
	struct kt_irq *k = READ_ONCE(kt_nmi_cur);

	/* one trace only; pairs with the release below for a later NMI */
	if (!k || smp_load_acquire(&k->done))
		return KT_NMI_DONE;
	kt_unwind(&k->l.ours, NULL, NULL, KUNWIND_SRC_ANY);
	kt_unwind_batch(&k->l.batch, NULL, NULL, KUNWIND_SRC_ANY);
	k->l.nref = kt_kernel_save(k->l.ref, KT_MAX);
	/* publish the traces before the flag the spinning chain polls */
	smp_store_release(&k->done, 1);
	return KT_NMI_HANDLED;
}

/* deep in the chain: send this CPU an NMI and wait for its handler */
static noinline int kt_nmi_leaf(struct kuw_chain *c)
{
	kt_nmi_self();
	return kt_spin_leaf(c) + 1;
}

static void kt_nmi_context(struct kunit *test)
{
	struct kt_irq *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_nmi_leaf, .alloca_n = 48 };
	unsigned int i, chain_at = 0;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, k);
	kt_kernel_unwinder(test);
	c.priv = k;
	WRITE_ONCE(kt_nmi_cur, k);
	ret = kt_nmi_register(kt_nmi_fn, "kunwind_test");
	if (ret == -EOPNOTSUPP)
		kunit_skip(test, "no NMI to send to this CPU in this kernel");
	KUNIT_ASSERT_EQ(test, ret, 0);
	preempt_disable();	/* the NMI hits this CPU, inside the chain */
	kuw_chain_run(&c);
	preempt_enable();
	kt_nmi_unregister("kunwind_test");
	WRITE_ONCE(kt_nmi_cur, NULL);
	/* pairs with the release in kt_nmi_fn(): the traces are complete */
	if (!smp_load_acquire(&k->done))
		kunit_skip(test, "no self-NMI delivered in this guest");
	KUNIT_EXPECT_TRUE(test, kt_is(k->l.ours.pc[1], "kt_nmi_fn"));
	kt_expect_ref(test, &k->l, KT_REF_FRAME_RECORDS);
	for (i = 0; i < k->l.ours.n; i++)
		if (kt_is(k->l.ours.pc[i], "kuw_chain_f7"))
			chain_at = i;
	KUNIT_EXPECT_GT(test, chain_at, 0U);
	/* the NMI's pt_regs crossed exactly, the chain's rows step it */
	KUNIT_EXPECT_TRUE(test, k->l.ours.reliable);
	KUNIT_EXPECT_EQ_MSG(test, k->l.ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(k->l.ours.err));
	kt_expect_batch(test, &k->l.ours, &k->l.batch, 2);
}

/* ---- from a pt_regs, as the oops hook starts: same frames as the kernel's ---- */

struct kt_regs_out {
	struct pt_regs regs;
	u8 src;
	struct kt_trace ours;
	struct kt_trace batch;	/* kt_unwind_batch() */
	unsigned long ref[KT_MAX];
	unsigned int nref;
};

static noinline int kt_regs_leaf(struct kuw_chain *c)
{
	struct kt_regs_out *o = c->priv;
	struct pt_regs *r = &o->regs;

	/* the registers of this function here, as an exception saves them */
	KT_CAPTURE_REGS(r);
	kt_unwind(&o->ours, current, r, o->src);
	kt_unwind_batch(&o->batch, current, r, o->src);
	o->nref = kt_ref_walk(current, r, o->ref, KT_MAX);
	barrier();
	return 0;
}

/*
 * kunwind's first frame is the regs' pc; the kernel's unwinder from the
 * regs (kt_ref_walk()) reports from the caller on: ours[1..] == ref[0..],
 * through the chain to the end.
 */
static void kt_regs_case(struct kunit *test, u8 src)
{
	struct kt_regs_out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_regs_leaf, .alloca_n = 56 };
	unsigned int i, same = 0;

	KUNIT_ASSERT_NOT_NULL(test, o);
	o->src = src;
	c.priv = o;
	kuw_chain_run(&c);
	KUNIT_EXPECT_EQ(test, o->ours.pc[0], instruction_pointer(&o->regs));
	KUNIT_EXPECT_TRUE(test, kt_is(o->ours.pc[0], "kt_regs_leaf"));
	KUNIT_EXPECT_EQ(test, o->ours.n, o->nref + 1);
	for (i = 0; i + 1 < o->ours.n && i < o->nref; i++)
		same += o->ours.pc[i + 1] == o->ref[i];
	KUNIT_EXPECT_EQ(test, same, o->nref);
	KUNIT_EXPECT_GT(test, o->nref, (unsigned int)ARRAY_SIZE(kuw_chain_frames_plain));
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain); i++)
		KUNIT_EXPECT_TRUE(test, kt_is(o->ours.pc[1 + i],
					      kuw_chain_frames_plain[i]));
	KUNIT_EXPECT_EQ_MSG(test, o->ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(o->ours.err));
	kt_expect_reliable(test, &o->ours, src);
	KUNIT_EXPECT_EQ(test, o->batch.pc[0], instruction_pointer(&o->regs));
	kt_expect_batch(test, &o->ours, &o->batch, 0);
	if (same != o->nref || o->ours.n != o->nref + 1) {
		kt_dump(test, "kunwind", o->ours.pc, o->ours.n);
		kt_dump(test, "kernel", o->ref, o->nref);
	}
}

static void kt_regs_eh_frame(struct kunit *test)
{
	kt_regs_case(test, KUW_SRC_EH_FRAME);
}

static void kt_regs_sframe(struct kunit *test)
{
	kt_regs_case(test, KUW_SRC_SFRAME);
}

/* ---- blobs the kernel must refuse ---- */

/*
 * The running kernel's build id, as /sys/kernel/notes gives it (opened
 * from PID 1's root: a KUnit case runs in a kernel thread).
 */
static int kt_kernel_build_id(struct kunit *test, u8 *id, u8 *id_len)
{
	const u8 *p;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	u32 len;
	u8 *buf;

	buf = kunit_kmalloc(test, 4096, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	f = kuw_filp_open_init("/sys/kernel/notes", O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, 4096, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kuw_note_build_id(buf, n, &p, &len))
		return -ENOENT;
	memcpy(id, p, len);
	*id_len = len;
	return 0;
}

/*
 * A blob made from the kernel's own .eh_frame, with the running kernel's
 * build id, as if the kernel had been linked 16 MiB lower (stext, text
 * range and section address all moved): while the kernel has that table,
 * loading it is refused (-EEXIST); so it is with a build id of another
 * kernel (-ESTALE), with a byte of its section flipped (-EBADMSG), as a
 * module blob of a module that is not loaded (-ENOENT), and each refusal
 * leaves the rules as they were.  Once the table is dropped the blob loads,
 * and kunwind moves it back by the offset it finds (run-time _stext minus
 * the blob's): every row is where it was before.
 */
static void kt_blob_refused(struct kunit *test)
{
	static const struct kuw_blob_sect sect = { ".text", 0x10000, 0x1000 };
	const u64 delta = 16ULL << 20;
	unsigned long pcs[] = {
		(unsigned long)kunit_kmalloc_array,
		(unsigned long)kunit_kmalloc_array + 5,
		(unsigned long)stack_trace_save,
		(unsigned long)stack_trace_save + 0x10,
		(unsigned long)kthread_create_on_node + 7,
	};
	struct kunwind_rule_info *a, *b2;
	struct kunwind_table_info info[4];
	struct kuw_blob b = {};
	u64 size, msize;
	u8 *buf, *mbuf;
	int n, i, eh = -1;

	n = kunwind_tables_of("vmlinux", info, ARRAY_SIZE(info));
	for (i = 0; i < n && i < ARRAY_SIZE(info); i++)
		if (info[i].src == KUW_SRC_EH_FRAME)
			eh = i;
	if (eh < 0)
		kunit_skip(test, "the kernel keeps no .eh_frame");
	a = kunit_kcalloc(test, ARRAY_SIZE(pcs), sizeof(*a), GFP_KERNEL);
	b2 = kunit_kzalloc(test, sizeof(*b2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b2);
	for (i = 0; i < ARRAY_SIZE(pcs); i++)
		KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(pcs[i],
							  KUW_SRC_EH_FRAME,
							  &a[i]), 0);

	strscpy(b.owner, "vmlinux", sizeof(b.owner));
	KUNIT_ASSERT_EQ(test, kt_kernel_build_id(test, b.build_id, &b.id_len),
			0);
	b.kind = KUW_BLOB_VMLINUX;
	b.obj.arch = KT_ARCH;
	b.src = KUW_SRC_EH_FRAME;
	b.stext = info[eh].text_start - delta;
	b.obj.text_start = b.stext;
	b.obj.text_end = b.stext + (256ULL << 20);
	b.sec.data = (const u8 *)(unsigned long)info[eh].sec_addr;
	b.sec.size = info[eh].sec_size;
	b.sec.addr = info[eh].sec_addr - delta;
	size = kuw_blob_size(0, b.sec.size);
	KUNIT_ASSERT_GT(test, size, 0ULL);
	buf = kunit_kmalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -EEXIST);

	b.build_id[0] ^= 0xff;
	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -ESTALE);
	b.build_id[0] ^= 0xff;

	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	buf[size - b.sec.size + 100] ^= 0xff;
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -EBADMSG);
	buf[size - b.sec.size + 100] ^= 0xff;

	{
		/* a module blob needs a .debug_frame; never reached here */
		struct kuw_blob m = b;

		m.kind = KUW_BLOB_MODULE;
		strscpy(m.owner, "kunwind_no_such_module", sizeof(m.owner));
		m.src = KUW_SRC_DEBUG_FRAME;
		m.stext = 0;
		m.obj.text_start = 0x10000;
		m.obj.text_end = 0x20000;
		m.sec.addr = 0;
		m.nsect = 1;
		m.sect = &sect;
		msize = kuw_blob_size(1, m.sec.size);
		mbuf = kunit_kmalloc(test, msize, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mbuf);
		KUNIT_ASSERT_EQ(test, kuw_blob_write(&m, mbuf, msize), 0);
		KUNIT_EXPECT_EQ(test, kunwind_load_blob(mbuf, msize), -ENOENT);
	}
	for (i = 0; i < ARRAY_SIZE(pcs); i++) {
		KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(pcs[i],
							  KUW_SRC_EH_FRAME,
							  b2), 0);
		KUNIT_EXPECT_EQ(test, b2->row_pc, a[i].row_pc);
	}

	/* dropped, then given back by the blob: the same rows */
	KUNIT_ASSERT_EQ(test, kunwind_drop_table("vmlinux", KUW_SRC_EH_FRAME),
			0);
	KUNIT_EXPECT_EQ(test, kunwind_drop_table("vmlinux", KUW_SRC_EH_FRAME),
			-ENOENT);
	KUNIT_EXPECT_NE(test, kunwind_rule_for_pc(pcs[0], KUW_SRC_EH_FRAME, b2),
			0);
	KUNIT_ASSERT_EQ(test, kunwind_load_blob(buf, size), 0);
	for (i = 0; i < ARRAY_SIZE(pcs); i++) {
		KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(pcs[i],
							  KUW_SRC_EH_FRAME,
							  b2), 0);
		KUNIT_EXPECT_EQ(test, b2->row_pc, a[i].row_pc);
		KUNIT_EXPECT_EQ(test, memcmp(&b2->rule, &a[i].rule,
					     kuw_rule_size(&a[i].rule)), 0);
	}
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -EEXIST);
}

/* ---- rules ---- */

/* At a function's first instruction: the ABI's rule (kt_abi_entry_rule()). */
static void kt_expect_entry_rule(struct kunit *test, unsigned long fn, u8 src)
{
	struct kunwind_rule_info *info;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(fn, src, info), 0);
	KUNIT_EXPECT_EQ(test, info->src, src);
	KUNIT_EXPECT_LE(test, info->row_pc, (u64)fn + KT_ENTRY_PAD);
	kt_abi_entry_rule(test, info);
}

static void kt_rules_entry(struct kunit *test)
{
	struct kunwind_rule_info *info;

	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f1,
			     KUW_SRC_EH_FRAME);
	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f1, KUW_SRC_SFRAME);
	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f6,
			     KUW_SRC_EH_FRAME);
	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f6, KUW_SRC_SFRAME);
	/* a vmlinux function too */
	kt_expect_entry_rule(test, (unsigned long)kunit_kmalloc_array,
			     KUW_SRC_EH_FRAME);
	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc((unsigned long)kuw_chain_f1,
						  KUNWIND_SRC_ANY, info), 0);
	KUNIT_EXPECT_STREQ(test, info->owner, KBUILD_MODNAME);
}

/* Inside f3, once its 768-byte frame is set up, the CFA is far above sp. */
static void kt_rules_big_frame(struct kunit *test)
{
	struct kunwind_rule_info *info;
	unsigned long pc;
	bool big = false;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	for (pc = (unsigned long)kuw_chain_f3;
	     pc < (unsigned long)kuw_chain_f3 + 64; pc++) {
		if (kunwind_rule_for_pc(pc, KUW_SRC_EH_FRAME, info))
			continue;
		if (info->rule.cfa_reg == KT_REG_SP &&
		    info->rule.cfa_off >= 768)
			big = true;
		/* with frame pointers the body's CFA may be fp-based */
		if (IS_ENABLED(CONFIG_FRAME_POINTER) &&
		    info->rule.cfa_reg == KT_REG_FP)
			big = true;
	}
	KUNIT_EXPECT_TRUE(test, big);
}

/* ---- error paths ---- */

static int kt_data_word;

static void kt_bad_pc(struct kunit *test)
{
	struct kunwind_rule_info *info;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc(0x1000, KUNWIND_SRC_ANY,
						  info), -ENOENT);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc((unsigned long)&kt_data_word,
						  KUNWIND_SRC_ANY, info),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc((unsigned long)info,
						  KUNWIND_SRC_ANY, info),
			-ENOENT);
}

/*
 * Start from made-up registers: a pc inside the chain and a stack of
 * garbage on this stack.  Every walk must end, inside the frame limit,
 * without a fault; a data pc stops at once with "no unwind info".
 */
static void kt_garbage_stack(struct kunit *test)
{
	unsigned long fns[] = {
		(unsigned long)kuw_chain_f1, (unsigned long)kuw_chain_f3,
		(unsigned long)kuw_chain_f4, (unsigned long)kuw_chain_f6,
		(unsigned long)kuw_chain_f7,
	};
	struct kt_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct kt_trace *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct pt_regs *regsp = kunit_kzalloc(test, sizeof(*regsp), GFP_KERNEL);
	unsigned long garbage[32];
	struct rnd_state rnd;
	unsigned int i, j, stopped_bad = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, regsp);
	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 200; i++) {
		for (j = 0; j < ARRAY_SIZE(garbage); j++) {
			u64 v = prandom_u32_state(&rnd);

			v = v << 32 | prandom_u32_state(&rnd);
			/* some words look like kernel text or stack */
			if (j % 3 == 0)
				v = fns[v % ARRAY_SIZE(fns)] + (v >> 40) % 64;
			else if (j % 3 == 1)
				v = (unsigned long)&garbage[(v >> 7) % 32];
			garbage[j] = v;
		}
		barrier_data(garbage);
		kt_set_regs(regsp, fns[i % ARRAY_SIZE(fns)] + (i * 7) % 48,
			    (unsigned long)&garbage[i % 8], garbage[(i + 3) % 32]);
		kt_unwind(t, current, regsp, KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
		/* the garbage is read again: same stack, same walk */
		kt_unwind_batch(b, current, regsp,
				KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
		kt_expect_batch(test, t, b, 0);
		/* a stop reason of the engine's, by name */
		KUNIT_EXPECT_TRUE_MSG(test, t->err < 0 &&
				      t->err > -KUW_E__COUNT,
				      "run %u: stop %d", i, t->err);
		/* the first frame and at most KUNWIND_MAX_FRAMES steps */
		KUNIT_EXPECT_LE_MSG(test, t->total,
				    (unsigned int)KUNWIND_MAX_FRAMES + 1,
				    "run %u: stop %s", i,
				    kunwind_strerror(t->err));
		if (t->err != -KUW_E_END)
			stopped_bad++;
	}
	KUNIT_EXPECT_GT(test, stopped_bad, 150U);

	/* a stack pointer outside every stack */
	/* sp in kmalloc memory */
	kt_set_regs(regsp, (unsigned long)kuw_chain_f3, (unsigned long)t, 0);
	kt_unwind(t, current, regsp, KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
	KUNIT_EXPECT_EQ(test, t->err, -KUW_E_BADSTACK);

	/* a data address as pc: no unwind info */
	kt_set_regs(regsp, (unsigned long)&kt_data_word,
		    (unsigned long)&garbage[8], 0);
	memset(garbage, 0, sizeof(garbage));
	barrier_data(garbage);
	kt_unwind(t, current, regsp, KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
	KUNIT_EXPECT_EQ(test, t->n, 1U);
	KUNIT_EXPECT_EQ(test, t->err, -KUW_E_NOINFO);
	KUNIT_EXPECT_FALSE(test, t->reliable);
}

/* ---- a failed step is undone before the fallback steps the frame ---- */

/* The value of register @reg at @st's frame (a slot on this stack read). */
static bool kt_reg(const struct kunwind_state *st, unsigned int reg, u64 *v)
{
	if (!(st->regs.valid & BIT_ULL(reg)))
		return false;
	*v = st->regs.r[reg];
	if (!(st->regs.lazy & BIT_ULL(reg)))
		return true;
	return !copy_from_kernel_nofault(v, (const void *)(unsigned long)*v,
					 sizeof(*v));
}

/*
 * The row of kt_rollback.h's asm at KT_RB_BODY, as its CFI says: CFA = sp
 * + 16, KT_RB_REG saved at CFA - 16.
 */
static void kt_expect_rb_row(struct kunit *test)
{
	struct kunwind_rule_info *info;
	const struct kuw_reg_rule *rr;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(KT_RB_BODY, KUW_SRC_EH_FRAME,
						  info), 0);
	KUNIT_ASSERT_EQ(test, info->rule.cfa_kind, KUW_CFA_REG);
	KUNIT_ASSERT_EQ(test, info->rule.cfa_reg, KT_REG_SP);
	KUNIT_ASSERT_EQ(test, info->rule.cfa_off, 16);
	rr = kuw_rule_find(&info->rule, KT_RB_REG);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_ASSERT_EQ(test, rr->kind, KUW_R_OFFSET);
	KUNIT_ASSERT_EQ(test, rr->off, -16);
}

/*
 * A frame whose row restores a callee-saved register (KT_RB_REG) from its
 * slot, then fails (the return address it reads is no text): the arch's
 * fallback steps the frame again, and the register it keeps must be the
 * frame's own (@val), not what the failed row wrote (a slot address, its
 * word).  One by one and in a batch.
 */
static noinline void kt_failed_step_undone(struct kunit *test)
{
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	const unsigned long val = kt_rb_val();
	unsigned long buf[8], pc = 0, ret_pc;
	struct kunwind_state st;
	int batch;
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, regs);
	kt_expect_rb_row(test);
	for (batch = 0; batch < 2; batch++) {
		ret_pc = kt_rb_fail(regs, buf, val);
		barrier_data(buf);
		__kunwind_start(&st, current, regs, NULL,
				KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
		KUNIT_ASSERT_FALSE(test, kunwind_done(&st));
		KUNIT_ASSERT_EQ(test, kunwind_get_return_address(&st),
				KT_RB_BODY);
		KUNIT_ASSERT_TRUE(test, kt_reg(&st, KT_RB_REG, &v));
		KUNIT_ASSERT_EQ(test, v, (u64)val);
		if (batch)
			KUNIT_ASSERT_EQ_MSG(test,
					    kunwind_next_frames(&st, &pc, 1), 1U,
					    "stopped: %s",
					    kunwind_strerror(kunwind_stop_reason(&st)));
		else
			KUNIT_ASSERT_TRUE_MSG(test, kunwind_next_frame(&st),
					      "stopped: %s",
					      kunwind_strerror(kunwind_stop_reason(&st)));
		KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st), ret_pc);
		if (batch)
			KUNIT_EXPECT_EQ(test, pc, ret_pc);
		/* the arch's own step, not the row's */
		KUNIT_EXPECT_EQ(test, st.how, (u8)KUNWIND_FRAME_FP);
		KUNIT_EXPECT_TRUE(test, kt_reg(&st, KT_RB_REG, &v));
		KUNIT_EXPECT_EQ_MSG(test, v, (u64)val,
				    "%s: register %u after the fallback: 0x%llx (lazy %d), the frame's own 0x%lx",
				    batch ? "batch" : "one by one", KT_RB_REG, v,
				    !!(st.regs.lazy & BIT_ULL(KT_RB_REG)), val);
	}
}

/*
 * A row's step that succeeds leaves KT_RB_REG in its slot (lazy); the next
 * frame has no row and is stepped by its frame record, which keeps that
 * register: still the slot's word, not the slot's address (arm64; x86's
 * frame-pointer step keeps no such register).
 */
static noinline void kt_record_keeps_slots(struct kunit *test)
{
	struct pt_regs *regs = kunit_kzalloc(test, sizeof(*regs), GFP_KERNEL);
	const unsigned long saved = 0x1919191919191919UL;
	unsigned long buf[8], ret_pc;
	struct kunwind_state st;
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, regs);
	ret_pc = kt_rb_record(regs, buf, kt_rb_val(), saved);
	if (!ret_pc)
		kunit_skip(test, "no frame-record step keeps callee-saved registers on this arch");
	barrier_data(buf);
	kt_expect_rb_row(test);
	__kunwind_start(&st, current, regs, NULL,
			KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
	KUNIT_ASSERT_FALSE(test, kunwind_done(&st));
	/* the row's step: to buf[1], the register now at its slot */
	KUNIT_ASSERT_TRUE(test, kunwind_next_frame(&st));
	KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st), buf[1]);
	KUNIT_EXPECT_EQ(test, st.how, (u8)KUNWIND_FRAME_CFI);
	KUNIT_EXPECT_TRUE(test, kt_reg(&st, KT_RB_REG, &v));
	KUNIT_EXPECT_EQ(test, v, (u64)saved);
	/* the frame record's step */
	KUNIT_ASSERT_TRUE_MSG(test, kunwind_next_frame(&st), "stopped: %s",
			      kunwind_strerror(kunwind_stop_reason(&st)));
	KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st), ret_pc);
	KUNIT_EXPECT_EQ(test, st.how, (u8)KUNWIND_FRAME_FP);
	KUNIT_EXPECT_TRUE(test, kt_reg(&st, KT_RB_REG, &v));
	KUNIT_EXPECT_EQ_MSG(test, v, (u64)saved,
			    "register %u after the frame record: 0x%llx (lazy %d), its slot holds 0x%lx",
			    KT_RB_REG, v,
			    !!(st.regs.lazy & BIT_ULL(KT_RB_REG)), saved);
}

/* ---- a task that runs while it is walked ---- */

struct kt_torn {
	unsigned int runs;	/* wake-ups it ran after */
	unsigned int spin;	/* on a wake-up: spin until cleared */
	unsigned int spinning;
};

/* Sleep; at each wake-up count it (and spin if asked), sleep again here. */
static noinline int kt_torn_loop(struct kt_torn *k)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
		/* pairs with kt_torn_until()'s acquire */
		smp_store_release(&k->runs, READ_ONCE(k->runs) + 1);
		if (!READ_ONCE(k->spin))
			continue;
		/* pairs with kt_torn_until()'s acquire */
		smp_store_release(&k->spinning, 1);
		while (READ_ONCE(k->spin) && !kthread_should_stop())
			cpu_relax();
		WRITE_ONCE(k->spinning, 0);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int kt_torn_fn(void *arg)
{
	int r = kt_torn_loop(arg);

	barrier();
	return r;
}

/* Is @task asleep in kt_torn_loop() (off its CPU), within 2 s? */
static bool kt_torn_asleep(struct task_struct *task)
{
	int tries;

	for (tries = 0; tries < 4000; tries++) {
		if (READ_ONCE(task->__state) == TASK_INTERRUPTIBLE &&
		    !READ_ONCE(task->on_cpu))
			return true;
		usleep_range(300, 500);
	}
	return false;
}

/* Wait (2 s at most) until *@p differs from @old. */
static bool kt_torn_until(const unsigned int *p, unsigned int old)
{
	int tries;

	for (tries = 0; tries < 4000; tries++) {
		/* pairs with the release in kt_torn_loop() */
		if (smp_load_acquire(p) != old)
			return true;
		usleep_range(300, 500);
	}
	return false;
}

/*
 * Start a walk of @task, stepped one frame at a time to kt_torn_loop().
 * Return: false (the case failed) when it is not asleep or not there.
 */
static bool kt_torn_start(struct kunit *test, struct kunwind_state *st,
			  struct task_struct *task)
{
	unsigned int i;

	if (!kt_torn_asleep(task)) {
		KUNIT_FAIL(test, "kuw_torn does not sleep");
		return false;
	}
	kunwind_start(st, task, NULL, NULL);
	for (i = 0; i < 16 && !kunwind_done(st); i++) {
		if (kt_is(kunwind_get_return_address(st), "kt_torn_loop"))
			return true;
		kunwind_next_frame(st);
	}
	KUNIT_FAIL(test, "kt_torn_loop not reached: %s",
		   kunwind_strerror(kunwind_stop_reason(st)));
	return false;
}

/*
 * A kthread (bound to another CPU than this case's) asleep in
 * kt_torn_loop(): walked untouched, a clean end, reliable.  Then walks
 * paused at kt_torn_loop()'s frame (the frames below it, the scheduler's,
 * already read) while the task is woken: it runs and sleeps again in the
 * same place (its frames from kt_torn_loop() on are what they were: the
 * rest of the walk alone cannot tell), or it is still running (spinning in
 * kt_torn_loop()) when the walk ends.  Neither walk may end cleanly or be
 * reliable: the first one finds new context-switch counts, the second the
 * task on its CPU.
 */
static void kt_torn_walk(struct kunit *test)
{
	struct kt_torn *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kunwind_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	unsigned long *pcs = kunit_kcalloc(test, KT_MAX, sizeof(long),
					   GFP_KERNEL);
	struct task_struct *task;
	unsigned int cpu, other, runs, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, pcs);
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: the task cannot run beside the walk");
	/* this case's thread on one CPU, the task on another */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	other = cpumask_any_but(cpu_online_mask, cpu);
	KUNIT_ASSERT_LT(test, other, nr_cpu_ids);
	task = kthread_create(kt_torn_fn, k, "kuw_torn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, other);
	get_task_struct(task);
	wake_up_process(task);

	/* untouched */
	if (!kt_torn_start(test, st, task))
		goto out;
	while (kunwind_next_frame(st))
		n++;
	KUNIT_EXPECT_EQ_MSG(test, kunwind_stop_reason(st), -KUW_E_END,
			    "untouched: %s",
			    kunwind_strerror(kunwind_stop_reason(st)));
	KUNIT_EXPECT_TRUE(test, kunwind_reliable(st));
	KUNIT_EXPECT_GT(test, n, 1U);

	/* it runs and sleeps again at the same place, mid-walk */
	if (!kt_torn_start(test, st, task))
		goto out;
	runs = READ_ONCE(k->runs);
	wake_up_process(task);
	KUNIT_EXPECT_TRUE(test, kt_torn_until(&k->runs, runs));
	KUNIT_EXPECT_TRUE(test, kt_torn_asleep(task));
	while (kunwind_next_frame(st))
		;
	KUNIT_EXPECT_EQ_MSG(test, kunwind_stop_reason(st), -KUW_E_RUNNING,
			    "ran and slept again: %s",
			    kunwind_strerror(kunwind_stop_reason(st)));
	KUNIT_EXPECT_FALSE(test, kunwind_reliable(st));

	/* it runs while the walk ends (in a batch) */
	if (!kt_torn_start(test, st, task))
		goto out;
	WRITE_ONCE(k->spin, 1);
	wake_up_process(task);
	KUNIT_EXPECT_TRUE(test, kt_torn_until(&k->spinning, 0));
	while (!kunwind_done(st))
		kunwind_next_frames(st, pcs, KT_MAX);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(task->on_cpu));
	WRITE_ONCE(k->spin, 0);
	/*
	 * It ends "task running", or earlier on the stack the task is
	 * rewriting (frame pointers read from it may leave its stack):
	 * never the clean end, never reliable.
	 */
	KUNIT_EXPECT_NE_MSG(test, kunwind_stop_reason(st), -KUW_E_END,
			    "running at the end: %s",
			    kunwind_strerror(kunwind_stop_reason(st)));
	KUNIT_EXPECT_FALSE(test, kunwind_reliable(st));
	KUNIT_EXPECT_TRUE(test, kt_torn_asleep(task));
out:
	WRITE_ONCE(k->spin, 0);
	kthread_stop(task);
	put_task_struct(task);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/*
 * first_frame, as in the kernel's unwind_start(): frames whose sp is at or
 * below it are skipped.  Take the sp of frame 3 of a walk; a second walk
 * from there starts at frame 4 and goes on identically.
 */
static noinline void kt_first_frame_walk(struct kunit *test)
{
	unsigned long *pcs = kunit_kcalloc(test, KT_MAX, sizeof(long),
					   GFP_KERNEL);
	struct kunwind_state st;
	unsigned int n = 0, m = 0;
	unsigned long sp3 = 0;

	KUNIT_ASSERT_NOT_NULL(test, pcs);
	for (kunwind_start(&st, current, NULL, NULL); !kunwind_done(&st);
	     kunwind_next_frame(&st)) {
		if (n == 3)
			sp3 = st.regs.r[KT_REG_SP];
		if (n < KT_MAX)
			pcs[n++] = kunwind_get_return_address(&st);
	}
	KUNIT_ASSERT_GT(test, n, 5U);
	for (kunwind_start(&st, current, NULL, (unsigned long *)sp3);
	     !kunwind_done(&st); kunwind_next_frame(&st)) {
		KUNIT_EXPECT_LT(test, 4 + m, n);
		if (4 + m < n)
			KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st),
					pcs[4 + m]);
		m++;
	}
	KUNIT_EXPECT_EQ(test, 4 + m, n);
}

static void kt_first_frame(struct kunit *test)
{
	kt_first_frame_walk(test);
}

/*
 * Reliability across the skip: a trace is only as sure as every step that
 * led to its first frame, the skipped ones included.  A walk from here,
 * once through: the frames of this module (the case, KUnit's call of it
 * is vmlinux's), then the kernel's to the end, reliable.  The tables whose
 * rows stepped this module's frames are then marked untrusted (as a table
 * root gives under lockdown) and the walk is started again with
 * first_frame at the sp of this module's last frame: the skip steps
 * through the untrusted rows, the frames it reports are the kernel's
 * (the same ones, every step a trusted row), and the walk ends cleanly.
 * It may not be reliable.  The same walk with the tables trusted again
 * is: a skip made of table rows only keeps the trace reliable.  (A
 * kunwind that restored the flag after the skip called the second walk
 * reliable.)
 */
struct kt_skip {
	unsigned long pc[KT_MAX];
	unsigned long sp[KT_MAX];
	const struct kuw_table *by[KT_MAX];	/* the table that stepped it */
	unsigned int n;
};

static noinline void kt_skip_record(struct kunit *test, struct kt_skip *w)
{
	struct kunwind_state st;

	w->n = 0;
	for (kunwind_start(&st, current, NULL, NULL); !kunwind_done(&st) &&
	     w->n < KT_MAX; kunwind_next_frame(&st)) {
		if (w->n)
			w->by[w->n - 1] = st.table;
		w->pc[w->n] = kunwind_get_return_address(&st);
		w->sp[w->n++] = st.regs.r[KT_REG_SP];
	}
	KUNIT_EXPECT_EQ_MSG(test, kunwind_stop_reason(&st), -KUW_E_END, "%s",
			    kunwind_strerror(kunwind_stop_reason(&st)));
	KUNIT_EXPECT_TRUE(test, kunwind_reliable(&st));
}

/* From first_frame @ff: the frames must be @w's from @from on. */
static noinline bool kt_skip_walk(struct kunit *test, const struct kt_skip *w,
				  unsigned int from, unsigned long ff)
{
	struct kunwind_state st;
	unsigned int i = from;

	for (kunwind_start(&st, current, NULL, (unsigned long *)ff);
	     !kunwind_done(&st); kunwind_next_frame(&st), i++)
		if (i < w->n)
			KUNIT_EXPECT_EQ_MSG(test, kunwind_get_return_address(&st),
					    w->pc[i], "frame %u: %pS, not %pS", i,
					    (void *)kunwind_get_return_address(&st),
					    (void *)w->pc[i]);
	KUNIT_EXPECT_EQ(test, i, w->n);
	KUNIT_EXPECT_EQ_MSG(test, kunwind_stop_reason(&st), -KUW_E_END, "%s",
			    kunwind_strerror(kunwind_stop_reason(&st)));
	return kunwind_reliable(&st);
}

static void kt_skip_reliable(struct kunit *test)
{
	struct kunwind_table_info info[4];
	struct kt_skip *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct kuw_table *mine[2] = {};
	unsigned long lo, hi;
	unsigned int i, last = 0, nmine = 0, j;
	int n;

	KUNIT_ASSERT_NOT_NULL(test, w);
	n = kunwind_tables_of(KBUILD_MODNAME, info, ARRAY_SIZE(info));
	KUNIT_ASSERT_GT(test, n, 0);
	lo = info[0].text_start;
	hi = info[0].text_end;
	kt_skip_record(test, w);
	KUNIT_ASSERT_GT(test, w->n, 3U);
	KUNIT_ASSERT_LT(test, w->n, (unsigned int)KT_MAX);
	/* this module's frames come first; the last of them, and its tables */
	for (i = 0; i < w->n && w->pc[i] >= lo && w->pc[i] < hi; i++) {
		last = i;
		for (j = 0; j < nmine && mine[j] != w->by[i]; j++)
			;
		if (j == nmine && w->by[i]) {
			KUNIT_ASSERT_LT(test, nmine, 2U);
			mine[nmine++] = (struct kuw_table *)w->by[i];
		}
	}
	KUNIT_ASSERT_GT(test, i, 0U);
	KUNIT_ASSERT_LT_MSG(test, last + 1, w->n,
			    "no frame past this module's: %pS",
			    (void *)w->pc[last]);
	KUNIT_ASSERT_GT(test, nmine, 0U);
	for (j = 0; j < nmine; j++)
		KUNIT_ASSERT_STREQ(test, mine[j]->owner, KBUILD_MODNAME);

	/* skipped: rows only, all trusted */
	KUNIT_EXPECT_TRUE_MSG(test, kt_skip_walk(test, w, last + 1, w->sp[last]),
			      "a skip of trusted rows made the trace unreliable");
	/* skipped: this module's rows, untrusted; the rest as before */
	for (j = 0; j < nmine; j++)
		WRITE_ONCE(mine[j]->untrusted, 1);
	KUNIT_EXPECT_FALSE_MSG(test, kt_skip_walk(test, w, last + 1,
						  w->sp[last]),
			       "untrusted rows in the skip, yet reliable");
	for (j = 0; j < nmine; j++)
		WRITE_ONCE(mine[j]->untrusted, 0);
	KUNIT_EXPECT_TRUE(test, kt_skip_walk(test, w, last + 1, w->sp[last]));
}

/*
 * Where a table read from /sys/module/<name>/sections/ may lie: only in
 * the module's read-only data, where the loader put this module's own
 * .eh_frame and .sframe (the kprobe's record of them is the truth); never
 * in its writable data, its data read-only after init, its text, or
 * another object.
 */
static const char kt_ro[32] = "read-only data";
static char kt_rw[32] = "writable data";
static int kt_rai __ro_after_init = 1;

static void kt_sysfs_rodata_only(struct kunit *test)
{
	struct kunwind_table_info info[4];
	struct module *me = THIS_MODULE;
	unsigned long end;
	int n, i;

	n = kunwind_tables_of(KBUILD_MODNAME, info, ARRAY_SIZE(info));
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n && i < (int)ARRAY_SIZE(info); i++) {
		end = kuw_sysfs_table_end(me, info[i].src, info[i].sec_addr);
		KUNIT_EXPECT_NE_MSG(test, end, 0UL, "%s at 0x%lx refused",
				    info[i].src == KUW_SRC_SFRAME ? ".sframe" :
				    ".eh_frame", (unsigned long)info[i].sec_addr);
		KUNIT_EXPECT_GE(test, end,
				(unsigned long)(info[i].sec_addr +
						info[i].sec_size));
	}
	KUNIT_EXPECT_NE(test, kuw_sysfs_table_end(me, KUW_SRC_EH_FRAME,
						  (unsigned long)kt_ro), 0UL);
	KUNIT_EXPECT_EQ_MSG(test, kuw_sysfs_table_end(me, KUW_SRC_EH_FRAME,
						      (unsigned long)kt_rw),
			    0UL, "writable data %p taken", kt_rw);
	KUNIT_EXPECT_EQ_MSG(test, kuw_sysfs_table_end(me, KUW_SRC_SFRAME,
						      (unsigned long)&kt_rai),
			    0UL, "data read-only after init %p taken", &kt_rai);
	KUNIT_EXPECT_EQ_MSG(test, kuw_sysfs_table_end(me, KUW_SRC_EH_FRAME,
						      (unsigned long)kt_sysfs_rodata_only),
			    0UL, "text taken");
	KUNIT_EXPECT_EQ(test, kuw_sysfs_table_end(me, KUW_SRC_EH_FRAME,
						  (unsigned long)kunwind_start),
			0UL);
	KUNIT_EXPECT_EQ(test, kuw_sysfs_table_end(me, KUW_SRC_EH_FRAME, 0), 0UL);
	/* keep the data what it is (not folded into read-only data) */
	WRITE_ONCE(kt_rw[0], kt_ro[0]);
}

/* The API used like the kernel's unwind_*: from here to the end. */
static void kt_api_shape(struct kunit *test)
{
	struct kunwind_state st;

	kunwind_start(&st, current, NULL, NULL);
	KUNIT_EXPECT_FALSE(test, kunwind_done(&st));
	KUNIT_EXPECT_TRUE(test, kt_is(kunwind_get_return_address(&st),
				      "kt_api_shape"));
	KUNIT_EXPECT_EQ(test, kunwind_error(&st), 0);
	while (kunwind_next_frame(&st))
		;
	KUNIT_EXPECT_TRUE(test, kunwind_done(&st));
	KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st), 0UL);
	KUNIT_EXPECT_EQ(test, kunwind_error(&st), 0);
	KUNIT_EXPECT_EQ(test, kunwind_stop_reason(&st), -KUW_E_END);
	KUNIT_EXPECT_TRUE(test, kunwind_reliable(&st));
	KUNIT_EXPECT_FALSE(test, kunwind_next_frame(&st));
	/* prints this stack: must not crash (the log shows it) */
	kunwind_dump_stack();
}

/* The tables of this module were there before its suites ran. */
static void kt_own_tables(struct kunit *test)
{
	struct kunwind_table_info info[4];
	int n = kunwind_tables_of(KBUILD_MODNAME, info, ARRAY_SIZE(info));
	int i, eh = 0, sf = 0;

	KUNIT_ASSERT_EQ(test, n, 2);
	for (i = 0; i < n; i++) {
		eh += info[i].src == KUW_SRC_EH_FRAME;
		sf += info[i].src == KUW_SRC_SFRAME;
		KUNIT_EXPECT_LE(test, info[i].text_start,
				(unsigned long)kuw_chain_f1);
		KUNIT_EXPECT_GT(test, info[i].text_end,
				(unsigned long)kuw_chain_f1);
		KUNIT_EXPECT_GT(test, info[i].nfde, 10U);
	}
	KUNIT_EXPECT_EQ(test, eh, 1);
	KUNIT_EXPECT_EQ(test, sf, 1);
	KUNIT_EXPECT_GE(test, kunwind_tables_of("vmlinux", info, 4), 1);
}

static struct kunit_case kt_cases[] = {
	KUNIT_CASE(kt_own_tables),
	KUNIT_CASE(kt_chain_eh_frame),
	KUNIT_CASE(kt_chain_sframe),
	KUNIT_CASE(kt_chain_any),
	KUNIT_CASE(kt_chain_signal_frame),
	KUNIT_CASE(kt_sleeping_task),
	KUNIT_CASE(kt_new_task),
	KUNIT_CASE(kt_irq_context),
	KUNIT_CASE(kt_nested_walks),
	KUNIT_CASE(kt_nmi_context),
	KUNIT_CASE(kt_regs_eh_frame),
	KUNIT_CASE(kt_regs_sframe),
	KUNIT_CASE(kt_blob_refused),
	KUNIT_CASE(kt_rules_entry),
	KUNIT_CASE(kt_rules_big_frame),
	KUNIT_CASE(kt_bad_pc),
	KUNIT_CASE(kt_garbage_stack),
	KUNIT_CASE(kt_failed_step_undone),
	KUNIT_CASE(kt_record_keeps_slots),
	KUNIT_CASE(kt_torn_walk),
	KUNIT_CASE(kt_api_shape),
	KUNIT_CASE(kt_first_frame),
	KUNIT_CASE(kt_skip_reliable),
	KUNIT_CASE(kt_sysfs_rodata_only),
	{}
};

static struct kunit_suite kt_suite = {
	.name = "kunwind_unwind",
	.test_cases = kt_cases,
};

kunit_test_suite(kt_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind unwinder tests");
