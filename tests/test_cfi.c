// SPDX-License-Identifier: GPL-2.0
/*
 * DW_CFA interpreter tests.  Each fixture is a function written with
 * .cfi_* directives (exotic opcodes with .cfi_escape), assembled by `as`
 * and linked by `ld -shared`; the expected rows are written here from the
 * directives (DWARF semantics), and every fixture is also compared row by
 * row with `readelf --debug-dump=frames-interp`.  Error cases check the
 * error code and the exact byte offset of the offending instruction,
 * found in the section by its bytes.
 */
#define _GNU_SOURCE
#include <string.h>
#include "engine.h"
#include "arch.h"
#include "dwarf.h"
#include "cfi_fixture.h"
#include "mem.h"
#include "kt.h"

#define HEAD "\t.text\n\t.globl f\n\t.type f,@function\nf:\n\t.cfi_startproc\n"
#define TAIL "\tret\n\t.cfi_endproc\n\t.size f,.-f\n"

/*
 * Build @name from @body (between .cfi_startproc and ret), walk .eh_frame
 * (or .debug_frame), compare with readelf and return the rows of the one
 * FDE as text.  NULL (and a test failure) when anything goes wrong.
 */
static const char *rows_of(const char *name, const char *body, bool debug,
			   struct kcfi_col **out)
{
	static char text[16384];
	struct kcfi_col *c = kcfi_col_new();
	struct kcfi_obj x;
	struct kuw_diag d = { 0 };
	char src[16384], so[512];
	u32 n = 0;
	int ret, bad;

	snprintf(src, sizeof(src), "%s" HEAD "%s" TAIL,
		 debug ? "\t.cfi_sections .debug_frame\n" : "", body);
	ret = kcfi_run_asm(name, src, debug, &x, c, &d);
	if (ret) {
		kt_fail(__FILE__, __LINE__, "%s: walk %d (%s at %s+0x%llx)",
			name, ret, kuw_strerror(ret), d.section ? d.section :
			"?", d.off);
		kcfi_col_free(c);
		if (!ret || ret > -1000)
			kcfi_unload(&x);
		return NULL;
	}
	if (c->bad || c->nfde != 1)
		kt_fail(__FILE__, __LINE__, "%s: %u FDEs, bad %d", name,
			c->nfde, c->bad);
	snprintf(so, sizeof(so), "%s/%s.so", kt_builddir, name);
	bad = kcfi_readelf_compare(so, debug, KUW_ARCH_X86_64, c, &n);
	if (bad)
		kt_fail(__FILE__, __LINE__, "%s: %d mismatches with readelf",
			name, bad);
	snprintf(text, sizeof(text), "%s", kcfi_fde_text(c, 0, x.o.arch));
	kcfi_unload(&x);
	if (out)
		*out = c;
	else
		kcfi_col_free(c);
	return text;
}

#define EXPECT_ROWS(name, body, want)					\
	do {								\
		const char *_t = rows_of(name, body, false, NULL);	\
		if (_t)							\
			KT_EXPECT_STR(_t, want);			\
	} while (0)

/* The CIE gas writes for x86_64: cfa=rsp+8, ra at cfa-8. */
#define R0 "0x0 cfa=rsp+8 ra=c-8"

KT_TEST(cfi_advance_loc_all_widths)
{
	/* advance_loc (6 bits), advance_loc1, advance_loc2, advance_loc4. */
	EXPECT_ROWS("cfi_adv",
		    "\tnop\n\t.cfi_def_cfa_offset 16\n"
		    "\t.skip 100\n\t.cfi_def_cfa_offset 24\n"
		    "\t.skip 1000\n\t.cfi_def_cfa_offset 32\n"
		    "\t.skip 70000\n\t.cfi_def_cfa_offset 40\n",
		    R0 "\n0x1 cfa=rsp+16 ra=c-8"
		    "\n0x65 cfa=rsp+24 ra=c-8"
		    "\n0x44d cfa=rsp+32 ra=c-8"
		    "\n0x115bd cfa=rsp+40 ra=c-8");
}

KT_TEST(cfi_offset_forms)
{
	/*
	 * offset (0x80|reg), offset_extended_sf (gas: positive offset),
	 * offset_extended (0x05, escaped), GNU_negative_offset_extended
	 * (0x2f: offset negated).  data_align is -8.
	 */
	EXPECT_ROWS("cfi_off",
		    "\tnop\n\t.cfi_offset rbx, -16\n"
		    "\tnop\n\t.cfi_offset rbp, 16\n"
		    "\tnop\n\t.cfi_escape 0x05, 12, 3\n"
		    "\tnop\n\t.cfi_escape 0x2f, 13, 4\n",
		    R0 "\n0x1 cfa=rsp+8 rbx=c-16 ra=c-8"
		    "\n0x2 cfa=rsp+8 rbx=c-16 rbp=c+16 ra=c-8"
		    "\n0x3 cfa=rsp+8 rbx=c-16 rbp=c+16 r12=c-24 ra=c-8"
		    "\n0x4 cfa=rsp+8 rbx=c-16 rbp=c+16 r12=c-24 r13=c+32"
		    " ra=c-8");
}

KT_TEST(cfi_val_offset_forms)
{
	/* val_offset (0x14) and val_offset_sf (0x15). */
	EXPECT_ROWS("cfi_valoff",
		    "\tnop\n\t.cfi_val_offset rbx, -16\n"
		    "\tnop\n\t.cfi_escape 0x14, 12, 2\n"
		    "\tnop\n\t.cfi_escape 0x15, 13, 0x7e\n",
		    R0 "\n0x1 cfa=rsp+8 rbx=v-16 ra=c-8"
		    "\n0x2 cfa=rsp+8 rbx=v-16 r12=v-16 ra=c-8"
		    "\n0x3 cfa=rsp+8 rbx=v-16 r12=v-16 r13=v+16 ra=c-8");
}

KT_TEST(cfi_undefined_same_register)
{
	/*
	 * readelf --debug-dump=frames-interp prints r12 "s" from 0x3 on:
	 * same_value is a rule of its own, not the absence of one.
	 */
	EXPECT_ROWS("cfi_usr",
		    "\tnop\n\t.cfi_undefined r12\n"
		    "\tnop\n\t.cfi_register rbx, r14\n"
		    "\tnop\n\t.cfi_same_value r12\n"
		    "\tnop\n\t.cfi_undefined rip\n",
		    R0 "\n0x1 cfa=rsp+8 r12=u ra=c-8"
		    "\n0x2 cfa=rsp+8 rbx=r14 r12=u ra=c-8"
		    "\n0x3 cfa=rsp+8 rbx=r14 r12=s ra=c-8"
		    "\n0x4 cfa=rsp+8 rbx=r14 r12=s ra=u");
}

KT_TEST(cfi_def_cfa_forms)
{
	/*
	 * def_cfa, def_cfa_register, def_cfa_offset, def_cfa_sf (0x12:
	 * factored, -2 * -8 = 16), def_cfa_offset_sf (0x13: -3 * -8 = 24).
	 */
	EXPECT_ROWS("cfi_defcfa",
		    "\tnop\n\t.cfi_def_cfa rbp, 16\n"
		    "\tnop\n\t.cfi_def_cfa_register r12\n"
		    "\tnop\n\t.cfi_def_cfa_offset 48\n"
		    "\tnop\n\t.cfi_escape 0x12, 7, 0x7e\n"
		    "\tnop\n\t.cfi_escape 0x13, 0x7d\n",
		    R0 "\n0x1 cfa=rbp+16 ra=c-8"
		    "\n0x2 cfa=r12+16 ra=c-8"
		    "\n0x3 cfa=r12+48 ra=c-8"
		    "\n0x4 cfa=rsp+16 ra=c-8"
		    "\n0x5 cfa=rsp+24 ra=c-8");
}

KT_TEST(cfi_restore_goes_to_cie_rule)
{
	/*
	 * DWARF restore: the CIE's rule.  ra had c-8 in the CIE; rbx had
	 * none (same value).  restore_extended (0x06) too.
	 */
	EXPECT_ROWS("cfi_restore",
		    "\tnop\n\t.cfi_offset rbx, -16\n\t.cfi_offset rip, -24\n"
		    "\tnop\n\t.cfi_restore rbx\n"
		    "\tnop\n\t.cfi_escape 0x06, 16\n",
		    R0 "\n0x1 cfa=rsp+8 rbx=c-16 ra=c-24"
		    "\n0x2 cfa=rsp+8 ra=c-24"
		    "\n0x3 cfa=rsp+8 ra=c-8");
}

KT_TEST(cfi_remember_restore_state)
{
	/* restore_state brings back the CFA too and keeps the location. */
	EXPECT_ROWS("cfi_remember",
		    "\tnop\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset rbx, -16\n"
		    "\tnop\n\t.cfi_remember_state\n"
		    "\t.cfi_def_cfa rbp, 32\n\t.cfi_offset r12, -24\n"
		    "\tnop\n\t.cfi_remember_state\n\t.cfi_undefined rbx\n"
		    "\tnop\n\t.cfi_restore_state\n"
		    "\tnop\n\t.cfi_restore_state\n",
		    R0 "\n0x1 cfa=rsp+16 rbx=c-16 ra=c-8"
		    "\n0x2 cfa=rbp+32 rbx=c-16 r12=c-24 ra=c-8"
		    "\n0x3 cfa=rbp+32 rbx=u r12=c-24 ra=c-8"
		    "\n0x4 cfa=rbp+32 rbx=c-16 r12=c-24 ra=c-8"
		    "\n0x5 cfa=rsp+16 rbx=c-16 ra=c-8");
}

KT_TEST(cfi_remember_depth_limit)
{
	char body[2048];
	int i, n = 0;

	/* KUW_REMEMBER_DEPTH nested states work... */
	for (i = 0; i < KUW_REMEMBER_DEPTH; i++)
		n += snprintf(body + n, sizeof(body) - n,
			      "\tnop\n\t.cfi_remember_state\n"
			      "\t.cfi_def_cfa_offset %d\n", 16 + 8 * i);
	for (i = 0; i < KUW_REMEMBER_DEPTH; i++)
		n += snprintf(body + n, sizeof(body) - n,
			      "\tnop\n\t.cfi_restore_state\n");
	KT_EXPECT(rows_of("cfi_depth", body, false, NULL) != NULL);
}

/* Build @body and expect the walk to fail with @err at the first byte of
 * the byte string @at (searched in .eh_frame after the CIE). */
static void expect_err(const char *name, const char *body, int err,
		       const u8 *at, u32 atlen, u32 at_add)
{
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d = { 0 };
	struct kcfi_obj x;
	char src[8192];
	const u8 *p;
	int ret;

	snprintf(src, sizeof(src), HEAD "%s" TAIL, body);
	ret = kcfi_run_asm(name, src, false, &x, c, &d);
	KT_EXPECT_EQ(ret, -err);
	KT_EXPECT_EQ(d.err, err);
	KT_EXPECT_STR(d.section, ".eh_frame");
	if (ret > -1000) {
		p = memmem(x.ehf.data + 0x18, x.ehf.size - 0x18, at, atlen);
		KT_EXPECT(p != NULL);
		if (p)
			KT_EXPECT_EQ(d.off, (u64)(p - x.ehf.data) + at_add);
		kcfi_unload(&x);
	}
	kcfi_col_free(c);
}

/*
 * expect_err() on a function whose CFI is a nop, then the @n bytes @seq
 * in one .cfi_escape: the error is at @seq + @at_add.
 */
static void expect_esc(const char *name, int err, const u8 *seq, u32 n,
		       u32 at_add)
{
	char body[512];
	u32 i, k;

	k = snprintf(body, sizeof(body), "\tnop\n\t.cfi_escape ");
	for (i = 0; i < n; i++)
		k += snprintf(body + k, sizeof(body) - k, "%s0x%02x",
			      i ? "," : "", seq[i]);
	snprintf(body + k, sizeof(body) - k, "\n");
	expect_err(name, body, err, seq, n, at_add);
}

KT_TEST(cfi_remember_overflow)
{
	static const u8 nine[9] = { 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a,
				    0x0a, 0x0a };

	/* The 9th remember_state is the offending instruction. */
	expect_esc("cfi_rem_over", KUW_E_REMEMBER, nine, 9, 8);
}

KT_TEST(cfi_restore_underflow)
{
	static const u8 seq[] = { 0x0a, 0x0b, 0x0b };

	expect_esc("cfi_rest_under", KUW_E_RESTORE, seq, 3, 2);
}

KT_TEST(cfi_unknown_opcodes)
{
	/* 0x1d (MIPS advance_loc8), 0x17, 0x3f, 0x2d on x86_64. */
	static const u8 ops[] = { 0x1d, 0x17, 0x3f, 0x2d, 0x30, 0x2c };
	char body[256], name[64];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		u8 seq[3] = { 0x0e, 0x55, ops[i] };

		snprintf(name, sizeof(name), "cfi_badop%u", i);
		snprintf(body, sizeof(body),
			 "\tnop\n\t.cfi_escape 0x0e, 0x55, 0x%x, 0, 0, 0\n",
			 ops[i]);
		expect_err(name, body, KUW_E_BADOP, seq, 3, 2);
	}
}

KT_TEST(cfi_register_range)
{
	static const u8 big[] = { 0x07, 0x80, 0x01 };	/* undefined r128 */
	static const u8 cfa[] = { 0x0d, 0x11 };		/* def_cfa_register r17 */
	static const u8 src[] = { 0x09, 0x03, 0x11 };	/* rbx in r17 */
	struct kcfi_col *c = NULL;
	const char *t;

	expect_esc("cfi_reg128", KUW_E_BADREG, big, 3, 0);
	expect_esc("cfi_regcfa", KUW_E_BADREG, cfa, 2, 0);
	expect_esc("cfi_regsrc", KUW_E_BADREG, src, 3, 0);
	/*
	 * Columns beyond the tracked ones (xmm6 = 23, as libffi saves it)
	 * are accepted and dropped; readelf shows them, we do not.
	 */
	t = rows_of("cfi_xmm", "\tnop\n\t.cfi_offset xmm6, -32\n"
		    "\t.cfi_offset rbx, -16\n\tnop\n\t.cfi_restore xmm6\n",
		    false, &c);
	if (t)
		KT_EXPECT_STR(t, R0 "\n0x1 cfa=rsp+8 rbx=c-16 ra=c-8");
	kcfi_col_free(c);
}

KT_TEST(cfi_location_past_end)
{
	/* advance_loc1 0xff from 1 byte into a 2-byte function. */
	static const u8 seq[] = { 0x02, 0xff };

	expect_esc("cfi_pastend", KUW_E_BADLOC, seq, 2, 0);
}

KT_TEST(cfi_offset_must_fit_s32)
{
	/* offset_extended r3, 0x10000001 * -8 does not fit s32. */
	static const u8 seq[] = { 0x05, 0x03, 0x81, 0x80, 0x80, 0x80, 0x01 };
	/* def_cfa rsp, 0x80000000 */
	static const u8 seq2[] = { 0x0c, 0x07, 0x80, 0x80, 0x80, 0x80, 0x08 };

	expect_esc("cfi_offbig", KUW_E_BADOFF, seq, 7, 0);
	expect_esc("cfi_cfabig", KUW_E_BADOFF, seq2, 7, 0);
}

KT_TEST(cfi_truncated_operand)
{
	/* def_cfa_expression whose length runs past the FDE. */
	static const u8 seq[] = { 0x0f, 0x7f, 0x77 };

	expect_esc("cfi_trunc_expr", KUW_E_TRUNC, seq, 3, 0);
}

KT_TEST(cfi_expressions)
{
	/*
	 * def_cfa_expression (DW_OP_breg7 8), expression rbx
	 * (DW_OP_breg7 -16), val_expression r12 (DW_OP_breg6 0).  The rule's
	 * offset points at the ULEB length in the section.
	 */
	static const u8 e_cfa[] = { 0x0f, 0x02, 0x77, 0x08 };
	static const u8 e_rbx[] = { 0x10, 0x03, 0x02, 0x77, 0x70 };
	static const u8 e_r12[] = { 0x16, 0x0c, 0x02, 0x76, 0x00 };
	struct kcfi_col *c = NULL;
	const struct kuw_rule *r;
	struct kcfi_obj x;
	const char *t;
	const u8 *p;
	char so[512];

	t = rows_of("cfi_expr", "\tnop\n\t.cfi_escape 0x0f, 0x02, 0x77, 0x08\n"
		    "\tnop\n\t.cfi_escape 0x10, 0x03, 0x02, 0x77, 0x70\n"
		    "\tnop\n\t.cfi_escape 0x16, 0x0c, 0x02, 0x76, 0x00\n"
		    "\tnop\n\t.cfi_def_cfa_offset 64\n",
		    false, &c);
	KT_ASSERT(t);
	/* def_cfa_offset leaves an expression CFA an expression. */
	KT_EXPECT_STR(t, R0 "\n0x1 cfa=exp ra=c-8"
		      "\n0x2 cfa=exp rbx=exp ra=c-8"
		      "\n0x3 cfa=exp rbx=exp r12=vexp ra=c-8");
	snprintf(so, sizeof(so), "%s/cfi_expr.so", kt_builddir);
	KT_ASSERT(!kcfi_load(&x, so));
	r = kcfi_rule_at(c, c->fde[0].f.start + 3);
	KT_ASSERT(r);
	p = memmem(x.ehf.data, x.ehf.size, e_cfa, sizeof(e_cfa));
	KT_ASSERT(p);
	KT_EXPECT_EQ(r->cfa_kind, KUW_CFA_EXPR);
	KT_EXPECT_EQ(r->cfa_off, p + 1 - x.ehf.data);
	KT_ASSERT_EQ(r->nregs, 3);
	p = memmem(x.ehf.data, x.ehf.size, e_rbx, sizeof(e_rbx));
	KT_ASSERT(p);
	KT_EXPECT_EQ(r->regs[0].reg, KUW_X86_RBX);
	KT_EXPECT_EQ(r->regs[0].kind, KUW_R_EXPR);
	KT_EXPECT_EQ(r->regs[0].off, p + 2 - x.ehf.data);
	p = memmem(x.ehf.data, x.ehf.size, e_r12, sizeof(e_r12));
	KT_ASSERT(p);
	KT_EXPECT_EQ(r->regs[1].reg, 12);
	KT_EXPECT_EQ(r->regs[1].kind, KUW_R_VAL_EXPR);
	KT_EXPECT_EQ(r->regs[1].off, p + 2 - x.ehf.data);
	kcfi_unload(&x);
	kcfi_col_free(c);
}

KT_TEST(cfi_expression_cfa_then_register)
{
	/*
	 * def_cfa_register after an expression CFA: register + the last
	 * numeric offset (libgcc and readelf agree).
	 */
	EXPECT_ROWS("cfi_exp_reg",
		    "\tnop\n\t.cfi_def_cfa_offset 24\n"
		    "\tnop\n\t.cfi_escape 0x0f, 0x02, 0x77, 0x08\n"
		    "\tnop\n\t.cfi_def_cfa_offset 40\n"
		    "\tnop\n\t.cfi_def_cfa_register rbp\n",
		    R0 "\n0x1 cfa=rsp+24 ra=c-8"
		    "\n0x2 cfa=exp ra=c-8"
		    "\n0x4 cfa=rbp+40 ra=c-8");
}

KT_TEST(cfi_bad_expression_rejected)
{
	/* expression rbx with an unknown DW_OP (0x01) is checked at load. */
	static const u8 seq[] = { 0x10, 0x03, 0x01, 0x01 };
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d = { 0 };
	struct kcfi_obj x;
	int ret;

	ret = kcfi_run_asm("cfi_badexpr", HEAD
			   "\tnop\n\t.cfi_escape 0x10, 0x03, 0x01, 0x01\n" TAIL,
			   false, &x, c, &d);
	KT_EXPECT(ret < 0 && ret > -1000);
	KT_EXPECT(d.err != 0);
	if (ret > -1000) {
		const u8 *p = memmem(x.ehf.data, x.ehf.size, seq, sizeof(seq));

		KT_EXPECT(p && d.off == (u64)(p - x.ehf.data));
		kcfi_unload(&x);
	}
	kcfi_col_free(c);
}

KT_TEST(cfi_nop_args_size_no_rows)
{
	/* nop and GNU_args_size change no rule: no extra row. */
	EXPECT_ROWS("cfi_nops",
		    "\tnop\n\t.cfi_escape 0x00, 0x2e, 0x10\n"
		    "\tnop\n\t.cfi_escape 0x2e, 0x00\n"
		    "\tnop\n\t.cfi_def_cfa_offset 16\n",
		    R0 "\n0x3 cfa=rsp+16 ra=c-8");
}

KT_TEST(cfi_signal_frame_flag)
{
	struct kcfi_col *c = NULL;
	const char *t;
	u32 i;

	t = rows_of("cfi_signal", "\t.cfi_signal_frame\n\tnop\n"
		    "\t.cfi_def_cfa_offset 16\n", false, &c);
	KT_ASSERT(t);
	KT_EXPECT_STR(t, R0 "\n0x1 cfa=rsp+16 ra=c-8");
	KT_EXPECT_EQ(c->fde[0].f.signal, 1);
	for (i = 0; i < c->nrow; i++)
		KT_EXPECT_EQ(c->row[i].r.flags, KUW_RF_SIGNAL);
	kcfi_col_free(c);
	c = NULL;
	t = rows_of("cfi_nosignal", "\tnop\n", false, &c);
	KT_ASSERT(t);
	KT_EXPECT_EQ(c->fde[0].f.signal, 0);
	KT_EXPECT_EQ(c->row[0].r.flags, 0);
	kcfi_col_free(c);
}

KT_TEST(cfi_debug_frame)
{
	/* The same program in .debug_frame (version 1 CIE, absolute). */
	struct kcfi_col *c = NULL;
	const char *t;

	t = rows_of("cfi_dbg", "\tnop\n\t.cfi_def_cfa_offset 16\n"
		    "\t.cfi_offset rbx, -16\n\tnop\n\t.cfi_remember_state\n"
		    "\t.cfi_undefined rip\n\tnop\n\t.cfi_restore_state\n",
		    true, &c);
	KT_ASSERT(t);
	KT_EXPECT_STR(t, R0 "\n0x1 cfa=rsp+16 rbx=c-16 ra=c-8"
		      "\n0x2 cfa=rsp+16 rbx=c-16 ra=u"
		      "\n0x3 cfa=rsp+16 rbx=c-16 ra=c-8");
	KT_EXPECT_EQ(c->fde[0].f.src, KUW_SRC_DEBUG_FRAME);
	kcfi_col_free(c);
}

KT_TEST(cfi_many_functions_vs_readelf)
{
	/* A larger fixture: many FDEs sharing one CIE, compared whole. */
	char *so = kcfi_build("cfi_many", NULL, NULL);
	struct kuw_diag d = { 0 };
	struct kcfi_col *c;
	struct kuw_stats st;
	struct kcfi_obj x;
	u32 n = 0;

	KT_ASSERT(so);
	if (kcfi_load(&x, so)) {
		KT_EXPECT(!"load");
		free(so);
		return;
	}
	c = kcfi_col_new();
	KT_EXPECT_EQ(kcfi_walk(&x.o, &x.ehf, false, c, &st, &d), 0);
	KT_EXPECT_EQ(c->bad, 0);
	KT_EXPECT(st.nfde >= 6);
	KT_EXPECT_EQ(st.nfde, c->nfde);
	KT_EXPECT_EQ(st.nrows, c->nrow);
	KT_EXPECT_EQ(kcfi_readelf_compare(so, false, KUW_ARCH_X86_64, c, &n), 0);
	KT_EXPECT(n > 20);
	kcfi_unload(&x);
	kcfi_col_free(c);
	free(so);
}

KT_TEST(cfi_same_value_vs_readelf)
{
	/*
	 * same_value in the CIE, after restore, across remember/restore
	 * state: every "s" readelf prints is ours too, in the walker's
	 * rows and in the compiled table kunwind.ko and debugfs read.
	 */
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d = { 0 };
	struct kuw_table *t = NULL;
	u32 n = 0, i, same = 0;
	char so[512], cmd[1024];
	struct kcfi_obj x;
	FILE *p;

	KT_ASSERT(c);
	KT_ASSERT_EQ(kcfi_run_asm("cfi_sameval", NULL, false, &x, c, &d), 0);
	snprintf(so, sizeof(so), "%s/cfi_sameval.so", kt_builddir);
	x.o.owner = so;		/* kcfi_run_asm() freed its copy of the path */
	/* the fixture is what it should be: readelf prints many "s" */
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' |"
		 " grep -o ' s ' | wc -l", so);
	p = popen(cmd, "r");
	KT_ASSERT(p);
	KT_EXPECT(fscanf(p, "%u", &n) == 1 && n >= 20);
	pclose(p);
	n = 0;
	KT_EXPECT_EQ(kcfi_readelf_compare(so, false, KUW_ARCH_X86_64, c, &n),
		     0);
	KT_EXPECT(n >= 20);
	KT_ASSERT_EQ(kuw_table_build(&x.o, KUW_SRC_EH_FRAME, &x.ehf, &t, &d),
		     0);
	for (i = 0; i < c->nrow; i++) {
		const struct kuw_rule *r;
		char a[256], b[256];
		u64 pc;

		KT_ASSERT_EQ(kuw_table_lookup(t, c->row[i].pc, &r, &pc), 0);
		kuw_format_row(a, sizeof(a), KUW_ARCH_X86_64, c->row[i].pc,
			       &c->row[i].r);
		kuw_format_row(b, sizeof(b), KUW_ARCH_X86_64, c->row[i].pc,
			       r);
		KT_EXPECT_STR(b, a);
		same += strstr(b, "=s") != NULL;
	}
	KT_EXPECT(same >= 10);
	kuw_table_free(t);
	kcfi_unload(&x);
	kcfi_col_free(c);
}

KT_TEST(step_same_value_is_no_rule)
{
	/*
	 * An unwinder leaves a same_value register as it is, exactly as one
	 * without a rule (libgcc maps both to REG_UNSAVED): the stack
	 * pointer is still the CFA, an unknown register stays unknown.
	 */
	struct kuw_rule a = { .cfa_kind = KUW_CFA_REG, .cfa_reg = 7,
			      .cfa_off = 16, .nregs = 4 };
	struct kuw_rule b = { .cfa_kind = KUW_CFA_REG, .cfa_reg = 7,
			      .cfa_off = 16, .nregs = 1 };
	static const u8 same[] = { 3, 6, 7 };	/* rbx, rbp, rsp */
	struct kuw_regs ra = { 0 }, rb;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(same); i++) {
		a.regs[i].reg = same[i];
		a.regs[i].kind = KUW_R_SAME;
	}
	a.regs[3].reg = 16;
	a.regs[3].kind = KUW_R_OFFSET;
	a.regs[3].off = -8;
	b.regs[0] = a.regs[3];
	ra.r[7] = 0x8000;
	ra.r[6] = 0x1234;
	ra.r[16] = 0x400100;
	ra.valid = 1ULL << 7 | 1ULL << 6 | 1ULL << 16;
	rb = ra;
	kt_mem_clear();
	kt_mem_put64(0x8008, 0x401000);
	KT_EXPECT_EQ(kuw_step(KUW_ARCH_X86_64, NULL, 0, &a, &ra, NULL), 0);
	KT_EXPECT_EQ(kuw_step(KUW_ARCH_X86_64, NULL, 0, &b, &rb, NULL), 0);
	KT_EXPECT_EQ(ra.r[7], 0x8010);
	KT_EXPECT_EQ(ra.r[6], 0x1234);
	KT_EXPECT_EQ(ra.valid & (1ULL << 3), 0);
	KT_EXPECT_EQ(ra.r[16], 0x401000);
	KT_EXPECT(!memcmp(&ra, &rb, sizeof(ra)));
	kt_mem_clear();
}

KT_TEST(step_aarch64_signed_ra_every_path)
{
	/*
	 * An AArch64 frame whose return address was signed (PAC in bits
	 * 48-54): CFA = x29 + 16, x29 at CFA - 16, x30 at CFA - 8.  The
	 * caller's pc is the address with its top bits back, whichever path
	 * kuw_step() takes: a table's fast rule (KUW_RF_FAST), the same rule
	 * unmarked, and one with a val_offset rule that only the general
	 * path takes.
	 */
	const u64 fp = 0xffff800008003f00ull, cfa = fp + 16;
	const u64 signed_ra = 0x003affc008123456ull;
	struct kuw_rule r = { .cfa_kind = KUW_CFA_REG, .cfa_reg = KUW_A64_X29,
			      .cfa_off = 16, .nregs = 2,
			      .flags = KUW_RF_MANGLED_RA };
	struct kuw_rule rules[3];
	struct kuw_regs in = { 0 }, out[3];
	u32 i;

	r.regs[0] = (struct kuw_reg_rule){ .reg = KUW_A64_X29,
					   .kind = KUW_R_OFFSET, .off = -16 };
	r.regs[1] = (struct kuw_reg_rule){ .reg = KUW_A64_X30,
					   .kind = KUW_R_OFFSET, .off = -8 };
	rules[0] = r;
	rules[0].flags |= KUW_RF_FAST;
	rules[1] = r;
	rules[2] = r;
	rules[2].nregs = 3;
	rules[2].regs[2] = rules[2].regs[1];
	rules[2].regs[1] = (struct kuw_reg_rule){ .reg = 19,
						  .kind = KUW_R_VAL_OFFSET,
						  .off = -32 };
	in.r[KUW_A64_X29] = fp;
	in.r[KUW_A64_SP] = fp - 64;
	in.r[KUW_A64_PC] = 0xffffffc008100000ull;
	in.valid = 1ULL << KUW_A64_X29 | 1ULL << KUW_A64_SP |
		   1ULL << KUW_A64_PC;
	kt_mem_clear();
	kt_mem_put64(cfa - 16, 0xffff800008003f80ull);
	kt_mem_put64(cfa - 8, signed_ra);
	for (i = 0; i < 3; i++) {
		u64 x29 = 0;

		out[i] = in;
		KT_EXPECT_EQ(kuw_step(KUW_ARCH_ARM64, NULL, 0, &rules[i],
				      &out[i], NULL), 0);
		KT_EXPECT_EQ(out[i].r[KUW_A64_PC], 0xffffffc008123456ull);
		KT_EXPECT_EQ(out[i].r[KUW_A64_SP], cfa);
		KT_EXPECT_EQ(kuw_regs_get(&out[i], KUW_A64_X29, NULL, &x29), 0);
		KT_EXPECT_EQ(x29, 0xffff800008003f80ull);
	}
	kt_mem_clear();
}
