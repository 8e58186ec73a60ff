// SPDX-License-Identifier: GPL-2.0
/*
 * DW_CFA interpreter: runs a CIE's initial instructions and an FDE's
 * instructions once, at load, and reports the rows they describe.  This
 * is the general path; the table build's FDEs go to its fast path
 * (cfi_fast.c) first, which holds the entry points (kuw_cfi_run_cie(),
 * kuw_cfi_run_fde(), the caches) and calls in here, never the other way.
 *
 * Semantics (DWARF 5 section 6.4.2, with the GNU extensions real objects
 * carry), decided where the sources differ:
 *  - restore / restore_extended: back to the rule the CIE's initial
 *    instructions left for that register (no rule inside the CIE).
 *  - same_value is kept as a rule of its own (KUW_R_SAME, reported and
 *    printed as "s" like readelf does), distinct from no rule at all;
 *    both leave the register's value as it is when unwinding.
 *  - remember_state / restore_state: the whole rule set, CFA and AArch64
 *    RA-signing state included; the location is kept.  The stack holds
 *    KUW_REMEMBER_DEPTH states, is emptied between CIE and FDE; overflow
 *    and underflow are errors.
 *  - def_cfa_offset(_sf) sets the numeric CFA offset and leaves the kind
 *    alone: an expression CFA stays an expression.  def_cfa_register makes
 *    the CFA "register + that offset" again (as libgcc and readelf do).
 *  - DW_CFA_GNU_args_size: operand read and ignored (no effect on unwinding).
 *  - 0x2d: AArch64 negate_ra_state toggles KUW_RF_MANGLED_RA (part of the
 *    remembered state); on x86_64 (GNU_window_save, SPARC only) an error.
 *    0x2c: AArch64 negate_ra_state_with_pc (PAuth_LR: the signing also
 *    used the PC of the signing instruction) toggles it the same way:
 *    kunwind strips the signature, it never authenticates, so the
 *    modifier is not needed.  An error elsewhere.
 *  - advance_loc/set_loc in a CIE, a location going backwards or past the
 *    FDE end, an unknown opcode, an offset that does not fit s32: errors.
 *  - Registers: the arch's tracked columns (17 on x86_64: rax..r15, ra;
 *    33 on AArch64) are kept.  Higher columns below KUW_CFI_MAX_COL (SSE,
 *    FP/SIMD registers: libffi saves xmm6-xmm15) are parsed and their
 *    rules dropped, since an unwinder restores none of them; a CFA or a
 *    register rule that needs such a register, or a column at or above
 *    KUW_CFI_MAX_COL, is an error (KUW_E_BADREG).
 *  - A row whose CFA was never defined is an error unless its return
 *    address is undefined (outermost frame: the CFA is never used then;
 *    it is reported as sp+0).
 */
#include "cfi_internal.h"
#include "dwarf.h"
#include "arch.h"

#define CFI_NO_RULE	0xfe	/* cfi_set() kind: the column has no rule */
#define KUW_CFI_MAX_COL	128	/* highest DWARF column accepted, plus one */

#define CFI_S32_MAX	0x7fffffffLL
#define CFI_S32_MIN	(-0x7fffffffLL - 1)

void kuw_cfi_reset(struct kuw_cfi *x)
{
	struct kuw_cfi_state *s = &x->cur;
	u32 i;

	s->cfa_kind = CFI_CFA_UNSET;
	s->cfa_reg = 0;
	s->mangled_ra = 0;
	s->cfa_off = 0;
	s->cfa_expr = 0;
	s->live = 0;
	s->colh = 0;
	for (i = 0; i < KUW_MAX_REGS; i++) {
		s->col[i].kind = KUW_R_SAME;
		s->col[i].src = 0;
		s->col[i].pad = 0;
		s->col[i].off = 0;
	}
	x->depth = 0;
}

void kuw_cfi_to_rule(const struct kuw_cfi *x, const struct kuw_cfi_state *s,
		     struct kuw_rule *r)
{
	u64 live = s->live;
	u32 i, n = 0;

	if (s->cfa_kind == KUW_CFA_EXPR) {
		r->cfa_kind = KUW_CFA_EXPR;
		r->cfa_reg = 0;
		r->cfa_off = s->cfa_expr;
	} else if (s->cfa_kind == KUW_CFA_REG) {
		r->cfa_kind = KUW_CFA_REG;
		r->cfa_reg = s->cfa_reg;
		r->cfa_off = s->cfa_off;
	} else {
		r->cfa_kind = KUW_CFA_REG;
		r->cfa_reg = kuw_arch(x->arch)->sp;
		r->cfa_off = 0;
	}
	r->flags = 0;
	if (x->cie.signal)
		r->flags |= KUW_RF_SIGNAL;
	if (s->mangled_ra)
		r->flags |= KUW_RF_MANGLED_RA;
	/* only the columns with a rule: s->live, in increasing order */
	for (; live; live &= live - 1) {
		const struct kuw_cfi_col *c;
		struct kuw_reg_rule *rr;

		i = __builtin_ctzll(live);
		if (i >= x->nregs || i >= KUW_MAX_REGS)
			break;
		c = &s->col[i];
		rr = &r->regs[n++];
		rr->reg = (u8)i;
		rr->kind = c->kind;
		rr->src = c->kind == KUW_R_REG ? c->src : 0;
		rr->pad = 0;
		rr->off = c->kind == KUW_R_REG ? 0 : c->off;
	}
	r->nregs = (u8)n;
}

/* Do two states give the same row? (Only tracked columns count.) */
static bool cfi_same(const struct kuw_cfi *x, const struct kuw_cfi_state *a,
		     const struct kuw_cfi_state *b)
{
	u64 live;
	u32 i;

	if (a->cfa_kind != b->cfa_kind || a->mangled_ra != b->mangled_ra)
		return false;
	if (a->cfa_kind == KUW_CFA_EXPR ? a->cfa_expr != b->cfa_expr :
	    a->cfa_reg != b->cfa_reg || a->cfa_off != b->cfa_off)
		return false;
	/* columns outside the masks have no rule in both */
	if (a->live != b->live)
		return false;
	/* live only has tracked columns (cfi_set()), each one u64 */
	for (live = a->live; live; live &= live - 1) {
		u64 p, q;

		i = __builtin_ctzll(live);
		memcpy(&p, &a->col[i], sizeof(p));
		memcpy(&q, &b->col[i], sizeof(q));
		if (p != q)
			return false;
	}
	return true;
}

/* A column's share of kuw_cfi_state.colh. */
static u64 cfi_colh(u64 reg, const struct kuw_cfi_col *c)
{
	return (c->kind | (u64)c->src << 8 | reg << 16 |
		(u64)(u32)c->off << 32) * 0x9e3779b97f4a7c15ULL;
}

/* Keep @s in cache entry @e: the fields cfi_same() reads. */
static void cfi_rc_keep(struct kuw_cfi *x, struct kuw_cfi_rc *e,
			const struct kuw_cfi_state *s)
{
	struct kuw_cfi_state *l = &e->st;
	u64 live;

	l->cfa_kind = s->cfa_kind;
	l->cfa_reg = s->cfa_reg;
	l->mangled_ra = s->mangled_ra;
	l->cfa_off = s->cfa_off;
	l->cfa_expr = s->cfa_expr;
	l->live = s->live;
	for (live = s->live; live; live &= live - 1) {
		u32 i = __builtin_ctzll(live);

		l->col[i] = s->col[i];
	}
	e->signal = x->cie.signal;
}

static int cfi_emit(struct kuw_cfi *x, struct cfi_run *r)
{
	const struct kuw_cfi_state *s = &x->cur;
	struct kuw_cfi_rc *e;
	u32 h;

	if (x->loc >= x->end)
		return 0;
	r->dirty = false;
	h = cfi_hash(x, s);
	if (r->any_row && h == x->last_hash &&
	    cfi_same(x, s, &x->rc[x->last].st))
		return 0;
	if (s->cfa_kind == CFI_CFA_UNSET) {
		u8 ra = x->cie.ra;

		if (ra >= KUW_MAX_REGS || s->col[ra].kind != KUW_R_UNDEF)
			return -KUW_E_NOCFA;
	}
	if (x->nrows >= KUW_CFI_MAX_ROWS)
		return -KUW_E_TOOBIG;
	x->nrows++;
	r->any_row = true;
	/* the same rule as a row reported lately, or a new entry */
	e = &x->rc[h & x->rc_mask];
	if (!e->id || e->hash != h || e->signal != x->cie.signal ||
	    !cfi_same(x, s, &e->st)) {
		if (x->last_id == 0xffffffffU)
			return -KUW_E_TOOBIG;	/* ids must stay unique */
		cfi_rc_keep(x, e, s);
		kuw_cfi_to_rule(x, s, &e->rule);
		e->hash = h;
		e->id = ++x->last_id;
	}
	x->last = e - x->rc;
	x->last_hash = h;
	if (!r->sink)
		return 0;
	if (x->ext && x->ext->row_id)
		return x->ext->row_id(r->sink->ctx, x->loc, &e->rule, e->id);
	if (r->sink->row)
		return r->sink->row(r->sink->ctx, x->loc, &e->rule);
	return 0;
}

/* Move the location to @to, first reporting the row in force so far. */
static int cfi_advance(struct kuw_cfi *x, struct cfi_run *r, u64 to)
{
	int ret;

	if (r->in_cie || to < x->loc || to > x->end)
		return -KUW_E_BADLOC;
	if (to == x->loc)
		return 0;
	if (!r->any_row || r->dirty) {
		ret = cfi_emit(x, r);
		if (ret)
			return ret;
	}
	x->loc = to;
	return 0;
}

static int cfi_delta(struct kuw_cfi *x, struct cfi_run *r, u64 delta)
{
	u64 d, to;

	if (__builtin_mul_overflow(delta, x->cie.code_align, &d) ||
	    __builtin_add_overflow(x->loc, d, &to))
		return -KUW_E_BADLOC;
	return cfi_advance(x, r, to);
}

/*
 * A register operand.  Columns >= x->nregs (x86_64 xmm, AArch64 v0-v31:
 * libffi saves xmm6-15 for Win64 calls) are accepted up to
 * KUW_CFI_MAX_COL and their rules dropped: unwinding restores no such
 * register.  The CFA and the source of a register rule must be tracked.
 */
static int cfi_reg(struct kuw_cfi *x, struct cfi_run *r, u64 *reg)
{
	int ret = kuw_rd_uleb1(&r->c, reg);

	if (ret)
		return ret;
	return *reg < KUW_CFI_MAX_COL ? 0 : -KUW_E_BADREG;
}

static int cfi_tracked(struct kuw_cfi *x, struct cfi_run *r, u64 *reg)
{
	int ret = cfi_reg(x, r, reg);

	if (ret)
		return ret;
	return *reg < x->nregs ? 0 : -KUW_E_BADREG;
}

/* @v * data_align as a byte offset that fits s32. */
static int cfi_fac(struct kuw_cfi *x, s64 v, s32 *out)
{
	s64 p;

	if (__builtin_mul_overflow(v, x->cie.data_align, &p) ||
	    p < CFI_S32_MIN || p > CFI_S32_MAX)
		return -KUW_E_BADOFF;
	*out = (s32)p;
	return 0;
}

static int cfi_ufac(struct kuw_cfi *x, struct cfi_run *r, bool neg, s32 *out)
{
	u64 u;
	int ret = kuw_rd_uleb1(&r->c, &u);

	if (ret)
		return ret;
	if (u > CFI_S32_MAX * 16ULL)	/* no data_align makes it fit */
		return -KUW_E_BADOFF;
	return cfi_fac(x, neg ? -(s64)u : (s64)u, out);
}

static int cfi_sfac(struct kuw_cfi *x, struct cfi_run *r, s32 *out)
{
	s64 v;
	int ret = kuw_rd_sleb1(&r->c, &v);

	if (ret)
		return ret;
	return cfi_fac(x, v, out);
}

/* A DW_OP block: ULEB length, bytes.  *off = offset of the length. */
static int cfi_block(struct kuw_cfi *x, struct cfi_run *r, s32 *off)
{
	u64 start = r->c.pos, len;
	int ret;

	ret = kuw_rd_uleb1(&r->c, &len);
	if (ret)
		return ret;
	if (len > kuw_cur_left(&r->c))
		return -KUW_E_TRUNC;
	if (start > CFI_S32_MAX)
		return -KUW_E_TOOBIG;
	ret = kuw_dwop_check(r->c.data + r->c.pos, (u32)len);
	if (ret)
		return ret;
	r->c.pos += len;
	*off = (s32)start;
	return 0;
}

static void cfi_set(struct kuw_cfi *x, u64 reg, u8 kind, u8 src, s32 off)
{
	struct kuw_cfi_col *c;

	if (reg >= x->nregs)
		return;
	c = &x->cur.col[reg];
	if (x->cur.live & (1ULL << reg))
		x->cur.colh ^= cfi_colh(reg, c);
	/* same_value is a rule (readelf's "s"): live, unlike no rule */
	c->kind = kind == CFI_NO_RULE ? KUW_R_SAME : kind;
	c->src = src;
	c->off = off;
	if (kind == CFI_NO_RULE) {
		x->cur.live &= ~(1ULL << reg);
	} else {
		x->cur.live |= 1ULL << reg;
		x->cur.colh ^= cfi_colh(reg, c);
	}
}

static void cfi_restore(struct kuw_cfi *x, struct cfi_run *r, u64 reg)
{
	if (reg >= x->nregs)
		return;
	if (r->in_cie) {
		cfi_set(x, reg, CFI_NO_RULE, 0, 0);
		return;
	}
	if (x->cur.live & (1ULL << reg))
		x->cur.colh ^= cfi_colh(reg, &x->cur.col[reg]);
	x->cur.col[reg] = x->init.col[reg];
	x->cur.live = (x->cur.live & ~(1ULL << reg)) |
		      (x->init.live & (1ULL << reg));
	if (x->init.live & (1ULL << reg))
		x->cur.colh ^= cfi_colh(reg, &x->cur.col[reg]);
}

/* DW_CFA_set_loc: an address in the CIE's encoding (absolute in .debug_frame). */
static int cfi_set_loc(struct kuw_cfi *x, struct cfi_run *r)
{
	struct kuw_ptr_base pb = x->pb;
	u64 u;
	int ret;

	pb.addr_size = x->cie.addr_size;
	if (x->cie.debug) {
		ret = kuw_rd_ptr(&r->c, KUW_DW_EH_PE_absptr, &pb, false, &u,
				 NULL);
	} else {
		pb.func = x->loc;
		pb.have |= KUW_PB_FUNC;
		ret = kuw_rd_ptr(&r->c, x->cie.fde_enc, &pb, false, &u, NULL);
	}
	if (ret)
		return ret;
	return cfi_advance(x, r, u);
}

/* The ops that change no rule: location ops, nop, GNU_args_size. */
static kuw_always_inline int cfi_loc_op(struct kuw_cfi *x, struct cfi_run *r,
					u8 op)
{
	u8 b8;
	u16 b16;
	u32 b32;
	u64 u;
	int ret;

	switch (op) {
	case KUW_DW_CFA_nop:
		return 0;
	case KUW_DW_CFA_set_loc:
		return cfi_set_loc(x, r);
	case KUW_DW_CFA_advance_loc1:
		ret = kuw_rd_u8(&r->c, &b8);
		return ret ? ret : cfi_delta(x, r, b8);
	case KUW_DW_CFA_advance_loc2:
		ret = kuw_rd_u16(&r->c, &b16);
		return ret ? ret : cfi_delta(x, r, b16);
	case KUW_DW_CFA_advance_loc4:
		ret = kuw_rd_u32(&r->c, &b32);
		return ret ? ret : cfi_delta(x, r, b32);
	}
	/* KUW_DW_CFA_GNU_args_size: the operand is read and ignored */
	return kuw_rd_uleb1(&r->c, &u);
}

/* An unsigned, unfactored offset (def_cfa, def_cfa_offset) that fits s32. */
static kuw_always_inline int cfi_uoff(struct cfi_run *r, s32 *out)
{
	u64 u;
	int ret = kuw_rd_uleb1(&r->c, &u);

	if (ret)
		return ret;
	if (u > CFI_S32_MAX)
		return -KUW_E_BADOFF;
	*out = (s32)u;
	return 0;
}

/*
 * def_cfa (@op, an unfactored offset), def_cfa_sf (a factored one) and
 * def_cfa_register (the offset kept): every operand read before a change.
 */
static kuw_always_inline int cfi_def_cfa(struct kuw_cfi *x, struct cfi_run *r,
					 u8 op)
{
	struct kuw_cfi_state *s = &x->cur;
	s32 off = s->cfa_off;
	u64 reg;
	int ret;

	ret = cfi_tracked(x, r, &reg);
	if (!ret && op == KUW_DW_CFA_def_cfa)
		ret = cfi_uoff(r, &off);
	else if (!ret && op == KUW_DW_CFA_def_cfa_sf)
		ret = cfi_sfac(x, r, &off);
	if (ret)
		return ret;
	s->cfa_kind = KUW_CFA_REG;
	s->cfa_reg = (u8)reg;
	s->cfa_off = off;
	return 0;
}

/* def_cfa_offset (@sf false) and def_cfa_offset_sf: the kind stays. */
static kuw_always_inline int cfi_cfa_off(struct kuw_cfi *x, struct cfi_run *r,
					 bool sf)
{
	s32 off;
	int ret = sf ? cfi_sfac(x, r, &off) : cfi_uoff(r, &off);

	if (!ret)
		x->cur.cfa_off = off;
	return ret;
}

/* def_cfa_expression (@cfa), or a register's (val_)expression rule @kind. */
static kuw_always_inline int cfi_expr(struct kuw_cfi *x, struct cfi_run *r,
				      u8 kind, bool cfa)
{
	u64 reg = 0;
	s32 off;
	int ret = cfa ? 0 : cfi_reg(x, r, &reg);

	if (!ret)
		ret = cfi_block(x, r, &off);
	if (ret)
		return ret;
	if (!cfa) {
		cfi_set(x, reg, kind, 0, off);
		return 0;
	}
	x->cur.cfa_kind = KUW_CFA_EXPR;
	x->cur.cfa_expr = off;
	return 0;
}

/* A register, then its rule @kind at a factored offset (@how). */
enum cfi_fac_how { CFI_UFAC, CFI_UFAC_NEG, CFI_SFAC };

static kuw_always_inline int cfi_reg_fac(struct kuw_cfi *x, struct cfi_run *r,
					 u8 kind, enum cfi_fac_how how)
{
	u64 reg;
	s32 off;
	int ret = cfi_reg(x, r, &reg);

	if (!ret)
		ret = how == CFI_SFAC ? cfi_sfac(x, r, &off) :
			cfi_ufac(x, r, how == CFI_UFAC_NEG, &off);
	if (!ret)
		cfi_set(x, reg, kind, 0, off);
	return ret;
}

/*
 * A register, then: @op restore_extended, undefined, same_value, or
 * register (a second register, which must be tracked when the first is).
 */
static kuw_always_inline int cfi_reg_op(struct kuw_cfi *x, struct cfi_run *r,
					u8 op)
{
	u64 reg, src;
	int ret = cfi_reg(x, r, &reg);

	if (ret)
		return ret;
	switch (op) {
	case KUW_DW_CFA_restore_extended:
		cfi_restore(x, r, reg);
		return 0;
	case KUW_DW_CFA_register:
		ret = reg < x->nregs ? cfi_tracked(x, r, &src) :
			cfi_reg(x, r, &src);
		if (!ret)
			cfi_set(x, reg, KUW_R_REG, (u8)src, 0);
		return ret;
	}
	cfi_set(x, reg, op == KUW_DW_CFA_undefined ? KUW_R_UNDEF : KUW_R_SAME,
		0, 0);
	return 0;
}

/* The ops on the whole rule set: remember, restore, AArch64 RA signing. */
static int cfi_state_op(struct kuw_cfi *x, u8 op)
{
	switch (op) {
	case KUW_DW_CFA_remember_state:
		if (x->depth >= KUW_REMEMBER_DEPTH)
			return -KUW_E_REMEMBER;
		x->stack[x->depth++] = x->cur;
		return 0;
	case KUW_DW_CFA_restore_state:
		if (!x->depth)
			return -KUW_E_RESTORE;
		x->cur = x->stack[--x->depth];
		return 0;
	}
	/*
	 * KUW_DW_CFA_AARCH64_negate_ra_state (GNU_window_save elsewhere),
	 * KUW_DW_CFA_AARCH64_negate_ra_state_with_pc
	 */
	if (x->arch != KUW_ARCH_ARM64)
		return -KUW_E_BADOP;
	x->cur.mangled_ra ^= 1;
	return 0;
}

/**
 * kuw_cfi_step() - run one instruction
 * @x: the interpreter; x->cur is the state the instruction changes
 * @r: the program run; the instruction is at r->c.pos
 *
 * Return: 0, a negative enum kuw_err, or what the sink returned for a
 * row the instruction ended.
 */
int kuw_cfi_step(struct kuw_cfi *x, struct cfi_run *r)
{
	bool was = r->dirty;
	u8 op, lo;
	s32 off;
	int ret;

	ret = kuw_rd_u8(&r->c, &op);
	if (ret)
		return ret;
	lo = op & KUW_DW_CFA_LOW_MASK;
	r->dirty = true;	/* but location ops and nops change no rule */
	switch (op & KUW_DW_CFA_HIGH_MASK) {
	case KUW_DW_CFA_advance_loc:
		r->dirty = was;
		return cfi_delta(x, r, lo);
	case KUW_DW_CFA_offset:
		ret = cfi_ufac(x, r, false, &off);
		if (!ret)
			cfi_set(x, lo, KUW_R_OFFSET, 0, off);
		return ret;
	case KUW_DW_CFA_restore:
		cfi_restore(x, r, lo);
		return 0;
	}
	switch (op) {
	case KUW_DW_CFA_nop:
	case KUW_DW_CFA_set_loc:
	case KUW_DW_CFA_advance_loc1:
	case KUW_DW_CFA_advance_loc2:
	case KUW_DW_CFA_advance_loc4:
	case KUW_DW_CFA_GNU_args_size:
		r->dirty = was;
		return cfi_loc_op(x, r, op);
	case KUW_DW_CFA_offset_extended:
		return cfi_reg_fac(x, r, KUW_R_OFFSET, CFI_UFAC);
	case KUW_DW_CFA_val_offset:
		return cfi_reg_fac(x, r, KUW_R_VAL_OFFSET, CFI_UFAC);
	case KUW_DW_CFA_offset_extended_sf:
		return cfi_reg_fac(x, r, KUW_R_OFFSET, CFI_SFAC);
	case KUW_DW_CFA_val_offset_sf:
		return cfi_reg_fac(x, r, KUW_R_VAL_OFFSET, CFI_SFAC);
	case KUW_DW_CFA_GNU_negative_offset_extended:
		return cfi_reg_fac(x, r, KUW_R_OFFSET, CFI_UFAC_NEG);
	case KUW_DW_CFA_restore_extended:
	case KUW_DW_CFA_undefined:
	case KUW_DW_CFA_same_value:
	case KUW_DW_CFA_register:
		return cfi_reg_op(x, r, op);
	case KUW_DW_CFA_remember_state:
	case KUW_DW_CFA_restore_state:
	case KUW_DW_CFA_AARCH64_negate_ra_state:
	case KUW_DW_CFA_AARCH64_negate_ra_state_with_pc:
		return cfi_state_op(x, op);
	case KUW_DW_CFA_def_cfa:
	case KUW_DW_CFA_def_cfa_sf:
	case KUW_DW_CFA_def_cfa_register:
		return cfi_def_cfa(x, r, op);
	case KUW_DW_CFA_def_cfa_offset:
		return cfi_cfa_off(x, r, false);
	case KUW_DW_CFA_def_cfa_offset_sf:
		return cfi_cfa_off(x, r, true);
	case KUW_DW_CFA_def_cfa_expression:
		return cfi_expr(x, r, 0, true);
	case KUW_DW_CFA_expression:
		return cfi_expr(x, r, KUW_R_EXPR, false);
	case KUW_DW_CFA_val_expression:
		return cfi_expr(x, r, KUW_R_VAL_EXPR, false);
	}
	return -KUW_E_BADOP;
}

static int cfi_run(struct kuw_cfi *x, struct cfi_run *r, struct kuw_diag *d)
{
	int ret;

	/* Each instruction consumes at least one byte: bounded by the length. */
	while (r->c.pos < r->c.end) {
		r->insn = r->c.pos;
		ret = kuw_cfi_step(x, r);
		if (ret) {
			/* Sink errors are the sink's; the rest point at the op. */
			if (ret < 0 && -ret < KUW_E__COUNT)
				kuw_fail(d, x->secname, r->insn, -ret);
			return ret;
		}
	}
	return 0;
}

/* The general path of kuw_cfi_run_cie() (cfi_fast.c), the whole of it. */
int kuw_cfi_general_cie(struct kuw_cfi *x, u64 off, u64 end,
			struct kuw_diag *d)
{
	struct cfi_run r = { .in_cie = true };
	int ret;

	kuw_cfi_reset(x);
	kuw_cur_init(&r.c, x->sec->data, end, x->sec->addr);
	r.c.pos = off;
	x->loc = 0;
	x->end = 0;
	ret = cfi_run(x, &r, d);
	x->init = x->cur;
	x->depth = 0;
	return ret;
}

/* The general path of kuw_cfi_run_fde() (cfi_fast.c): an FDE it left. */
int kuw_cfi_general_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start,
			u64 fend, const struct kuw_sink *sink, u32 *nrows,
			struct kuw_diag *d)
{
	struct cfi_run r = { .sink = sink };
	int ret;

	x->cur = x->init;
	x->depth = 0;
	x->loc = start;
	if (!x->rc) {
		x->rc = &x->rc1;
		x->rc_mask = 0;
	}
	x->end = fend;
	x->nrows = 0;
	kuw_cur_init(&r.c, x->sec->data, end, x->sec->addr);
	r.c.pos = off;
	ret = cfi_run(x, &r, d);
	if (!ret && (!r.any_row || r.dirty)) {
		r.insn = end;
		ret = cfi_emit(x, &r);
		if (ret < 0 && -ret < KUW_E__COUNT)
			kuw_fail(d, x->secname, end, -ret);
	}
	*nrows += x->nrows;
	return ret;
}
