// SPDX-License-Identifier: GPL-2.0
/*
 * bench: kunwind against the kernel's own unwinder (ORC on x86_64, frame
 * records on arm64: kunit/arch/$(SRCARCH)/bench_arch.h), side by side, on
 * the same stacks, in one boot.  Not a KUnit suite: it measures at load and
 * prints lines starting with "kunwind-bench:" that scripts/bench.sh parses.
 *
 * A chain of 8, 32 or 64 functions of four frame shapes (a large frame,
 * many callee-saved registers, alloca with a frame pointer, a small frame),
 * built without frame pointers and with .eh_frame and .sframe (kunit/Kbuild),
 * is called from module init, so that a walk from its bottom goes on
 * through vmlinux (do_one_initcall, do_init_module, load_module, the
 * syscall path) to the entry code.  At the bottom the contenders run
 * interleaved in small rounds (the order reversed every other round), so
 * that all of them see the same host speed:
 *
 *   kunwind-eh_frame  __kunwind_start(.., KUW_SRC_EH_FRAME) + kunwind_next_frames()
 *   kunwind-sframe    __kunwind_start(.., KUW_SRC_SFRAME) + kunwind_next_frames()
 *   orc               unwind_start() + unwind_next_frame() loop
 *   orc-sts           stack_trace_save()
 *
 * (on arm64 "fp": arch_stack_walk(), and "fp-sts": stack_trace_save();
 * the chain has frame records there, as all arm64 kernel code has)
 *
 * each as a "module" walk (the chain's frames only: the walk stops after
 * them) and a "whole" walk (to the end of the stack).  Every walk stores
 * its return addresses, as stack_trace_save() does.  kunwind's walks use
 * its batch API, kunwind_next_frames() (one call steps and stores many
 * frames), the one kunwind's stack_trace_save() and perf callchains use
 * (module/serve.c); stepping stops at the frame that fills the buffer,
 * as the kernel's arch_stack_walk() stops when its consumer is full.  Per-frame cost is the
 * round's time over iterations and frames; the marginal cost per module
 * frame is the slope between depths 8 and 64 (start costs cancel).
 *
 * Before the timed rounds each walk is compared with the reference's
 * (orc, or fp): the same return addresses ("trace=same"), or, when kunwind
 * finds frames the reference skips, the reference's in order among
 * kunwind's down to the same last frame ("trace=more:N"), else
 * "trace=differs"; kunwind's lines say whether its whole walk was reliable.
 *
 * From hard-IRQ context (an hrtimer firing while the depth-32 chain spins),
 * kunwind alone (KUNWIND_NO_ORC: it crosses the IRQ entry and the IRQ stack
 * itself) against the reference's walk, whole walks, one round per timer
 * interrupt: "kunwind-bench: irq" lines.
 *
 * Times come from ktime_get_ns(): on x86_64 boot with tsc_early_khz= (see
 * scripts/bench.sh), on arm64 it is the generic timer; under -icount
 * shift=0 one ns is one guest instruction.
 *
 * One translation unit on purpose: binutils 2.40 `ld -r` misplaces .sframe
 * relocations when several objects carry .sframe.
 */
#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>
#include <asm/irq_regs.h>
#include "compat.h"
#include "kunwind.h"
#include "bench_arch.h"
#include "kt_lookup.h"

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "interleaved rounds (default 5: a smoke run)");
static unsigned int iters = 10;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "walks per contender per round");
static bool consumers;
module_param(consumers, bool, 0444);
MODULE_PARM_DESC(consumers, "also time stack_trace_save() and perf_callchain_kernel() with kunwind's consumers switch off and on (patches kernel text: scripts/bench.sh's one-vCPU boots only)");

#define BENCH_MAX_ROUNDS	1000
#define BENCH_MAX_FRAMES	160

enum bench_who {
	B_EHF,		/* kunwind from .eh_frame */
	B_SFR,		/* kunwind from .sframe */
	B_REF,		/* the reference: walk_ref() of bench_arch.h */
	B_STS,		/* stack_trace_save */
	B_NWHO
};

static const char *const bench_who_name[B_NWHO] = {
	"kunwind-eh_frame", "kunwind-sframe", BENCH_REF, BENCH_REF_STS,
};

enum { M_MODULE, M_WHOLE, M_NMODE };
static const char *const bench_mode_name[M_NMODE] = { "module", "whole" };

static const int bench_depths[] = { 8, 32, 64 };
#define B_NDEPTH ARRAY_SIZE(bench_depths)

struct bench_ctx {
	u64 seed[6];
	unsigned int depth_idx;
	unsigned int round;
	bool calibrated[B_NDEPTH];
	/* frames of one walk, and of its module part, per contender */
	unsigned int frames[B_NDEPTH][B_NWHO][M_NMODE];
	int match[B_NDEPTH][B_NWHO];	/* bench_compare() */
	bool reliable[B_NDEPTH][B_NWHO];	/* kunwind's whole walk */
	struct bench_irq *irq;	/* set while the IRQ rounds run */
	bool cons;		/* set while the consumer walks run */
	u64 cons_ns;		/* their time per walk */
	unsigned int cons_frames;	/* frames of their last walk */
	/*
	 * per depth, switch off and on; here, not on the stack: an array of
	 * 16 bytes or more is 16-byte aligned, and the kernel's 8-byte stack
	 * alignment would make its function realign the stack (DRAP)
	 */
	u64 cons_walk_ns[2][2];
	unsigned int cons_walk_frames[2][2];
	/* perf_callchain_kernel() from a hard IRQ: bench_perf_fn() */
	struct hrtimer perf_timer;
	struct perf_callchain_entry *perf_entry;
	bool perf;		/* set while its walks run */
	int perf_done;
	u64 perf_ns;		/* their time per walk */
	unsigned int perf_nr;	/* entries of their last walk */
	u64 perf_walk_ns[2][2];	/* per depth, switch off and on */
	unsigned int perf_walk_nr[2][2];
	u64 *ns;	/* [depth][who][mode][round] */
	unsigned long buf[B_NWHO][BENCH_MAX_FRAMES];
};

static u64 *bench_slot(struct bench_ctx *c, unsigned int d, unsigned int w,
		       unsigned int m)
{
	return c->ns + ((d * B_NWHO + w) * M_NMODE + m) * rounds;
}

/* ---- the contenders ---- */

/* Inlined into a noinline walker: the walk starts at that one's caller. */
static __always_inline unsigned int __walk_kunwind(unsigned long *buf,
						   unsigned int max, u8 src)
{
	struct kunwind_state s __uninitialized;

	/* start where walk_ref() starts: this frame's caller */
	__kunwind_start(&s, current, NULL,
			(unsigned long *)current_stack_pointer, src);
	if (kunwind_done(&s) || !max)
		return 0;
	/* the batch API, as kunwind's stack_trace_save() (serve.c) walks */
	buf[0] = kunwind_get_return_address(&s);
	return 1 + kunwind_next_frames(&s, buf + 1, max - 1);
}

static noinline unsigned int walk_kunwind(unsigned long *buf,
					  unsigned int max, u8 src)
{
	return __walk_kunwind(buf, max, src);
}

static noinline unsigned int walk_sts(unsigned long *buf, unsigned int max)
{
	/* skip 1: stack_trace_save() reports this function, walk_ref() not */
	return stack_trace_save(buf, max, 1);
}

static unsigned int bench_walk(unsigned long *buf, enum bench_who w,
			       unsigned int max)
{
	switch (w) {
	case B_EHF:
		return walk_kunwind(buf, max, KUW_SRC_EH_FRAME);
	case B_SFR:
		return walk_kunwind(buf, max, KUW_SRC_SFRAME);
	case B_REF:
		return walk_ref(buf, max);
	default:
		return walk_sts(buf, max);
	}
}

/* ---- measuring at the bottom of the chain ---- */

static unsigned int bench_in_module(const unsigned long *buf, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!within_module((unsigned long)buf[i], THIS_MODULE))
			break;
	return i;
}

/* Does kunwind's whole walk from here end cleanly, every step from a table? */
static noinline bool bench_kunwind_reliable(u8 src)
{
	struct kunwind_state s __uninitialized;

	for (__kunwind_start(&s, current, NULL, NULL, src); !kunwind_done(&s);
	     kunwind_next_frame(&s))
		;
	return kunwind_reliable(&s);
}

/*
 * @t (@n frames) against the reference @ref (@nref): 0 when they are the
 * same, N > 0 when @t has N frames more and the reference's are among them
 * in order down to the same last frame (the reference skipped some), -1
 * when they differ otherwise.  Frame 0 is the walker's caller, at each
 * contender's own call site: compared from frame 1 on.
 */
static int bench_compare(const unsigned long *t, unsigned int n,
			 const unsigned long *ref, unsigned int nref)
{
	unsigned int i, j;

	if (n == nref) {
		for (i = 1; i < n; i++)
			if (t[i] != ref[i])
				return -1;
		return 0;
	}
	if (n < nref || nref < 2 || t[n - 1] != ref[nref - 1])
		return -1;
	for (i = 1, j = 1; i < n && j < nref; i++)
		if (t[i] == ref[j])
			j++;
	return j == nref ? n - nref : -1;
}

/* The first frame where @t and @ref part, for the log. */
static void bench_show_diff(const char *what, const unsigned long *t,
			    unsigned int n, const unsigned long *ref,
			    unsigned int nref)
{
	unsigned int i;

	for (i = 1; i < n || i < nref; i++) {
		if (i < n && i < nref && t[i] == ref[i])
			continue;
		pr_info("kunwind-bench: # %s frame %u: %pS, %s: %pS\n", what, i,
			i < n ? (void *)t[i] : NULL, BENCH_REF,
			i < nref ? (void *)ref[i] : NULL);
		break;
	}
}

/*
 * One walk of each contender: frame counts, do the traces agree with the
 * reference's, and is kunwind's whole walk reliable?
 */
static void bench_calibrate(struct bench_ctx *c, unsigned int d)
{
	unsigned int w, n, nref;
	char what[48];

	for (w = 0; w < B_NWHO; w++) {
		n = bench_walk(c->buf[w], w, BENCH_MAX_FRAMES);
		c->frames[d][w][M_WHOLE] = n;
		c->frames[d][w][M_MODULE] = bench_in_module(c->buf[w], n);
	}
	c->reliable[d][B_EHF] = bench_kunwind_reliable(KUW_SRC_EH_FRAME);
	c->reliable[d][B_SFR] = bench_kunwind_reliable(KUW_SRC_SFRAME);
	nref = c->frames[d][B_REF][M_WHOLE];
	for (w = 0; w < B_NWHO; w++) {
		n = c->frames[d][w][M_WHOLE];
		c->match[d][w] = bench_compare(c->buf[w], n, c->buf[B_REF],
					       nref);
		if (c->match[d][w]) {
			snprintf(what, sizeof(what), "depth %d %s",
				 bench_depths[d], bench_who_name[w]);
			bench_show_diff(what, c->buf[w], n, c->buf[B_REF],
					nref);
		}
	}
	c->calibrated[d] = true;
}

static noinline int bench_irq_leaf(struct bench_ctx *c);
static noinline int bench_perf_leaf(struct bench_ctx *c);

static noinline int bench_bottom(struct bench_ctx *c)
{
	unsigned int d = c->depth_idx, k, w, m, i, max;
	u64 t0, t1;

	if (c->irq)
		return bench_irq_leaf(c);
	if (c->perf)
		return bench_perf_leaf(c);
	if (c->cons) {
		/* a whole stack_trace_save(), as lockdep or perf take it */
		t0 = ktime_get_ns();
		for (i = 0; i < iters * rounds; i++)
			c->cons_frames = walk_sts(c->buf[B_STS],
						  BENCH_MAX_FRAMES);
		t1 = ktime_get_ns();
		c->cons_ns = div_u64(t1 - t0, iters * rounds);
		return 0;
	}
	if (!c->calibrated[d])
		bench_calibrate(c, d);
	/* order reversed every other round */
	for (k = 0; k < B_NWHO * M_NMODE; k++) {
		unsigned int slot = c->round & 1 ? B_NWHO * M_NMODE - 1 - k : k;

		w = slot / M_NMODE;
		m = slot % M_NMODE;
		max = m == M_MODULE ? c->frames[d][w][M_MODULE] :
				      BENCH_MAX_FRAMES;
		if (!max)
			max = 1;
		t0 = ktime_get_ns();
		for (i = 0; i < iters; i++)
			bench_walk(c->buf[w], w, max);
		t1 = ktime_get_ns();
		bench_slot(c, d, w, m)[c->round] = t1 - t0;
	}
	return 0;
}

/* ---- the chain: four frame shapes, calling each other ---- */

static noinline int shape_big(int d, struct bench_ctx *c);
static noinline int shape_regs(int d, struct bench_ctx *c);
static noinline int shape_alloca(int d, struct bench_ctx *c);
static noinline int shape_small(int d, struct bench_ctx *c);

/* Direct calls, no dispatcher frame between two levels: always inlined. */
static __always_inline int bench_next(int d, struct bench_ctx *c)
{
	if (d <= 0)
		return bench_bottom(c);
	switch (d & 3) {
	case 0:
		return shape_big(d - 1, c);
	case 1:
		return shape_regs(d - 1, c);
	case 2:
		return shape_alloca(d - 1, c);
	default:
		return shape_small(d - 1, c);
	}
}

/* A large frame: sub $N, %rsp with N in the hundreds. */
static noinline int shape_big(int d, struct bench_ctx *c)
{
	u64 buf[40];
	int ret;

	buf[d % 40] = c->seed[0] + d;
	barrier_data(buf);
	ret = bench_next(d, c);
	barrier_data(buf);
	return ret + (int)buf[(d + 3) % 40];
}

/* Many callee-saved registers live across the call (push %rbx ... %r15). */
static noinline int shape_regs(int d, struct bench_ctx *c)
{
	u64 a = READ_ONCE(c->seed[0]) + d, b = READ_ONCE(c->seed[1]) ^ d;
	u64 e = READ_ONCE(c->seed[2]) * d, f = READ_ONCE(c->seed[3]) - d;
	u64 g = READ_ONCE(c->seed[4]) + 2 * d;
	int ret;

	ret = bench_next(d, c);
	return (int)(((ret + a) * b) ^ ((e + ret) * f) ^ (g - ret) ^
		     (a * g + ret));
}

/* alloca: the frame is addressed through %rbp, CFA = rbp + 16. */
static noinline int shape_alloca(int d, struct bench_ctx *c)
{
	u8 *p = __builtin_alloca(32 + (d & 7) * 16);
	int ret;

	p[0] = d;
	barrier_data(p);
	ret = bench_next(d, c);
	barrier_data(p);
	return ret + p[0];
}

/* A small frame: just the alignment slot. */
static noinline int shape_small(int d, struct bench_ctx *c)
{
	return bench_next(d, c) + 1;
}

static noinline int bench_chain(int depth, struct bench_ctx *c)
{
	return bench_next(depth, c);
}

/* The chain's result is used, so no level may drop its work. */
static int bench_sink;

/* ---- results ---- */

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n values, in tenths of a unit after dividing by @div. */
static u64 bench_median10(u64 *v, unsigned int n, u64 div)
{
	u64 *tmp = kmalloc_array(n, sizeof(*tmp), GFP_KERNEL);
	u64 med;
	unsigned int i;

	if (!tmp || !div) {
		kfree(tmp);
		return 0;
	}
	for (i = 0; i < n; i++)
		tmp[i] = v[i] * 10 / div;
	sort(tmp, n, sizeof(*tmp), bench_cmp_u64, NULL);
	med = tmp[n / 2];
	kfree(tmp);
	return med;
}

/* Median over rounds of the per-round ratio of two slots, in 1/1000. */
static u64 bench_ratio(struct bench_ctx *c, unsigned int d, unsigned int w1,
		       unsigned int w2, unsigned int m)
{
	u64 *a = bench_slot(c, d, w1, m), *b = bench_slot(c, d, w2, m);
	u64 *r = kmalloc_array(rounds, sizeof(*r), GFP_KERNEL);
	u64 f1 = c->frames[d][w1][m], f2 = c->frames[d][w2][m], med;
	unsigned int i;

	if (!r || !f1 || !f2) {
		kfree(r);
		return 0;
	}
	for (i = 0; i < rounds; i++)
		r[i] = b[i] ? div64_u64(a[i] * f2 * 1000, b[i] * f1) : 0;
	sort(r, rounds, sizeof(*r), bench_cmp_u64, NULL);
	med = r[rounds / 2];
	kfree(r);
	return med;
}

/* Marginal cost per module frame between the first and last depth. */
static u64 bench_marginal10(struct bench_ctx *c, unsigned int w)
{
	unsigned int lo = 0, hi = B_NDEPTH - 1;
	u64 *a = bench_slot(c, lo, w, M_MODULE), *b = bench_slot(c, hi, w, M_MODULE);
	s64 df = (s64)c->frames[hi][w][M_MODULE] - c->frames[lo][w][M_MODULE];
	u64 *r = kmalloc_array(rounds, sizeof(*r), GFP_KERNEL);
	unsigned int i;
	u64 med;

	if (!r || df <= 0) {
		kfree(r);
		return 0;
	}
	for (i = 0; i < rounds; i++)
		r[i] = b[i] > a[i] ? div64_u64((b[i] - a[i]) * 10,
					       (u64)df * iters) : 0;
	sort(r, rounds, sizeof(*r), bench_cmp_u64, NULL);
	med = r[rounds / 2];
	kfree(r);
	return med;
}

/* bench_compare()'s verdict as the "trace=" field: same, more:N, differs */
static const char *bench_trace(int cmp, char *buf, size_t len)
{
	if (!cmp)
		return "same";
	if (cmp < 0)
		return "differs";
	snprintf(buf, len, "more:%d", cmp);
	return buf;
}

/* " reliable=yes|no" after a kunwind contender's figures */
static const char *bench_rel(bool kunwind, bool reliable)
{
	return !kunwind ? "" : reliable ? " reliable=yes" : " reliable=no";
}

static void bench_report(struct bench_ctx *c)
{
	unsigned int d, w, m;
	char tb[16];
	u64 v;

	for (d = 0; d < B_NDEPTH; d++) {
		for (m = 0; m < M_NMODE; m++) {
			for (w = 0; w < B_NWHO; w++) {
				unsigned int f = c->frames[d][w][m];

				v = bench_median10(bench_slot(c, d, w, m),
						   rounds, (u64)iters * f);
				pr_info("kunwind-bench: walk depth=%d mode=%s who=%s frames=%u per-frame=%llu.%llu trace=%s vs-ref=%llu.%03llu%s\n",
					bench_depths[d], bench_mode_name[m],
					bench_who_name[w], f, v / 10, v % 10,
					bench_trace(c->match[d][w], tb,
						    sizeof(tb)),
					bench_ratio(c, d, w, B_REF, m) / 1000,
					bench_ratio(c, d, w, B_REF, m) % 1000,
					bench_rel(w == B_EHF || w == B_SFR,
						  c->reliable[d][w]));
			}
		}
	}
	for (w = 0; w < B_NWHO; w++) {
		v = bench_marginal10(c, w);
		pr_info("kunwind-bench: marginal who=%s per-module-frame=%llu.%llu\n",
			bench_who_name[w], v / 10, v % 10);
	}
}

/* ---- from hard-IRQ context ---- */

enum { I_ALONE, I_REF, I_NWHO };
static const char *const bench_irq_name[I_NWHO] = { "kunwind-alone", BENCH_REF };

struct bench_irq {
	struct hrtimer timer;
	unsigned long buf[I_NWHO][BENCH_MAX_FRAMES];
	unsigned int frames[I_NWHO];
	int cmp;	/* bench_compare() */
	bool reliable;	/* kunwind's whole walk */
	unsigned int round;	/* rounds done */
	u64 *ns;		/* [who][round] */
};

static noinline unsigned int walk_alone(unsigned long *buf, unsigned int max)
{
	return __walk_kunwind(buf, max, KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
}

static unsigned int bench_irq_walk(unsigned long *buf, unsigned int w)
{
	return w == I_ALONE ? walk_alone(buf, BENCH_MAX_FRAMES) :
			      walk_ref(buf, BENCH_MAX_FRAMES);
}

static enum hrtimer_restart bench_irq_fn(struct hrtimer *t)
{
	struct bench_irq *b = container_of(t, struct bench_irq, timer);
	unsigned int r = b->round, k, w, i;
	u64 t0;

	if (!r) {	/* the traces, once, compared as above */
		for (w = 0; w < I_NWHO; w++)
			b->frames[w] = bench_irq_walk(b->buf[w], w);
		b->cmp = bench_compare(b->buf[I_ALONE], b->frames[I_ALONE],
				       b->buf[I_REF], b->frames[I_REF]);
		b->reliable = bench_kunwind_reliable(KUNWIND_SRC_ANY |
						     KUNWIND_NO_ORC);
	}
	for (k = 0; k < I_NWHO; k++) {
		w = r & 1 ? I_NWHO - 1 - k : k;
		t0 = ktime_get_ns();
		for (i = 0; i < iters; i++)
			bench_irq_walk(b->buf[w], w);
		b->ns[w * rounds + r] = ktime_get_ns() - t0;
	}
	/* pairs with the acquire in bench_irq_leaf() */
	smp_store_release(&b->round, r + 1);
	return HRTIMER_NORESTART;
}

/* At the bottom of the chain: one timer interrupt per round. */
static noinline int bench_irq_leaf(struct bench_ctx *c)
{
	struct bench_irq *b = c->irq;
	unsigned long end = jiffies + 10 * HZ;
	unsigned int r;

	for (r = 0; r < rounds && time_before(jiffies, end); r++) {
		hrtimer_start(&b->timer, ns_to_ktime(20 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED_HARD);
		/* pairs with the release in bench_irq_fn(): its walks are stored */
		while (smp_load_acquire(&b->round) == r &&
		       time_before(jiffies, end))
			cpu_relax();
	}
	hrtimer_cancel(&b->timer);
	return 0;
}

static void bench_irq_report(struct bench_irq *b)
{
	u64 *r = kmalloc_array(rounds, sizeof(*r), GFP_KERNEL);
	unsigned int w, i, n = READ_ONCE(b->round);
	u64 v, ratio = 0;
	char tb[16];

	if (n < rounds || !b->frames[I_ALONE] || !b->frames[I_REF] || !r) {
		pr_info("kunwind-bench: # irq: %u of %u rounds ran\n", n, rounds);
		kfree(r);
		return;
	}
	for (i = 0; i < rounds; i++) {
		u64 a = b->ns[I_ALONE * rounds + i], o = b->ns[I_REF * rounds + i];

		r[i] = o ? div64_u64(a * b->frames[I_REF] * 1000,
				     o * b->frames[I_ALONE]) : 0;
	}
	sort(r, rounds, sizeof(*r), bench_cmp_u64, NULL);
	ratio = r[rounds / 2];
	for (w = 0; w < I_NWHO; w++) {
		v = bench_median10(b->ns + w * rounds, rounds,
				   (u64)iters * b->frames[w]);
		pr_info("kunwind-bench: irq who=%s frames=%u per-frame=%llu.%llu trace=%s vs-ref=%llu.%03llu%s\n",
			bench_irq_name[w], b->frames[w], v / 10, v % 10,
			bench_trace(b->cmp, tb, sizeof(tb)),
			w == I_REF ? 1ULL : ratio / 1000,
			w == I_REF ? 0ULL : ratio % 1000,
			bench_rel(w == I_ALONE, b->reliable));
	}
	if (b->cmp)
		for (i = 0; i < b->frames[I_ALONE] || i < b->frames[I_REF]; i++)
			pr_info("kunwind-bench: # irq frame %u: %pS, %s: %pS\n", i,
				i < b->frames[I_ALONE] ? (void *)b->buf[I_ALONE][i] : NULL,
				BENCH_REF,
				i < b->frames[I_REF] ? (void *)b->buf[I_REF][i] : NULL);
	kfree(r);
}

/* The clock must move in steps far below a walk's time. */
static u64 bench_clock_step(void)
{
	u64 t0 = ktime_get_ns(), t1;
	unsigned int i;

	for (i = 0; i < 1000000; i++) {
		t1 = ktime_get_ns();
		if (t1 != t0)
			return t1 - t0;
	}
	return U64_MAX;
}

static void bench_irq_run(struct bench_ctx *c)
{
	struct bench_irq *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (b)
		b->ns = kcalloc(I_NWHO * rounds, sizeof(u64), GFP_KERNEL);
	if (!b || !b->ns) {
		kfree(b);
		return;
	}
	kuw_hrtimer_setup(&b->timer, bench_irq_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	c->irq = b;
	preempt_disable();	/* the timer fires on this CPU, in the chain */
	bench_sink += bench_chain(32, c);
	preempt_enable();
	c->irq = NULL;
	bench_irq_report(b);
	kfree(b->ns);
	kfree(b);
}

/* ---- perf_callchain_kernel(), the callchain of a perf sample ---- */

#ifdef CONFIG_PERF_EVENTS
KUW_INTERNAL(perf_callchain_kernel);

/*
 * A timer interrupt over the chain's bottom: the kernel chain of a sample
 * taken there, iters * rounds times (what perf_callchain() asks of the
 * arch for each sample), from the interrupt's registers.
 */
static enum hrtimer_restart bench_perf_fn(struct hrtimer *t)
{
	struct bench_ctx *c = container_of(t, struct bench_ctx, perf_timer);
	struct perf_callchain_entry_ctx ctx = {
		.entry = c->perf_entry, .max_stack = BENCH_MAX_FRAMES,
	};
	struct pt_regs *regs = get_irq_regs();
	unsigned int i, n = iters * rounds;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		ctx.nr = 0;
		c->perf_entry->nr = 0;
		kuw_call(perf_callchain_kernel, &ctx, regs);
	}
	c->perf_ns = div_u64(ktime_get_ns() - t0, n);
	c->perf_nr = ctx.nr;
	/* pairs with the acquire in bench_perf_leaf() */
	smp_store_release(&c->perf_done, 1);
	return HRTIMER_NORESTART;
}

static noinline int bench_perf_leaf(struct bench_ctx *c)
{
	unsigned long end = jiffies + 10 * HZ;

	c->perf_done = 0;
	hrtimer_start(&c->perf_timer, ns_to_ktime(20 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	/* pairs with the release in bench_perf_fn(): its results are stored */
	while (!smp_load_acquire(&c->perf_done) && time_before(jiffies, end))
		cpu_relax();
	hrtimer_cancel(&c->perf_timer);
	return 0;
}

/* perf_callchain_kernel() at depth @d, the switch as it is: 0 or -errno */
static noinline int bench_perf_run(struct bench_ctx *c, unsigned int d)
{
	if (!KUW_FN(perf_callchain_kernel) &&
	    !kt_lookup_fn(perf_callchain_kernel))
		return -ENOENT;
	if (!c->perf_entry)
		c->perf_entry = kzalloc(struct_size(c->perf_entry, ip,
						    BENCH_MAX_FRAMES),
					GFP_KERNEL);
	if (!c->perf_entry)
		return -ENOMEM;
	kuw_hrtimer_setup(&c->perf_timer, bench_perf_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	c->perf = true;
	c->perf_ns = 0;
	preempt_disable();	/* the timer fires on this CPU, in the chain */
	bench_sink += bench_chain(bench_depths[d], c);
	preempt_enable();
	c->perf = false;
	/* pairs with the release in bench_perf_fn() */
	return smp_load_acquire(&c->perf_done) ? 0 : -ETIMEDOUT;
}
#else
static noinline int bench_perf_leaf(struct bench_ctx *c)
{
	return 0;
}

static int bench_perf_run(struct bench_ctx *c, unsigned int d)
{
	return -EOPNOTSUPP;
}
#endif

/* one "kunwind-bench: # consumer" line: the cost per walk, off and on */
static void bench_consumer_line(const char *what, int depth, const char *unit,
				const unsigned int *fr, const u64 *ns)
{
	pr_info("kunwind-bench: # consumer %s depth %d: switch off %u %s %llu per walk, on (kunwind) %u %s %llu per walk, on/off %llu.%02llu\n",
		what, depth, fr[0], unit, ns[0], fr[1], unit, ns[1],
		ns[0] ? div64_u64(ns[1], ns[0]) : 0,
		ns[0] ? div64_u64(ns[1] * 100, ns[0]) % 100 : 0);
}

/*
 * The consumer's cost with and without kunwind: stack_trace_save() whole
 * walks at the bottom of the depth-8 and depth-32 chains, and
 * perf_callchain_kernel() from a timer interrupt there, the consumers
 * switch off (the kernel's unwinder) and on (kunwind's, through the ftrace
 * redirection).  One "kunwind-bench: #" line per consumer and depth.
 */
static noinline void bench_consumers_run(struct bench_ctx *c)
{
	u64 (*ns)[2] = c->cons_walk_ns;
	unsigned int (*fr)[2] = c->cons_walk_frames;
	unsigned int d, on;
	int ret, perf = 0;

	for (on = 0; on < 2; on++) {
		ret = on ? kunwind_consumers_set(true) : 0;
		if (ret) {
			pr_info("kunwind-bench: # consumers: the switch is not available here (%d)\n",
				ret);
			return;
		}
		for (d = 0; d < 2; d++) {
			c->cons = true;
			c->depth_idx = d;
			bench_sink += bench_chain(bench_depths[d], c);
			c->cons = false;
			ns[d][on] = c->cons_ns;
			fr[d][on] = c->cons_frames;
			/* the same, a perf sample's kernel callchain */
			if (!perf)
				perf = bench_perf_run(c, d);
			c->perf_walk_ns[d][on] = c->perf_ns;
			c->perf_walk_nr[d][on] = c->perf_nr;
		}
	}
	kunwind_consumers_set(false);
	for (d = 0; d < 2; d++)
		bench_consumer_line("stack_trace_save()", bench_depths[d],
				    "frames", fr[d], ns[d]);
	if (perf)
		pr_info("kunwind-bench: # consumer perf_callchain_kernel(): not measured (%d)\n",
			perf);
	for (d = 0; !perf && d < 2; d++)
		bench_consumer_line("perf_callchain_kernel() from a timer interrupt",
				    bench_depths[d], "entries",
				    c->perf_walk_nr[d], c->perf_walk_ns[d]);
	kfree(c->perf_entry);
	c->perf_entry = NULL;
}

static int __init bench_init(void)
{
	struct bench_ctx *c;
	unsigned int r, d;
	u64 step, t0;
	int ret;

	if (!rounds || rounds > BENCH_MAX_ROUNDS || !iters)
		return -EINVAL;
	ret = bench_arch_init();
	if (ret) {
		pr_info("kunwind-bench: # no reference unwinder (%d)\n", ret);
		return ret;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->ns = kcalloc(B_NDEPTH * B_NWHO * M_NMODE * rounds, sizeof(u64),
			GFP_KERNEL);
	if (!c->ns) {
		kfree(c);
		return -ENOMEM;
	}
	for (r = 0; r < ARRAY_SIZE(c->seed); r++)
		c->seed[r] = 0x9e3779b97f4a7c15ULL * (r + 1);
	step = bench_clock_step();
	/* a round of walks takes 100s of us: a jiffies clock (4 ms) is not */
	pr_info("kunwind-bench: start ref=%s rounds=%u iters=%u clock-step-ns=%llu%s\n",
		BENCH_REF, rounds, iters, step,
		step > 100000 ? " (coarse clock: numbers are meaningless)" : "");
	t0 = ktime_get_ns();
	for (r = 0; r < rounds; r++) {
		c->round = r;
		for (d = 0; d < B_NDEPTH; d++) {
			c->depth_idx = d;
			bench_sink += bench_chain(bench_depths[d], c);
		}
	}
	pr_info("kunwind-bench: measured in %llu ms (sink %d)\n",
		(ktime_get_ns() - t0) / NSEC_PER_MSEC, READ_ONCE(bench_sink));
	bench_report(c);
	bench_irq_run(c);
	if (consumers)
		bench_consumers_run(c);
	pr_info("kunwind-bench: done\n");
	kfree(c->ns);
	kfree(c);
	return 0;
}

static void __exit bench_exit(void)
{
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind benchmark: kunwind against the kernel's unwinder on the same stacks");
