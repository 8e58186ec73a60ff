// SPDX-License-Identifier: GPL-2.0
/*
 * The DW_CFA interpreter's fast path for the table build, and the
 * interpreter's entry points (cfi.h): the fast path first, then cfi.c's
 * general path, which it falls back to.  Calls go one way, from here into
 * cfi.c (kuw_cfi_step(), kuw_cfi_to_rule(), kuw_cfi_general_*()).
 *
 * An FDE's program is location ops (advance_loc*, nop, GNU_args_size),
 * remember/restore_state, and runs of rule ops between them ("segments").
 * What a segment does is a function of the state before it, its bytes and
 * the CIE (data_align; restore reads the CIE's initial rules) alone.  So
 * states are interned once per walk (a packed copy, its row id and its
 * rule), and a segment met again from the same state under the same CIE
 * run is not interpreted again: it is looked up by its bytes.  A segment
 * not found is run by kuw_cfi_step() on the state it starts from, then
 * remembered.  Rows then cost an integer compare.
 *
 * An FDE goes to the general path, from its start, on anything else: an
 * expression or set_loc, any error (which the general path then reports
 * where it is), more than CFI_FAST_ROWS rows, an undefined CFA, a full
 * pool.  Rows are buffered so that nothing reaches the sink until the FDE
 * is known to be fully handled here: both paths report the same rows.
 * States of the fast path are never expressions (the CIE's initial rules
 * must have none), so equal states are equal in every field.
 */
#include "cfi_internal.h"
#include "dwarf.h"

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
 * Only delimits segments: kuw_cfi_step() decodes them.
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
	[KUW_DW_CFA_AARCH64_negate_ra_state_with_pc] = 1,
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
		/* rule ops only: where kuw_cfi_step() sees the ops begin */
		if (!cfi_seg_op[r.c.data[r.c.pos]] || kuw_cfi_step(x, &r))
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

/* One FDE on the fast path: the walk's locals (kept in registers). */
struct cfi_fast_run {
	const u8 *p;		/* the next op */
	const u8 *e;		/* the program's end */
	u64 loc;		/* the current location */
	u32 st;			/* the current state's index */
	u32 last;		/* the state of the last row */
	u32 depth;		/* states remembered */
	u32 n;			/* rows buffered */
	bool dirty;		/* the rules may differ from the last row's */
};

/* advance_loc1/2/4: an @n-byte delta; -1 when it passes the program's end. */
static kuw_always_inline int cfi_fast_adv(struct cfi_fast_run *r, u32 n,
					  u64 *delta)
{
	if (r->e - r->p < n)
		return -1;
	*delta = n == 1 ? r->p[0] : n == 2 ? kuw_get_le16(r->p) :
		 kuw_get_le32(r->p);
	r->p += n;
	return 1;
}

/*
 * The op at r->p that is neither advance_loc nor a rule op.  Return: 1
 * with *@delta for a location advance, 0 for none, -1 when the general
 * path must run the FDE.
 */
static kuw_always_inline int cfi_fast_op(struct kuw_cfi_fast *f,
					 struct cfi_fast_run *r, u64 *delta)
{
	u8 op = *r->p++;

	switch (op) {
	case KUW_DW_CFA_nop:
		return 0;
	case KUW_DW_CFA_remember_state:
		if (r->depth >= KUW_REMEMBER_DEPTH)
			return -1;
		f->stack[r->depth++] = r->st;
		r->dirty = true;
		return 0;
	case KUW_DW_CFA_restore_state:
		if (!r->depth)
			return -1;
		r->st = f->stack[--r->depth];
		r->dirty = true;
		return 0;
	case KUW_DW_CFA_advance_loc1:
		return cfi_fast_adv(r, 1, delta);
	case KUW_DW_CFA_advance_loc2:
		return cfi_fast_adv(r, 2, delta);
	case KUW_DW_CFA_advance_loc4:
		return cfi_fast_adv(r, 4, delta);
	}
	return -1;	/* GNU_args_size too: rare, left to cfi_run() */
}

/*
 * cfi_advance() and cfi_emit(), on state indices: buffer the row in force
 * at r->loc, reported for the op at @at.  False when the general path must
 * run the FDE.
 */
static kuw_always_inline bool cfi_fast_row(struct kuw_cfi_fast *f,
					   struct cfi_fast_run *r, u64 fend,
					   u32 at)
{
	const struct kuw_cfi_fst *t;

	if ((r->n && !r->dirty) || r->loc >= fend)
		return true;
	r->dirty = false;
	if (r->n && r->st == r->last)
		return true;
	t = &f->st[r->st];
	if (r->n == CFI_FAST_ROWS || t->unset)
		return false;
	f->row[r->n].pc = r->loc;
	f->row[r->n].rule = (const void *)(f->pool + t->rule);
	f->row[r->n].id = t->id;
	f->insn[r->n] = at;
	r->n++;
	r->last = r->st;
	return true;
}

/**
 * kuw_cfi_fast_fde() - run an FDE on the fast path
 * @x: the interpreter, after kuw_cfi_fast_cie() for the FDE's CIE
 * @off: the FDE's instructions, [@off, @end) of x->sec
 * @end: their end
 * @start: the FDE's first address
 * @fend: one past its last address
 * @sink: receives the rows (may be NULL)
 * @d: where a sink's error was found
 * @ret: what the sink returned (0 if all went well), when done here
 *
 * Runs the FDE as kuw_cfi_run_fde() does, on interned states, and sets
 * x->nrows.  Return: false when the general path must run it (nothing was
 * reported then), true when done here.
 */
static bool kuw_cfi_fast_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start,
			     u64 fend, const struct kuw_sink *sink,
			     struct kuw_diag *d, int *ret)
{
	struct kuw_cfi_fast *f = x->fast;
	const u8 *b = x->sec->data, *at;
	struct cfi_fast_run r = {
		.p = b + off, .e = b + end, .loc = start, .st = f->init - 1,
	};
	u64 delta, to;
	int k;

	if (!f->init || end > 0xffffffffULL)
		return false;	/* no fast CIE; rows name ops by u32 offsets */
	for (;;) {
		at = r.p;
		to = r.loc;	/* the program's end: its last row */
		if (r.p < r.e) {
			if ((*r.p & KUW_DW_CFA_HIGH_MASK) ==
			    KUW_DW_CFA_advance_loc) {
				delta = *r.p++ & KUW_DW_CFA_LOW_MASK;
			} else if (cfi_seg_op[*r.p]) {
				if (!cfi_fast_seg(x, r.st, r.p, r.e, &r.st,
						  &r.p))
					return false;
				r.dirty = true;
				continue;
			} else {
				k = cfi_fast_op(f, &r, &delta);
				if (k < 0)
					return false;
				if (!k)
					continue;
			}
			if (__builtin_mul_overflow(delta, x->cie.code_align,
						   &delta) ||
			    __builtin_add_overflow(r.loc, delta, &to) ||
			    to > fend)
				return false;
			if (to == r.loc)
				continue;
		}
		if (!cfi_fast_row(f, &r, fend, at - b))
			return false;
		if (r.p >= r.e)
			break;
		r.loc = to;
	}
	x->nrows = r.n;
	*ret = sink ? cfi_fast_flush(x, sink, r.n, d) : 0;
	return true;
}

/**
 * kuw_cfi_fast_cie() - set the fast path up for a CIE's FDEs
 * @x: the interpreter, x->init the state after the CIE's initial
 *	instructions
 * @ret: what running those instructions returned: not 0, no fast path
 *
 * Its FDEs take the fast path when the CIE ran well and left no
 * expression rule, and there is room to intern its state.
 */
static void kuw_cfi_fast_cie(struct kuw_cfi *x, int ret)
{
	struct kuw_cfi_fast *f = x->fast;
	u64 live;
	u32 i;

	f->init = 0;
	/* gen never wraps: a remembered segment names one CIE run */
	if (ret || f->gen == 0xffffffffU || x->init.cfa_kind == KUW_CFA_EXPR)
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

/**
 * kuw_cfi_fast_alloc() - the fast path's memory for a section
 * @size: the section's size in bytes
 *
 * One block: room for one state per 64 bytes (at least 128, at most
 * 1024) and one segment per 64 bytes (at least 256, at most CFI_SEG_CAP),
 * a pool of 128 bytes a state.
 * Measured: kunwind.ko's 7.7 KB .eh_frame has 89 states, the test
 * kernel's 624 KB 287, libLLVM-14's 4.9 MB 985; a state takes 112 bytes
 * of pool on average.  Full, it sends FDEs to the general path.  Room
 * for 1024 or 2048 segments instead of 4096 costs the test kernel's table
 * build 1.1% or 0.3% more instructions.
 *
 * Return: the memory (kuw_free() frees it), NULL when there is none.
 */
static struct kuw_cfi_fast *kuw_cfi_fast_alloc(u64 size)
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

/* ---- the entry points: the fast path first, then the general one ---- */

void kuw_cfi_caches(struct kuw_cfi *x, u64 size)
{
	u32 n = 16;

	/*
	 * Entries of x->rc (the general path's row cache) worth zeroing for
	 * a section of @size bytes: the general path runs only what the
	 * fast path leaves (few FDEs).
	 */
	while (n < KUW_CFI_RCACHE && n < size / 256)
		n *= 2;
	x->rc = kuw_alloc((size_t)n * sizeof(*x->rc));
	x->rc_mask = x->rc ? n - 1 : 0;
	x->fast = kuw_cfi_fast_alloc(size);
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
	int ret = kuw_cfi_general_cie(x, off, end, d);

	if (x->fast)
		kuw_cfi_fast_cie(x, ret);
	return ret;
}

int kuw_cfi_run_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start, u64 fend,
		    const struct kuw_sink *sink, u32 *nrows,
		    struct kuw_diag *d)
{
	int ret;

	if (x->fast) {
		x->nrows = 0;
		if (kuw_cfi_fast_fde(x, off, end, start, fend, sink, d, &ret)) {
			*nrows += x->nrows;
			return ret;
		}
	}
	return kuw_cfi_general_fde(x, off, end, start, fend, sink, nrows, d);
}
