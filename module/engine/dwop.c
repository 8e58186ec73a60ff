// SPDX-License-Identifier: GPL-2.0
/*
 * DW_OP interpreter for CFI expressions (DW_CFA_def_cfa_expression,
 * DW_CFA_expression, DW_CFA_val_expression).
 *
 * Every operation of DWARF 4/5 that can compute a value in CFI is
 * supported, plus DW_OP_call_frame_cfa.  Refused with KUW_E_EXPR_OP:
 * register location descriptions (DW_OP_reg*, DW_OP_regx: not allowed in
 * CFI expressions by DWARF 5 section 6.4.2, and never emitted by
 * compilers), composition (piece, bit_piece), implicit and stack values,
 * calls into .debug_info, TLS, object addresses, xderef.
 *
 * Bounds: a stack of KUW_EXPR_STACK entries, KUW_EXPR_BUDGET operations per
 * evaluation (a backward skip or bra cannot hang), branch targets inside the
 * expression (the end itself included).  Memory is read only through
 * kuw_read_mem().  Nothing is allocated; the stack array is 512 bytes.
 *
 * Semantics follow DWARF 5 and libgcc for the generic type: div and the
 * comparisons are signed, mod is unsigned, shr is logical and shra
 * arithmetic; a shift by 64 or more gives 0 (shra: the sign).
 */
#include "engine.h"
#include "dwarf.h"
#include "read.h"

/* Cursor over the expression bytes. */
struct dwop_cur {
	const u8 *ops;
	u32 len;
	u32 pos;
};

static int dwop_fixed(struct dwop_cur *c, u32 n, u64 *v)
{
	if (c->len - c->pos < n)
		return -KUW_E_TRUNC;
	*v = kuw_get_le(c->ops + c->pos, n);
	c->pos += n;
	return 0;
}

/* LEB128 operands: the shared bounded reader, limited to the expression. */
static int dwop_uleb(struct dwop_cur *c, u64 *v)
{
	struct kuw_cur k = { .data = c->ops, .pos = c->pos, .end = c->len };
	int ret = kuw_rd_uleb(&k, v);

	if (!ret)
		c->pos = k.pos;
	return ret;
}

static int dwop_sleb(struct dwop_cur *c, s64 *v)
{
	struct kuw_cur k = { .data = c->ops, .pos = c->pos, .end = c->len };
	int ret = kuw_rd_sleb(&k, v);

	if (!ret)
		c->pos = k.pos;
	return ret;
}

static u64 dwop_sext(u64 v, u32 bytes)
{
	u32 sh = 64 - 8 * bytes;

	return (u64)((s64)(v << sh) >> sh);
}

/*
 * Operand shape of each operation, shared by the checker and the
 * evaluator.  Returns 0 for known operations that CFI may use,
 * -KUW_E_EXPR_OP for known ones it may not, -KUW_E_BADOP otherwise.
 */
enum dwop_arg {
	DWOP_NONE,
	DWOP_FIX,	/* fixed size, @size bytes */
	DWOP_ULEB,
	DWOP_SLEB,
	DWOP_ULEB_SLEB,	/* bregx */
	DWOP_BRANCH,	/* s16 */
};

static int dwop_shape(u8 op, enum dwop_arg *arg, u32 *size)
{
	*arg = DWOP_NONE;
	*size = 0;
	if (op >= KUW_DW_OP_lit0 && op <= KUW_DW_OP_lit31)
		return 0;
	if (op >= KUW_DW_OP_breg0 && op <= KUW_DW_OP_breg31) {
		*arg = DWOP_SLEB;
		return 0;
	}
	if (op >= KUW_DW_OP_reg0 && op <= KUW_DW_OP_reg31)
		return -KUW_E_EXPR_OP;
	switch (op) {
	case KUW_DW_OP_addr:
	case KUW_DW_OP_const8u:
	case KUW_DW_OP_const8s:
		*arg = DWOP_FIX;
		*size = 8;
		return 0;
	case KUW_DW_OP_const1u:
	case KUW_DW_OP_const1s:
	case KUW_DW_OP_pick:
	case KUW_DW_OP_deref_size:
		*arg = DWOP_FIX;
		*size = 1;
		return 0;
	case KUW_DW_OP_const2u:
	case KUW_DW_OP_const2s:
		*arg = DWOP_FIX;
		*size = 2;
		return 0;
	case KUW_DW_OP_const4u:
	case KUW_DW_OP_const4s:
		*arg = DWOP_FIX;
		*size = 4;
		return 0;
	case KUW_DW_OP_constu:
	case KUW_DW_OP_plus_uconst:
		*arg = DWOP_ULEB;
		return 0;
	case KUW_DW_OP_consts:
		*arg = DWOP_SLEB;
		return 0;
	case KUW_DW_OP_bregx:
		*arg = DWOP_ULEB_SLEB;
		return 0;
	case KUW_DW_OP_skip:
	case KUW_DW_OP_bra:
		*arg = DWOP_BRANCH;
		return 0;
	case KUW_DW_OP_deref:
	case KUW_DW_OP_dup:
	case KUW_DW_OP_drop:
	case KUW_DW_OP_over:
	case KUW_DW_OP_swap:
	case KUW_DW_OP_rot:
	case KUW_DW_OP_abs:
	case KUW_DW_OP_and:
	case KUW_DW_OP_div:
	case KUW_DW_OP_minus:
	case KUW_DW_OP_mod:
	case KUW_DW_OP_mul:
	case KUW_DW_OP_neg:
	case KUW_DW_OP_not:
	case KUW_DW_OP_or:
	case KUW_DW_OP_plus:
	case KUW_DW_OP_shl:
	case KUW_DW_OP_shr:
	case KUW_DW_OP_shra:
	case KUW_DW_OP_xor:
	case KUW_DW_OP_eq:
	case KUW_DW_OP_ge:
	case KUW_DW_OP_gt:
	case KUW_DW_OP_le:
	case KUW_DW_OP_lt:
	case KUW_DW_OP_ne:
	case KUW_DW_OP_nop:
	case KUW_DW_OP_call_frame_cfa:
		return 0;
	case KUW_DW_OP_xderef:
	case KUW_DW_OP_regx:
	case KUW_DW_OP_fbreg:
	case KUW_DW_OP_piece:
	case KUW_DW_OP_xderef_size:
	case KUW_DW_OP_push_object_address:
	case KUW_DW_OP_call2:
	case KUW_DW_OP_call4:
	case KUW_DW_OP_call_ref:
	case KUW_DW_OP_form_tls_address:
	case KUW_DW_OP_bit_piece:
	case KUW_DW_OP_implicit_value:
	case KUW_DW_OP_stack_value:
	case KUW_DW_OP_GNU_push_tls_address:
		return -KUW_E_EXPR_OP;
	}
	return -KUW_E_BADOP;
}

/* Branch target check: @delta from the end of the operand. */
static int dwop_target(const struct dwop_cur *c, s64 delta, u32 *to)
{
	s64 t = (s64)c->pos + delta;

	if (t < 0 || t > (s64)c->len)
		return -KUW_E_EXPR_BRANCH;
	*to = (u32)t;
	return 0;
}

/*
 * Longest expression kuw_dwop_check() accepts (real CFI expressions are a
 * few dozen bytes): it keeps a bitmap of instruction starts on the stack.
 */
#define DWOP_MAX_LEN	1024

/* Decode the operand of @op (shape @arg, @size) at the cursor. */
static int dwop_skip_operand(struct dwop_cur *c, u8 op, enum dwop_arg arg,
			     u32 size, s64 *branch)
{
	u64 u;
	s64 sv;
	int err = 0;

	switch (arg) {
	case DWOP_NONE:
		break;
	case DWOP_FIX:
		err = dwop_fixed(c, size, &u);
		if (!err && op == KUW_DW_OP_deref_size && (u < 1 || u > 8))
			err = -KUW_E_EXPR_OP;
		break;
	case DWOP_ULEB:
		err = dwop_uleb(c, &u);
		break;
	case DWOP_SLEB:
		err = dwop_sleb(c, &sv);
		break;
	case DWOP_ULEB_SLEB:
		err = dwop_uleb(c, &u);
		if (!err && u >= KUW_MAX_REGS)
			err = -KUW_E_BADREG;
		if (!err)
			err = dwop_sleb(c, &sv);
		break;
	case DWOP_BRANCH:
		err = dwop_fixed(c, 2, &u);
		if (!err)
			*branch = (s16)u;
		break;
	}
	return err;
}

/**
 * kuw_dwop_check() - structural check of a DW_OP expression at load time
 * @ops: the expression bytes (after its ULEB128 length)
 * @len: their number, at most 1024
 *
 * Every operation known and allowed in CFI, every operand inside the
 * expression, deref_size in 1..8, bregx registers below KUW_MAX_REGS,
 * every branch target the start of an operation or the end of the
 * expression.  Nothing is evaluated.  Bytes that no path reaches are
 * checked too.  An expression that passes never fails evaluation with
 * an unknown operation, a truncated operand or a bad branch.
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kuw_dwop_check(const u8 *ops, u32 len)
{
	u8 starts[DWOP_MAX_LEN / 8 + 1];
	struct dwop_cur c = { ops, len, 0 };
	enum dwop_arg arg;
	s64 delta = 0;
	u32 size, to, at;
	int err, pass;
	u8 op;

	if (!ops && len)
		return -KUW_E_INVAL;
	if (len > DWOP_MAX_LEN)
		return -KUW_E_BADLEN;
	memset(starts, 0, sizeof(starts));
	starts[len / 8] |= 1 << (len % 8);	/* the end is a valid target */
	/*
	 * Pass 0 decodes every operation and marks where each starts;
	 * pass 1 checks the branch targets against those marks.  Each step
	 * consumes at least one byte: bounded by @len.
	 */
	for (pass = 0; pass < 2; pass++) {
		c.pos = 0;
		while (c.pos < c.len) {
			at = c.pos;
			op = c.ops[c.pos++];
			err = dwop_shape(op, &arg, &size);
			if (!err)
				err = dwop_skip_operand(&c, op, arg, size,
							&delta);
			if (err)
				return err;
			if (!pass) {
				starts[at / 8] |= 1 << (at % 8);
				continue;
			}
			if (arg != DWOP_BRANCH)
				continue;
			err = dwop_target(&c, delta, &to);
			if (err)
				return err;
			if (!(starts[to / 8] & (1 << (to % 8))))
				return -KUW_E_EXPR_BRANCH;
		}
	}
	return 0;
}

static int dwop_reg(const struct kuw_regs *regs, u64 reg, u64 *v)
{
	if (!regs || reg >= KUW_MAX_REGS || !(regs->valid & (1ULL << reg)))
		return -KUW_E_BADREG;
	*v = regs->r[reg];
	return 0;
}

/* Entries an operation needs on the stack before it runs. */
static u32 dwop_need(u8 op, u64 u)
{
	switch (op) {
	case KUW_DW_OP_pick:
		return (u32)u + 1;
	case KUW_DW_OP_rot:
		return 3;
	case KUW_DW_OP_over:
	case KUW_DW_OP_swap:
		return 2;
	case KUW_DW_OP_deref:
	case KUW_DW_OP_deref_size:
	case KUW_DW_OP_dup:
	case KUW_DW_OP_drop:
	case KUW_DW_OP_abs:
	case KUW_DW_OP_neg:
	case KUW_DW_OP_not:
	case KUW_DW_OP_plus_uconst:
	case KUW_DW_OP_bra:
		return 1;
	case KUW_DW_OP_and:
	case KUW_DW_OP_div:
	case KUW_DW_OP_minus:
	case KUW_DW_OP_mod:
	case KUW_DW_OP_mul:
	case KUW_DW_OP_or:
	case KUW_DW_OP_plus:
	case KUW_DW_OP_shl:
	case KUW_DW_OP_shr:
	case KUW_DW_OP_shra:
	case KUW_DW_OP_xor:
	case KUW_DW_OP_eq:
	case KUW_DW_OP_ge:
	case KUW_DW_OP_gt:
	case KUW_DW_OP_le:
	case KUW_DW_OP_lt:
	case KUW_DW_OP_ne:
		return 2;
	}
	return 0;
}

/* Whether an operation adds an entry to the stack. */
static bool dwop_pushes(u8 op)
{
	if (op >= KUW_DW_OP_lit0 && op <= KUW_DW_OP_breg31)
		return true;	/* lit*, breg* (reg* never gets here) */
	switch (op) {
	case KUW_DW_OP_addr:
	case KUW_DW_OP_const1u:
	case KUW_DW_OP_const1s:
	case KUW_DW_OP_const2u:
	case KUW_DW_OP_const2s:
	case KUW_DW_OP_const4u:
	case KUW_DW_OP_const4s:
	case KUW_DW_OP_const8u:
	case KUW_DW_OP_const8s:
	case KUW_DW_OP_constu:
	case KUW_DW_OP_consts:
	case KUW_DW_OP_bregx:
	case KUW_DW_OP_call_frame_cfa:
	case KUW_DW_OP_dup:
	case KUW_DW_OP_over:
	case KUW_DW_OP_pick:
		return true;
	}
	return false;
}

/* Binary operation: *res = second OP top. */
static int dwop_binary(u8 op, u64 b, u64 a, u64 *res)
{
	switch (op) {
	case KUW_DW_OP_and:
		*res = b & a;
		break;
	case KUW_DW_OP_or:
		*res = b | a;
		break;
	case KUW_DW_OP_xor:
		*res = b ^ a;
		break;
	case KUW_DW_OP_plus:
		*res = b + a;
		break;
	case KUW_DW_OP_minus:
		*res = b - a;
		break;
	case KUW_DW_OP_mul:
		*res = b * a;
		break;
	case KUW_DW_OP_div:
		if (!a)
			return -KUW_E_EXPR_DIV0;
		/* INT64_MIN / -1 overflows in C: it wraps to itself. */
		*res = (s64)a == -1 ? 0 - b : (u64)((s64)b / (s64)a);
		break;
	case KUW_DW_OP_mod:
		if (!a)
			return -KUW_E_EXPR_DIV0;
		*res = b % a;
		break;
	case KUW_DW_OP_shl:
		*res = a >= 64 ? 0 : b << a;
		break;
	case KUW_DW_OP_shr:
		*res = a >= 64 ? 0 : b >> a;
		break;
	case KUW_DW_OP_shra:
		*res = (u64)((s64)b >> (a >= 64 ? 63 : a));
		break;
	case KUW_DW_OP_eq:
		*res = b == a;
		break;
	case KUW_DW_OP_ne:
		*res = b != a;
		break;
	case KUW_DW_OP_ge:
		*res = (s64)b >= (s64)a;
		break;
	case KUW_DW_OP_gt:
		*res = (s64)b > (s64)a;
		break;
	case KUW_DW_OP_le:
		*res = (s64)b <= (s64)a;
		break;
	case KUW_DW_OP_lt:
		*res = (s64)b < (s64)a;
		break;
	default:
		/* dwop_shape() accepted an operation handled nowhere. */
		return -KUW_E_BADOP;
	}
	return 0;
}

/**
 * kuw_dwop_eval() - evaluate a DW_OP expression
 * @ops: the expression bytes
 * @len: their number
 * @regs: register values; only those whose bit is set in @regs->valid
 * @cfa: value of DW_OP_call_frame_cfa
 * @have_cfa: @cfa is known (false while computing the CFA itself)
 * @initial: value pushed first when @push_initial (the CFA for register
 *	rules)
 * @push_initial: push @initial before the first operation
 * @mem_ctx: passed to kuw_read_mem() for every dereference
 * @result: the top of the stack at the end
 *
 * Return: 0 or a negative enum kuw_err (stack fault, division by zero,
 * bad branch, budget exhausted, unknown or refused operation, invalid
 * register, or the read error).
 */
int kuw_dwop_eval(const u8 *ops, u32 len, const struct kuw_regs *regs,
		  u64 cfa, bool have_cfa, u64 initial, bool push_initial,
		  void *mem_ctx, u64 *result)
{
	struct dwop_cur c = { ops, len, 0 };
	u64 st[KUW_EXPR_STACK];
	u32 n = 0, budget = KUW_EXPR_BUDGET, size, to = 0;
	enum dwop_arg arg;
	u64 a, b, u = 0, reg = 0;
	s64 sv = 0;
	u8 buf[8];
	int err;
	u8 op;

	if (!result || (!ops && len))
		return -KUW_E_INVAL;
	if (push_initial)
		st[n++] = initial;

	while (c.pos < c.len) {
		if (!budget--)
			return -KUW_E_EXPR_BUDGET;
		op = c.ops[c.pos++];
		err = dwop_shape(op, &arg, &size);
		if (err)
			return err;
		/* Decode the operand first: every path below is bounded. */
		switch (arg) {
		case DWOP_NONE:
			break;
		case DWOP_FIX:
			err = dwop_fixed(&c, size, &u);
			break;
		case DWOP_ULEB:
			err = dwop_uleb(&c, &u);
			break;
		case DWOP_SLEB:
			err = dwop_sleb(&c, &sv);
			break;
		case DWOP_ULEB_SLEB:
			err = dwop_uleb(&c, &reg);
			if (!err)
				err = dwop_sleb(&c, &sv);
			break;
		case DWOP_BRANCH:
			err = dwop_fixed(&c, 2, &u);
			if (!err)
				err = dwop_target(&c, (s16)u, &to);
			break;
		}
		if (err)
			return err;

		/* Stack effect checked once, so the cases below cannot fault. */
		if (n < dwop_need(op, u) ||
		    (dwop_pushes(op) && n >= KUW_EXPR_STACK))
			return -KUW_E_EXPR_STACK;

		if (op >= KUW_DW_OP_lit0 && op <= KUW_DW_OP_lit31) {
			st[n++] = op - KUW_DW_OP_lit0;
			continue;
		}
		if (op >= KUW_DW_OP_breg0 && op <= KUW_DW_OP_breg31) {
			err = dwop_reg(regs, op - KUW_DW_OP_breg0, &a);
			if (err)
				return err;
			st[n++] = a + (u64)sv;
			continue;
		}
		a = n ? st[n - 1] : 0;		/* top */
		b = n > 1 ? st[n - 2] : 0;	/* second */
		switch (op) {
		case KUW_DW_OP_addr:
		case KUW_DW_OP_const1u:
		case KUW_DW_OP_const2u:
		case KUW_DW_OP_const4u:
		case KUW_DW_OP_const8u:
		case KUW_DW_OP_const8s:
		case KUW_DW_OP_constu:
			st[n++] = u;
			break;
		case KUW_DW_OP_const1s:
		case KUW_DW_OP_const2s:
		case KUW_DW_OP_const4s:
			st[n++] = dwop_sext(u, size);
			break;
		case KUW_DW_OP_consts:
			st[n++] = (u64)sv;
			break;
		case KUW_DW_OP_bregx:
			err = dwop_reg(regs, reg, &a);
			if (err)
				return err;
			st[n++] = a + (u64)sv;
			break;
		case KUW_DW_OP_call_frame_cfa:
			if (!have_cfa)
				return -KUW_E_EXPR_OP;
			st[n++] = cfa;
			break;
		case KUW_DW_OP_deref:
		case KUW_DW_OP_deref_size:
			if (op == KUW_DW_OP_deref)
				u = 8;
			if (u < 1 || u > 8)
				return -KUW_E_EXPR_OP;
			err = kuw_read_mem(mem_ctx, a, buf, (u32)u);
			if (err)
				return err < 0 ? err : -KUW_E_FAULT;
			st[n - 1] = kuw_get_le(buf, (u32)u);
			break;
		case KUW_DW_OP_dup:
			st[n++] = a;
			break;
		case KUW_DW_OP_drop:
			n--;
			break;
		case KUW_DW_OP_over:
			st[n++] = b;
			break;
		case KUW_DW_OP_pick:
			/* u is 0..255, the index from the top. */
			st[n] = st[n - 1 - u];
			n++;
			break;
		case KUW_DW_OP_swap:
			st[n - 1] = b;
			st[n - 2] = a;
			break;
		case KUW_DW_OP_rot:
			/* top, second, third -> second, third, top */
			st[n - 1] = b;
			st[n - 2] = st[n - 3];
			st[n - 3] = a;
			break;
		case KUW_DW_OP_abs:
			if ((s64)a < 0)
				st[n - 1] = 0 - a;
			break;
		case KUW_DW_OP_neg:
			st[n - 1] = 0 - a;
			break;
		case KUW_DW_OP_not:
			st[n - 1] = ~a;
			break;
		case KUW_DW_OP_plus_uconst:
			st[n - 1] = a + u;
			break;
		case KUW_DW_OP_skip:
			c.pos = to;
			break;
		case KUW_DW_OP_bra:
			n--;
			if (a)
				c.pos = to;
			break;
		case KUW_DW_OP_nop:
			break;
		default:
			err = dwop_binary(op, b, a, &st[n - 2]);
			if (err)
				return err;
			n--;
			break;
		}
	}
	if (!n)
		return -KUW_E_EXPR_STACK;
	*result = st[n - 1];
	return 0;
}
