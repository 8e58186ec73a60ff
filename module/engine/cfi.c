// SPDX-License-Identifier: GPL-2.0
/*
 * DW_CFA interpreter: runs a CIE's initial instructions and an FDE's
 * instructions once, at load, and reports the rows they describe.
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
#include "cfi.h"
#include "dwarf.h"
#include "arch.h"

#define CFI_CFA_UNSET	0xff	/* private cfa_kind: no def_cfa yet */
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

/* One program run: cursor, mode and the error location. */
struct cfi_run {
	struct kuw_cur c;
	bool in_cie;
	bool dirty;		/* rules may differ from the last row */
	bool any_row;
	u64 insn;		/* offset of the instruction being run */
	const struct kuw_sink *sink;
};

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

/*
 * Hash of a state: equal (cfi_same()) states of one CIE hash the same.
 * O(1): the columns' part is kept up to date by cfi_set()/cfi_restore().
 */
static u32 cfi_hash(const struct kuw_cfi *x, const struct kuw_cfi_state *s)
{
	u64 h = s->colh, cfa;

	cfa = s->cfa_kind | (u64)s->mangled_ra << 8 |
	      (u64)x->cie.signal << 16;
	if (s->cfa_kind == KUW_CFA_EXPR)
		cfa |= (u64)(u32)s->cfa_expr << 32;
	else
		cfa |= (u64)s->cfa_reg << 24 | (u64)(u32)s->cfa_off << 32;
	h ^= cfa * 0xff51afd7ed558ccdULL;
	h ^= (s->live + 0x632be59bd9b4e019ULL) * 0xc4ceb9fe1a85ec53ULL;
	return (u32)(h ^ (h >> 32));
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

/* Run one instruction at r->c.pos. */
static int cfi_step(struct kuw_cfi *x, struct cfi_run *r)
{
	struct kuw_cfi_state *s = &x->cur;
	u64 reg, src, u;
	s32 off;
	u8 op, lo;
	bool was;
	u8 b8;
	u16 b16;
	u32 b32;
	int ret;

	ret = kuw_rd_u8(&r->c, &op);
	if (ret)
		return ret;
	lo = op & KUW_DW_CFA_LOW_MASK;
	was = r->dirty;		/* location ops and nops change no rule */
	r->dirty = true;

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
		r->dirty = was;
		return 0;
	case KUW_DW_CFA_set_loc: {
		struct kuw_ptr_base pb = x->pb;

		r->dirty = was;
		pb.addr_size = x->cie.addr_size;
		if (x->cie.debug) {
			ret = kuw_rd_ptr(&r->c, KUW_DW_EH_PE_absptr, &pb, false,
					 &u, NULL);
		} else {
			pb.func = x->loc;
			pb.have |= KUW_PB_FUNC;
			ret = kuw_rd_ptr(&r->c, x->cie.fde_enc, &pb, false,
					 &u, NULL);
		}
		if (ret)
			return ret;
		return cfi_advance(x, r, u);
	}
	case KUW_DW_CFA_advance_loc1:
		r->dirty = was;
		ret = kuw_rd_u8(&r->c, &b8);
		return ret ? ret : cfi_delta(x, r, b8);
	case KUW_DW_CFA_advance_loc2:
		r->dirty = was;
		ret = kuw_rd_u16(&r->c, &b16);
		return ret ? ret : cfi_delta(x, r, b16);
	case KUW_DW_CFA_advance_loc4:
		r->dirty = was;
		ret = kuw_rd_u32(&r->c, &b32);
		return ret ? ret : cfi_delta(x, r, b32);
	case KUW_DW_CFA_offset_extended:
	case KUW_DW_CFA_val_offset:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			ret = cfi_ufac(x, r, false, &off);
		if (!ret)
			cfi_set(x, reg, op == KUW_DW_CFA_val_offset ?
				KUW_R_VAL_OFFSET : KUW_R_OFFSET, 0, off);
		return ret;
	case KUW_DW_CFA_offset_extended_sf:
	case KUW_DW_CFA_val_offset_sf:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			ret = cfi_sfac(x, r, &off);
		if (!ret)
			cfi_set(x, reg, op == KUW_DW_CFA_val_offset_sf ?
				KUW_R_VAL_OFFSET : KUW_R_OFFSET, 0, off);
		return ret;
	case KUW_DW_CFA_GNU_negative_offset_extended:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			ret = cfi_ufac(x, r, true, &off);
		if (!ret)
			cfi_set(x, reg, KUW_R_OFFSET, 0, off);
		return ret;
	case KUW_DW_CFA_restore_extended:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			cfi_restore(x, r, reg);
		return ret;
	case KUW_DW_CFA_undefined:
	case KUW_DW_CFA_same_value:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			cfi_set(x, reg, op == KUW_DW_CFA_undefined ?
				KUW_R_UNDEF : KUW_R_SAME, 0, 0);
		return ret;
	case KUW_DW_CFA_register:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			ret = reg < x->nregs ? cfi_tracked(x, r, &src) :
				cfi_reg(x, r, &src);
		if (!ret)
			cfi_set(x, reg, KUW_R_REG, (u8)src, 0);
		return ret;
	case KUW_DW_CFA_remember_state:
		if (x->depth >= KUW_REMEMBER_DEPTH)
			return -KUW_E_REMEMBER;
		x->stack[x->depth++] = *s;
		return 0;
	case KUW_DW_CFA_restore_state:
		if (!x->depth)
			return -KUW_E_RESTORE;
		*s = x->stack[--x->depth];
		return 0;
	case KUW_DW_CFA_def_cfa:
		ret = cfi_tracked(x, r, &reg);
		if (!ret)
			ret = kuw_rd_uleb1(&r->c, &u);
		if (ret)
			return ret;
		if (u > CFI_S32_MAX)
			return -KUW_E_BADOFF;
		s->cfa_kind = KUW_CFA_REG;
		s->cfa_reg = (u8)reg;
		s->cfa_off = (s32)u;
		return 0;
	case KUW_DW_CFA_def_cfa_sf:
		ret = cfi_tracked(x, r, &reg);
		if (!ret)
			ret = cfi_sfac(x, r, &off);
		if (ret)
			return ret;
		s->cfa_kind = KUW_CFA_REG;
		s->cfa_reg = (u8)reg;
		s->cfa_off = off;
		return 0;
	case KUW_DW_CFA_def_cfa_register:
		ret = cfi_tracked(x, r, &reg);
		if (ret)
			return ret;
		s->cfa_kind = KUW_CFA_REG;
		s->cfa_reg = (u8)reg;
		return 0;
	case KUW_DW_CFA_def_cfa_offset:
		ret = kuw_rd_uleb1(&r->c, &u);
		if (ret)
			return ret;
		if (u > CFI_S32_MAX)
			return -KUW_E_BADOFF;
		s->cfa_off = (s32)u;
		return 0;
	case KUW_DW_CFA_def_cfa_offset_sf:
		ret = cfi_sfac(x, r, &off);
		if (!ret)
			s->cfa_off = off;
		return ret;
	case KUW_DW_CFA_def_cfa_expression:
		ret = cfi_block(x, r, &off);
		if (ret)
			return ret;
		s->cfa_kind = KUW_CFA_EXPR;
		s->cfa_expr = off;
		return 0;
	case KUW_DW_CFA_expression:
	case KUW_DW_CFA_val_expression:
		ret = cfi_reg(x, r, &reg);
		if (!ret)
			ret = cfi_block(x, r, &off);
		if (!ret)
			cfi_set(x, reg, op == KUW_DW_CFA_expression ?
				KUW_R_EXPR : KUW_R_VAL_EXPR, 0, off);
		return ret;
	case KUW_DW_CFA_GNU_args_size:
		r->dirty = was;
		return kuw_rd_uleb1(&r->c, &u);
	case KUW_DW_CFA_AARCH64_negate_ra_state:
		if (x->arch != KUW_ARCH_ARM64)
			return -KUW_E_BADOP;
		s->mangled_ra ^= 1;
		return 0;
	}
	return -KUW_E_BADOP;
}

static int cfi_run(struct kuw_cfi *x, struct cfi_run *r, struct kuw_diag *d)
{
	int ret;

	/* Each instruction consumes at least one byte: bounded by the length. */
	while (r->c.pos < r->c.end) {
		r->insn = r->c.pos;
		ret = cfi_step(x, r);
		if (ret) {
			/* Sink errors are the sink's; the rest point at the op. */
			if (ret < 0 && -ret < KUW_E__COUNT)
				kuw_fail(d, x->secname, r->insn, -ret);
			return ret;
		}
	}
	return 0;
}

/*
 * The fast path.  An FDE's program is location ops (advance_loc*, nop,
 * GNU_args_size), remember/restore_state, and runs of rule ops between
 * them ("segments").  What a segment does is a function of the state
 * before it, its bytes and the CIE (data_align; restore reads the CIE's
 * initial rules) alone.  So states are interned once per walk (a packed
 * copy, its row id and its rule), and a segment met again from the same
 * state under the same CIE run is not interpreted again: it is looked up
 * by its bytes.  A segment not found is run by cfi_step() on the state
 * it starts from, then remembered.  Rows then cost an integer compare.
 *
 * An FDE goes to the general path, from its start, on anything else: an
 * expression or set_loc, any error (which the general path then reports
 * where it is), more than CFI_FAST_ROWS rows, an undefined CFA, a full
 * pool.  Rows are buffered so that nothing reaches the sink until the FDE
 * is known to be fully handled here: both paths report the same rows.
 * States of the fast path are never expressions (the CIE's initial rules
 * must have none), so equal states are equal in every field.
 */
#define CFI_SEG_MAX	16	/* longest segment remembered, bytes */
#define CFI_SEG_WAYS	4	/* segments remembered per set */
#ifndef CFI_SEG_CAP
#define CFI_SEG_CAP	2048	/* most segments remembered */
#endif
#define CFI_FAST_ROWS	512	/* rows of one FDE buffered */

/* An interned state in kuw_cfi_fast.pool: this, its live columns. */
struct kuw_cfi_ps {
	u32 hash;
	s32 cfa_off;
	u64 live;
	u64 colh;
	u8 cfa_kind;
	u8 cfa_reg;
	u8 mangled_ra;
	u8 signal;
	u32 pad;
	struct kuw_cfi_col col[];	/* one per bit of @live, in order */
};

/* What the rows need of a state. */
struct kuw_cfi_fst {
	u32 ps;			/* pool offset of its struct kuw_cfi_ps */
	u32 rule;		/* pool offset of its struct kuw_rule */
	u32 id;			/* row id, kuw_sink_ext.row_id */
	u32 unset;		/* CFA undefined: for the general path */
};

/* A remembered segment: 32 bytes. */
struct kuw_cfi_seg {
	u64 key;		/* cfi_seg_key(); 0: empty */
	u32 to;			/* state index */
	u32 len;
	u64 w[2];		/* its bytes, zero-padded */
};

struct kuw_cfi_fast {
	u8 *pool;		/* packed states and rules, 8-aligned */
	u32 pool_len, pool_cap;
	struct kuw_cfi_fst *st;
	u32 nst, cap_st;
	u32 *hash;		/* state index + 1, 0: empty; 2 * cap_st slots */
	u32 hash_mask;
	struct kuw_cfi_seg *seg;	/* direct-mapped */
	u32 seg_mask;
	u32 gen;		/* CIE runs so far */
	u32 init;		/* x->init's state index + 1; 0: no fast path */
	u32 stack[KUW_REMEMBER_DEPTH];
	struct kuw_row_ref row[CFI_FAST_ROWS];
	u32 insn[CFI_FAST_ROWS];	/* offset of the op that reported it */
};

/* Is interned @p the state @s (with the CIE's signal)? */
static bool cfi_ps_eq(const struct kuw_cfi *x, const struct kuw_cfi_ps *p,
		      const struct kuw_cfi_state *s)
{
	u64 live, a, b;
	u32 n = 0;

	if (p->live != s->live || p->cfa_kind != s->cfa_kind ||
	    p->cfa_reg != s->cfa_reg || p->cfa_off != s->cfa_off ||
	    p->mangled_ra != s->mangled_ra || p->signal != x->cie.signal)
		return false;
	for (live = s->live; live; live &= live - 1) {
		memcpy(&a, &p->col[n++], sizeof(a));
		memcpy(&b, &s->col[__builtin_ctzll(live)], sizeof(b));
		if (a != b)
			return false;
	}
	return true;
}

/* The index of state x->cur, interned if new; false when there is no room. */
static bool cfi_intern(struct kuw_cfi *x, u32 *idx)
{
	struct kuw_cfi_fast *f = x->fast;
	const struct kuw_cfi_state *s = &x->cur;
	u32 h = cfi_hash(x, s), slot, n, need, i;
	struct kuw_cfi_fst *t;
	struct kuw_cfi_ps *p;
	u64 live;

	for (slot = h & f->hash_mask; f->hash[slot];
	     slot = (slot + 1) & f->hash_mask) {
		i = f->hash[slot] - 1;
		p = (struct kuw_cfi_ps *)(f->pool + f->st[i].ps);
		if (p->hash == h && cfi_ps_eq(x, p, s)) {
			*idx = i;
			return true;
		}
	}
	n = 0;
	for (live = s->live; live; live &= live - 1)
		n++;	/* no popcount: the kernel has no libgcc */
	need = sizeof(*p) + n * sizeof(p->col[0]) + 8 + n * 8;
	if (f->nst >= f->cap_st || need > f->pool_cap - f->pool_len ||
	    x->last_id == 0xffffffffU)
		return false;
	t = &f->st[f->nst];
	t->ps = f->pool_len;
	t->rule = f->pool_len + sizeof(*p) + n * sizeof(p->col[0]);
	t->id = ++x->last_id;
	t->unset = s->cfa_kind == CFI_CFA_UNSET;
	p = (struct kuw_cfi_ps *)(f->pool + t->ps);
	p->hash = h;
	p->cfa_off = s->cfa_off;
	p->live = s->live;
	p->colh = s->colh;
	p->cfa_kind = s->cfa_kind;
	p->cfa_reg = s->cfa_reg;
	p->mangled_ra = s->mangled_ra;
	p->signal = x->cie.signal;
	n = 0;
	for (live = s->live; live; live &= live - 1)
		p->col[n++] = s->col[__builtin_ctzll(live)];
	kuw_cfi_to_rule(x, s, (struct kuw_rule *)(f->pool + t->rule));
	f->pool_len += need;
	f->hash[slot] = f->nst + 1;
	*idx = f->nst++;
	return true;
}

/* x->cur = interned state @i. */
static void cfi_load(struct kuw_cfi *x, u32 i)
{
	const struct kuw_cfi_fast *f = x->fast;
	const struct kuw_cfi_ps *p = (const void *)(f->pool + f->st[i].ps);
	struct kuw_cfi_state *s = &x->cur;
	u64 live;
	u32 n = 0;

	/* columns not live are all zero (KUW_R_SAME) in every state */
	for (live = s->live; live; live &= live - 1) {
		i = __builtin_ctzll(live);
		s->col[i].kind = KUW_R_SAME;
		s->col[i].src = 0;
		s->col[i].pad = 0;
		s->col[i].off = 0;
	}
	s->cfa_kind = p->cfa_kind;
	s->cfa_reg = p->cfa_reg;
	s->mangled_ra = p->mangled_ra;
	s->cfa_off = p->cfa_off;
	s->cfa_expr = 0;
	s->live = p->live;
	s->colh = p->colh;
	for (live = p->live; live; live &= live - 1)
		s->col[__builtin_ctzll(live)] = p->col[n++];
}

/*
 * Rule ops: 1 + the number of their LEB128 operands; 0 for the others.
 * Only delimits segments: cfi_step() decodes them.
 */
static const u8 cfi_seg_op[256] = {
	[KUW_DW_CFA_offset_extended] = 3,
	[KUW_DW_CFA_restore_extended] = 2,
	[KUW_DW_CFA_undefined] = 2,
	[KUW_DW_CFA_same_value] = 2,
	[KUW_DW_CFA_register] = 3,
	[KUW_DW_CFA_def_cfa] = 3,
	[KUW_DW_CFA_def_cfa_register] = 2,
	[KUW_DW_CFA_def_cfa_offset] = 2,
	[KUW_DW_CFA_offset_extended_sf] = 3,
	[KUW_DW_CFA_def_cfa_sf] = 3,
	[KUW_DW_CFA_def_cfa_offset_sf] = 2,
	[KUW_DW_CFA_val_offset] = 3,
	[KUW_DW_CFA_val_offset_sf] = 3,
	[KUW_DW_CFA_AARCH64_negate_ra_state] = 1,
	[KUW_DW_CFA_GNU_negative_offset_extended] = 3,
	[KUW_DW_CFA_offset ... KUW_DW_CFA_offset + 0x3f] = 2,
	[KUW_DW_CFA_restore ... KUW_DW_CFA_restore + 0x3f] = 1,
};

/* Past the rule op at @q (k: cfi_seg_op[*q]), or NULL if it passes @e. */
static inline const u8 *cfi_seg_skip(const u8 *q, const u8 *e, u32 k)
{
	u32 n;

	q++;
	while (--k) {
		for (n = 0;; n++) {
			if (q >= e || n == KUW_LEB_MAX)
				return NULL;
			if (!(*q++ & 0x80))
				break;
		}
	}
	return q;
}

/* Masks keeping the first @len bytes of two little-endian-loaded words. */
static void cfi_seg_mask(u32 len, u64 *m0, u64 *m1)
{
	*m0 = len >= 8 ? ~0ULL : (1ULL << 8 * len) - 1;
	*m1 = len >= 16 ? ~0ULL : len <= 8 ? 0 : (1ULL << 8 * (len - 8)) - 1;
}

/* What a remembered segment starts from: a state, under a CIE run. */
static inline u64 cfi_seg_key(const struct kuw_cfi_fast *f, u32 from)
{
	return (u64)f->gen << 32 | (from + 1);
}

/* The set of remembered segments: by key and the first two bytes. */
static inline struct kuw_cfi_seg *cfi_seg_set(const struct kuw_cfi_fast *f,
					      u64 key, u64 w0)
{
	u64 k = (key << 16 ^ (w0 & 0xffff)) * 0x9e3779b97f4a7c15ULL;

	return &f->seg[(k >> 40) & f->seg_mask & ~(CFI_SEG_WAYS - 1)];
}

/*
 * The rule ops at @p (before @e) not remembered from state @from: run the
 * whole segment, up to the next other op, and remember it.  False: the
 * general path must run this FDE.
 */
static kuw_noinline bool cfi_seg_run(struct kuw_cfi *x, u32 from,
				     const u8 *p, const u8 *e, u64 w0,
				     u64 w1, u32 *to, const u8 **next)
{
	struct kuw_cfi_fast *f = x->fast;
	const u8 *q = p;
	struct cfi_run r = { 0 };
	struct kuw_cfi_seg *set, *n;
	u64 pos = p - x->sec->data, m0, m1;
	u32 k = cfi_seg_op[*p], len;

	do {
		q = cfi_seg_skip(q, e, k);
		if (!q)
			return false;
	} while (q < e && (k = cfi_seg_op[*q]));
	len = q - p;
	cfi_load(x, from);
	kuw_cur_init(&r.c, x->sec->data, pos + len, x->sec->addr);
	r.c.pos = pos;
	while (r.c.pos < pos + len) {
		/* rule ops only: where cfi_step() sees the ops begin */
		if (!cfi_seg_op[r.c.data[r.c.pos]] || cfi_step(x, &r))
			return false;
	}
	if (!cfi_intern(x, to))
		return false;
	*next = q;
	if (len > CFI_SEG_MAX)
		return true;
	/* first in its set, the others move down (the last one is lost) */
	set = cfi_seg_set(f, cfi_seg_key(f, from), w0);
	for (n = set + CFI_SEG_WAYS - 1; n > set; n--)
		n[0] = n[-1];
	cfi_seg_mask(len, &m0, &m1);
	set->key = cfi_seg_key(f, from);
	set->to = *to;
	set->len = len;
	set->w[0] = w0 & m0;
	set->w[1] = w1 & m1;
	return true;
}

/*
 * The state after the rule ops at @p (before @e) from state @from, and
 * where the ops after them start.  A remembered segment that the bytes at
 * @p begin with is a run of whole rule ops: its result is theirs, and the
 * ops that may follow are looked up next.  False: not here.
 */
static inline bool cfi_fast_seg(struct kuw_cfi *x, u32 from, const u8 *p,
				const u8 *e, u32 *to, const u8 **next)
{
	const struct kuw_cfi_fast *f = x->fast;
	const u8 *b = x->sec->data;
	const struct kuw_cfi_seg *set;
	u64 w[2] = { 0, 0 }, m0, m1, key = cfi_seg_key(f, from);
	u32 i, left = e - p;

	if (p + sizeof(w) <= b + x->sec->size) {
		memcpy(w, p, sizeof(w));
	} else {
		for (i = 0; p + i < b + x->sec->size; i++)
			w[i / 8] |= (u64)p[i] << 8 * (i % 8);
	}
	set = cfi_seg_set(f, key, w[0]);
	for (i = 0; i < CFI_SEG_WAYS; i++) {
		if (set[i].key != key || set[i].len > left)
			continue;
		cfi_seg_mask(set[i].len, &m0, &m1);
		if ((w[0] & m0) == set[i].w[0] && (w[1] & m1) == set[i].w[1]) {
			*to = set[i].to;
			*next = p + set[i].len;
			return true;
		}
	}
	return cfi_seg_run(x, from, p, e, w[0], w[1], to, next);
}

/* Report the buffered rows; a sink's error is named as cfi_run() does. */
static int cfi_fast_flush(struct kuw_cfi *x, const struct kuw_sink *sink,
			  u32 n, struct kuw_diag *d)
{
	const struct kuw_cfi_fast *f = x->fast;
	const struct kuw_row_ref *r = f->row;
	u32 i = 0;
	int ret = 0;

	if (!n)
		return 0;
	if (x->ext && x->ext->row_id && x->ext->rows) {
		ret = x->ext->rows(sink->ctx, r, n, &i);
		i = ret && i < n ? i + 1 : n;
	} else if (x->ext && x->ext->row_id) {
		for (; i < n && !ret; i++)
			ret = x->ext->row_id(sink->ctx, r[i].pc, r[i].rule,
					     r[i].id);
	} else if (sink->row) {
		for (; i < n && !ret; i++)
			ret = sink->row(sink->ctx, r[i].pc, r[i].rule);
	} else {
		i = n;
	}
	x->nrows = i;	/* as cfi_emit() counts them: the failed one too */
	if (ret < 0 && -ret < KUW_E__COUNT)
		kuw_fail(d, x->secname, f->insn[i - 1], -ret);
	return ret;
}

/*
 * Run an FDE as kuw_cfi_run_fde() does, on interned states.  False when
 * the general path must run it; true when done here, with *@ret what the
 * sink returned (0 if all went well).
 */
static bool cfi_fast_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start,
			 u64 fend, const struct kuw_sink *sink,
			 struct kuw_diag *d, int *ret)
{
	struct kuw_cfi_fast *f = x->fast;
	const u8 *b = x->sec->data, *p = b + off, *e = b + end, *at;
	u32 st = f->init - 1, last = 0, depth = 0, n = 0;
	u64 loc = start, delta, to;
	bool dirty = false;
	u8 op;

	if (end > 0xffffffffULL)
		return false;	/* rows name ops by u32 offsets */
	for (;;) {
		at = p;
		if (p >= e) {
			to = loc;
			goto row;
		}
		op = *p;
		if ((op & KUW_DW_CFA_HIGH_MASK) == KUW_DW_CFA_advance_loc) {
			delta = op & KUW_DW_CFA_LOW_MASK;
			p++;
			goto advance;
		}
		if (cfi_seg_op[op]) {
			if (!cfi_fast_seg(x, st, p, e, &st, &p))
				return false;
			dirty = true;
			continue;
		}
		p++;
		switch (op) {
		case KUW_DW_CFA_nop:
			continue;
		case KUW_DW_CFA_remember_state:
			if (depth >= KUW_REMEMBER_DEPTH)
				return false;
			f->stack[depth++] = st;
			dirty = true;
			continue;
		case KUW_DW_CFA_restore_state:
			if (!depth)
				return false;
			st = f->stack[--depth];
			dirty = true;
			continue;
		case KUW_DW_CFA_advance_loc1:
			if (e - p < 1)
				return false;
			delta = p[0];
			p += 1;
			goto advance;
		case KUW_DW_CFA_advance_loc2:
			if (e - p < 2)
				return false;
			delta = p[0] | (u32)p[1] << 8;
			p += 2;
			goto advance;
		case KUW_DW_CFA_advance_loc4:
			if (e - p < 4)
				return false;
			delta = p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
				(u32)p[3] << 24;
			p += 4;
			goto advance;
		default:	/* GNU_args_size too: rare, left to cfi_run() */
			return false;
		}
advance:
		if (__builtin_mul_overflow(delta, x->cie.code_align, &delta) ||
		    __builtin_add_overflow(loc, delta, &to) || to > fend)
			return false;
		if (to == loc)
			continue;
row:
		/* cfi_advance() and cfi_emit(), on state indices */
		if ((!n || dirty) && loc < fend) {
			dirty = false;
			if (!n || st != last) {
				const struct kuw_cfi_fst *t = &f->st[st];

				if (n == CFI_FAST_ROWS || t->unset)
					return false;
				f->row[n].pc = loc;
				f->row[n].rule = (const void *)(f->pool + t->rule);
				f->row[n].id = t->id;
				f->insn[n] = at - b;
				n++;
				last = st;
			}
		}
		if (p >= e)
			break;
		loc = to;
	}
	x->nrows = n;
	*ret = sink ? cfi_fast_flush(x, sink, n, d) : 0;
	return true;
}

/* After a CIE's initial instructions: can its FDEs take the fast path? */
static void cfi_fast_cie(struct kuw_cfi *x)
{
	struct kuw_cfi_fast *f = x->fast;
	u64 live;
	u32 i;

	f->init = 0;
	/* gen never wraps: a remembered segment names one CIE run */
	if (f->gen == 0xffffffffU || x->init.cfa_kind == KUW_CFA_EXPR)
		return;
	f->gen++;
	for (live = x->init.live; live; live &= live - 1) {
		u8 k = x->init.col[__builtin_ctzll(live)].kind;

		if (k == KUW_R_EXPR || k == KUW_R_VAL_EXPR)
			return;
	}
	if (cfi_intern(x, &i))
		f->init = i + 1;
}

/*
 * The fast path's memory for a section of @size bytes, in one block: room
 * for one state per 64 bytes (at least 128, at most 1024) and one segment
 * per 64 bytes (at least 256, at most CFI_SEG_CAP), a pool of 128 bytes a
 * state.
 * Measured: kunwind.ko's 7.7 KB .eh_frame has 89 states, the test
 * kernel's 624 KB 287, libLLVM-14's 4.9 MB 985; a state takes 112 bytes
 * of pool on average.  Full, it sends FDEs to the general path.  Room
 * for 1024 or 2048 segments instead of 4096 costs the test kernel's table
 * build 1.1% or 0.3% more instructions.
 */
static struct kuw_cfi_fast *cfi_fast_alloc(u64 size)
{
	struct kuw_cfi_fast *f;
	u32 nst = 128, nseg = 256;
	u64 sz;
	u8 *m;

	while (nst < 1024 && nst < size / 64)
		nst *= 2;
	while (nseg < CFI_SEG_CAP && nseg < size / 64)
		nseg *= 2;
	sz = sizeof(*f) + (u64)nseg * sizeof(*f->seg) +
	     (u64)nst * 2 * 4 + (u64)nst * sizeof(*f->st) + (u64)nst * 128;
	/* only what is read before it is written is zeroed */
	m = kuw_alloc_raw(sz);
	if (!m)
		return NULL;
	f = (struct kuw_cfi_fast *)m;
	memset(f, 0, offsetof(struct kuw_cfi_fast, row));
	m += sizeof(*f);
	f->seg = (struct kuw_cfi_seg *)m;
	f->seg_mask = nseg - 1;
	m += (u64)nseg * sizeof(*f->seg);
	f->hash = (u32 *)m;
	f->hash_mask = nst * 2 - 1;
	m += (u64)nst * 2 * 4;
	memset(f->seg, 0, m - (u8 *)f->seg);
	f->st = (struct kuw_cfi_fst *)m;
	f->cap_st = nst;
	m += (u64)nst * sizeof(*f->st);
	f->pool = m;
	f->pool_cap = nst * 128;
	return f;
}

void kuw_cfi_caches(struct kuw_cfi *x, u64 size)
{
	u32 n = 16;

	/*
	 * Entries of x->rc worth zeroing for a section of @size bytes: the
	 * general path runs only what the fast path leaves (few FDEs).
	 */
	while (n < KUW_CFI_RCACHE && n < size / 256)
		n *= 2;
	x->rc = kuw_alloc((size_t)n * sizeof(*x->rc));
	x->rc_mask = x->rc ? n - 1 : 0;
	x->fast = cfi_fast_alloc(size);
}

void kuw_cfi_caches_free(struct kuw_cfi *x)
{
	if (x->rc != &x->rc1)
		kuw_free(x->rc);
	x->rc = NULL;
	kuw_free(x->fast);
	x->fast = NULL;
}

int kuw_cfi_run_cie(struct kuw_cfi *x, u64 off, u64 end, struct kuw_diag *d)
{
	struct cfi_run r = { .in_cie = true };
	int ret;

	if (x->fast)
		x->fast->init = 0;	/* until this CIE is known good */
	kuw_cfi_reset(x);
	kuw_cur_init(&r.c, x->sec->data, end, x->sec->addr);
	r.c.pos = off;
	x->loc = 0;
	x->end = 0;
	ret = cfi_run(x, &r, d);
	x->init = x->cur;
	x->depth = 0;
	if (!ret && x->fast)
		cfi_fast_cie(x);
	return ret;
}

int kuw_cfi_run_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start, u64 fend,
		    const struct kuw_sink *sink, u32 *nrows,
		    struct kuw_diag *d)
{
	struct cfi_run r = { .sink = sink };
	int ret;

	if (x->fast && x->fast->init) {
		x->nrows = 0;
		if (cfi_fast_fde(x, off, end, start, fend, sink, d, &ret)) {
			*nrows += x->nrows;
			return ret;
		}
	}
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
