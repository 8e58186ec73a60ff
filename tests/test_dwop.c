// SPDX-License-Identifier: GPL-2.0
/*
 * DW_OP interpreter tests: every operation against values computed here
 * from the DWARF 5 definitions (section 2.5), the stack and budget limits,
 * branches, and dereferences through the fake memory of tests/mem.c.  The
 * last test evaluates the expressions found in this machine's libc CFI
 * (the PLT rule of DW_CFA_def_cfa_expression) as readelf prints them.
 */
#include "engine.h"
#include "dwarf.h"
#include "arch.h"
#include "kt.h"
#include "mem.h"

static struct kuw_regs dw_regs;

static void regs_init(void)
{
	u32 i;

	memset(&dw_regs, 0, sizeof(dw_regs));
	for (i = 0; i < KUW_X86_NREGS; i++) {
		dw_regs.r[i] = 0x1000 * (i + 1);
		dw_regs.valid |= 1ULL << i;
	}
}

/* Evaluate @len bytes; on success store the result in *out. */
static int ev(const u8 *ops, u32 len, u64 *out)
{
	return kuw_dwop_eval(ops, len, &dw_regs, 0, false, 0, false, NULL, out);
}

/* Expect @ops to evaluate to @want, and to pass the load-time check. */
#define EV_OK(want, ...)						\
	do {								\
		const u8 _o[] = { __VA_ARGS__ };			\
		u64 _r = 0xdeadbeef;					\
		KT_EXPECT_EQ(ev(_o, sizeof(_o), &_r), 0);		\
		KT_EXPECT_EQ(_r, (u64)(want));				\
		KT_EXPECT_EQ(kuw_dwop_check(_o, sizeof(_o)), 0);	\
	} while (0)

/* Expect evaluation to fail with @err (the check may pass). */
#define EV_ERR(err, ...)						\
	do {								\
		const u8 _o[] = { __VA_ARGS__ };			\
		u64 _r = 0;						\
		KT_EXPECT_EQ(ev(_o, sizeof(_o), &_r), -(err));		\
	} while (0)

/* Expect both the check and the evaluation to fail with @err. */
#define BOTH_ERR(err, ...)						\
	do {								\
		const u8 _o[] = { __VA_ARGS__ };			\
		u64 _r = 0;						\
		KT_EXPECT_EQ(kuw_dwop_check(_o, sizeof(_o)), -(err));	\
		KT_EXPECT_EQ(ev(_o, sizeof(_o), &_r), -(err));		\
	} while (0)

#define LIT(n)	(KUW_DW_OP_lit0 + (n))

KT_TEST(dwop_literals_constants)
{
	u32 i;

	regs_init();
	for (i = 0; i < 32; i++) {
		u8 o[1] = { (u8)LIT(i) };
		u64 r;

		KT_EXPECT_EQ(ev(o, 1, &r), 0);
		KT_EXPECT_EQ(r, i);
	}
	EV_OK(0x0123456789abcdefULL, KUW_DW_OP_addr,
	      0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01);
	EV_OK(0xff, KUW_DW_OP_const1u, 0xff);
	EV_OK(-1, KUW_DW_OP_const1s, 0xff);
	EV_OK(0x80, KUW_DW_OP_const1s, 0x7f, LIT(1), KUW_DW_OP_plus);
	EV_OK(0xfffe, KUW_DW_OP_const2u, 0xfe, 0xff);
	EV_OK(-2, KUW_DW_OP_const2s, 0xfe, 0xff);
	EV_OK(0xfffffffdULL, KUW_DW_OP_const4u, 0xfd, 0xff, 0xff, 0xff);
	EV_OK(-3, KUW_DW_OP_const4s, 0xfd, 0xff, 0xff, 0xff);
	EV_OK(0x8000000000000001ULL, KUW_DW_OP_const8u,
	      1, 0, 0, 0, 0, 0, 0, 0x80);
	EV_OK(-4, KUW_DW_OP_const8s,
	      0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	/* LEB128: 624485 = e5 8e 26; -123456 = c0 bb 78. */
	EV_OK(624485, KUW_DW_OP_constu, 0xe5, 0x8e, 0x26);
	EV_OK(-123456, KUW_DW_OP_consts, 0xc0, 0xbb, 0x78);
	EV_OK(-1, KUW_DW_OP_consts, 0x7f);
	EV_OK(63, KUW_DW_OP_consts, 0x3f);
	/* 10-byte ULEB of all ones = UINT64_MAX. */
	EV_OK(~0ULL, KUW_DW_OP_constu, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	      0xff, 0xff, 0xff, 0x01);
	/* Operands cut short. */
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_addr, 1, 2, 3);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_const2u, 1);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_const4s, 1, 2, 3);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_const8u, 1, 2, 3, 4, 5, 6, 7);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_constu, 0x80, 0x80);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_consts);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_const1u);
}

KT_TEST(dwop_stack_ops)
{
	regs_init();
	EV_OK(7, LIT(7), KUW_DW_OP_dup, KUW_DW_OP_plus, LIT(7), KUW_DW_OP_minus);
	EV_OK(1, LIT(1), LIT(2), KUW_DW_OP_drop);
	EV_OK(1, LIT(1), LIT(2), KUW_DW_OP_over);
	EV_OK(3, LIT(1), LIT(2), KUW_DW_OP_over, KUW_DW_OP_plus,
	      KUW_DW_OP_swap, KUW_DW_OP_drop);
	/* pick 0 = dup, pick 2 = third from the top. */
	EV_OK(5, LIT(4), LIT(5), KUW_DW_OP_pick, 0);
	EV_OK(3, LIT(3), LIT(4), LIT(5), KUW_DW_OP_pick, 2);
	EV_OK(1, LIT(1), LIT(2), KUW_DW_OP_swap);
	EV_OK(2, LIT(1), LIT(2), KUW_DW_OP_swap, KUW_DW_OP_drop);
	/* rot: [1 2 3] (3 on top) -> [3 1 2]: top 2, then 1, then 3. */
	EV_OK(2, LIT(1), LIT(2), LIT(3), KUW_DW_OP_rot);
	EV_OK(1, LIT(1), LIT(2), LIT(3), KUW_DW_OP_rot, KUW_DW_OP_drop);
	EV_OK(3, LIT(1), LIT(2), LIT(3), KUW_DW_OP_rot, KUW_DW_OP_drop,
	      KUW_DW_OP_drop);
	EV_OK(9, LIT(9), KUW_DW_OP_nop, KUW_DW_OP_nop);
	/* Underflow of each. */
	EV_ERR(KUW_E_EXPR_STACK, KUW_DW_OP_dup);
	EV_ERR(KUW_E_EXPR_STACK, KUW_DW_OP_drop);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), KUW_DW_OP_over);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), KUW_DW_OP_swap);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), LIT(2), KUW_DW_OP_rot);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), KUW_DW_OP_pick, 1);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), KUW_DW_OP_pick, 255);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), KUW_DW_OP_plus);
	EV_ERR(KUW_E_EXPR_STACK, KUW_DW_OP_neg);
	EV_ERR(KUW_E_EXPR_STACK, KUW_DW_OP_bra, 0, 0);
	EV_ERR(KUW_E_EXPR_STACK, KUW_DW_OP_deref);
	/* Empty stack at the end: no value. */
	EV_ERR(KUW_E_EXPR_STACK, KUW_DW_OP_nop);
	EV_ERR(KUW_E_EXPR_STACK, LIT(1), KUW_DW_OP_drop);
	{
		u64 r;

		KT_EXPECT_EQ(ev(NULL, 0, &r), -KUW_E_EXPR_STACK);
		KT_EXPECT_EQ(kuw_dwop_check(NULL, 0), 0);
	}
}

KT_TEST(dwop_stack_limit)
{
	u8 o[KUW_EXPR_STACK + 2];
	u64 r;
	u32 i;

	regs_init();
	/* Exactly KUW_EXPR_STACK entries fit. */
	for (i = 0; i < KUW_EXPR_STACK; i++)
		o[i] = LIT(i % 32);
	KT_EXPECT_EQ(ev(o, KUW_EXPR_STACK, &r), 0);
	KT_EXPECT_EQ(r, (KUW_EXPR_STACK - 1) % 32);
	o[KUW_EXPR_STACK] = LIT(1);
	KT_EXPECT_EQ(ev(o, KUW_EXPR_STACK + 1, &r), -KUW_E_EXPR_STACK);
	/* The initial value counts as an entry. */
	KT_EXPECT_EQ(kuw_dwop_eval(o, KUW_EXPR_STACK, &dw_regs, 0, false, 5,
				   true, NULL, &r), -KUW_E_EXPR_STACK);
	KT_EXPECT_EQ(kuw_dwop_eval(o, KUW_EXPR_STACK - 1, &dw_regs, 0, false,
				   5, true, NULL, &r), 0);
	/* dup and pick overflow too. */
	o[KUW_EXPR_STACK] = KUW_DW_OP_dup;
	KT_EXPECT_EQ(ev(o, KUW_EXPR_STACK + 1, &r), -KUW_E_EXPR_STACK);
	o[KUW_EXPR_STACK] = KUW_DW_OP_pick;
	o[KUW_EXPR_STACK + 1] = 0;
	KT_EXPECT_EQ(ev(o, KUW_EXPR_STACK + 2, &r), -KUW_E_EXPR_STACK);
	/* pick at the deepest entry. */
	o[KUW_EXPR_STACK - 2] = KUW_DW_OP_pick;
	o[KUW_EXPR_STACK - 1] = KUW_EXPR_STACK - 3;
	KT_EXPECT_EQ(ev(o, KUW_EXPR_STACK, &r), 0);
	KT_EXPECT_EQ(r, 0);
}

KT_TEST(dwop_arithmetic)
{
	regs_init();
	EV_OK(5, LIT(5), KUW_DW_OP_abs);
	EV_OK(5, KUW_DW_OP_const1s, 0xfb, KUW_DW_OP_abs);
	/* abs(INT64_MIN) stays INT64_MIN (two's complement wrap). */
	EV_OK(0x8000000000000000ULL, KUW_DW_OP_const8u,
	      0, 0, 0, 0, 0, 0, 0, 0x80, KUW_DW_OP_abs);
	EV_OK(0x12 & 0x0f, KUW_DW_OP_const1u, 0x12, LIT(15), KUW_DW_OP_and);
	EV_OK(0x12 | 0x0f, KUW_DW_OP_const1u, 0x12, LIT(15), KUW_DW_OP_or);
	EV_OK(0x12 ^ 0x0f, KUW_DW_OP_const1u, 0x12, LIT(15), KUW_DW_OP_xor);
	EV_OK(~0x12ULL, KUW_DW_OP_const1u, 0x12, KUW_DW_OP_not);
	EV_OK(-7, LIT(7), KUW_DW_OP_neg);
	EV_OK(10, LIT(3), LIT(7), KUW_DW_OP_plus);
	EV_OK(-4, LIT(3), LIT(7), KUW_DW_OP_minus);
	EV_OK(21, LIT(3), LIT(7), KUW_DW_OP_mul);
	EV_OK(0x1000 + 300, KUW_DW_OP_const2u, 0x00, 0x10,
	      KUW_DW_OP_plus_uconst, 0xac, 0x02);
	/* div is signed: -7 / 2 = -3 (truncation), 7 / -2 = -3. */
	EV_OK(3, LIT(7), LIT(2), KUW_DW_OP_div);
	EV_OK(-3, KUW_DW_OP_const1s, 0xf9, LIT(2), KUW_DW_OP_div);
	EV_OK(-3, LIT(7), KUW_DW_OP_const1s, 0xfe, KUW_DW_OP_div);
	/* INT64_MIN / -1 wraps instead of trapping. */
	EV_OK(0x8000000000000000ULL, KUW_DW_OP_const8u,
	      0, 0, 0, 0, 0, 0, 0, 0x80, KUW_DW_OP_const1s, 0xff,
	      KUW_DW_OP_div);
	/* mod is unsigned (as libgcc): (2^64 - 7) mod 10 = 9. */
	EV_OK(1, LIT(7), LIT(3), KUW_DW_OP_mod);
	EV_OK((0ULL - 7) % 10, KUW_DW_OP_const1s, 0xf9, LIT(10), KUW_DW_OP_mod);
	EV_ERR(KUW_E_EXPR_DIV0, LIT(7), LIT(0), KUW_DW_OP_div);
	EV_ERR(KUW_E_EXPR_DIV0, LIT(7), LIT(0), KUW_DW_OP_mod);
	/* Shifts, including 63, 64 and beyond. */
	EV_OK(8, LIT(1), LIT(3), KUW_DW_OP_shl);
	EV_OK(0x8000000000000000ULL, LIT(1), KUW_DW_OP_const1u, 63,
	      KUW_DW_OP_shl);
	EV_OK(0, LIT(1), KUW_DW_OP_const1u, 64, KUW_DW_OP_shl);
	EV_OK(0, LIT(1), KUW_DW_OP_const1u, 200, KUW_DW_OP_shl);
	EV_OK(2, LIT(16), LIT(3), KUW_DW_OP_shr);
	EV_OK(1, KUW_DW_OP_const1s, 0xff, KUW_DW_OP_const1u, 63, KUW_DW_OP_shr);
	EV_OK(0, KUW_DW_OP_const1s, 0xff, KUW_DW_OP_const1u, 64, KUW_DW_OP_shr);
	EV_OK(-2, KUW_DW_OP_const1s, 0xf0, LIT(3), KUW_DW_OP_shra);
	EV_OK(2, LIT(16), LIT(3), KUW_DW_OP_shra);
	EV_OK(-1, KUW_DW_OP_const1s, 0xf0, KUW_DW_OP_const1u, 64,
	      KUW_DW_OP_shra);
	EV_OK(0, LIT(16), KUW_DW_OP_const1u, 99, KUW_DW_OP_shra);
	/* Shift count with the top bit set: huge, not negative. */
	EV_OK(0, LIT(1), KUW_DW_OP_const1s, 0xff, KUW_DW_OP_shl);
}

KT_TEST(dwop_comparisons)
{
	regs_init();
	EV_OK(1, LIT(3), LIT(3), KUW_DW_OP_eq);
	EV_OK(0, LIT(3), LIT(4), KUW_DW_OP_eq);
	EV_OK(1, LIT(3), LIT(4), KUW_DW_OP_ne);
	EV_OK(0, LIT(3), LIT(3), KUW_DW_OP_ne);
	/* second OP top; signed: -1 < 1. */
	EV_OK(1, LIT(4), LIT(3), KUW_DW_OP_gt);
	EV_OK(0, LIT(3), LIT(3), KUW_DW_OP_gt);
	EV_OK(1, LIT(3), LIT(3), KUW_DW_OP_ge);
	EV_OK(0, LIT(2), LIT(3), KUW_DW_OP_ge);
	EV_OK(1, LIT(2), LIT(3), KUW_DW_OP_lt);
	EV_OK(0, LIT(3), LIT(3), KUW_DW_OP_lt);
	EV_OK(1, LIT(3), LIT(3), KUW_DW_OP_le);
	EV_OK(0, LIT(4), LIT(3), KUW_DW_OP_le);
	EV_OK(1, KUW_DW_OP_const1s, 0xff, LIT(1), KUW_DW_OP_lt);
	EV_OK(0, KUW_DW_OP_const1s, 0xff, LIT(1), KUW_DW_OP_gt);
	EV_OK(1, LIT(1), KUW_DW_OP_const1s, 0xff, KUW_DW_OP_ge);
	EV_OK(0, LIT(1), KUW_DW_OP_const1s, 0xff, KUW_DW_OP_le);
}

KT_TEST(dwop_registers)
{
	u64 r;

	regs_init();
	/* breg n: register n + SLEB offset. */
	EV_OK(0x8000 + 8, KUW_DW_OP_breg0 + KUW_X86_RSP, 0x08);
	EV_OK(0x7000 - 16, KUW_DW_OP_breg0 + KUW_X86_RBP, 0x70);
	EV_OK(0x11000, KUW_DW_OP_breg0 + KUW_X86_RA, 0x00);
	EV_OK(0x1000 - 0x40, KUW_DW_OP_breg0, 0x40);
	EV_OK(0x10000 + 300, KUW_DW_OP_bregx, 15, 0xac, 0x02);
	EV_OK(0x2000 - 1, KUW_DW_OP_bregx, 1, 0x7f);
	/* Register not valid in the set, or beyond the columns. */
	dw_regs.valid &= ~(1ULL << KUW_X86_RBX);
	EV_ERR(KUW_E_BADREG, KUW_DW_OP_breg0 + KUW_X86_RBX, 0);
	EV_ERR(KUW_E_BADREG, KUW_DW_OP_bregx, KUW_X86_RBX, 0);
	EV_ERR(KUW_E_BADREG, KUW_DW_OP_breg31, 0);
	BOTH_ERR(KUW_E_BADREG, KUW_DW_OP_bregx, KUW_MAX_REGS, 0);
	BOTH_ERR(KUW_E_BADREG, KUW_DW_OP_bregx, 0x80, 0x80, 0x80, 0x80, 0x10, 0);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_bregx, 3);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_breg0 + 3);
	/* No register set at all. */
	{
		const u8 o[] = { KUW_DW_OP_breg0 + KUW_X86_RSP, 0 };

		KT_EXPECT_EQ(kuw_dwop_eval(o, 2, NULL, 0, false, 0, false,
					   NULL, &r), -KUW_E_BADREG);
	}
	/*
	 * reg0-31 and regx name a register location, not a value: not
	 * allowed in CFI expressions (DWARF 5 section 6.4.2), refused.
	 */
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_reg0);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_reg31);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_regx, 5);
}

KT_TEST(dwop_initial_and_cfa)
{
	const u8 plus8[] = { KUW_DW_OP_plus_uconst, 8 };
	const u8 cfa[] = { KUW_DW_OP_call_frame_cfa, KUW_DW_OP_lit0 + 16,
			   KUW_DW_OP_minus };
	u64 r = 0;

	regs_init();
	KT_EXPECT_EQ(kuw_dwop_eval(plus8, 2, &dw_regs, 0, false, 0x5000, true,
				   NULL, &r), 0);
	KT_EXPECT_EQ(r, 0x5008);
	KT_EXPECT_EQ(kuw_dwop_eval(plus8, 2, &dw_regs, 0, false, 0x5000,
				   false, NULL, &r), -KUW_E_EXPR_STACK);
	/* Only the initial value: the result is that value. */
	KT_EXPECT_EQ(kuw_dwop_eval(NULL, 0, &dw_regs, 0, false, 0x77, true,
				   NULL, &r), 0);
	KT_EXPECT_EQ(r, 0x77);
	KT_EXPECT_EQ(kuw_dwop_eval(cfa, 3, &dw_regs, 0x9000, true, 0, false,
				   NULL, &r), 0);
	KT_EXPECT_EQ(r, 0x9000 - 16);
	/* While the CFA itself is computed it is not available. */
	KT_EXPECT_EQ(kuw_dwop_eval(cfa, 3, &dw_regs, 0x9000, false, 0, false,
				   NULL, &r), -KUW_E_EXPR_OP);
	KT_EXPECT_EQ(kuw_dwop_check(cfa, 3), 0);
	KT_EXPECT_EQ(kuw_dwop_eval(cfa, 3, &dw_regs, 0, true, 0, false, NULL,
				   NULL), -KUW_E_INVAL);
}

KT_TEST(dwop_branches)
{
	u8 o[16];
	u64 r;

	regs_init();
	/* skip over a lit: [lit1, skip +1, lit2, lit3] -> 3 on top of 1. */
	EV_OK(3, LIT(1), KUW_DW_OP_skip, 1, 0, LIT(2), LIT(3));
	EV_OK(1, LIT(1), KUW_DW_OP_skip, 1, 0, LIT(2), KUW_DW_OP_nop);
	/* bra taken when the popped value is non-zero. */
	EV_OK(7, LIT(1), KUW_DW_OP_bra, 4, 0, LIT(5), KUW_DW_OP_skip, 1, 0,
	      LIT(7));
	EV_OK(5, LIT(0), KUW_DW_OP_bra, 4, 0, LIT(5), KUW_DW_OP_skip, 1, 0,
	      LIT(7));
	/* A branch to exactly the end is fine and ends the expression. */
	EV_OK(4, LIT(4), KUW_DW_OP_skip, 1, 0, LIT(9));
	EV_OK(4, LIT(4), LIT(1), KUW_DW_OP_bra, 1, 0, LIT(9));
	/* A backward branch to the start is fine. */
	{
		/* counter loop: n = 3; do n = n - 1 while (n); result 0 */
		const u8 loop[] = { LIT(3), LIT(1), KUW_DW_OP_minus,
				    KUW_DW_OP_dup, KUW_DW_OP_bra, 0xfa, 0xff };
		/* target: pos after operand (7) - 6 = 1 (the lit1) */
		KT_EXPECT_EQ(kuw_dwop_check(loop, sizeof(loop)), 0);
		KT_EXPECT_EQ(ev(loop, sizeof(loop), &r), 0);
		KT_EXPECT_EQ(r, 0);
	}
	/* Branches outside the expression: past the end, before the start. */
	BOTH_ERR(KUW_E_EXPR_BRANCH, LIT(1), KUW_DW_OP_skip, 2, 0, LIT(2));
	BOTH_ERR(KUW_E_EXPR_BRANCH, LIT(1), KUW_DW_OP_skip, 0xfa, 0xff);
	BOTH_ERR(KUW_E_EXPR_BRANCH, LIT(1), KUW_DW_OP_bra, 0x00, 0x80);
	BOTH_ERR(KUW_E_EXPR_BRANCH, LIT(1), KUW_DW_OP_bra, 0xff, 0x7f);
	BOTH_ERR(KUW_E_TRUNC, LIT(1), KUW_DW_OP_bra, 0);
	BOTH_ERR(KUW_E_TRUNC, KUW_DW_OP_skip);
	/*
	 * A bad branch is refused at evaluation even when not taken (it is
	 * malformed either way, and the check refuses it at load).
	 */
	BOTH_ERR(KUW_E_EXPR_BRANCH, LIT(0), KUW_DW_OP_bra, 0x10, 0);

	/* Branch targets must be the start of an operation. */
	{
		/* bra back into the middle of const4u's operand. */
		const u8 mid[] = { LIT(3), KUW_DW_OP_const4u, 0x2c, 0xff, 0xff,
				   0x01, KUW_DW_OP_bra, 0xfa, 0xff };
		/* skip over bytes no path reaches: still checked. */
		const u8 dead[] = { KUW_DW_OP_skip, 2, 0, 0x00, 0x00, LIT(5) };

		KT_EXPECT_EQ(kuw_dwop_check(mid, sizeof(mid)),
			     -KUW_E_EXPR_BRANCH);
		KT_EXPECT(ev(mid, sizeof(mid), &r) < 0);
		KT_EXPECT_EQ(kuw_dwop_check(dead, sizeof(dead)), -KUW_E_BADOP);
		/* Evaluation never meets the two 0x00 bytes. */
		KT_EXPECT_EQ(ev(dead, sizeof(dead), &r), 0);
		KT_EXPECT_EQ(r, 5);
	}
	/* The check takes expressions up to 1024 bytes; eval has no limit. */
	{
		u8 *big = malloc(2000);

		memset(big, KUW_DW_OP_nop, 2000);
		big[0] = LIT(9);
		KT_EXPECT_EQ(kuw_dwop_check(big, 1024), 0);
		KT_EXPECT_EQ(kuw_dwop_check(big, 1025), -KUW_E_BADLEN);
		/* 2000 operations exceed the budget of 1024. */
		KT_EXPECT_EQ(ev(big, 2000, &r), -KUW_E_EXPR_BUDGET);
		KT_EXPECT_EQ(ev(big, KUW_EXPR_BUDGET, &r), 0);
		KT_EXPECT_EQ(r, 9);
		free(big);
	}

	/* Endless loops end on the operation budget. */
	o[0] = KUW_DW_OP_skip;
	o[1] = 0xfd;			/* -3: itself */
	o[2] = 0xff;
	KT_EXPECT_EQ(kuw_dwop_check(o, 3), 0);
	KT_EXPECT_EQ(ev(o, 3, &r), -KUW_E_EXPR_BUDGET);
	{
		const u8 spin[] = { LIT(1), KUW_DW_OP_dup, KUW_DW_OP_bra,
				    0xfc, 0xff };	/* to the dup */

		KT_EXPECT_EQ(kuw_dwop_check(spin, sizeof(spin)), 0);
		KT_EXPECT_EQ(ev(spin, sizeof(spin), &r), -KUW_E_EXPR_BUDGET);
	}
	{
		/* A finite loop that needs more than the budget. */
		const u8 longloop[] = { KUW_DW_OP_const2u, 0x00, 0x10,
					LIT(1), KUW_DW_OP_minus,
					KUW_DW_OP_dup, KUW_DW_OP_bra,
					0xfa, 0xff };

		KT_EXPECT_EQ(ev(longloop, sizeof(longloop), &r),
			     -KUW_E_EXPR_BUDGET);
	}
	{
		/* Just under the budget: 4 ops per turn, 255 turns + 1. */
		const u8 okloop[] = { KUW_DW_OP_const1u, 0xff,
				      LIT(1), KUW_DW_OP_minus,
				      KUW_DW_OP_dup, KUW_DW_OP_bra,
				      0xfa, 0xff };

		KT_EXPECT(1 + 4 * 255 <= KUW_EXPR_BUDGET);
		KT_EXPECT_EQ(ev(okloop, sizeof(okloop), &r), 0);
		KT_EXPECT_EQ(r, 0);
	}
}

KT_TEST(dwop_deref)
{
	const u8 d8[] = { KUW_DW_OP_breg0 + KUW_X86_RSP, 0x10, KUW_DW_OP_deref };
	u8 bytes[16];
	u64 r = 0;
	u32 i;
	int ctx;

	regs_init();
	kt_mem_clear();
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = 0x10 + i;
	KT_ASSERT(kt_mem_add(0x8010, bytes, sizeof(bytes)) == 0);
	KT_EXPECT_EQ(kuw_dwop_eval(d8, sizeof(d8), &dw_regs, 0, false, 0,
				   false, &ctx, &r), 0);
	KT_EXPECT_EQ(r, 0x1716151413121110ULL);
	KT_EXPECT_EQ(kt_mem_reads, 1);
	KT_EXPECT(kt_mem_last_ctx == &ctx);
	/* deref_size 1..8 zero-extends. */
	for (i = 1; i <= 8; i++) {
		u8 o[] = { KUW_DW_OP_const2u, 0x12, 0x80,
			   KUW_DW_OP_deref_size, (u8)i };
		u64 want = 0;
		u32 k;

		for (k = 0; k < i; k++)
			want |= (u64)(0x12 + k) << (8 * k);
		KT_EXPECT_EQ(ev(o, sizeof(o), &r), 0);
		KT_EXPECT_EQ(r, want);
		KT_EXPECT_EQ(kuw_dwop_check(o, sizeof(o)), 0);
	}
	/* Size 0 and 9 are invalid. */
	BOTH_ERR(KUW_E_EXPR_OP, LIT(0), KUW_DW_OP_deref_size, 0);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(0), KUW_DW_OP_deref_size, 9);
	BOTH_ERR(KUW_E_TRUNC, LIT(0), KUW_DW_OP_deref_size);
	/* Faults: unmapped, straddling the end, injected inside. */
	EV_ERR(KUW_E_FAULT, LIT(0), KUW_DW_OP_deref);
	EV_ERR(KUW_E_FAULT, KUW_DW_OP_const2u, 0x19, 0x80, KUW_DW_OP_deref);
	EV_OK(0x1f, KUW_DW_OP_const2u, 0x1f, 0x80, KUW_DW_OP_deref_size, 1);
	EV_ERR(KUW_E_FAULT, KUW_DW_OP_const2u, 0x1f, 0x80,
	       KUW_DW_OP_deref_size, 2);
	kt_mem_fail_at = 0x8014;
	EV_ERR(KUW_E_FAULT, KUW_DW_OP_const2u, 0x10, 0x80, KUW_DW_OP_deref);
	EV_OK(0x13121110, KUW_DW_OP_const2u, 0x10, 0x80,
	      KUW_DW_OP_deref_size, 4);
	kt_mem_clear();
	/* A chain: the saved slot holds a pointer to the value. */
	kt_mem_put64(0x8000 + 8, 0x6000);
	kt_mem_put64(0x6000, 0xabcdef);
	EV_OK(0xabcdef, KUW_DW_OP_breg0 + KUW_X86_RSP, 8, KUW_DW_OP_deref,
	      KUW_DW_OP_deref);
	KT_EXPECT_EQ(kt_mem_reads, 2);
	kt_mem_clear();
}

KT_TEST(dwop_refused_and_unknown)
{
	u32 op;
	u64 r;

	regs_init();
	/* Known operations that have no meaning in CFI. */
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), LIT(1), KUW_DW_OP_xderef);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), LIT(1), KUW_DW_OP_xderef_size, 4);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_fbreg, 0);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), KUW_DW_OP_piece, 8);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), KUW_DW_OP_stack_value);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_push_object_address);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_call2, 0, 0);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_call4, 0, 0, 0, 0);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_call_ref, 0, 0, 0, 0);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), KUW_DW_OP_form_tls_address);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), KUW_DW_OP_bit_piece, 1, 0);
	BOTH_ERR(KUW_E_EXPR_OP, KUW_DW_OP_implicit_value, 1, 0);
	BOTH_ERR(KUW_E_EXPR_OP, LIT(1), KUW_DW_OP_GNU_push_tls_address);
	/* Unknown codes: 0-2, 4, 5, 7 and 0xa0 upwards (bar GNU TLS). */
	for (op = 0; op < 256; op++) {
		u8 o[2] = { LIT(1), (u8)op };
		bool known = (op >= 0x03 && op <= 0x9f && op != 0x04 &&
			      op != 0x05 && op != 0x07) || op == 0xe0;

		if (known)
			continue;
		KT_EXPECT_EQ(kuw_dwop_check(o, 2), -KUW_E_BADOP);
		KT_EXPECT_EQ(ev(o, 2, &r), -KUW_E_BADOP);
	}
	/* The check stops at the first problem, even after valid code. */
	BOTH_ERR(KUW_E_BADOP, LIT(1), LIT(2), KUW_DW_OP_plus, 0xff);
}

/* The check never reads past the end and never loops, whatever the input. */
KT_TEST(dwop_check_all_two_byte)
{
	u32 a, b;
	u8 *o = malloc(2);
	u64 r;

	regs_init();
	kt_mem_clear();
	for (a = 0; a < 256; a++) {
		for (b = 0; b < 256; b++) {
			int c1, c2;

			o[0] = (u8)a;
			o[1] = (u8)b;
			c1 = kuw_dwop_check(o, 2);
			c2 = ev(o, 2, &r);
			KT_EXPECT(c1 <= 0 && c1 > -KUW_E__COUNT);
			KT_EXPECT(c2 <= 0 && c2 > -KUW_E__COUNT);
			/* What the check refuses, evaluation refuses too. */
			if (c1 && c1 != -KUW_E_EXPR_STACK)
				KT_EXPECT(c2 != 0);
		}
	}
	free(o);
}

/*
 * The DW_OP expressions of this machine's libc CFI, as printed by
 * `readelf --debug-dump=frames` (the x86-64 PLT CFA rule and the
 * signal-return register rules): "DW_OP_breg7 (rsp): 8; DW_OP_breg16
 * (rip): 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3;
 * DW_OP_shl; DW_OP_plus" and "DW_OP_breg7 (rsp): 160; DW_OP_deref".
 */
KT_TEST(dwop_real_cfi)
{
	const u8 plt[] = { KUW_DW_OP_breg0 + 7, 8, KUW_DW_OP_breg0 + 16, 0,
			   KUW_DW_OP_lit0 + 15, KUW_DW_OP_and,
			   KUW_DW_OP_lit0 + 11, KUW_DW_OP_ge,
			   KUW_DW_OP_lit0 + 3, KUW_DW_OP_shl, KUW_DW_OP_plus };
	const u8 sig[] = { KUW_DW_OP_breg0 + 7, 0xa0, 0x01, KUW_DW_OP_deref };
	u64 r;
	u32 off;

	regs_init();
	KT_EXPECT_EQ(kuw_dwop_check(plt, sizeof(plt)), 0);
	/* CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0), for every rip. */
	for (off = 0; off < 16; off++) {
		dw_regs.r[KUW_X86_RA] = 0x401020 + off;
		dw_regs.r[KUW_X86_RSP] = 0x7ff0;
		KT_EXPECT_EQ(ev(plt, sizeof(plt), &r), 0);
		KT_EXPECT_EQ(r, 0x7ff0 + 8 + (off >= 11 ? 8 : 0));
	}
	kt_mem_clear();
	kt_mem_put64(0x7ff0 + 160, 0x1234);
	KT_EXPECT_EQ(kuw_dwop_check(sig, sizeof(sig)), 0);
	KT_EXPECT_EQ(ev(sig, sizeof(sig), &r), 0);
	KT_EXPECT_EQ(r, 0x1234);
	kt_mem_clear();
	KT_EXPECT_EQ(ev(sig, sizeof(sig), &r), -KUW_E_FAULT);
}
