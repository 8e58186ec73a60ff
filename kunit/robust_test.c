// SPDX-License-Identifier: GPL-2.0
/*
 * Robustness campaigns for kunwind, run in the debug test kernel
 * (KASAN, lockdep, atomic-sleep checks, -smp 2).  Each prints one line
 * "robust: <campaign> <n> runs, <k> rejected, <f> faults"; a case fails on
 * any fault it can see itself, and the test bed fails the run on any kernel
 * report (KASAN, oops, lockdep, WARNING) in the log.
 *
 *  mutated tables   mutations (bit flips, byte sets, truncations, length,
 *                   CIE pointer, address and count field corruption) of
 *                   this module's own .eh_frame and .sframe, each validated
 *                   and compiled by kunwind.ko's kuw_table_build() with the
 *                   object description its module load path uses; every
 *                   accepted table is looked up and used to unwind a real
 *                   stack snapshot with kunwind.ko's kuw_step() and its
 *                   fault-safe, stack-bounded kuw_read_mem().
 *  garbage stacks   unwinds with the public API (__kunwind_start() from a
 *                   struct pt_regs) from random registers over buffers of
 *                   random words on this kthread's stack, preemptible,
 *                   with preemption disabled and with interrupts disabled
 *                   by turns: each must end within KUNWIND_MAX_FRAMES with
 *                   a named stop reason ("rejected": stopped by an error,
 *                   not at the end of the stack).
 *  storm            not a KUnit case: writing 1 to the module parameter
 *                   "storm" starts a kthread that unwinds every task over
 *                   and over (scripts/guest/robust_storm.sh loads and
 *                   unloads robust_payload.ko meanwhile); writing 0 stops
 *                   it and prints its counts.
 *
 * The engine entry points of kunwind.ko (kuw_table_build() and friends)
 * are exported for tests, so the code under test is the module's own, not
 * a copy.
 *
 * This module finds its own sections with labels placed at offset 0 of
 * .eh_frame and .sframe (the assembler appends its CFI after them; one
 * translation unit, so the module's sections are this file's).  The end of
 * .eh_frame is where the chain of records pointing back to this file's
 * CIEs ends; .sframe's size is in its header.
 *
 * Every campaign uses a fixed seed (ROBUST_SEED) so a finding can be
 * replayed: the iteration and seed are printed with it.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "kunwind.h"
#include "arch.h"
#include "sframe.h"
#include "robust_test.h"

/*
 * The campaigns' sizes and seed.  Constants, not module parameters: KUnit
 * runs a module's suites from the COMING notifier, before the loader
 * parses the module's parameters.  Every finding prints its seed and
 * iteration; the same build replays it exactly.
 */
#define ROBUST_SEED		0x6b75770aU
#define ROBUST_MUTATIONS	6000U	/* per section: .eh_frame, .sframe */
#define ROBUST_GARBAGE_RUNS	100000U

/*
 * The kernel's ORC unwinder, which kunwind falls back to for frames its
 * tables cannot step, prints a (once only) "WARNING: stack going in the
 * wrong direction?" or "WARNING: stack recursion on stack type 1" for
 * garbage on the current task's stack, which the test bed counts as a
 * failure: the garbage unwinds are tables only (KUNWIND_NO_ORC) unless
 * this is N, which lets every Nth use ORC too.
 */
#define ROBUST_GARBAGE_ORC	0U

static const uint seed = ROBUST_SEED;
static const uint mutations = ROBUST_MUTATIONS;
static const uint garbage_runs = ROBUST_GARBAGE_RUNS;
static const uint garbage_orc = ROBUST_GARBAGE_ORC;

/* Labels at offset 0 of this module's unwind sections (robust_test.h). */
asm(".pushsection .eh_frame,\"a\",@progbits\n"
	"robust_ehf_start:\n"
	".popsection\n"
	".pushsection .sframe,\"a\",@progbits\n"
	"robust_sfr_start:\n"
	".popsection\n");

/* ---- kunwind.ko's engine, found by name ---- */

struct robust_engine {
	int (*build)(const struct kuw_obj *o, int src, const struct kuw_sec *s,
		     struct kuw_table **out, struct kuw_diag *d);
	void (*free)(struct kuw_table *t);
	int (*lookup)(const struct kuw_table *t, u64 pc,
		      const struct kuw_rule **rule, u64 *row_pc);
	int (*step)(u8 arch, const u8 *sec, u64 sec_size,
		    const struct kuw_rule *rule, struct kuw_regs *regs,
		    void *mem_ctx);
	const char *(*strerror)(int err);
};

static struct robust_engine eng;

static int robust_find_engine(struct kunit *test)
{
	eng.build = kuw_table_build;
	eng.free = kuw_table_free;
	eng.lookup = kuw_table_lookup;
	eng.step = kuw_step;
	eng.strerror = kuw_strerror;
	if (!eng.build || !eng.free || !eng.lookup || !eng.step ||
	    !eng.strerror) {
		kunit_err(test, "kunwind.ko engine symbols not found (is kunwind loaded?)");
		return -ENOENT;
	}
	return 0;
}

static const char *robust_errname(int err)
{
	return eng.strerror ? eng.strerror(err) : "?";
}

/* A stop reason or error code that has a name. */
static bool robust_named(int err)
{
	return err < 0 && err > -KUW_E__COUNT;
}

/*
 * Sleep a little now and then in long loops: on a preemptible kernel only a
 * voluntary sleep ends an RCU-tasks grace period (kprobes, module loading
 * wait for them).
 */
static void robust_pause(u64 i)
{
	if (!(i & 511))
		usleep_range(20, 50);
}

/* ---- this module's text and unwind sections ---- */

static void robust_obj(struct kuw_obj *o)
{
	struct module *m = THIS_MODULE;
	struct kuw_range core = kuw_module_text(m);
	struct kuw_range init = kuw_module_init_text(m);
	unsigned long cs = core.start, ce = core.end;
	unsigned long is = init.start, ie = init.end;

	/* what kunwind's registry describes a module with */
	memset(o, 0, sizeof(*o));
	o->owner = KBUILD_MODNAME;
	o->arch = KUW_ARCH_X86_64;
	o->flags = KUW_OBJ_RELOCATED;
	o->text_start = cs;
	o->text_end = ce;
	if (is && ie > is) {
		o->text_start = min_t(u64, o->text_start, is);
		o->text_end = max_t(u64, o->text_end, ie);
	}
}

#define ROBUST_MAX_CIES	8
#define ROBUST_MAX_RECS	1024

/* Record offsets of this module's .eh_frame, for targeted corruption. */
struct robust_sec {
	const u8 *data;
	u64 size;
	u32 rec[ROBUST_MAX_RECS];	/* CIE/FDE offsets (.eh_frame) */
	u32 nrec;			/* or FDE count (.sframe) */
	u32 fdeoff, freoff, fdesize;	/* .sframe layout */
};

/*
 * Size of this module's .eh_frame: the chain of records starting at the
 * label, each a CIE or an FDE whose CIE pointer names one of them.
 */
static int robust_ehf(struct robust_sec *s)
{
	const u8 *p = robust_ehf_start;
	struct kuw_range region;
	const u8 *lim;
	u32 cie[ROBUST_MAX_CIES], ncie = 0, i;
	u64 off = 0;

	memset(s, 0, sizeof(*s));
	/* the records end with the module memory region holding them */
	if (!kuw_module_core_region(THIS_MODULE, (unsigned long)p, &region))
		return -ENOENT;
	lim = (const u8 *)region.end;
	while (p + off + 8 <= lim && s->nrec < ROBUST_MAX_RECS) {
		u32 len = get_unaligned_le32(p + off);
		u32 id = get_unaligned_le32(p + off + 4);
		bool ok = false;

		if (!len || len == 0xffffffff || len > lim - (p + off) - 4)
			break;
		if (!id) {
			if (ncie == ROBUST_MAX_CIES)
				break;
			cie[ncie++] = off;
			ok = true;
		}
		for (i = 0; i < ncie && !ok; i++)
			ok = id == off + 4 - cie[i];
		if (!ok)
			break;
		s->rec[s->nrec++] = off;
		off += 4 + (u64)len;
	}
	s->data = p;
	s->size = off;
	return ncie && s->nrec > ncie ? 0 : -ENOENT;
}

static int robust_sfr(struct robust_sec *s)
{
	const u8 *p = robust_sfr_start;
	u32 nfde, nfre, frelen, aux;

	memset(s, 0, sizeof(*s));
	if (get_unaligned_le16(p + KUW_SFH_MAGIC) != KUW_SFRAME_MAGIC)
		return -ENOENT;
	aux = p[KUW_SFH_AUXHDR_LEN];
	nfde = get_unaligned_le32(p + KUW_SFH_NUM_FDES);
	nfre = get_unaligned_le32(p + KUW_SFH_NUM_FRES);
	frelen = get_unaligned_le32(p + KUW_SFH_FRE_LEN);
	s->fdeoff = get_unaligned_le32(p + KUW_SFH_FDEOFF);
	s->freoff = get_unaligned_le32(p + KUW_SFH_FREOFF);
	s->fdesize = p[KUW_SFH_VERSION] == KUW_SFRAME_VERSION_1 ?
		     KUW_SFDE_V1_SIZE : KUW_SFDE_V2_SIZE;
	if (!nfde || !nfre || nfde > 65536 ||
	    s->fdeoff + (u64)nfde * s->fdesize > s->freoff)
		return -ENOENT;
	s->data = p;
	s->nrec = nfde;
	s->size = KUW_SFH_SIZE + aux + (u64)s->freoff + frelen;
	/* the FDE and FRE offsets count from the end of the header */
	s->fdeoff += KUW_SFH_SIZE + aux;
	s->freoff += KUW_SFH_SIZE + aux;
	return 0;
}

/*
 * CFI with DWARF expressions, so that the mutations reach the DW_OP checks
 * and the steps run expressions: while rbx is pushed, rbx is saved at
 * [rsp] (DW_CFA_expression: DW_OP_breg7 0), r12 keeps its value
 * (DW_CFA_val_expression: DW_OP_breg12 0), and for one instruction the CFA
 * is DW_CFA_def_cfa_expression DW_OP_breg7 16.  All true, so a walk
 * through here would still be right.  gas makes no SFrame FDE for it.
 */
static noinline unsigned long robust_cfi_exprs(unsigned long x)
{
	asm volatile("push %%rbx\n\t"
		     ".cfi_adjust_cfa_offset 8\n\t"
		     ".cfi_escape 0x10, 0x03, 0x02, 0x77, 0x00\n\t"
		     ".cfi_escape 0x16, 0x0c, 0x02, 0x7c, 0x00\n\t"
		     "nop\n\t"
		     ".cfi_escape 0x0f, 0x02, 0x77, 0x10\n\t"
		     "nop\n\t"
		     ".cfi_def_cfa %%rsp, 16\n\t"
		     "pop %%rbx\n\t"
		     ".cfi_adjust_cfa_offset -8\n\t"
		     ".cfi_restore %%rbx\n\t"
		     ".cfi_restore %%r12\n\t"
		     : "+r" (x) : : "memory");
	return x + 1;
}

/* ---- a real stack snapshot ---- */

#define ROBUST_CHAIN	3

struct robust_snap {
	struct pt_regs pt;
	struct kuw_regs regs;
	u64 expect[ROBUST_CHAIN + 2];	/* pc, then the return addresses */
	void (*fn)(struct kunit *test, struct robust_snap *snap);
	void *ctx;
};

/*
 * Registers of the function this is expanded in, at the instruction after
 * the lea; the function's own CFI row describes that point.
 */
#define robust_capture(s)						\
	do {								\
		struct robust_snap *__s = (s);				\
									\
		asm volatile("leaq (%%rip), %%rax\n\t"			\
			     "movq %%rax, %0\n\t"			\
			     "movq %%rsp, %1\n\t"			\
			     "movq %%rbp, %2\n\t"			\
			     "movq %%rbx, %3\n\t"			\
			     "movq %%r12, %4\n\t"			\
			     "movq %%r13, %5\n\t"			\
			     "movq %%r14, %6\n\t"			\
			     "movq %%r15, %7\n\t"			\
			     : "=m" (__s->pt.ip), "=m" (__s->pt.sp),	\
			       "=m" (__s->pt.bp), "=m" (__s->pt.bx),	\
			       "=m" (__s->pt.r12), "=m" (__s->pt.r13),	\
			       "=m" (__s->pt.r14), "=m" (__s->pt.r15)	\
			     : : "rax", "memory");			\
	} while (0)

static void robust_snap_regs(struct robust_snap *s)
{
	struct kuw_regs *r = &s->regs;

	s->pt.cs = __KERNEL_CS;
	s->pt.ss = __KERNEL_DS;
	s->pt.flags = X86_EFLAGS_FIXED;
	memset(r, 0, sizeof(*r));
	r->r[KUW_X86_RA] = s->pt.ip;
	r->r[KUW_X86_RSP] = s->pt.sp;
	r->r[KUW_X86_RBP] = s->pt.bp;
	r->r[KUW_X86_RBX] = s->pt.bx;
	r->r[12] = s->pt.r12;
	r->r[13] = s->pt.r13;
	r->r[14] = s->pt.r14;
	r->r[15] = s->pt.r15;
	r->valid = 1ULL << KUW_X86_RA | 1ULL << KUW_X86_RSP |
		   1ULL << KUW_X86_RBP | 1ULL << KUW_X86_RBX | 0xfULL << 12;
}

/*
 * A chain of three frames of this module; the deepest captures its
 * registers and runs the campaign from there, so the snapshot's stack
 * (those frames and everything above) stays live while it is used.
 */
static noinline void robust_chain3(struct kunit *test, struct robust_snap *s)
{
	s->expect[1] = (unsigned long)__builtin_return_address(0);
	robust_capture(s);
	s->expect[0] = s->pt.ip;
	robust_snap_regs(s);
	s->fn(test, s);
	barrier_data(s);
}

static noinline void robust_chain2(struct kunit *test, struct robust_snap *s)
{
	s->expect[2] = (unsigned long)__builtin_return_address(0);
	robust_chain3(test, s);
	barrier_data(s);
}

static noinline void robust_chain1(struct kunit *test, struct robust_snap *s)
{
	s->expect[3] = (unsigned long)__builtin_return_address(0);
	robust_chain2(test, s);
	barrier_data(s);
}

static noinline void
robust_with_snapshot(struct kunit *test,
		     void (*fn)(struct kunit *test, struct robust_snap *snap),
		     void *ctx)
{
	struct robust_snap *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->fn = fn;
	s->ctx = ctx;
	s->expect[4] = (unsigned long)__builtin_return_address(0);
	robust_chain1(test, s);
	barrier_data(s);
}

/*
 * Unwind @snap with table @t alone: lookup, then kunwind.ko's kuw_step()
 * with a kunwind_state as the memory context (reads bounded to this task's
 * stacks and fault-safe).  Frames whose pc the table does not cover end
 * the walk.  Returns the number of frames, fills @pcs, sets *@stop.
 */
/* Scratch of one walk, off the (KASAN-padded) kernel stack. */
struct robust_walk {
	struct kunwind_state st;
	struct kuw_regs regs;
	struct pt_regs pt;
};

static u32 robust_walk_table(const struct kuw_table *t,
			     const struct robust_snap *snap,
			     struct robust_walk *w,
			     u64 *pcs, u32 max, int *stop, u32 *faults)
{
	struct kunwind_state *st = &w->st;
	struct kuw_regs *regs = &w->regs;
	const struct kuw_rule *rule;
	u64 row, pc, sp;
	u32 n = 0;
	int ret = 0;

	/* as kunwind's own steps: not preemptible (see kuw_read_mem()) */
	preempt_disable();
	*regs = snap->regs;
	w->pt = snap->pt;
	__kunwind_start(st, current, &w->pt, NULL, t->src);
	if (kunwind_done(st)) {
		preempt_enable();
		*stop = kunwind_stop_reason(st);
		return 0;
	}
	while (n < max) {
		pc = regs->r[KUW_X86_RA];
		sp = regs->r[KUW_X86_RSP];
		pcs[n++] = pc;
		ret = eng.lookup(t, n == 1 ? pc : pc - 1, &rule, &row);
		if (ret)
			break;
		if (row > (n == 1 ? pc : pc - 1) || row < t->start ||
		    row >= t->end || rule->nregs > KUW_MAX_REGS) {
			pr_err("robust: lookup of 0x%llx gave row 0x%llx (table 0x%llx-0x%llx), %u regs\n",
			       pc, row, t->start, t->end, rule->nregs);
			(*faults)++;
			ret = -KUW_E_INVAL;
			break;
		}
		ret = eng.step(t->arch, t->sec, t->sec_size, rule, regs, st);
		if (ret)
			break;
		if (!(regs->valid & BIT_ULL(KUW_X86_RSP)) ||
		    regs->r[KUW_X86_RSP] <= sp) {
			ret = -KUW_E_BADSP;	/* what the unwinder checks */
			break;
		}
	}
	preempt_enable();
	if (n == max && !ret)
		ret = -KUW_E_LIMIT;
	if (!robust_named(ret)) {
		pr_err("robust: walk stopped with unnamed code %d\n", ret);
		(*faults)++;
	}
	*stop = ret;
	return n;
}

/* ---- campaign 1: mutated tables ---- */

struct robust_mut {
	struct kunit *test;
	const char *name;		/* "eh_frame", "sframe" */
	int src;
	struct robust_sec sec;
	struct kuw_obj obj;
	struct rnd_state rnd;
	struct robust_walk *walk;
	u32 runs, rejected, accepted, faults, frames, steps;
	u32 why[KUW_E__COUNT];
	u32 kinds[16];
};

static u32 rnd(struct robust_mut *m, u32 n)
{
	return n ? prandom_u32_state(&m->rnd) % n : 0;
}

/* A value worth writing into a length, offset or count field. */
static u32 robust_evil32(struct robust_mut *m, u32 old, u64 size)
{
	switch (rnd(m, 10)) {
	case 0: return 0;
	case 1: return 0xffffffff;
	case 2: return 0x7fffffff;
	case 3: return 0x80000000;
	case 4: return old + 1 + rnd(m, 8);
	case 5: return old - 1 - rnd(m, 8);
	case 6: return (u32)size;
	case 7: return (u32)size - rnd(m, 16);
	case 8: return old ^ BIT(rnd(m, 32));
	default: return prandom_u32_state(&m->rnd);
	}
}

enum {
	MUT_FLIP, MUT_BYTE, MUT_TRUNC, MUT_LEN, MUT_PTR, MUT_ADDR, MUT_INSN,
	MUT_HDR, MUT_COUNT, MUT_SWAP, MUT_KINDS
};

/* Write a corrupted 32-bit field at @at when it lies inside @n bytes. */
static void robust_put32(struct robust_mut *m, u8 *buf, u64 n, u64 at)
{
	if (at + 4 <= n)
		put_unaligned_le32(robust_evil32(m, get_unaligned_le32(buf + at),
						 n), buf + at);
}

/* Apply one mutation to @buf (@*len bytes, of @cap); returns its kind. */
static int robust_mutate(struct robust_mut *m, u8 *buf, u64 *len, u64 cap)
{
	const struct robust_sec *s = &m->sec;
	bool sfr = m->src == KUW_SRC_SFRAME;
	int kind = rnd(m, MUT_KINDS);
	u64 at, n = *len;
	u32 r;

	if (n < 32)
		kind = MUT_BYTE;
	switch (kind) {
	case MUT_FLIP:
		at = rnd(m, n);
		buf[at] ^= BIT(rnd(m, 8));
		break;
	case MUT_BYTE:
		at = rnd(m, n);
		buf[at] = rnd(m, 3) ? prandom_u32_state(&m->rnd) :
			  (rnd(m, 2) ? 0xff : 0);
		break;
	case MUT_TRUNC:
		*len = rnd(m, 4) ? rnd(m, n) : n - 1 - rnd(m, 8);
		break;
	case MUT_LEN:		/* record length / sframe fre_len */
		if (sfr) {
			at = KUW_SFH_FRE_LEN;
		} else {
			r = rnd(m, s->nrec);
			at = s->rec[r];
		}
		robust_put32(m, buf, n, at);
		break;
	case MUT_PTR:		/* CIE pointer / sframe fdeoff, freoff, fre_off */
		if (sfr) {
			r = rnd(m, 3);
			at = r == 0 ? KUW_SFH_FDEOFF : r == 1 ? KUW_SFH_FREOFF :
			     s->fdeoff + rnd(m, s->nrec) * s->fdesize +
			     KUW_SFDE_FRE_OFF;
		} else {
			at = s->rec[rnd(m, s->nrec)] + 4;
		}
		robust_put32(m, buf, n, at);
		break;
	case MUT_ADDR:		/* FDE start or size */
		if (sfr)
			at = s->fdeoff + rnd(m, s->nrec) * s->fdesize +
			     (rnd(m, 2) ? KUW_SFDE_START : KUW_SFDE_SIZE);
		else
			at = s->rec[rnd(m, s->nrec)] + 8 + 4 * rnd(m, 2);
		robust_put32(m, buf, n, at);
		break;
	case MUT_INSN:		/* CFA instructions / FREs and FDE info */
		if (sfr) {
			at = rnd(m, 2) && n > s->freoff ?
			     s->freoff + rnd(m, n - s->freoff) :
			     s->fdeoff + rnd(m, s->nrec) * s->fdesize +
			     KUW_SFDE_INFO;
		} else {
			r = rnd(m, s->nrec);
			at = s->rec[r] + 8 + rnd(m, 24);
		}
		if (at >= n)
			at = n - 1;
		buf[at] = prandom_u32_state(&m->rnd);
		break;
	case MUT_HDR:		/* sframe header / CIE header bytes */
		at = sfr ? rnd(m, KUW_SFH_SIZE) : s->rec[0] + 8 + rnd(m, 16);
		buf[at] = rnd(m, 2) ? prandom_u32_state(&m->rnd) :
			  buf[at] ^ BIT(rnd(m, 8));
		break;
	case MUT_COUNT:		/* sframe num_fdes/num_fres, FDE num_fres */
		if (sfr) {
			r = rnd(m, 3);
			at = r == 0 ? KUW_SFH_NUM_FDES : r == 1 ?
			     KUW_SFH_NUM_FRES : s->fdeoff + rnd(m, s->nrec) *
			     s->fdesize + KUW_SFDE_NUM_FRES;
		} else {	/* augmentation data length / LEB128 bytes */
			at = s->rec[rnd(m, s->nrec)] + 12 + rnd(m, 8);
			if (at >= n)
				at = n - 1;
			buf[at] = rnd(m, 2) ? 0x80 | buf[at] : 0x7f;
			break;
		}
		robust_put32(m, buf, n, at);
		break;
	case MUT_SWAP:		/* two records or FDEs trade places */
	default: {
		u32 a, b, sz = sfr ? s->fdesize : 8;
		u8 tmp[KUW_SFDE_V2_SIZE];

		if (sfr) {
			a = s->fdeoff + rnd(m, s->nrec) * sz;
			b = s->fdeoff + rnd(m, s->nrec) * sz;
		} else {
			a = s->rec[rnd(m, s->nrec)] + 8;
			b = s->rec[rnd(m, s->nrec)] + 8;
		}
		if (a + sz > n || b + sz > n)
			break;
		memcpy(tmp, buf + a, sz);
		memcpy(buf + a, buf + b, sz);
		memcpy(buf + b, tmp, sz);
		break;
	}
	}
	return kind;
}

static void robust_use_table(struct kunit *test, struct robust_snap *snap,
			     struct robust_mut *m, const struct kuw_table *t)
{
	const struct kuw_rule *rule;
	u64 pcs[24], row, pc;
	u32 i, n;
	int stop;

	if (t->start > t->end || t->nrows > 1000000) {
		pr_err("robust: accepted table with range 0x%llx-0x%llx, %u rows\n",
		       t->start, t->end, t->nrows);
		m->faults++;
		return;
	}
	/* lookups at the ends, and random pcs around the table */
	for (i = 0; i < 8; i++) {
		pc = i == 0 ? t->start : i == 1 ? t->end - 1 : i == 2 ? t->end :
		     t->start - 64 + rnd(m, (u32)min_t(u64, t->end - t->start +
						       128, U32_MAX));
		if (!eng.lookup(t, pc, &rule, &row) &&
		    (row > pc || rule->nregs > KUW_MAX_REGS)) {
			pr_err("robust: lookup 0x%llx gave row 0x%llx\n",
			       pc, row);
			m->faults++;
		}
	}
	n = robust_walk_table(t, snap, m->walk, pcs, ARRAY_SIZE(pcs), &stop,
			      &m->faults);
	m->frames += n;
	/*
	 * One step with the snapshot's registers (a real stack) under the
	 * rule of a random pc, often one of the expression rows: whatever
	 * the rule says, reads stay inside this task's stacks.
	 */
	m->walk->regs = snap->regs;
	pc = rnd(m, 2) ? (unsigned long)robust_cfi_exprs + rnd(m, 16) :
	     t->start + rnd(m, (u32)min_t(u64, t->end - t->start, U32_MAX));
	if (!eng.lookup(t, pc, &rule, &row)) {
		preempt_disable();
		stop = eng.step(t->arch, t->sec, t->sec_size, rule,
				&m->walk->regs, &m->walk->st);
		preempt_enable();
		if (stop && !robust_named(stop)) {
			pr_err("robust: step at 0x%llx returned %d\n", pc, stop);
			m->faults++;
		}
		m->steps++;
	}
}

static void robust_mutated(struct kunit *test, struct robust_snap *snap)
{
	struct robust_mut *m = snap->ctx;
	const struct robust_sec *s = &m->sec;
	struct kuw_table *t;
	struct kuw_diag d;
	struct kuw_sec sec;
	u64 len, i;
	u8 *buf;
	int ret, k, nmut;

	buf = kvmalloc(s->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < mutations; i++) {
		memcpy(buf, s->data, s->size);
		len = s->size;
		nmut = 1 + (rnd(m, 4) == 0) + (rnd(m, 8) == 0);
		for (k = 0; k < nmut; k++)
			m->kinds[robust_mutate(m, buf, &len, s->size)]++;
		sec.data = buf;
		sec.size = len;
		sec.addr = (unsigned long)s->data;	/* where it was loaded */
		memset(&d, 0, sizeof(d));
		t = NULL;
		m->runs++;
		ret = eng.build(&m->obj, m->src, &sec, &t, &d);
		if (ret) {
			m->rejected++;
			if (!robust_named(ret) || !d.err || d.err >= KUW_E__COUNT) {
				pr_err("robust: %s mutation %llu (seed %u): rejected with %d, diag err %d\n",
				       m->name, i, seed, ret, d.err);
				m->faults++;
			} else {
				m->why[d.err]++;
			}
			if (t) {
				pr_err("robust: %s mutation %llu: table returned with an error\n",
				       m->name, i);
				m->faults++;
			}
		} else if (!t) {
			pr_err("robust: %s mutation %llu: success without a table\n",
			       m->name, i);
			m->faults++;
		} else {
			m->accepted++;
			robust_use_table(test, snap, m, t);
			eng.free(t);
		}
		robust_pause(i);
	}
	kvfree(buf);
}

static void robust_report_mut(struct robust_mut *m, u64 ns)
{
	char line[512];
	int i, n = 0;

	pr_info("robust: mutated-%s %u runs, %u rejected, %u faults\n",
		m->name, m->runs, m->rejected, m->faults);
	for (i = 1; i < KUW_E__COUNT; i++)
		if (m->why[i])
			n += scnprintf(line + n, sizeof(line) - n, " %s=%u",
				       robust_errname(-i), m->why[i]);
	pr_info("robust: mutated-%s rejections:%s\n", m->name, line);
	pr_info("robust: mutated-%s %u accepted, %u frames unwound with them, %u steps at random rows, %llu ms\n",
		m->name, m->accepted, m->frames, m->steps, ns / NSEC_PER_MSEC);
}

static struct robust_mut robust_mut_total;

static void robust_mutate_one(struct kunit *test, int src)
{
	struct robust_mut *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u64 t0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->walk = kunit_kzalloc(test, sizeof(*m->walk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->walk);
	KUNIT_ASSERT_EQ(test, robust_find_engine(test), 0);
	m->test = test;
	m->src = src;
	m->name = src == KUW_SRC_SFRAME ? "sframe" : "eh_frame";
	KUNIT_ASSERT_EQ_MSG(test, src == KUW_SRC_SFRAME ? robust_sfr(&m->sec) :
			    robust_ehf(&m->sec), 0,
			    "cannot find this module's .%s", m->name);
	robust_obj(&m->obj);
	prandom_seed_state(&m->rnd, seed + src);
	t0 = ktime_get_ns();
	robust_with_snapshot(test, robust_mutated, m);
	robust_report_mut(m, ktime_get_ns() - t0);
	KUNIT_EXPECT_EQ(test, m->faults, 0U);
	KUNIT_EXPECT_EQ(test, m->runs, mutations);
	/* the mutations must reach past the first check, both ways */
	KUNIT_EXPECT_GT(test, m->accepted, 0U);
	KUNIT_EXPECT_GT(test, m->rejected, mutations / 4);

	robust_mut_total.runs += m->runs;
	robust_mut_total.rejected += m->rejected;
	robust_mut_total.faults += m->faults;
	for (i = 0; i < KUW_E__COUNT; i++)
		robust_mut_total.why[i] += m->why[i];
}

/* ---- the snapshot and the sections themselves ---- */

static void robust_check_snapshot(struct kunit *test, struct robust_snap *s)
{
	int src = *(int *)s->ctx;
	struct robust_sec *sec = kunit_kzalloc(test, sizeof(*sec), GFP_KERNEL);
	struct kuw_obj o;
	struct kuw_sec ks;
	struct kuw_table *t = NULL;
	struct kuw_diag d = {};
	struct robust_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct kunwind_state *st;
	u64 pcs[16];
	u32 n, faults = 0, i;
	int stop, ret;

	KUNIT_ASSERT_NOT_NULL(test, sec);
	KUNIT_ASSERT_NOT_NULL(test, w);
	st = &w->st;
	ret = src == KUW_SRC_SFRAME ? robust_sfr(sec) : robust_ehf(sec);
	KUNIT_ASSERT_EQ(test, ret, 0);
	robust_obj(&o);
	ks.data = sec->data;
	ks.size = sec->size;
	ks.addr = (unsigned long)sec->data;
	ret = eng.build(&o, src, &ks, &t, &d);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s rejected: %s at 0x%llx",
			    kuw_src_name(src), robust_errname(d.err), d.off);
	KUNIT_EXPECT_GE(test, t->nfde, 5U);
	/*
	 * The table alone walks the snapshot through the chain to the
	 * return addresses the CPU pushed, then stops where this module's
	 * text ends (the caller of the KUnit case is kernel text).
	 */
	n = robust_walk_table(t, s, w, pcs, ARRAY_SIZE(pcs), &stop, &faults);
	KUNIT_EXPECT_EQ(test, faults, 0U);
	KUNIT_ASSERT_GE_MSG(test, n, (u32)ARRAY_SIZE(s->expect),
			    "%s: %u frames, stop %s", kuw_src_name(src), n,
			    robust_errname(stop));
	for (i = 0; i < ARRAY_SIZE(s->expect); i++)
		KUNIT_EXPECT_EQ_MSG(test, pcs[i], s->expect[i],
				    "%s frame %u: %pS vs %pS", kuw_src_name(src),
				    i, (void *)pcs[i], (void *)s->expect[i]);
	KUNIT_EXPECT_EQ(test, stop, -KUW_E_NOINFO);
	if (src == KUW_SRC_EH_FRAME) {
		const struct kuw_rule *r;
		const struct kuw_reg_rule *rr;
		bool cfa_expr = false, reg_expr = false;
		unsigned long fn = (unsigned long)robust_cfi_exprs;
		u64 row;

		/*
		 * (fn hidden from the optimiser: fn + 32 as a loop bound is a
		 * code address objtool takes for a call target without ENDBR)
		 */
		OPTIMIZER_HIDE_VAR(fn);
		/* the expression rows are there to be mutated and run */
		for (i = 0; i < 32; i++) {
			if (eng.lookup(t, fn + i, &r, &row))
				continue;
			cfa_expr |= r->cfa_kind == KUW_CFA_EXPR;
			rr = kuw_rule_find(r, KUW_X86_RBX);
			reg_expr |= rr && rr->kind == KUW_R_EXPR;
		}
		KUNIT_EXPECT_TRUE(test, cfa_expr);
		KUNIT_EXPECT_TRUE(test, reg_expr);
	}
	eng.free(t);

	/* the public API with every table agrees, and goes on to the end */
	w->pt = s->pt;
	__kunwind_start(st, current, &w->pt, NULL, KUNWIND_SRC_ANY);
	for (i = 0; i < ARRAY_SIZE(s->expect) && !kunwind_done(st); i++) {
		KUNIT_EXPECT_EQ(test, (u64)kunwind_get_return_address(st),
				s->expect[i]);
		kunwind_next_frame(st);
	}
	while (!kunwind_done(st))
		kunwind_next_frame(st);
	KUNIT_EXPECT_EQ_MSG(test, kunwind_stop_reason(st), -KUW_E_END,
			    "stop %s", robust_errname(kunwind_stop_reason(st)));
}

static void robust_snapshot_walks(struct kunit *test)
{
	static int srcs[] = { KUW_SRC_EH_FRAME, KUW_SRC_SFRAME };
	int i;

	KUNIT_ASSERT_EQ(test, robust_find_engine(test), 0);
	for (i = 0; i < ARRAY_SIZE(srcs); i++)
		robust_with_snapshot(test, robust_check_snapshot, &srcs[i]);
	KUNIT_EXPECT_EQ(test, robust_cfi_exprs(41), 42UL);
}

static void robust_mutated_ehframe(struct kunit *test)
{
	robust_mutate_one(test, KUW_SRC_EH_FRAME);
}

static void robust_mutated_sframe(struct kunit *test)
{
	robust_mutate_one(test, KUW_SRC_SFRAME);
	pr_info("robust: mutated-tables %u runs, %u rejected, %u faults\n",
		robust_mut_total.runs, robust_mut_total.rejected,
		robust_mut_total.faults);
}

/* ---- campaign 2: garbage stacks ---- */

/*
 * The garbage lives in the frames of a few nested calls, each with a
 * buffer just under the kernel's frame-size limit: together a few KiB of
 * random words with the real frames (saved registers, return addresses)
 * between them, as on a corrupted stack.
 */
#define ROBUST_GARBAGE_LEVELS	4
#define ROBUST_GARBAGE_WORDS	100	/* 800 bytes a frame */

struct robust_garbage {
	struct rnd_state rnd;
	u64 stext, etext;	/* kernel text */
	u64 mtext, mtext_end;	/* this module's text */
	u64 runs, frames, rejected, faults, maxframes;
	u64 why[KUW_E__COUNT];
	u64 *buf[ROBUST_GARBAGE_LEVELS];
	u32 todo;
};

static u64 grnd(struct robust_garbage *g, u64 n)
{
	u64 v = (u64)prandom_u32_state(&g->rnd) << 32 |
		prandom_u32_state(&g->rnd);

	return n ? v % n : v;
}

/* The address of a random word of the garbage buffers. */
static u64 *robust_garbage_slot(struct robust_garbage *g)
{
	return g->buf[grnd(g, ROBUST_GARBAGE_LEVELS)] +
	       grnd(g, ROBUST_GARBAGE_WORDS);
}

/* A word an unwinder may meet on a corrupted stack. */
static u64 robust_garbage_word(struct robust_garbage *g)
{
	u32 k = grnd(g, 100);

	if (k < 30)		/* kernel text */
		return g->stext + grnd(g, g->etext - g->stext);
	if (k < 45)		/* this module's text */
		return g->mtext + grnd(g, g->mtext_end - g->mtext);
	if (k < 65)		/* inside the buffers */
		return (unsigned long)robust_garbage_slot(g) +
		       (grnd(g, 8) ? 0 : grnd(g, 8));
	if (k < 72)		/* elsewhere on this stack */
		return (unsigned long)task_stack_page(current) +
		       grnd(g, THREAD_SIZE);
	if (k < 80)
		return grnd(g, 4096);
	if (k < 85)
		return -grnd(g, 4096);
	return grnd(g, 0);
}

static void robust_garbage_fill(struct robust_garbage *g, bool all)
{
	u32 l, j;

	for (l = 0; l < ROBUST_GARBAGE_LEVELS; l++)
		for (j = 0; j < ROBUST_GARBAGE_WORDS; j++)
			if (all || !grnd(g, 4))
				g->buf[l][j] = robust_garbage_word(g);
}

static void robust_garbage_regs(struct robust_garbage *g, struct pt_regs *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->ax = robust_garbage_word(g);
	pt->bx = robust_garbage_word(g);
	pt->cx = robust_garbage_word(g);
	pt->dx = robust_garbage_word(g);
	pt->si = robust_garbage_word(g);
	pt->di = robust_garbage_word(g);
	pt->r8 = robust_garbage_word(g);
	pt->r12 = robust_garbage_word(g);
	pt->r13 = robust_garbage_word(g);
	pt->r14 = robust_garbage_word(g);
	pt->r15 = robust_garbage_word(g);
	pt->bp = grnd(g, 2) ? (unsigned long)robust_garbage_slot(g) :
		 robust_garbage_word(g);
	switch (grnd(g, 8)) {
	case 0:
		pt->sp = robust_garbage_word(g);
		break;
	case 1:		/* unaligned, in a buffer */
		pt->sp = (unsigned long)robust_garbage_slot(g) + grnd(g, 8);
		break;
	case 2: case 3:	/* in the deepest buffer: the walk crosses them all */
		pt->sp = (unsigned long)(g->buf[ROBUST_GARBAGE_LEVELS - 1] +
					 grnd(g, ROBUST_GARBAGE_WORDS));
		break;
	default:
		pt->sp = (unsigned long)robust_garbage_slot(g);
		break;
	}
	switch (grnd(g, 8)) {
	case 0:
		pt->ip = robust_garbage_word(g);
		break;
	case 1: case 2:
		pt->ip = g->mtext + grnd(g, g->mtext_end - g->mtext);
		break;
	default:
		pt->ip = g->stext + grnd(g, g->etext - g->stext);
		break;
	}
	pt->cs = __KERNEL_CS;
	pt->ss = __KERNEL_DS;
	pt->flags = X86_EFLAGS_FIXED;
}

static void robust_garbage_unwind(struct kunwind_state *st,
				  struct pt_regs *pt, u8 src)
{
	__kunwind_start(st, current, pt, NULL, src);
	while (!kunwind_done(st))
		kunwind_next_frame(st);
}

static noinline void robust_garbage_loop(struct robust_garbage *g)
{
	struct kunwind_state st;
	struct pt_regs pt;
	unsigned long flags;
	u32 i;
	int stop;
	u8 src;

	for (i = 0; i < g->todo; i++) {
		robust_garbage_fill(g, !(i & 255));
		robust_garbage_regs(g, &pt);
		/* any table or one source (no vmlinux .debug_frame: rarely) */
		src = grnd(g, 16);
		src = src == 0 ? KUW_SRC_DEBUG_FRAME : src < 6 ? KUW_SRC_EH_FRAME :
		      src < 11 ? KUW_SRC_SFRAME : KUNWIND_SRC_ANY;
		if (!garbage_orc || i % max(garbage_orc, 1U))
			src |= KUNWIND_NO_ORC;

		/* kunwind is safe in any context: try three */
		if (i % 3 == 0) {
			robust_garbage_unwind(&st, &pt, src);
		} else if (i % 3 == 1) {
			preempt_disable();
			robust_garbage_unwind(&st, &pt, src);
			preempt_enable();
		} else {
			local_irq_save(flags);
			robust_garbage_unwind(&st, &pt, src);
			local_irq_restore(flags);
		}
		stop = kunwind_stop_reason(&st);
		g->runs++;
		g->frames += st.nframes;
		g->maxframes = max_t(u64, g->maxframes, st.nframes);
		if (!robust_named(stop) || st.nframes > KUNWIND_MAX_FRAMES) {
			pr_err("robust: garbage run %u (seed %u): stop %d after %u frames\n",
			       i, seed, stop, st.nframes);
			g->faults++;
			continue;
		}
		g->why[-stop]++;
		if (stop != -KUW_E_END)
			g->rejected++;
		robust_pause(i);
	}
}

static noinline void robust_garbage_level(struct robust_garbage *g, int level)
{
	u64 buf[ROBUST_GARBAGE_WORDS];

	g->buf[level] = buf;
	if (level + 1 < ROBUST_GARBAGE_LEVELS)
		robust_garbage_level(g, level + 1);
	else
		robust_garbage_loop(g);
	barrier_data(buf);
	g->buf[level] = NULL;
}

static void robust_garbage_stacks(struct kunit *test)
{
	struct robust_garbage *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct kunwind_table_info vt;
	struct kuw_obj o;
	char line[512];
	int i, n = 0;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_ASSERT_EQ(test, robust_find_engine(test), 0);
	KUNIT_ASSERT_GT(test, kunwind_tables_of("vmlinux", &vt, 1), 0);
	g->stext = vt.text_start;
	g->etext = vt.text_end;
	KUNIT_ASSERT_TRUE(test, g->stext && g->etext > g->stext);
	robust_obj(&o);
	g->mtext = o.text_start;
	g->mtext_end = o.text_end;
	prandom_seed_state(&g->rnd, seed + 7);
	t0 = ktime_get_ns();
	g->todo = garbage_runs;
	robust_garbage_level(g, 0);
	pr_info("robust: garbage-stacks %llu runs, %llu rejected, %llu faults\n",
		g->runs, g->rejected, g->faults);
	for (i = 1; i < KUW_E__COUNT; i++)
		if (g->why[i])
			n += scnprintf(line + n, sizeof(line) - n, " %s=%llu",
				       robust_errname(-i), g->why[i]);
	pr_info("robust: garbage-stacks stops:%s\n", line);
	pr_info("robust: garbage-stacks %llu frames, at most %llu in one unwind, %llu ms\n",
		g->frames, g->maxframes, (ktime_get_ns() - t0) / NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, g->faults, 0ULL);
	KUNIT_EXPECT_EQ(test, g->runs, (u64)garbage_runs);
	KUNIT_EXPECT_LE(test, g->maxframes, (u64)KUNWIND_MAX_FRAMES);
}

static struct kunit_case robust_cases[] = {
	KUNIT_CASE(robust_snapshot_walks),
	KUNIT_CASE(robust_mutated_ehframe),
	KUNIT_CASE(robust_mutated_sframe),
	KUNIT_CASE(robust_garbage_stacks),
	{}
};

static struct kunit_suite robust_suite = {
	.name = "kunwind_robust",
	.test_cases = robust_cases,
};

kunit_test_suite(robust_suite);

/* ---- campaign 3's unwinder: every task, over and over ---- */

#define ROBUST_STORM_TASKS	64

struct robust_storm {
	struct task_struct *thread;
	u64 unwinds, frames, payload_frames, faults, refused;
	u64 why[KUW_E__COUNT];
};

static struct robust_storm robust_storm;
static DEFINE_MUTEX(robust_storm_mutex);

/*
 * Another task's stack is pinned while it is walked (it may exit
 * meanwhile): try_get_task_stack(), then kunwind_put_task_stack().
 */

static void robust_storm_walk(struct robust_storm *s, struct task_struct *t)
{
	struct kunwind_state st;
	int stop;

	rcu_read_lock();
	kunwind_start(&st, t, NULL, NULL);
	while (!kunwind_done(&st)) {
		if (st.table && !strcmp(st.table->owner, "robust_payload"))
			s->payload_frames++;
		kunwind_next_frame(&st);
	}
	rcu_read_unlock();
	stop = kunwind_stop_reason(&st);
	s->unwinds++;
	s->frames += st.nframes;
	if (!robust_named(stop) || st.nframes > KUNWIND_MAX_FRAMES) {
		pr_err("robust: storm: %s/%d stop %d after %u frames\n",
		       t->comm, t->pid, stop, st.nframes);
		s->faults++;
		return;
	}
	s->why[-stop]++;
	if (stop == -KUW_E_RUNNING)
		s->refused++;	/* running on the other CPU */
}

static int robust_storm_fn(void *data)
{
	struct robust_storm *s = data;
	struct task_struct **tasks, *g, *t;
	u32 n, i;

	tasks = kcalloc(ROBUST_STORM_TASKS, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	while (!kthread_should_stop()) {
		n = 0;
		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (n == ROBUST_STORM_TASKS)
				break;
			/* the payload's threads every time, others by turns */
			if (strncmp(t->comm, "kuw_robust", 10) &&
			    (s->unwinds + t->pid) % 4)
				continue;
			get_task_struct(t);
			tasks[n++] = t;
		}
		rcu_read_unlock();
		for (i = 0; i < n; i++) {
			if (try_get_task_stack(tasks[i])) {
				robust_storm_walk(s, tasks[i]);
				kunwind_put_task_stack(tasks[i]);
			}
			put_task_struct(tasks[i]);
		}
		robust_storm_walk(s, current);
		usleep_range(20, 100);	/* see robust_pause() */
	}
	kfree(tasks);
	return 0;
}

static int robust_storm_set(const char *val, const struct kernel_param *kp)
{
	struct robust_storm *s = &robust_storm;
	char line[512];
	bool on;
	int ret, i, n = 0;

	ret = kstrtobool(val, &on);
	if (ret)
		return ret;
	mutex_lock(&robust_storm_mutex);
	if (on && !s->thread) {
		memset(s, 0, sizeof(*s));
		s->thread = kthread_run(robust_storm_fn, s, "robust_storm");
		if (IS_ERR(s->thread)) {
			ret = PTR_ERR(s->thread);
			s->thread = NULL;
		}
	} else if (!on && s->thread) {
		kthread_stop(s->thread);
		s->thread = NULL;
		for (i = 1; i < KUW_E__COUNT; i++)
			if (s->why[i])
				n += scnprintf(line + n, sizeof(line) - n,
					       " %s=%llu", kunwind_strerror(-i),
					       s->why[i]);
		pr_info("robust: storm-unwinder %llu unwinds, %llu frames, %llu in robust_payload, %llu refused (running), %llu faults\n",
			s->unwinds, s->frames, s->payload_frames, s->refused,
			s->faults);
		pr_info("robust: storm-unwinder stops:%s\n", n ? line : "");
	}
	mutex_unlock(&robust_storm_mutex);
	return ret;
}

static int robust_storm_get(char *buf, const struct kernel_param *kp)
{
	struct robust_storm *s = &robust_storm;

	return sysfs_emit(buf, "%d %llu %llu %llu\n", !!s->thread, s->unwinds,
			  s->payload_frames, s->faults);
}

static const struct kernel_param_ops robust_storm_ops = {
	.set = robust_storm_set,
	.get = robust_storm_get,
};
module_param_cb(storm, &robust_storm_ops, NULL, 0600);
MODULE_PARM_DESC(storm, "1: unwind every task continuously; 0: stop, print counts");

static void __exit robust_exit(void)
{
	robust_storm_set("0", NULL);
}
module_exit(robust_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind robustness campaigns: mutated tables, garbage stacks, storm unwinder");
