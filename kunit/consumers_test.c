// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite: kunwind as the unwinder of the kernel's own consumers
 * (module/consumers.c, module/serve.c).  With the switch on, the kernel's
 * exported stack_trace_save*() are called as any kernel user calls them
 * (ftrace sends them to kunwind); the truth they are held to is the
 * chain's known frames and the kernel's own unwinder (kt_ref_walk() of
 * kunit/arch/$(SRCARCH)/kt_arch.h, or the same function with the switch
 * off):
 *
 *   - stack_trace_save() from an hrtimer that interrupts a leaf lists the
 *     leaf's caller right after the leaf (the kernel's frame-record walker
 *     on arm64 misses it while the return address is still in x30), and
 *     every frame the kernel's unwinder has from the leaf on, in order;
 *     with the switch off the call is the kernel's again (kunwind's
 *     counter does not move);
 *   - stack_trace_save_tsk() of a sleeping chain thread ("/proc/PID/stack")
 *     is the kernel's answer with the switch off, frame for frame, and
 *     the frames of kunwind's own walk without the scheduler's;
 *   - stack_trace_save_tsk_reliable() of that thread, opted in
 *     (kunwind_consumers_set_reliable()): reliable, the same frames (where
 *     the kernel has the function); not opted in, the switch leaves it the
 *     kernel's (not hooked, its calls never reach kunwind) while the
 *     others are kunwind's;
 *   - stack_trace_save() at the bottom of a recursion deeper than
 *     kunwind walks (KUNWIND_MAX_FRAMES): kunwind's trace joined to the
 *     kernel's where kunwind stopped, each frame once: the kernel's own
 *     trace, entry for entry;
 *   - each fallback once: stack_trace_save_regs() and
 *     perf_callchain_kernel() from regs whose pc is data, where kunwind
 *     stops and the kernel's function answers (the fallback counted);
 *   - the switch flipped on and off while another thread calls
 *     stack_trace_save() from the chain's leaf in a loop: every trace has
 *     the whole chain (the kernel checks for reports: lockdep, KASAN,
 *     use after free of a redirected call).
 *
 * A kernel without ftrace with IPMODIFY skips every case, saying so (every
 * test kernel has it: scripts/kconfig/base.config, arm64-base.config).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include "compat.h"
#include "kunwind.h"
#include "kt_arch.h"
#include "kt_lookup.h"
#include "chain.c"

#define CS_MAX	64
#define CS_SHORT	3	/* a short perf entry: cs_perf_short() */

static bool cs_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) &&
	       (sym[n] == 0 || sym[n] == ' ' || sym[n] == '.');
}

static int cs_find(const unsigned long *pcs, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (cs_is(pcs[i], name))
			return i;
	return -1;
}

static void cs_dump(struct kunit *test, const char *who,
		    const unsigned long *pcs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kunit_info(test, "%s %2u %pS\n", who, i, (void *)pcs[i]);
}

/* The chain's frames, in order, from @at on. */
static bool cs_has_chain(const unsigned long *pcs, unsigned int n, int at)
{
	unsigned int i;

	if (at < 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain); i++)
		if (at + i >= n ||
		    !cs_is(pcs[at + i], kuw_chain_frames_plain[i]))
			return false;
	return true;
}

/* Every pc of @b[from..] is in @a, in the same order. */
static bool cs_contains(const unsigned long *a, unsigned int an,
			const unsigned long *b, unsigned int bn,
			unsigned int from)
{
	unsigned int i = 0, j;

	for (j = from; j < bn; j++) {
		while (i < an && a[i] != b[j])
			i++;
		if (i == an)
			return false;
		i++;
	}
	return true;
}

static int cs_info(const char *name, struct kunwind_consumer_info *info)
{
	unsigned int i;

	for (i = 0; !kunwind_consumer_info(i, info); i++)
		if (!strcmp(info->name, name))
			return 0;
	return -ENOENT;
}

static unsigned long cs_count(const char *name, int which)
{
	struct kunwind_consumer_info info;

	return cs_info(name, &info) ? 0 : info.count[which];
}

/*
 * Switch on; skip when this kernel has no ftrace with IPMODIFY, fail when
 * @name is offered but could not be hooked.
 */
static void cs_switch_on(struct kunit *test, const char *name)
{
	struct kunwind_consumer_info info;
	int ret = kunwind_consumers_set(true);

	if (ret == -EOPNOTSUPP)
		kunit_skip(test, "no ftrace with IPMODIFY in this kernel");
	KUNIT_ASSERT_EQ(test, cs_info(name, &info), 0);
	if (!info.offered)
		kunit_skip(test, "%s: not in this kernel", name);
	KUNIT_ASSERT_TRUE_MSG(test, info.hooked, "%s not hooked: %d", name,
			      info.err);
}

static void cs_switch_off(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kunwind_consumers_set(false), 0);
}

/*
 * stack_trace_save_tsk() (not exported before 6.2) and
 * stack_trace_save_tsk_reliable() (never exported: livepatch is built in):
 * found through kallsyms, called as any caller calls them.  0 /
 * -EOPNOTSUPP where the kernel has none.  Process context.
 */
KUW_INTERNAL(stack_trace_save_tsk);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
KUW_INTERNAL(stack_trace_save_tsk_reliable);
#endif

static unsigned int kt_save_tsk(struct task_struct *task, unsigned long *store,
				unsigned int size)
{
	if (!KUW_FN(stack_trace_save_tsk) && !kt_lookup_fn(stack_trace_save_tsk))
		return 0;
	return kuw_call(stack_trace_save_tsk, task, store, size, 0);
}

static int kt_save_tsk_reliable(struct task_struct *task, unsigned long *store,
				unsigned int size)
{
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
	if (KUW_FN(stack_trace_save_tsk_reliable) ||
	    kt_lookup_fn(stack_trace_save_tsk_reliable))
		return kuw_call(stack_trace_save_tsk_reliable, task, store,
				size);
#endif
	return -EOPNOTSUPP;
}

/* ---- stack_trace_save_regs() from a kprobe on a leaf's entry ---- */

struct cs_regs {
	unsigned long pcs[CS_MAX];
	unsigned int n;
	int hits;
};

static struct cs_regs *cs_regs_cur;
KUW_INTERNAL(stack_trace_save_regs);

static noinline int cs_regs_leaf(struct kuw_chain *c)
{
	return READ_ONCE(c->alloca_n) & 1;
}

/* At the leaf's first instruction: its caller is not in a frame yet. */
static int cs_regs_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct cs_regs *r = READ_ONCE(cs_regs_cur);

	if (r && !r->hits++)
		r->n = kuw_call(stack_trace_save_regs, regs, r->pcs, CS_MAX,
				0);
	return 0;
}

static void cs_save_regs(struct kunit *test)
{
	struct cs_regs *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct kprobe kp = { .addr = (kprobe_opcode_t *)cs_regs_leaf,
			     .pre_handler = cs_regs_pre };
	struct kuw_chain c = { .leaf = cs_regs_leaf, .alloca_n = 4 };
	unsigned long calls, kuw;

	KUNIT_ASSERT_NOT_NULL(test, r);
	if (!kt_lookup_fn(stack_trace_save_regs))
		kunit_skip(test, "no stack_trace_save_regs in this kernel");
	cs_switch_on(test, "stack_trace_save_regs");
	calls = cs_count("stack_trace_save_regs", KUNWIND_CONS_CALLS);
	kuw = cs_count("stack_trace_save_regs", KUNWIND_CONS_KUNWIND);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	WRITE_ONCE(cs_regs_cur, r);
	kuw_chain_run(&c);
	WRITE_ONCE(cs_regs_cur, NULL);
	unregister_kprobe(&kp);
	KUNIT_ASSERT_EQ(test, r->hits, 1);
	kunit_info(test, "stack_trace_save_regs from a kprobe on the leaf's entry: %u entries\n",
		   r->n);
	/* the regs' pc, then the leaf's caller and the rest of the chain */
	KUNIT_EXPECT_TRUE(test, r->n && cs_is(r->pcs[0], "cs_regs_leaf"));
	KUNIT_EXPECT_TRUE(test, cs_has_chain(r->pcs, r->n, 1));
	if (!r->n || !cs_has_chain(r->pcs, r->n, 1))
		cs_dump(test, "regs", r->pcs, r->n);
	KUNIT_EXPECT_EQ(test, cs_count("stack_trace_save_regs",
				       KUNWIND_CONS_CALLS), calls + 1);
	KUNIT_EXPECT_EQ(test, cs_count("stack_trace_save_regs",
				       KUNWIND_CONS_KUNWIND), kuw + 1);
	cs_switch_off(test);
}

/* ---- perf callchains of cpu-clock samples over a spinning leaf ---- */

#ifdef CONFIG_PERF_EVENTS
struct cs_perf {
	const char *leaf;		/* samples in this function count */
	unsigned int samples;		/* in the leaf */
	unsigned int missed;		/* ... whose chain misses its caller */
	unsigned long first_missed[CS_MAX];
	unsigned int first_missed_n;
	struct perf_callchain_entry e;	/* ip[] follows: buf */
	u64 buf[CS_MAX];
	/* a short entry (nr, then CS_SHORT ips), see cs_perf_short() */
	u64 short_buf[1 + CS_SHORT];
	unsigned int short_bad;		/* samples where it was wrong */
};

KUW_INTERNAL(perf_callchain_kernel);

/*
 * perf's entry limits, as perf_callchain_store() keeps them for the
 * kernel's walk: with max_stack = CS_SHORT the chain is the first
 * CS_SHORT entries of the whole one (@pcs, @n), and nothing is stored
 * once the contexts are maxed.  Return: true when so.
 */
static bool cs_perf_short(struct cs_perf *p, struct pt_regs *regs,
			  const unsigned long *pcs, unsigned int n)
{
	struct perf_callchain_entry *e = (void *)p->short_buf;
	struct perf_callchain_entry_ctx ctx = { .entry = e,
						.max_stack = CS_SHORT };
	unsigned int want = min_t(unsigned int, n, CS_SHORT);

	e->nr = 0;
	kuw_call(perf_callchain_kernel, &ctx, regs);
	if (ctx.nr != want || e->nr != want ||
	    memcmp(e->ip, pcs, want * sizeof(*pcs)))
		return false;
	e->nr = 0;
	ctx.nr = 0;
	ctx.contexts_maxed = true;
	kuw_call(perf_callchain_kernel, &ctx, regs);
	return !ctx.nr && !e->nr;
}

/*
 * The overflow handler (hard IRQ, the cpu-clock hrtimer): a sample in the
 * leaf gets the kernel callchain perf would record, from the arch's
 * perf_callchain_kernel() (what perf_callchain() calls for kernel
 * samples); it must hold the leaf, then the leaf's caller and the rest of
 * the chain.
 */
static void cs_perf_overflow(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct cs_perf *p = event->overflow_handler_context;
	struct perf_callchain_entry_ctx ctx = { .entry = &p->e,
						.max_stack = CS_MAX };
	unsigned long *pcs = (unsigned long *)p->e.ip;

	BUILD_BUG_ON(sizeof(u64) != sizeof(unsigned long));
	if (!regs || user_mode(regs) ||
	    !cs_is(instruction_pointer(regs), p->leaf))
		return;
	p->samples++;
	p->e.nr = 0;
	kuw_call(perf_callchain_kernel, &ctx, regs);
	if (!cs_perf_short(p, regs, pcs, ctx.nr))
		p->short_bad++;
	if (ctx.nr && pcs[0] == instruction_pointer(regs) &&
	    cs_has_chain(pcs, ctx.nr, 1))
		return;
	if (!p->missed++) {
		p->first_missed_n = ctx.nr;
		memcpy(p->first_missed, pcs, ctx.nr * sizeof(*pcs));
	}
}

/* A leaf that spins (no call: no frame record on arm64) for 200 ms. */
static noinline int cs_perf_leaf(struct kuw_chain *c)
{
	unsigned long end = jiffies + HZ / 5;

	while (time_before(jiffies, end))
		cpu_relax();
	return 0;
}

/* cpu-clock samples on @cpu at 10 kHz into @p, counting those in @leaf. */
static struct perf_event *cs_perf_start(struct kunit *test, struct cs_perf *p,
					const char *leaf, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 100 * NSEC_PER_USEC,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
		.exclude_user = 1,
	};
	struct perf_event *ev;

	p->leaf = leaf;
	p->samples = 0;
	p->missed = 0;
	p->short_bad = 0;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      cs_perf_overflow, p);
	if (IS_ERR(ev)) {
		KUNIT_FAIL(test, "perf_event_create_kernel_counter: %ld",
			   PTR_ERR(ev));
		return NULL;
	}
	return ev;
}

/* Sample the chain at 10 kHz on this CPU; fills @p's counts. */
static void cs_perf_run(struct kunit *test, struct cs_perf *p)
{
	struct kuw_chain c = { .leaf = cs_perf_leaf, .alloca_n = 8 };
	struct perf_event *ev;

	migrate_disable();
	ev = cs_perf_start(test, p, "cs_perf_leaf", raw_smp_processor_id());
	if (ev) {
		kuw_chain_run(&c);
		perf_event_disable(ev);
		perf_event_release_kernel(ev);
	}
	migrate_enable();
}

static void cs_perf_callchain(struct kunit *test)
{
	struct cs_perf *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned long calls, kuw;
	unsigned int on_s, on_m;

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (!kt_lookup_fn(perf_callchain_kernel))
		kunit_skip(test, "no perf_callchain_kernel in this kernel");
	cs_switch_on(test, "perf_callchain_kernel");
	calls = cs_count("perf_callchain_kernel", KUNWIND_CONS_CALLS);
	kuw = cs_count("perf_callchain_kernel", KUNWIND_CONS_KUNWIND);
	cs_perf_run(test, p);
	on_s = p->samples;
	on_m = p->missed;
	/* the entry's limits, as the kernel's walk keeps them */
	KUNIT_EXPECT_EQ(test, p->short_bad, 0U);
	if (on_m)
		cs_dump(test, "on, missed", p->first_missed,
			p->first_missed_n);
	calls = cs_count("perf_callchain_kernel", KUNWIND_CONS_CALLS) - calls;
	kuw = cs_count("perf_callchain_kernel", KUNWIND_CONS_KUNWIND) - kuw;
	cs_switch_off(test);
	cs_perf_run(test, p);
	kunit_info(test, "perf cpu-clock samples in the leaf, missing its caller: switch off %u, %u (%u%%); on %u, %u (%u%%); kunwind answered %lu of %lu\n",
		   p->samples, p->missed,
		   p->samples ? 100 * p->missed / p->samples : 0, on_s, on_m,
		   on_s ? 100 * on_m / on_s : 0, kuw, calls);
	KUNIT_EXPECT_GT(test, on_s, 0U);
	KUNIT_EXPECT_GT(test, p->samples, 0U);
	KUNIT_EXPECT_EQ(test, p->short_bad, 0U);
	/* with kunwind, every sample has the leaf's caller */
	KUNIT_EXPECT_EQ(test, on_m, 0U);
	KUNIT_EXPECT_GE(test, calls, (unsigned long)on_s);
	KUNIT_EXPECT_GT(test, kuw, 0UL);
	/* frame records miss it while the return address is in x30 */
	if (KT_REF_FRAME_RECORDS && IS_ENABLED(CONFIG_ARM64))
		KUNIT_EXPECT_GT(test, p->missed, 0U);
}
#else
static void cs_perf_callchain(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_PERF_EVENTS in this kernel");
}
#endif

/* ---- stack_trace_save() from an hrtimer interrupting a leaf ---- */

struct cs_hrtimer {
	struct hrtimer timer;
	unsigned long pcs[CS_MAX];	/* stack_trace_save() */
	unsigned int n;
	unsigned long kpcs[CS_MAX];	/* the kernel's unwinder */
	unsigned int kn;
	int done;
};

static enum hrtimer_restart cs_hrtimer_fn(struct hrtimer *h)
{
	struct cs_hrtimer *k = container_of(h, struct cs_hrtimer, timer);

	k->n = stack_trace_save(k->pcs, CS_MAX, 0);
	k->kn = kt_ref_walk(NULL, NULL, k->kpcs, CS_MAX);
	/* publish the traces before the flag the chain polls */
	smp_store_release(&k->done, 1);
	return HRTIMER_NORESTART;
}

static noinline int cs_spin_leaf(struct kuw_chain *c)
{
	struct cs_hrtimer *k = c->priv;
	unsigned long end = jiffies + 2 * HZ;

	/* pairs with the release in cs_hrtimer_fn() */
	while (!smp_load_acquire(&k->done) && time_before(jiffies, end))
		cpu_relax();
	return 0;
}

static noinline int cs_hrtimer_leaf(struct kuw_chain *c)
{
	struct cs_hrtimer *k = c->priv;

	hrtimer_start(&k->timer, ns_to_ktime(100 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return cs_spin_leaf(c);
}

static void cs_run_hrtimer(struct kunit *test, struct cs_hrtimer *k)
{
	struct kuw_chain c = { .leaf = cs_hrtimer_leaf, .priv = k,
			       .alloca_n = 32 };

	/*
	 * kt_ref_walk() finds the kernel's unwinder on its first call
	 * (register_kprobe(), which sleeps): here, not in the hard IRQ.
	 */
	kt_ref_walk(NULL, NULL, k->kpcs, 1);
	memset(k, 0, sizeof(*k));
	kuw_hrtimer_setup(&k->timer, cs_hrtimer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	preempt_disable();
	kuw_chain_run(&c);
	preempt_enable();
	hrtimer_cancel(&k->timer);
	/* pairs with the release in cs_hrtimer_fn() */
	KUNIT_ASSERT_EQ(test, smp_load_acquire(&k->done), 1);
}

static void cs_hrtimer_save(struct kunit *test)
{
	struct cs_hrtimer *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned long calls, kuw;
	int at, kat;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, k);
	cs_switch_on(test, "stack_trace_save");
	calls = cs_count("stack_trace_save", KUNWIND_CONS_CALLS);
	kuw = cs_count("stack_trace_save", KUNWIND_CONS_KUNWIND);
	cs_run_hrtimer(test, k);
	/*
	 * The call went to kunwind, which answered alone (at least: on a
	 * debug kernel KASAN, lockdep and SLUB call it meanwhile too).
	 */
	KUNIT_EXPECT_GE(test, cs_count("stack_trace_save", KUNWIND_CONS_CALLS),
			calls + 1);
	KUNIT_EXPECT_GE(test,
			cs_count("stack_trace_save", KUNWIND_CONS_KUNWIND),
			kuw + 1);
	/* the first entry is in stack_trace_save()'s caller */
	KUNIT_EXPECT_TRUE(test, k->n && cs_is(k->pcs[0], "cs_hrtimer_fn"));
	at = cs_find(k->pcs, k->n, "cs_spin_leaf");
	KUNIT_EXPECT_GE_MSG(test, at, 0, "the interrupted leaf is missing");
	KUNIT_EXPECT_TRUE_MSG(test, at >= 0 && at + 1 < k->n &&
			      cs_is(k->pcs[at + 1], "cs_hrtimer_leaf"),
			      "the leaf's caller is not right after it");
	KUNIT_EXPECT_TRUE(test, cs_has_chain(k->pcs, k->n, at + 2));
	/* every frame of the kernel's from the leaf on (it may lack some) */
	kat = cs_find(k->kpcs, k->kn, "cs_spin_leaf");
	KUNIT_EXPECT_GE(test, kat, 0);
	ok = kat >= 0 && cs_contains(k->pcs, k->n, k->kpcs, k->kn, kat);
	KUNIT_EXPECT_TRUE_MSG(test, ok, "a frame of the kernel's unwinder is missing");
	kunit_info(test, "stack_trace_save: %u entries; the kernel's unwinder %s the leaf's caller\n",
		   k->n, kat >= 0 && kat + 1 < k->kn &&
		   cs_is(k->kpcs[kat + 1], "cs_hrtimer_leaf") ? "has" : "misses");
	if (!ok || at < 0) {
		cs_dump(test, "save  ", k->pcs, k->n);
		cs_dump(test, "kernel", k->kpcs, k->kn);
	}

	/* switched off: the kernel's own again, kunwind not called */
	cs_switch_off(test);
	calls = cs_count("stack_trace_save", KUNWIND_CONS_CALLS);
	cs_run_hrtimer(test, k);
	KUNIT_EXPECT_EQ(test, cs_count("stack_trace_save", KUNWIND_CONS_CALLS),
			calls);
	KUNIT_EXPECT_TRUE(test, k->n && cs_is(k->pcs[0], "cs_hrtimer_fn"));
}

/*
 * ---- a recursion deeper than kunwind walks: the fallback's splice ----
 *
 * cs_rec() calls itself CS_REC_DEPTH times from one call site, then
 * stack_trace_save() into a buffer larger than KUNWIND_MAX_FRAMES: kunwind
 * stops at its frame limit inside the recursion (-KUW_E_LIMIT, not the
 * end of the stack), so the kernel's unwinder must give the rest.  Every
 * frame of the recursion has the same return address: the kernel's walk
 * must be joined at the frame where kunwind's stopped, not at the first
 * frame with that pc.  Truth: the recursion's known depth (CS_REC_DEPTH + 1
 * entries in cs_rec(): the innermost one's call of stack_trace_save(), then
 * one per recursive call) and the kernel's own stack_trace_save() through
 * the same recursion with the switch off, entry for entry (but for the
 * return address into the test, whose two calls are two call sites).
 */
#define CS_REC_DEPTH	(KUNWIND_MAX_FRAMES + 16)
#define CS_REC_MAX	(2 * KUNWIND_MAX_FRAMES + 64)

struct cs_rec {
	unsigned long *pcs;
	unsigned int n;
};

static noinline __kuw_noipa int cs_rec(struct cs_rec *r, unsigned int depth)
{
	int ret;

	if (!depth) {
		r->n = stack_trace_save(r->pcs, CS_REC_MAX, 0);
		return 0;
	}
	ret = cs_rec(r, depth - 1);
	barrier();	/* not a tail call, not a loop */
	return ret + 1;
}

static unsigned int cs_rec_count(const unsigned long *pcs, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		k += cs_is(pcs[i], "cs_rec");
	return k;
}

static void cs_save_recursion(struct kunit *test)
{
	struct cs_rec on = {}, off = {};
	unsigned long fb;
	unsigned int i;
	bool same;

	on.pcs = kunit_kcalloc(test, CS_REC_MAX, sizeof(long), GFP_KERNEL);
	off.pcs = kunit_kcalloc(test, CS_REC_MAX, sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, on.pcs);
	KUNIT_ASSERT_NOT_NULL(test, off.pcs);
	cs_switch_on(test, "stack_trace_save");
	fb = cs_count("stack_trace_save", KUNWIND_CONS_FALLBACK);
	cs_rec(&on, CS_REC_DEPTH);
	/* kunwind stopped early: the kernel's unwinder gave the rest */
	KUNIT_EXPECT_EQ(test, cs_count("stack_trace_save",
				       KUNWIND_CONS_FALLBACK), fb + 1);
	cs_switch_off(test);
	cs_rec(&off, CS_REC_DEPTH);
	kunit_info(test, "recursion of %u: %u entries on (%u in cs_rec), %u off (%u in cs_rec)\n",
		   CS_REC_DEPTH, on.n, cs_rec_count(on.pcs, on.n), off.n,
		   cs_rec_count(off.pcs, off.n));
	KUNIT_EXPECT_GT(test, on.n, (unsigned int)KUNWIND_MAX_FRAMES);
	KUNIT_EXPECT_TRUE(test, on.n && cs_is(on.pcs[0], "cs_rec"));
	/* each frame of the recursion once: none repeated by the splice */
	KUNIT_EXPECT_EQ(test, cs_rec_count(on.pcs, on.n), CS_REC_DEPTH + 1);
	KUNIT_EXPECT_EQ(test, cs_rec_count(off.pcs, off.n), CS_REC_DEPTH + 1);
	/*
	 * The kernel's own trace, entry for entry, but for the return into
	 * this function: two calls, two call sites (however written, gcc
	 * duplicates the call).
	 */
	for (i = 0; i < on.n && i < off.n; i++)
		if (on.pcs[i] != off.pcs[i] &&
		    !(cs_is(on.pcs[i], "cs_save_recursion") &&
		      cs_is(off.pcs[i], "cs_save_recursion")))
			break;
	same = on.n == off.n && i == on.n;
	KUNIT_EXPECT_TRUE_MSG(test, same, "not the kernel's trace from entry %u on",
			      i);
	if (!same) {
		i = i > 2 ? i - 2 : 0;
		cs_dump(test, "on ", on.pcs + i, min(on.n - i, 8U));
		cs_dump(test, "off", off.pcs + i, min(off.n - i, 8U));
	}
}

/* ---- a sleeping chain thread: stack_trace_save_tsk(), _reliable ---- */

static struct task_struct *cs_sleeper_start(struct kunit *test,
					    struct kuw_chain_sleeper *s)
{
	struct task_struct *task;
	int tries;

	init_completion(&s->ready);
	init_completion(&s->go);
	task = kthread_run(kuw_chain_sleeper_fn, s, "cs_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wait_for_completion(&s->ready);
	for (tries = 0; tries < 2000; tries++) {
		if (READ_ONCE(task->__state) != TASK_RUNNING &&
		    !READ_ONCE(task->on_cpu))
			break;
		usleep_range(100, 200);
	}
	return task;
}

static void cs_sleeper_stop(struct kuw_chain_sleeper *s,
			    struct task_struct *task)
{
	complete(&s->go);
	kthread_stop(task);
	put_task_struct(task);
}

struct cs_tsk {
	unsigned long on[CS_MAX], off[CS_MAX], walk[CS_MAX];
	unsigned int non, noff, nwalk;
};

static void cs_save_tsk(struct kunit *test)
{
	struct kuw_chain_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct cs_tsk *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	struct kunwind_state st;
	unsigned long kuw;
	unsigned int i;
	bool same;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	cs_switch_on(test, "stack_trace_save_tsk");
	task = cs_sleeper_start(test, s);
	kuw = cs_count("stack_trace_save_tsk", KUNWIND_CONS_KUNWIND);
	t->non = kt_save_tsk(task, t->on, CS_MAX);
	KUNIT_EXPECT_EQ(test,
			cs_count("stack_trace_save_tsk", KUNWIND_CONS_KUNWIND),
			kuw + 1);
	cs_switch_off(test);
	t->noff = kt_save_tsk(task, t->off, CS_MAX);
	if (try_get_task_stack(task)) {
		for (kunwind_start(&st, task, NULL, NULL); !kunwind_done(&st) &&
		     t->nwalk < CS_MAX; kunwind_next_frame(&st))
			t->walk[t->nwalk++] = kunwind_get_return_address(&st);
		kunwind_put_task_stack(task);
	}
	cs_sleeper_stop(s, task);

	/* the chain, from its leaf on */
	KUNIT_EXPECT_TRUE(test, cs_has_chain(t->on, t->non,
					     cs_find(t->on, t->non,
						     "kuw_chain_sleep_leaf") + 1));
	/* the kernel's own answer, frame for frame (a sleeping task) */
	same = t->non == t->noff;
	for (i = 0; same && i < t->non; i++)
		same = t->on[i] == t->off[i];
	KUNIT_EXPECT_TRUE_MSG(test, same, "not the kernel's stack_trace_save_tsk()");
	/* kunwind's walk, the scheduler's frames left out */
	KUNIT_EXPECT_TRUE(test, t->non && t->non < t->nwalk &&
			  cs_contains(t->walk, t->nwalk, t->on, t->non, 0));
	KUNIT_EXPECT_EQ(test, t->on[t->non ? t->non - 1 : 0],
			t->walk[t->nwalk ? t->nwalk - 1 : 0]);
	kunit_info(test, "stack_trace_save_tsk: %u entries on, %u off, kunwind's walk %u\n",
		   t->non, t->noff, t->nwalk);
	if (!same) {
		cs_dump(test, "on ", t->on, t->non);
		cs_dump(test, "off", t->off, t->noff);
	}
}

static void cs_save_tsk_reliable(struct kunit *test)
{
	struct kuw_chain_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct cs_tsk *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	static const char rel[] = "stack_trace_save_tsk_reliable";
	unsigned long calls, kuw, fb;
	struct task_struct *task;
	int on, off;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, kunwind_consumers_set_reliable(true), 0);
	cs_switch_on(test, rel);
	task = cs_sleeper_start(test, s);
	calls = cs_count(rel, KUNWIND_CONS_CALLS);
	kuw = cs_count(rel, KUNWIND_CONS_KUNWIND);
	fb = cs_count(rel, KUNWIND_CONS_FALLBACK);
	on = kt_save_tsk_reliable(task, t->on, CS_MAX);
	/*
	 * kunwind answered, by its walk alone: the kernel's own walk would
	 * give the same answer, so the trace alone does not tell
	 */
	KUNIT_EXPECT_EQ(test, cs_count(rel, KUNWIND_CONS_CALLS), calls + 1);
	KUNIT_EXPECT_EQ_MSG(test, cs_count(rel, KUNWIND_CONS_KUNWIND), kuw + 1,
			    "the call was not answered by kunwind's walk");
	KUNIT_EXPECT_EQ(test, cs_count(rel, KUNWIND_CONS_FALLBACK), fb);
	cs_switch_off(test);
	calls = cs_count(rel, KUNWIND_CONS_CALLS);
	off = kt_save_tsk_reliable(task, t->off, CS_MAX);
	/* switched off: the kernel's, which kunwind does not see */
	KUNIT_EXPECT_EQ(test, cs_count(rel, KUNWIND_CONS_CALLS), calls);
	/* too small a buffer: -EINVAL, as the kernel's */
	KUNIT_EXPECT_EQ(test, kt_save_tsk_reliable(task, t->walk, 2), -EINVAL);
	cs_sleeper_stop(s, task);

	KUNIT_ASSERT_GT_MSG(test, on, 0, "a sleeping thread is unreliable: %d",
			    on);
	KUNIT_EXPECT_TRUE(test, cs_has_chain(t->on, on,
					     cs_find(t->on, on,
						     "kuw_chain_sleep_leaf") + 1));
	kunit_info(test, "stack_trace_save_tsk_reliable: %d on, %d off\n", on,
		   off);
	if (off > 0)
		KUNIT_EXPECT_TRUE(test, cs_contains(t->on, on, t->off, off, 0));
}

/*
 * ---- stack_trace_save_tsk_reliable(): hooked only when opted in ----
 *
 * The switch alone leaves livepatch's check the kernel's (not hooked, its
 * calls never reach kunwind: its calls counter stays), while the other
 * consumers are kunwind's; the opt-in hooks it at once with the switch on,
 * and drops it at once; kept across switching.
 */
static bool cs_rel_hooked(struct kunit *test, unsigned long *calls)
{
	struct kunwind_consumer_info info;
	unsigned long pcs[8];

	KUNIT_EXPECT_EQ(test, cs_info("stack_trace_save_tsk_reliable", &info),
			0);
	*calls = info.count[KUNWIND_CONS_CALLS];
	kt_save_tsk_reliable(current, pcs, ARRAY_SIZE(pcs));
	*calls = cs_count("stack_trace_save_tsk_reliable", KUNWIND_CONS_CALLS) -
		 *calls;
	return info.hooked;
}

static void cs_reliable_optin(struct kunit *test)
{
	struct kunwind_consumer_info info;
	unsigned long calls;

	if (!IS_ENABLED(CONFIG_HAVE_RELIABLE_STACKTRACE))
		kunit_skip(test, "no stack_trace_save_tsk_reliable in this kernel");
	KUNIT_ASSERT_EQ(test, kunwind_consumers_set_reliable(false), 0);
	cs_switch_on(test, "stack_trace_save");
	KUNIT_ASSERT_EQ(test, cs_info("stack_trace_save_tsk_reliable", &info),
			0);
	if (!info.offered)
		kunit_skip(test, "stack_trace_save_tsk_reliable not offered");
	/* the switch on, not opted in: the kernel's */
	KUNIT_EXPECT_FALSE(test, cs_rel_hooked(test, &calls));
	KUNIT_EXPECT_EQ(test, calls, 0UL);
	/* opted in with the switch on: kunwind's at once */
	KUNIT_EXPECT_EQ(test, kunwind_consumers_set_reliable(true), 0);
	KUNIT_EXPECT_TRUE(test, cs_rel_hooked(test, &calls));
	KUNIT_EXPECT_EQ(test, calls, 1UL);
	/* opted out with the switch on: the kernel's again, the rest not */
	KUNIT_EXPECT_EQ(test, kunwind_consumers_set_reliable(false), 0);
	KUNIT_EXPECT_FALSE(test, cs_rel_hooked(test, &calls));
	KUNIT_EXPECT_EQ(test, calls, 0UL);
	KUNIT_EXPECT_EQ(test, cs_info("stack_trace_save", &info), 0);
	KUNIT_EXPECT_TRUE(test, info.hooked);
	/* opted in while off: hooked at the next switch on, not before */
	cs_switch_off(test);
	KUNIT_EXPECT_EQ(test, kunwind_consumers_set_reliable(true), 0);
	KUNIT_EXPECT_FALSE(test, cs_rel_hooked(test, &calls));
	KUNIT_EXPECT_EQ(test, calls, 0UL);
	cs_switch_on(test, "stack_trace_save_tsk_reliable");
	KUNIT_EXPECT_TRUE(test, cs_rel_hooked(test, &calls));
	KUNIT_EXPECT_EQ(test, calls, 1UL);
	cs_switch_off(test);
}

/*
 * ---- switch on and off while another thread saves traces ----
 *
 * Under QEMU 7.2's multi-threaded TCG this case can hang the guest: the
 * storming thread spins at stack_trace_save+0, taking an int3 that memory
 * no longer holds.  That is the emulator not keeping cross-modified code
 * coherent, shown without kunwind by `make check-qemu-smc`; the switch
 * guest runs on one TCG thread there (docs/testbed.md, "The switch guest").
 */

struct cs_storm {
	struct kuw_chain c;
	unsigned long pcs[CS_MAX];
	atomic_t runs, bad;
	bool stop;
};

static noinline int cs_storm_leaf(struct kuw_chain *c)
{
	struct cs_storm *s = c->priv;
	unsigned int n = stack_trace_save(s->pcs, CS_MAX, 0);

	atomic_inc(&s->runs);
	/* entry 0 is here, the whole chain after it */
	if (!n || !cs_is(s->pcs[0], "cs_storm_leaf") ||
	    !cs_has_chain(s->pcs, n, 1))
		atomic_inc(&s->bad);
	return 0;
}

static int cs_storm_fn(void *arg)
{
	struct cs_storm *s = arg;

	/*
	 * A Tasks RCU quiescent state each round: switching off waits for
	 * synchronize_rcu_tasks() (no task left on the ftrace trampoline),
	 * which a kthread that never sleeps holds up for good on a
	 * preemptible kernel, where cond_resched() is no such state.
	 */
	while (!READ_ONCE(s->stop)) {
		kuw_chain_run(&s->c);
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

static void cs_wait_runs(struct cs_storm *s, int runs)
{
	int tries;

	for (tries = 0; tries < 1000 && atomic_read(&s->runs) < runs; tries++)
		usleep_range(1000, 2000);
}

/*
 * perf samples the storm's CPU meanwhile (cpu-clock, 10 kHz, each sample's
 * kernel callchain through perf_callchain_kernel(), switched with the
 * rest): the switch flips under perf's hard IRQ too.
 */
#ifdef CONFIG_PERF_EVENTS
static struct cs_perf cs_toggle_perf;

static void *cs_toggle_perf_start(struct kunit *test, int cpu)
{
	if (!kt_lookup_fn(perf_callchain_kernel))
		return NULL;
	return cs_perf_start(test, &cs_toggle_perf, "cs_storm_leaf", cpu);
}

static void cs_toggle_perf_stop(struct kunit *test, void *ev)
{
	struct cs_perf *p = &cs_toggle_perf;

	if (!ev)
		return;
	perf_event_disable(ev);
	perf_event_release_kernel(ev);
	kunit_info(test, "perf meanwhile: %u samples in the storm's leaf, %u of them without its caller\n",
		   p->samples, p->missed);
}
#else
static void *cs_toggle_perf_start(struct kunit *test, int cpu)
{
	return NULL;
}

static void cs_toggle_perf_stop(struct kunit *test, void *ev)
{
}
#endif

static void cs_toggle(struct kunit *test)
{
	struct cs_storm *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	unsigned long kuw, calls;
	struct task_struct *task;
	void *ev;
	int i, runs, cpu;

	KUNIT_ASSERT_NOT_NULL(test, s);
	cs_switch_on(test, "stack_trace_save");
	cs_switch_off(test);
	s->c = (struct kuw_chain){ .leaf = cs_storm_leaf, .priv = s,
				   .alloca_n = 16 };
	atomic_set(&s->runs, 0);
	atomic_set(&s->bad, 0);
	kuw = cs_count("stack_trace_save", KUNWIND_CONS_KUNWIND);
	calls = cs_count("stack_trace_save", KUNWIND_CONS_CALLS);
	task = kthread_create(cs_storm_fn, s, "cs_storm");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	/* on another CPU than this one, sampled by perf there */
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	kthread_bind(task, cpu);
	wake_up_process(task);
	/* traces by the kernel before, and after the last switch off */
	cs_wait_runs(s, 1);
	ev = cs_toggle_perf_start(test, cpu);
	for (i = 0; i < 10; i++) {
		KUNIT_EXPECT_EQ(test, kunwind_consumers_set(true), 0);
		usleep_range(5000, 6000);
		KUNIT_EXPECT_EQ(test, kunwind_consumers_set(false), 0);
		usleep_range(5000, 6000);
	}
	cs_wait_runs(s, atomic_read(&s->runs) + 1);
	cs_toggle_perf_stop(test, ev);
	WRITE_ONCE(s->stop, true);
	kthread_stop(task);
	put_task_struct(task);
	runs = atomic_read(&s->runs);
	calls = cs_count("stack_trace_save", KUNWIND_CONS_CALLS) - calls;
	kuw = cs_count("stack_trace_save", KUNWIND_CONS_KUNWIND) - kuw;
	kunit_info(test, "%d traces during 10 switches on and off: %lu by kunwind (%lu calls), %d without the chain\n",
		   runs, kuw, calls, atomic_read(&s->bad));
	KUNIT_EXPECT_GT(test, runs, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->bad), 0);
	/* both paths were taken */
	KUNIT_EXPECT_GT(test, calls, 0UL);
	KUNIT_EXPECT_LT(test, calls, (unsigned long)runs);
}

static void cs_exit(struct kunit *test)
{
	kunwind_consumers_set(false);
	kunwind_consumers_set_reliable(false);
}

/*
 * The kernel functions kunwind falls back to (module/serve.c), each made
 * to run once: stack_trace_save_regs() and perf_callchain_kernel() from
 * regs whose pc is data, not text: kunwind stores the pc and stops (no
 * unwind info), then hands the same regs to arch_stack_walk() or
 * perf_callchain_kernel(), which end there too.  The consumers' fallback
 * column moves, and debugfs kunwind/internals counts the calls
 * (scripts/guest-switch/fallbacks.sh).
 */
static unsigned long cs_not_text;

static void cs_fallback_regs(struct pt_regs *regs)
{
	kt_set_regs(regs, (unsigned long)&cs_not_text, current_stack_pointer,
		    0);
}

static void cs_fallback(struct kunit *test)
{
	unsigned long pcs[8], fb;
	struct pt_regs regs;
#ifdef CONFIG_PERF_EVENTS
	u64 buf[1 + ARRAY_SIZE(pcs)];
	struct perf_callchain_entry *e = (void *)buf;
	struct perf_callchain_entry_ctx ctx = { .entry = e,
						.max_stack = ARRAY_SIZE(pcs) };
#endif

	if (!kt_lookup_fn(stack_trace_save_regs))
		kunit_skip(test, "no stack_trace_save_regs in this kernel");
	cs_switch_on(test, "stack_trace_save_regs");
	fb = cs_count("stack_trace_save_regs", KUNWIND_CONS_FALLBACK);
	cs_fallback_regs(&regs);
	KUNIT_EXPECT_GE(test, kuw_call(stack_trace_save_regs, &regs, pcs,
				       ARRAY_SIZE(pcs), 0), 1U);
	KUNIT_EXPECT_EQ(test, pcs[0], (unsigned long)&cs_not_text);
	KUNIT_EXPECT_EQ(test, cs_count("stack_trace_save_regs",
				       KUNWIND_CONS_FALLBACK), fb + 1);
#ifdef CONFIG_PERF_EVENTS
	if (!kt_lookup_fn(perf_callchain_kernel))
		goto off;
	cs_switch_on(test, "perf_callchain_kernel");
	fb = cs_count("perf_callchain_kernel", KUNWIND_CONS_FALLBACK);
	cs_fallback_regs(&regs);
	e->nr = 0;
	kuw_call(perf_callchain_kernel, &ctx, &regs);
	KUNIT_EXPECT_GE(test, e->nr, 1ULL);
	KUNIT_EXPECT_EQ(test, cs_count("perf_callchain_kernel",
				       KUNWIND_CONS_FALLBACK), fb + 1);
off:
#endif
	cs_switch_off(test);
}

static struct kunit_case kunwind_consumers_cases[] = {
	KUNIT_CASE(cs_hrtimer_save),
	KUNIT_CASE(cs_save_tsk),
	KUNIT_CASE(cs_save_tsk_reliable),
	KUNIT_CASE(cs_reliable_optin),
	KUNIT_CASE(cs_save_regs),
	KUNIT_CASE(cs_save_recursion),
	KUNIT_CASE(cs_perf_callchain),
	KUNIT_CASE(cs_fallback),
	KUNIT_CASE(cs_toggle),
	{}
};

static struct kunit_suite kunwind_consumers_suite = {
	.name = "kunwind_consumers",
	.exit = cs_exit,
	.test_cases = kunwind_consumers_cases,
};

kunit_test_suite(kunwind_consumers_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind as the unwinder of the kernel's stack_trace_save*()");
