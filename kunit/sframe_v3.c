// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite: a module whose .sframe is SFrame v3.  kunit/Kbuild builds
 * this file only when it is given an assembler of binutils 2.46 or later
 * (KUW_SID_AS: the Debian sid root's gas, scripts/debian.sh kuw_sid_as),
 * which writes v3 for -Wa,--gsframe; the C is compiled by the kernel's own
 * compiler.  The chain of kunit/chain.c is part of this translation unit.
 *
 * Independent truths: the SFrame header binutils wrote (version 3), the
 * module's .eh_frame (DWARF CFI from the same compiler run, a format and
 * a reader path of its own), the kernel's own unwinder (stack_trace_save()
 * and kt_ref_walk(): ORC or frame pointers) on the same stack, and the
 * names of the chain's functions.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include "kunwind.h"
#include "kt_arch.h"
#include "kt_sframe.h"
#include "chain.c"

#define KT3_MAX	96

struct kt3_trace {
	unsigned long pc[KT3_MAX];
	bool rel[KT3_MAX];	/* every frame up to this one from tables */
	unsigned int n;
	int err;
	bool reliable;
};

static noinline void kt3_unwind(struct kt3_trace *t, struct pt_regs *regs,
				u8 src)
{
	struct kunwind_state st;

	t->n = 0;
	for (__kunwind_start(&st, current, regs, NULL, src); !kunwind_done(&st);
	     kunwind_next_frame(&st))
		if (t->n < KT3_MAX) {
			t->rel[t->n] = st.reliable;
			t->pc[t->n++] = kunwind_get_return_address(&st);
		}
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
	barrier();
}

static bool kt3_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) && (sym[n] == 0 || sym[n] == ' ');
}

static void kt3_dump(struct kunit *test, const char *what,
		     const unsigned long *pc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kunit_info(test, "%s %2u %pS\n", what, i, (void *)pc[i]);
}

/* The .sframe table of this module and the version in its header. */
static void kt3_own_tables(struct kunit *test)
{
	struct kunwind_table_info info[4];
	int n = kunwind_tables_of(KBUILD_MODNAME, info, ARRAY_SIZE(info));
	int i, eh = -1, sf = -1;
	const u8 *h;

	KUNIT_ASSERT_EQ(test, n, 2);
	for (i = 0; i < n; i++) {
		if (info[i].src == KUW_SRC_EH_FRAME)
			eh = i;
		if (info[i].src == KUW_SRC_SFRAME)
			sf = i;
	}
	KUNIT_ASSERT_GE(test, eh, 0);
	KUNIT_ASSERT_GE(test, sf, 0);
	/* sfp_preamble: u16 magic 0xdee2, u8 version, u8 flags */
	h = (const u8 *)(unsigned long)info[sf].sec_addr;
	KUNIT_ASSERT_GE(test, info[sf].sec_size, 4ULL);
	KUNIT_EXPECT_EQ(test, h[0] | h[1] << 8, 0xdee2);
	KUNIT_EXPECT_EQ(test, h[2], 3);
	KUNIT_EXPECT_GT(test, info[sf].nfde, 10U);
	KUNIT_EXPECT_LE(test, info[sf].text_start, (unsigned long)kuw_chain_f1);
	KUNIT_EXPECT_GT(test, info[sf].text_end, (unsigned long)kuw_chain_f1);
	kunit_info(test, "SFrame v%u: %u FDEs %u rows; .eh_frame: %u FDEs %u rows\n",
		   h[2], info[sf].nfde, info[sf].nrows, info[eh].nfde,
		   info[eh].nrows);
}

/* ---- walks from inside the chain: .sframe == .eh_frame == the kernel's ---- */

struct kt3_leaf {
	struct kt3_trace eh, sf;
	unsigned long ref[KT3_MAX];
	unsigned int nref;
};

static noinline int kt3_leaf(struct kuw_chain *c)
{
	struct kt3_leaf *l = c->priv;

	kt3_unwind(&l->sf, NULL, KUW_SRC_SFRAME);
	kt3_unwind(&l->eh, NULL, KUW_SRC_EH_FRAME);
	l->nref = stack_trace_save(l->ref, KT3_MAX, 0);
	barrier();
	return 0;
}

static bool kt3_same_fn(unsigned long a, unsigned long b)
{
	char *x = kmalloc(2 * KSYM_SYMBOL_LEN, GFP_KERNEL);
	bool same;

	if (!x)
		return false;
	sprint_symbol_no_offset(x, a);
	sprint_symbol_no_offset(x + KSYM_SYMBOL_LEN, b);
	same = !strcmp(x, x + KSYM_SYMBOL_LEN);
	kfree(x);
	return same;
}

/*
 * The .sframe walk is reliable.  Where kunwind refused vmlinux's own
 * .sframe (kt_sframe.h) vmlinux's frames are stepped by the kernel's
 * unwinder: reliable then up to the first frame past this module's, the
 * last one this module's SFrame v3 table stepped to, and not as a whole.
 */
static bool kt3_expect_reliable(struct kunit *test, const struct kt3_trace *sf)
{
	unsigned int k;
	bool ok;

	if (!kt_vmlinux_sframe_refused()) {
		KUNIT_EXPECT_TRUE(test, sf->reliable);
		return sf->reliable;
	}
	k = kt_past_module(sf->pc, sf->n);
	ok = k < sf->n && sf->rel[k];
	KUNIT_EXPECT_TRUE_MSG(test, ok,
			      "unreliable before frame %u of %u (the first past this module's)",
			      k, sf->n);
	KUNIT_EXPECT_FALSE(test, sf->reliable);
	kunit_info(test, "vmlinux .sframe refused: reliable through this module's table to frame %u of %u, then the kernel's unwinder\n",
		   k, sf->n);
	return ok;
}

/*
 * The same frames, stop reason and reliability from both tables (where
 * vmlinux's .sframe was refused: the same reliability up to the first
 * frame past this module's, see kt3_expect_reliable()).
 * @skip1: the two walks were started from two calls in the same function
 * (frame 1 is that function, at two return addresses).
 */
static unsigned int kt3_expect_same(struct kunit *test,
				    const struct kt3_trace *eh,
				    const struct kt3_trace *sf, bool skip1)
{
	unsigned int i, same = 0;

	KUNIT_EXPECT_EQ(test, sf->n, eh->n);
	for (i = 0; i < min(sf->n, eh->n); i++)
		same += sf->pc[i] == eh->pc[i] ||
			(i == 1 && skip1 && kt3_same_fn(sf->pc[i], eh->pc[i]));
	KUNIT_EXPECT_EQ(test, same, eh->n);
	KUNIT_EXPECT_EQ_MSG(test, sf->err, eh->err, ".sframe stopped: %s",
			    kunwind_strerror(sf->err));
	if (kt_vmlinux_sframe_refused()) {
		i = kt_past_module(sf->pc, sf->n);
		KUNIT_EXPECT_LT(test, i, min(sf->n, eh->n));
		if (i < min(sf->n, eh->n))
			KUNIT_EXPECT_EQ_MSG(test, sf->rel[i], eh->rel[i],
					    "reliable at frame %u", i);
	} else {
		KUNIT_EXPECT_EQ(test, sf->reliable, eh->reliable);
	}
	if (same != eh->n || sf->n != eh->n) {
		kt3_dump(test, ".sframe", sf->pc, sf->n);
		kt3_dump(test, ".eh_frame", eh->pc, eh->n);
	}
	return same;
}

static void kt3_chain(struct kunit *test)
{
	struct kt3_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt3_leaf, .alloca_n = 200 };
	unsigned int i, same = 0, n;

	KUNIT_ASSERT_NOT_NULL(test, l);
	c.priv = l;
	kuw_chain_run(&c);
	n = kt3_expect_same(test, &l->eh, &l->sf, true);
	/* kt3_unwind, kt3_leaf, the chain, this function */
	KUNIT_ASSERT_GE(test, l->sf.n, (unsigned int)ARRAY_SIZE(kuw_chain_frames_plain) + 3);
	KUNIT_EXPECT_TRUE(test, kt3_is(l->sf.pc[1], "kt3_leaf"));
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain); i++)
		KUNIT_EXPECT_TRUE_MSG(test, kt3_is(l->sf.pc[2 + i],
						   kuw_chain_frames_plain[i]),
				      "frame %u: %pS, expected %s", 2 + i,
				      (void *)l->sf.pc[2 + i],
				      kuw_chain_frames_plain[i]);
	KUNIT_EXPECT_EQ_MSG(test, l->sf.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->sf.err));
	kt3_expect_reliable(test, &l->sf);
	/* the kernel's trace starts at the leaf: ours[2..] == ref[1..] */
	KUNIT_EXPECT_EQ(test, l->sf.n - 2, l->nref - 1);
	for (i = 0; i + 2 < l->sf.n && i + 1 < l->nref; i++)
		same += l->sf.pc[i + 2] == l->ref[i + 1];
	KUNIT_EXPECT_EQ(test, same, l->nref - 1);
	if (same != l->nref - 1) {
		kt3_dump(test, ".sframe", l->sf.pc, l->sf.n);
		kt3_dump(test, "kernel", l->ref, l->nref);
	}
	kunit_info(test, "chain: %u frames, .sframe == .eh_frame at %u, == the kernel's at %u of %u\n",
		   l->sf.n, n, same, l->nref - 1);
}

/* The signal-like frame: v3 has a signal bit and flexible RA offsets. */
static void kt3_chain_signal(struct kunit *test)
{
	struct kt3_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt3_leaf, .alloca_n = 24, .sig = true };
	unsigned int i, n;

	KUNIT_ASSERT_NOT_NULL(test, l);
	c.priv = l;
	kuw_chain_run(&c);
	n = kt3_expect_same(test, &l->eh, &l->sf, true);
	KUNIT_ASSERT_GE(test, l->sf.n, (unsigned int)ARRAY_SIZE(kuw_chain_frames_sig) + 3);
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_sig); i++)
		KUNIT_EXPECT_TRUE_MSG(test, kt3_is(l->sf.pc[2 + i],
						   kuw_chain_frames_sig[i]),
				      "frame %u: %pS, expected %s", 2 + i,
				      (void *)l->sf.pc[2 + i],
				      kuw_chain_frames_sig[i]);
	KUNIT_EXPECT_EQ_MSG(test, l->sf.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->sf.err));
	kunit_info(test, "signal chain: %u frames, .sframe == .eh_frame at %u\n",
		   l->sf.n, n);
}

/* ---- from a pt_regs, as the oops hook starts ---- */

struct kt3_regs {
	struct pt_regs regs;
	struct kt3_trace eh, sf;
	unsigned long ref[KT3_MAX];
	unsigned int nref;
};

static noinline int kt3_regs_leaf(struct kuw_chain *c)
{
	struct kt3_regs *o = c->priv;
	struct pt_regs *r = &o->regs;

	KT_CAPTURE_REGS(r);
	kt3_unwind(&o->sf, r, KUW_SRC_SFRAME);
	kt3_unwind(&o->eh, r, KUW_SRC_EH_FRAME);
	o->nref = kt_ref_walk(current, r, o->ref, KT3_MAX);
	barrier();
	return 0;
}

static void kt3_regs(struct kunit *test)
{
	struct kt3_regs *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt3_regs_leaf, .alloca_n = 56 };
	unsigned int i, same = 0, n;

	KUNIT_ASSERT_NOT_NULL(test, o);
	c.priv = o;
	kuw_chain_run(&c);
	n = kt3_expect_same(test, &o->eh, &o->sf, false);
	KUNIT_EXPECT_EQ(test, o->sf.pc[0], instruction_pointer(&o->regs));
	/* kunwind's first frame is the regs' pc; ours[1..] == ref[0..] */
	KUNIT_EXPECT_EQ(test, o->sf.n, o->nref + 1);
	for (i = 0; i + 1 < o->sf.n && i < o->nref; i++)
		same += o->sf.pc[i + 1] == o->ref[i];
	KUNIT_EXPECT_EQ(test, same, o->nref);
	KUNIT_EXPECT_GT(test, o->nref, (unsigned int)ARRAY_SIZE(kuw_chain_frames_plain));
	KUNIT_EXPECT_EQ_MSG(test, o->sf.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(o->sf.err));
	kt3_expect_reliable(test, &o->sf);
	if (same != o->nref) {
		kt3_dump(test, ".sframe", o->sf.pc, o->sf.n);
		kt3_dump(test, "kernel", o->ref, o->nref);
	}
	kunit_info(test, "regs: %u frames, .sframe == .eh_frame at %u, == the kernel's at %u of %u\n",
		   o->sf.n, n, same, o->nref);
}

/* ---- every row of the module: the rules a walk steps by ---- */

static bool kt3_same_reg(const struct kuw_rule *a, const struct kuw_rule *b,
			 u8 reg)
{
	const struct kuw_reg_rule *x = kuw_rule_find(a, reg);
	const struct kuw_reg_rule *y = kuw_rule_find(b, reg);

	if (x && x->kind == KUW_R_SAME)
		x = NULL;
	if (y && y->kind == KUW_R_SAME)
		y = NULL;
	if (!x || !y)
		return !x && !y;
	return x->kind == y->kind && x->src == y->src && x->off == y->off;
}

/*
 * At every pc of the module's text where either table starts a row and
 * .sframe has one: the CFA, the return address's and the frame pointer's
 * rules (what SFrame records, what a walk steps by) are .eh_frame's.
 */
static void kt3_rows(struct kunit *test)
{
	struct kunwind_rule_info *e, *s;
	struct kunwind_table_info info[4];
	unsigned long pc, lo = ULONG_MAX, hi = 0;
	u64 last_e = 0, last_s = 0;
	const struct kuw_reg_rule *fe, *fs;
	unsigned int rows = 0, bad = 0, nosf = 0, fp_kept = 0;
	unsigned long fp_pc = 0;
	s32 fp_off = 0;
	int n, i;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL(test, s);
	n = kunwind_tables_of(KBUILD_MODNAME, info, ARRAY_SIZE(info));
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n; i++) {
		lo = min(lo, info[i].text_start);
		hi = max(hi, info[i].text_end);
	}
	for (pc = lo; pc < hi; pc++) {
		bool re = !kunwind_rule_for_pc(pc, KUW_SRC_EH_FRAME, e);
		bool rs = !kunwind_rule_for_pc(pc, KUW_SRC_SFRAME, s);
		bool start = (re && e->row_pc == pc && e->row_pc != last_e) ||
			     (rs && s->row_pc == pc && s->row_pc != last_s);

		if (re)
			last_e = e->row_pc;
		if (rs)
			last_s = s->row_pc;
		if (!start)
			continue;
		if (!rs) {
			nosf++;
			continue;
		}
		rows++;
		KUNIT_EXPECT_TRUE_MSG(test, re, "%pS: a .sframe row, no .eh_frame one",
				      (void *)pc);
		if (!re)
			continue;
		fe = kuw_rule_find(&e->rule, KT_REG_FP);
		if (fe && fe->kind == KUW_R_OFFSET) {
			fp_pc = pc;
			fp_off = fe->off;
		}
		if (s->rule.cfa_kind != e->rule.cfa_kind ||
		    s->rule.cfa_reg != e->rule.cfa_reg ||
		    s->rule.cfa_off != e->rule.cfa_off ||
		    !kt3_same_reg(&s->rule, &e->rule, KT_REG_RA))
			goto differ;
		if (kt3_same_reg(&s->rule, &e->rule, KT_REG_FP))
			continue;
		/*
		 * gas (2.40, and 2.47 here) keeps the frame pointer's save slot
		 * in .sframe after `pop %rbp; .cfi_restore %rbp`, where
		 * .eh_frame has no rule for it any more (the host's
		 * compare.py ehsf tolerates the same): allowed only with that
		 * slot, the one .eh_frame gave earlier in this function.
		 */
		fs = kuw_rule_find(&s->rule, KT_REG_FP);
		if ((!fe || fe->kind == KUW_R_SAME) && fs &&
		    fs->kind == KUW_R_OFFSET && fp_pc && fs->off == fp_off &&
		    kt3_same_fn(fp_pc, pc)) {
			fp_kept++;
			continue;
		}
differ:
		if (++bad <= 8) {
			char *rs = kunit_kzalloc(test, 512, GFP_KERNEL);

			KUNIT_ASSERT_NOT_NULL(test, rs);
			kuw_format_row(rs, 256, KT_ARCH, pc, &s->rule);
			kuw_format_row(rs + 256, 256, KT_ARCH, pc, &e->rule);
			kunit_info(test, ".sframe   %s\n", rs);
			kunit_info(test, ".eh_frame %s (%pS)\n", rs + 256,
				   (void *)pc);
		}
	}
	KUNIT_EXPECT_GT(test, rows, 50U);
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_LT(test, fp_kept, rows / 4);
	kunit_info(test, "rows: %u compared (CFA, RA, FP), %u differ, %u with FP's slot kept after its restore; %u row starts without .sframe\n",
		   rows, bad, fp_kept, nosf);
}

static struct kunit_case kt3_cases[] = {
	KUNIT_CASE(kt3_own_tables),
	KUNIT_CASE(kt3_chain),
	KUNIT_CASE(kt3_chain_signal),
	KUNIT_CASE(kt3_regs),
	KUNIT_CASE(kt3_rows),
	{}
};

static struct kunit_suite kt3_suite = {
	.name = "kunwind_sframe_v3",
	.test_cases = kt3_cases,
};

kunit_test_suite(kt3_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind: a module with SFrame v3, walks against .eh_frame");
