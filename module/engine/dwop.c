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
 * kuw_read_mem().  Nothing is allocated; the stack array is 128 bytes: it
 * is on the walk's deepest stack path, in perf's NMI too (README, "Stack
 * use").  Compilers' CFI expressions need 2 or 3 entries (a DRAP frame:
 * breg, deref), hand-written ones (glibc's signal frames) a few more;
 * libgcc's 64 is far above any of them.
 *
 * Semantics follow DWARF 5 and libgcc for the generic type: div and the
 * comparisons are signed, mod is unsigned, shr is logical and shra
 * arithmetic; a shift by 64 or more gives 0 (shra: the sign).
 */
#include "engine.h"
#include "dwarf.h"
#include "read.h"

/*
 * The expression is read with the engine's bounded cursor (read.h): its
 * end is the expression's length, so no operand reads past it.
 */
static int dwop_fixed(struct kuw_cur *c, u32 n, u64 *v)
{
	if (kuw_cur_left(c) < n)
		return -KUW_E_TRUNC;
	*v = kuw_get_le(c->data + c->pos, n);
	c->pos += n;
	return 0;
}

static u64 dwop_sext(u64 v, u32 bytes)
{
	u32 sh = 64 - 8 * bytes;

	return (u64)((s64)(v << sh) >> sh);
}

/* Operand shapes, shared by the checker and the evaluator. */
enum dwop_arg {
	DWOP_NONE,
	DWOP_FIX,	/* fixed size, @size bytes */
	DWOP_ULEB,
	DWOP_SLEB,
	DWOP_ULEB_SLEB,	/* bregx */
	DWOP_BRANCH,	/* s16 */
};

/* The binary operations (dwop_binary()): two entries in, one out. */
static bool dwop_is_binary(u8 op)
{
	switch (op) {
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
		return true;
	}
	return false;
}

/* Known operations that CFI may not use (see the top of this file). */
static bool dwop_refused(u8 op)
{
	if (op >= KUW_DW_OP_reg0 && op <= KUW_DW_OP_reg31)
		return true;
	switch (op) {
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
		return true;
	}
	return false;
}

/* The operations CFI may use that take no operand. */
static bool dwop_plain(u8 op)
{
	if ((op >= KUW_DW_OP_lit0 && op <= KUW_DW_OP_lit31) ||
	    dwop_is_binary(op))
		return true;
	switch (op) {
	case KUW_DW_OP_deref:
	case KUW_DW_OP_dup:
	case KUW_DW_OP_drop:
	case KUW_DW_OP_over:
	case KUW_DW_OP_swap:
	case KUW_DW_OP_rot:
	case KUW_DW_OP_abs:
	case KUW_DW_OP_neg:
	case KUW_DW_OP_not:
	case KUW_DW_OP_nop:
	case KUW_DW_OP_call_frame_cfa:
		return true;
	}
	return false;
}

/*
 * The operand shape of @op.  Returns 0 for known operations that CFI may
 * use, -KUW_E_EXPR_OP for known ones it may not, -KUW_E_BADOP otherwise.
 */
static int dwop_shape(u8 op, enum dwop_arg *arg, u32 *size)
{
	*arg = DWOP_NONE;
	*size = 0;
	if (op >= KUW_DW_OP_breg0 && op <= KUW_DW_OP_breg31) {
		*arg = DWOP_SLEB;
		return 0;
	}
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
	}
	if (dwop_plain(op))
		return 0;
	return dwop_refused(op) ? -KUW_E_EXPR_OP : -KUW_E_BADOP;
}

/* Branch target check: @delta from the end of the operand. */
static int dwop_target(const struct kuw_cur *c, s64 delta, u32 *to)
{
	s64 t = (s64)c->pos + delta;

	if (t < 0 || t > (s64)c->end)
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
static int dwop_skip_operand(struct kuw_cur *c, u8 op, enum dwop_arg arg,
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
		err = kuw_rd_uleb(c, &u);
		break;
	case DWOP_SLEB:
		err = kuw_rd_sleb(c, &sv);
		break;
	case DWOP_ULEB_SLEB:
		err = kuw_rd_uleb(c, &u);
		if (!err && u >= KUW_MAX_REGS)
			err = -KUW_E_BADREG;
		if (!err)
			err = kuw_rd_sleb(c, &sv);
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
	struct kuw_cur c = { .data = ops, .end = len };
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
		while (c.pos < c.end) {
			at = (u32)c.pos;
			op = c.data[c.pos++];
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
	}
	return dwop_is_binary(op) ? 2 : 0;
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

/*
 * An evaluation: the cursor, the stack, what the operations read (@x).
 * Only pointers to the cursor and the stack, so that nothing here escapes
 * and the fields stay in registers.
 */
struct dwop_vm {
	struct kuw_cur *c;
	u64 *st;			/* KUW_EXPR_STACK entries */
	u32 n;				/* entries on the stack */
	const struct kuw_dwop_ctx *x;
};

/* struct kuw_dwop_args (engine.h): the operands dwop_operands() decodes */
#define dwop_args kuw_dwop_args

/* Decode the operands of shape @arg at the cursor. */
static kuw_always_inline int dwop_operands(struct kuw_cur *c,
					   enum dwop_arg arg,
					   struct dwop_args *a)
{
	int err;

	switch (arg) {
	case DWOP_NONE:
		return 0;
	case DWOP_FIX:
		return dwop_fixed(c, a->size, &a->u);
	case DWOP_ULEB:
		return kuw_rd_uleb(c, &a->u);
	case DWOP_SLEB:
		return kuw_rd_sleb(c, &a->sv);
	case DWOP_ULEB_SLEB:
		err = kuw_rd_uleb(c, &a->reg);
		return err ? err : kuw_rd_sleb(c, &a->sv);
	case DWOP_BRANCH:
		err = dwop_fixed(c, 2, &a->u);
		return err ? err : dwop_target(c, (s16)a->u, &a->to);
	}
	return 0;
}

/* Push register @reg + @off (breg*, bregx). */
static kuw_always_inline int dwop_breg(struct dwop_vm *m, u64 reg, s64 off)
{
	u64 v;
	int err = dwop_reg(m->x->regs, reg, &v);

	if (err)
		return err;
	m->st[m->n++] = v + (u64)off;
	return 0;
}

/*
 * Replace the top by the @size (1 to 8) bytes at its address, read into
 * the top's own entry (no buffer on the stack: README, "Stack use").
 */
static kuw_always_inline int dwop_deref(struct dwop_vm *m, u64 size)
{
	u64 *top = &m->st[m->n - 1];
	int err;

	if (size < 1 || size > 8)
		return -KUW_E_EXPR_OP;
	err = kuw_read_mem(m->x->mem_ctx, *top, top, (u32)size);
	if (err)
		return err < 0 ? err : -KUW_E_FAULT;
	*top = kuw_get_le((const u8 *)top, (u32)size);
	return 0;
}

/* The operations that push an entry (dwop_pushes()), room checked. */
static kuw_always_inline int dwop_push(struct dwop_vm *m, u8 op,
				       const struct dwop_args *a)
{
	u64 *st = m->st;

	if (op >= KUW_DW_OP_lit0 && op <= KUW_DW_OP_lit31) {
		st[m->n++] = op - KUW_DW_OP_lit0;
		return 0;
	}
	if (op >= KUW_DW_OP_breg0 && op <= KUW_DW_OP_breg31)
		return dwop_breg(m, op - KUW_DW_OP_breg0, a->sv);
	switch (op) {
	case KUW_DW_OP_const1s:
	case KUW_DW_OP_const2s:
	case KUW_DW_OP_const4s:
		st[m->n++] = dwop_sext(a->u, a->size);
		return 0;
	case KUW_DW_OP_consts:
		st[m->n++] = (u64)a->sv;
		return 0;
	case KUW_DW_OP_bregx:
		return dwop_breg(m, a->reg, a->sv);
	case KUW_DW_OP_call_frame_cfa:
		if (!m->x->have_cfa)
			return -KUW_E_EXPR_OP;
		st[m->n++] = m->x->cfa;
		return 0;
	case KUW_DW_OP_dup:
		st[m->n] = st[m->n - 1];
		break;
	case KUW_DW_OP_over:
		st[m->n] = st[m->n - 2];
		break;
	case KUW_DW_OP_pick:
		/* u is 0..255, the index from the top. */
		st[m->n] = st[m->n - 1 - a->u];
		break;
	default:	/* addr, const1u ... const8s, constu */
		st[m->n] = a->u;
		break;
	}
	m->n++;
	return 0;
}

/* The operations that push nothing, entries needed checked. */
static kuw_always_inline int dwop_other(struct dwop_vm *m, u8 op,
					const struct dwop_args *a)
{
	u64 *st = m->st, top = m->n ? st[m->n - 1] : 0;
	u64 second = m->n > 1 ? st[m->n - 2] : 0;
	int err;

	switch (op) {
	case KUW_DW_OP_deref:
		return dwop_deref(m, 8);
	case KUW_DW_OP_deref_size:
		return dwop_deref(m, a->u);
	case KUW_DW_OP_drop:
		m->n--;
		return 0;
	case KUW_DW_OP_swap:
		st[m->n - 1] = second;
		st[m->n - 2] = top;
		return 0;
	case KUW_DW_OP_rot:
		/* top, second, third -> second, third, top */
		st[m->n - 1] = second;
		st[m->n - 2] = st[m->n - 3];
		st[m->n - 3] = top;
		return 0;
	case KUW_DW_OP_abs:
		if ((s64)top < 0)
			st[m->n - 1] = 0 - top;
		return 0;
	case KUW_DW_OP_neg:
		st[m->n - 1] = 0 - top;
		return 0;
	case KUW_DW_OP_not:
		st[m->n - 1] = ~top;
		return 0;
	case KUW_DW_OP_plus_uconst:
		st[m->n - 1] = top + a->u;
		return 0;
	case KUW_DW_OP_skip:
		m->c->pos = a->to;
		return 0;
	case KUW_DW_OP_bra:
		m->n--;
		if (top)
			m->c->pos = a->to;
		return 0;
	case KUW_DW_OP_nop:
		return 0;
	}
	/* the binary operations: their two entries checked */
	err = dwop_binary(op, second, top, &st[m->n - 2]);
	if (!err)
		m->n--;
	return err;
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
	struct kuw_dwop_ctx x = {
		.regs = regs, .mem_ctx = mem_ctx, .cfa = cfa,
		.have_cfa = have_cfa,
	};

	return kuw_dwop_eval_in(ops, len, initial, push_initial, &x, result);
}

/**
 * kuw_dwop_eval_in() - kuw_dwop_eval() with its inputs and stack in one struct
 * @ops: the expression bytes
 * @len: their number
 * @initial: value pushed first when @push_initial
 * @push_initial: push @initial before the first operation
 * @x: the register values (only those whose bit is set in ->regs->valid),
 *     the value of DW_OP_call_frame_cfa if ->have_cfa, ->mem_ctx for
 *     kuw_read_mem(), and the DW_OP stack (the kernel's walk keeps it all
 *     off the stack: README, "Stack use")
 * @result: the top of the stack at the end
 *
 * Return: as kuw_dwop_eval().
 */
int kuw_dwop_eval_in(const u8 *ops, u32 len, u64 initial, bool push_initial,
		     struct kuw_dwop_ctx *x, u64 *result)
{
	struct kuw_cur *c = &x->cur;
	struct dwop_args *a = &x->a;
	u64 *st = x->st;
	struct dwop_vm m = { .c = c, .st = st, .x = x };
	u32 budget = KUW_EXPR_BUDGET;
	enum dwop_arg arg;
	int err;
	u8 op;

	if (!result || (!ops && len))
		return -KUW_E_INVAL;
	c->data = ops;
	c->pos = 0;
	c->end = len;
	c->addr = 0;
	memset(a, 0, sizeof(*a));
	if (push_initial)
		st[m.n++] = initial;
	while (c->pos < c->end) {
		if (!budget--)
			return -KUW_E_EXPR_BUDGET;
		op = c->data[c->pos++];
		/* Decode the operand first: every path below is bounded. */
		err = dwop_shape(op, &arg, &a->size);
		if (!err)
			err = dwop_operands(c, arg, a);
		if (err)
			return err;
		/* Stack effect checked once, so the operations cannot fault. */
		if (m.n < dwop_need(op, a->u))
			return -KUW_E_EXPR_STACK;
		if (dwop_pushes(op)) {
			if (m.n >= KUW_EXPR_STACK)
				return -KUW_E_EXPR_STACK;
			err = dwop_push(&m, op, a);
		} else {
			err = dwop_other(&m, op, a);
		}
		if (err)
			return err;
	}
	if (!m.n)
		return -KUW_E_EXPR_STACK;
	*result = st[m.n - 1];
	return 0;
}

kuw_nokprobe(kuw_dwop_eval_in);
kuw_nokprobe(dwop_shape);
