// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled rows: run a section walker once at load, collect its rows,
 * deduplicate the rules and lay out a table that lookup can search without
 * allocating:
 *
 *   pc[i]        u32 row start relative to the table base, sorted
 *   rule16/32[i] index of the row's rule (0: no unwind info, a gap)
 *   rule_off[k]  offset of rule k in the pool of struct kuw_rule (4-aligned,
 *                only nregs register entries stored)
 *   page[p]      first block of page p (1 << page_shift bytes of text);
 *                pages without any FDE have no blocks
 *   block[k]     first row whose pc >= the start of block k
 *
 * A lookup is two index loads, a binary search over the few rows of one
 * block (about four), and the rule: no interpretation on the hot path.
 */
#include "engine.h"
#include "arch.h"

/*
 * Collected row before layout: 8 bytes (the array is sized for the
 * section before the walk, and the kernel zeroes what it allocates).
 */
struct rows_row {
	u32 off;	/* pc - its FDE's start; pending PCMASK: in the block */
	u32 rule;
};

struct rows_fde {
	u64 start;
	u64 end;
	u64 off;
	u32 first;	/* first row in rows_build.rows */
	u32 nrows;
};

struct rows_build {
	const struct kuw_obj *obj;
	int src;
	struct kuw_diag *diag;
	const char *secname;

	struct rows_row *rows;
	u32 nrows, cap_rows;
	struct rows_fde *fdes;
	u32 nfdes, cap_fdes;

	/* deduplicated rules: pool of compact rules, open-addressing hash */
	u8 *pool;
	u32 pool_len, pool_cap;
	u32 *rule_off;
	u32 nrules, cap_rules;
	u32 *hash;	/* rule index + 1, 0 = empty */
	u32 hash_size;

	/* rows of the current PCMASK FDE: offsets in the repeated block */
	struct rows_row *pend;
	u32 npend, cap_pend;

	/*
	 * The FDE being filled.  rows_sink_row_id() takes a row without
	 * further checks when its offset is below @cur_lim (in the FDE and
	 * under 4 GiB; 0 for a PCMASK FDE or none) and nrows < @row_lim (room
	 * in rows[] and under KUW_CFI_MAX_ROWS for this FDE).
	 */
	u64 cur_start;
	u64 cur_end;
	u64 cur_lim;
	u32 cur_first;	/* its first row in rows[] */
	u32 row_lim;
	u32 cur_pcmask;
	bool have_cur;
	/*
	 * A row took the place of one at the same pc: its rule may now equal
	 * the row's before (rows[] holds no such pair else: a row with the
	 * rule of the one before is not added), so the layout merges them.
	 */
	bool dups;

	/* kuw_sink_ext.row_id: the walker's rule id -> rule index + 1 */
	u32 *idmap;
	u32 cap_idmap;

	/* scratch for rows_canon(): not on the stack, which the kernel may
	 * clear on every call (CONFIG_INIT_STACK_ALL_ZERO)
	 */
	struct kuw_rule canon;
};

static const char *rows_secname(int src)
{
	switch (src) {
	case KUW_SRC_EH_FRAME:
		return ".eh_frame";
	case KUW_SRC_DEBUG_FRAME:
		return ".debug_frame";
	default:
		return ".sframe";
	}
}

/*
 * Grow an array to hold at least @need elements of @size bytes.  The new
 * elements are not zeroed (every array grown here is written before it is
 * read, but the id map, which zeroes its own).
 */
static int rows_grow(void **arr, u32 *cap, u32 need, u32 size)
{
	u64 ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? (u64)*cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	if (ncap * size > 0x7fffffffULL)
		return -KUW_E_TOOBIG;
	n = kuw_alloc_raw(ncap * size);
	if (!n)
		return -KUW_E_NOMEM;
	if (*arr) {
		memcpy(n, *arr, (size_t)*cap * size);
		kuw_free(*arr);
	}
	*arr = n;
	*cap = ncap;
	return 0;
}

/*
 * Rules are hashed and compared field by field, by words, without
 * KUW_RF_FAST: the pool's copy gets that flag when it is added, and it
 * follows from the other fields anyway.
 */
static u32 rows_mix(u32 h, u32 w)
{
	return (h ^ w) * 16777619u;
}

static u32 rows_hash_rule(const struct kuw_rule *r)
{
	u32 h = 2166136261u, i;
	u64 w;

	h = rows_mix(h, r->cfa_kind | r->cfa_reg << 8 |
		     (r->flags & ~KUW_RF_FAST) << 16 | (u32)r->nregs << 24);
	h = rows_mix(h, (u32)r->cfa_off);
	for (i = 0; i < r->nregs; i++) {
		memcpy(&w, &r->regs[i], sizeof(w));
		h = rows_mix(rows_mix(h, (u32)w), (u32)(w >> 32));
	}
	return h ^ (h >> 15);
}

static bool rows_rule_eq(const struct kuw_rule *a, const struct kuw_rule *b)
{
	u64 x, y;
	u32 i;

	if (a->nregs != b->nregs || a->cfa_kind != b->cfa_kind ||
	    a->cfa_reg != b->cfa_reg || a->cfa_off != b->cfa_off ||
	    (a->flags & ~KUW_RF_FAST) != (b->flags & ~KUW_RF_FAST))
		return false;
	for (i = 0; i < a->nregs; i++) {
		memcpy(&x, &a->regs[i], sizeof(x));
		memcpy(&y, &b->regs[i], sizeof(y));
		if (x != y)
			return false;
	}
	return true;
}

static int rows_rehash(struct rows_build *b, u32 size)
{
	u32 *h = kuw_alloc((size_t)size * sizeof(u32));
	u32 i;

	if (!h)
		return -KUW_E_NOMEM;
	for (i = 0; i < b->nrules; i++) {
		const struct kuw_rule *r = (const void *)(b->pool + b->rule_off[i]);
		u32 slot = rows_hash_rule(r);

		slot &= size - 1;
		while (h[slot])
			slot = (slot + 1) & (size - 1);
		h[slot] = i + 1;
	}
	kuw_free(b->hash);
	b->hash = h;
	b->hash_size = size;
	return 0;
}

/* Does canonical rule @c take kuw_step()'s fast path?  See KUW_RF_FAST. */
static bool rows_fast(const struct rows_build *b, const struct kuw_rule *c)
{
	const struct kuw_arch_info *ai = kuw_arch(b->obj->arch);
	u32 i;

	if (c->cfa_kind != KUW_CFA_REG || !c->nregs ||
	    c->regs[c->nregs - 1].reg != ai->ra ||
	    (b->obj->arch == KUW_ARCH_ARM64 && (c->flags & KUW_RF_MANGLED_RA)))
		return false;
	for (i = 0; i < c->nregs; i++)
		if (c->regs[i].kind != KUW_R_OFFSET || c->regs[i].reg == ai->sp)
			return false;
	return true;
}

/*
 * Is @r, as a walker reported it, already in the pool?  Walkers mostly
 * report rules in canonical form, and a program has few distinct rules:
 * most rows are found here without canonicalizing.  Pool rules are
 * canonical and valid, so an equal one is too.
 */
static bool rows_find(const struct rows_build *b, const struct kuw_rule *r,
		      u32 *idx)
{
	u32 slot;

	if (r->nregs > KUW_MAX_REGS || !b->hash_size)
		return false;
	for (slot = rows_hash_rule(r) & (b->hash_size - 1); b->hash[slot];
	     slot = (slot + 1) & (b->hash_size - 1)) {
		u32 i = b->hash[slot] - 1;

		if (rows_rule_eq((const void *)(b->pool + b->rule_off[i]), r)) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/* Return the index of @r in the pool, adding it if new. */
static int rows_intern(struct rows_build *b, const struct kuw_rule *r,
		       u32 *idx)
{
	u32 size = kuw_rule_size(r);
	u32 slot, h;
	int ret;

	if (b->nrules * 2 >= b->hash_size) {
		ret = rows_rehash(b, b->hash_size ? b->hash_size * 2 : 256);
		if (ret)
			return ret;
	}
	h = rows_hash_rule(r);
	for (slot = h & (b->hash_size - 1); b->hash[slot];
	     slot = (slot + 1) & (b->hash_size - 1)) {
		u32 i = b->hash[slot] - 1;
		const struct kuw_rule *o = (const void *)(b->pool + b->rule_off[i]);

		if (rows_rule_eq(o, r)) {
			*idx = i;
			return 0;
		}
	}
	ret = rows_grow((void **)&b->pool, &b->pool_cap, b->pool_len + size, 1);
	if (!ret)
		ret = rows_grow((void **)&b->rule_off, &b->cap_rules,
				b->nrules + 1, sizeof(u32));
	if (ret)
		return ret;
	memcpy(b->pool + b->pool_len, r, size);
	if (rows_fast(b, r))
		b->pool[b->pool_len + offsetof(struct kuw_rule, flags)] |=
			KUW_RF_FAST;
	b->rule_off[b->nrules] = b->pool_len;
	b->pool_len += size;
	b->hash[slot] = b->nrules + 1;
	*idx = b->nrules++;
	return 0;
}

/* Copy @r to its canonical compact form (no stray padding bytes). */
static int rows_canon(struct rows_build *b, const struct kuw_rule *r,
		      struct kuw_rule *c)
{
	u8 nregs = kuw_arch(b->obj->arch)->nregs;
	u32 i;

	/* only the bytes kuw_rule_size() covers are used: no full memset */
	c->nregs = 0;
	c->cfa_kind = r->cfa_kind;
	c->cfa_reg = r->cfa_kind == KUW_CFA_REG ? r->cfa_reg : 0;
	c->flags = r->flags;
	c->cfa_off = r->cfa_off;
	if (r->cfa_kind > KUW_CFA_EXPR ||
	    (r->cfa_kind == KUW_CFA_REG && r->cfa_reg >= nregs))
		return -KUW_E_BADREG;
	if (r->nregs > KUW_MAX_REGS)
		return -KUW_E_BADREG;
	for (i = 0; i < r->nregs; i++) {
		const struct kuw_reg_rule *s = &r->regs[i];

		if (s->reg >= nregs || s->kind > KUW_R_VAL_EXPR ||
		    (s->kind == KUW_R_REG && s->src >= nregs))
			return -KUW_E_BADREG;
		/* sorted, no duplicates */
		if (c->nregs && c->regs[c->nregs - 1].reg >= s->reg)
			return -KUW_E_BADREG;
		c->regs[c->nregs].reg = s->reg;
		c->regs[c->nregs].kind = s->kind;
		c->regs[c->nregs].pad = 0;
		c->regs[c->nregs].src = s->kind == KUW_R_REG ? s->src : 0;
		c->regs[c->nregs].off = s->kind == KUW_R_REG ||
					s->kind == KUW_R_UNDEF ||
					s->kind == KUW_R_SAME ? 0 : s->off;
		c->nregs++;
	}
	c->flags &= ~KUW_RF_FAST;	/* set in the pool, rows_intern() */
	return 0;
}

/* Where the per-row fast path stops: see struct rows_build. */
static void rows_set_row_lim(struct rows_build *b)
{
	u64 lim = (u64)b->cur_first + KUW_CFI_MAX_ROWS;

	b->row_lim = lim < b->cap_rows ? lim : b->cap_rows;
}

/* A row of the current FDE, every check made (rows_sink_row_id()'s too). */
static int rows_add(struct rows_build *b, u64 pc, u32 rule)
{
	struct rows_row *last;
	u32 n = b->nrows;
	u64 off;
	int ret;

	if (pc < b->cur_start || pc >= b->cur_end)
		return 0;	/* a row at the FDE's end covers nothing */
	off = pc - b->cur_start;
	if (n - b->cur_first >= KUW_CFI_MAX_ROWS || off > 0xffffffffULL)
		return -KUW_E_TOOBIG;	/* a table spans at most 4 GiB */
	if (n != b->cur_first) {
		last = &b->rows[n - 1];
		if (off < last->off)
			return -KUW_E_BADLOC;
		if (off == last->off) {	/* a later row at the same pc wins */
			last->rule = rule;
			b->dups = true;
			return 0;
		}
		if (last->rule == rule)
			return 0;
	}
	if (n >= b->cap_rows) {
		ret = rows_grow((void **)&b->rows, &b->cap_rows, n + 1,
				sizeof(*b->rows));
		if (ret)
			return ret;
		rows_set_row_lim(b);
	}
	b->rows[n].off = off;
	b->rows[n].rule = rule;
	b->nrows = n + 1;
	return 0;
}

/*
 * A PCMASK FDE's rows give offsets inside a block repeated over the
 * function: expand them now, once, so lookup stays one search.
 */
static int rows_expand_pcmask(struct rows_build *b)
{
	u32 rep = b->cur_pcmask, i;
	u64 reps, r;
	int ret;

	if (!b->npend)
		return 0;
	reps = (b->cur_end - b->cur_start + rep - 1) / rep;
	if (reps * b->npend > KUW_CFI_MAX_ROWS)
		return -KUW_E_TOOBIG;
	for (r = 0; r < reps; r++) {
		for (i = 0; i < b->npend && b->pend[i].off < rep; i++) {
			ret = rows_add(b, b->cur_start + r * rep + b->pend[i].off,
				       b->pend[i].rule);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Close the current FDE: its row count is final after this. */
/* The current FDE's rows are final: count them. */
static kuw_always_inline void rows_close_fde(struct rows_build *b)
{
	b->fdes[b->nfdes - 1].nrows = b->nrows - b->cur_first;
	b->have_cur = false;
}

static int rows_finish_fde(struct rows_build *b)
{
	int ret = 0;

	if (!b->have_cur)
		return 0;
	b->cur_lim = 0;
	if (b->cur_pcmask)
		ret = rows_expand_pcmask(b);
	b->npend = 0;
	rows_close_fde(b);
	return ret;
}

/* rows_sink_fde() when fdes[] is full. */
static kuw_noinline int rows_grow_fdes(struct rows_build *b)
{
	return rows_grow((void **)&b->fdes, &b->cap_fdes, b->nfdes + 1,
			 sizeof(*b->fdes));
}

/* Start filling FDE @fi (its range checked, room in fdes[]). */
static kuw_always_inline void rows_open_fde(struct rows_build *b,
					    const struct kuw_fde_info *fi)
{
	struct rows_fde *f;
	u64 start = fi->start, end = fi->end;

	f = &b->fdes[b->nfdes++];
	f->start = start;
	f->end = end;
	f->off = fi->off;
	f->first = b->nrows;
	f->nrows = 0;
	b->cur_start = start;
	b->cur_end = end;
	b->cur_pcmask = fi->pcmask;
	b->cur_first = b->nrows;
	if (fi->pcmask)
		b->cur_lim = 0;
	else
		b->cur_lim = end - start < 0x100000000ULL ? end - start :
			     0x100000000ULL;
	rows_set_row_lim(b);
	b->have_cur = true;
}

/* rows_sink_fde() for a PCMASK FDE (before or now), a full fdes[], errors. */
static kuw_noinline int rows_sink_fde_slow(struct rows_build *b,
					   const struct kuw_fde_info *fi)
{
	int ret;

	ret = rows_finish_fde(b);
	if (ret)
		return ret;
	if (fi->end < fi->start)
		return -KUW_E_BADRANGE;
	if (b->nfdes >= b->cap_fdes) {
		ret = rows_grow_fdes(b);
		if (ret)
			return ret;
	}
	rows_open_fde(b, fi);
	return 0;
}

static int rows_sink_fde(void *ctx, const struct kuw_fde_info *fi)
{
	struct rows_build *b = ctx;

	if (unlikely(b->cur_pcmask || fi->pcmask || fi->end < fi->start ||
		     b->nfdes >= b->cap_fdes))
		return rows_sink_fde_slow(b, fi);
	if (b->have_cur)
		rows_close_fde(b);
	rows_open_fde(b, fi);
	return 0;
}

/* A row of rule index @idx. */
static int rows_put(struct rows_build *b, u64 pc, u32 idx)
{
	int ret;

	if (!b->cur_pcmask)
		return rows_add(b, pc, idx);
	if (pc > 0xffffffffULL ||
	    (b->npend && pc <= b->pend[b->npend - 1].off))
		return -KUW_E_BADLOC;
	ret = rows_grow((void **)&b->pend, &b->cap_pend, b->npend + 1,
			sizeof(*b->pend));
	if (ret)
		return ret;
	b->pend[b->npend].off = pc;
	b->pend[b->npend].rule = idx;
	b->npend++;
	return 0;
}

/* The index of walker rule @r in the pool, adding it if new. */
static int rows_index(struct rows_build *b, const struct kuw_rule *r,
		      u32 *idx)
{
	int ret;

	if (rows_find(b, r, idx))
		return 0;
	ret = rows_canon(b, r, &b->canon);
	if (!ret)
		ret = rows_intern(b, &b->canon, idx);
	return ret;
}

static int rows_sink_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct rows_build *b = ctx;
	u32 idx;
	int ret;

	if (!b->have_cur)
		return -KUW_E_BADLOC;
	ret = rows_index(b, r, &idx);
	return ret ? ret : rows_put(b, pc, idx);
}

/* rows_sink_row_id() off its fast path: every case, every check. */
static kuw_noinline int rows_sink_id_slow(struct rows_build *b, u64 pc,
					  const struct kuw_rule *r, u32 id)
{
	u32 idx;
	int ret;

	if (!b->have_cur)
		return -KUW_E_BADLOC;
	if (id < b->cap_idmap && b->idmap[id])
		return rows_put(b, pc, b->idmap[id] - 1);
	ret = rows_index(b, r, &idx);
	if (ret)
		return ret;
	if (id < (1U << 24)) {
		u32 old = b->cap_idmap;

		ret = rows_grow((void **)&b->idmap, &b->cap_idmap, id + 1,
				sizeof(u32));
		if (ret)
			return ret;
		/* 0: not mapped yet */
		memset(b->idmap + old, 0, (size_t)(b->cap_idmap - old) * 4);
		b->idmap[id] = idx + 1;
	}
	return rows_put(b, pc, idx);
}

/*
 * A row whose rule the walker numbered: look each id up once.  The usual
 * row (id mapped, offset inside the current FDE, room in rows[]) costs a
 * few compares and one store; the rest, with every check, is
 * rows_sink_id_slow()'s.
 */
static int rows_sink_row_id(void *ctx, u64 pc, const struct kuw_rule *r,
			    u32 id)
{
	struct rows_build *b = ctx;
	u64 off = pc - b->cur_start;
	u32 n = b->nrows, idx;
	struct rows_row *last;

	if (unlikely(id >= b->cap_idmap || !b->idmap[id] ||
		     off >= b->cur_lim || n >= b->row_lim))
		return rows_sink_id_slow(b, pc, r, id);
	idx = b->idmap[id] - 1;
	if (n != b->cur_first) {
		last = &b->rows[n - 1];
		if (off <= last->off) {
			if (off < last->off)
				return -KUW_E_BADLOC;
			last->rule = idx;	/* a later row at the same pc wins */
			b->dups = true;
			return 0;
		}
		if (last->rule == idx)
			return 0;
	}
	b->rows[n].off = off;
	b->rows[n].rule = idx;
	b->nrows = n + 1;
	return 0;
}

/*
 * kuw_sink_ext.rows: rows of the current FDE in a batch, each exactly as
 * rows_sink_row_id() takes it, the fast path's state in locals (reloaded
 * after rows_sink_id_slow(), which may grow the arrays): the last row's
 * offset + 1 and rule, and no row limit check per row when rows[] has
 * room for the whole batch (else every row goes the slow way).
 */
static int rows_sink_rows(void *ctx, const struct kuw_row_ref *rr, u32 cnt,
			  u32 *done)
{
	struct rows_build *b = ctx;
	const struct kuw_row_ref *r = rr, *e = rr + cnt;
	struct rows_row *rows;
	const u32 *idmap;
	u64 start, lim, off, next;
	u32 n, cap_id, idx, lrule;
	int ret;

	for (;;) {
		rows = b->rows;
		idmap = b->idmap;
		start = b->cur_start;
		lim = b->cur_lim;
		n = b->nrows;
		cap_id = b->cap_idmap;
		/*
		 * The FDE's last row: @next, its offset + 1 (0: no row yet),
		 * and its rule (~0: none).  With room for every row left, no
		 * row limit to check in the loop.
		 */
		next = 0;
		lrule = ~0U;
		if (n != b->cur_first) {
			next = rows[n - 1].off + 1ULL;
			lrule = rows[n - 1].rule;
		}
		if ((u64)n + (e - r) > b->row_lim)
			lim = 0;	/* all to rows_sink_id_slow() */
		for (; r < e; r++) {
			off = r->pc - start;
			if (unlikely(r->id >= cap_id || !idmap[r->id] ||
				     off >= lim))
				break;
			idx = idmap[r->id] - 1;
			if (unlikely(off < next)) {
				if (off + 1 < next) {
					ret = -KUW_E_BADLOC;
					goto fail;
				}
				rows[n - 1].rule = idx;	/* the later row wins */
				lrule = idx;
				b->dups = true;
				continue;
			}
			if (idx == lrule)
				continue;
			rows[n].off = off;
			rows[n].rule = idx;
			next = off + 1;
			lrule = idx;
			n++;
		}
		b->nrows = n;
		if (r == e)
			break;
		ret = rows_sink_id_slow(b, r->pc, r->rule, r->id);
		if (ret) {
			*done = r - rr;
			return ret;
		}
		r++;
	}
	*done = cnt;
	return 0;
fail:
	b->nrows = n;
	*done = r - rr;
	return ret;
}

static int rows_cmp_fde(const void *a, const void *b)
{
	const struct rows_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	/* one order whatever the sort: the later one is the overlap found */
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/* rows_cmp_fde(x, y) < 0, inline: start decides almost always. */
static kuw_always_inline bool rows_fde_lt(const struct rows_fde *x,
					  const struct rows_fde *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->end != y->end)
		return x->end < y->end;
	return x->off < y->off;
}

/* At most this many piles in rows_order(), else kuw_sort(). */
#define ROWS_PILES	32
#define ROWS_NIL	0xffffffffU

/* Blocks per page: 1 << KUW_PAGE_BLOCKS_LOG. */
#define KUW_PAGE_BLOCKS_LOG	6

/*
 * What the layout needs of the FDEs with rows, summed in any order: the
 * lowest start is the table's base; once no two FDEs overlap, the highest
 * end is the last one's end.
 */
struct rows_sum {
	u64 lo;		/* lowest start, ~0 when none */
	u64 hi;		/* highest end */
	u64 covered;	/* bytes they cover */
	u32 nfde;
};

/*
 * The FDEs dealt onto piles, each an ascending sequence chained by index
 * (rows_deal()); @np == 0 with FDEs: sorted in place instead.
 */
struct rows_piles {
	u32 *next;	/* [nfdes] */
	u32 last[ROWS_PILES];
	u32 head[ROWS_PILES];
	u32 np;
};

/*
 * rows_visit()'s state, locals of rows_order_gen(): the FDEs in address
 * order, checked, and their rows laid out into @pc and @r16 or @r32.
 */
struct rows_ord {
	u64 base;
	u64 prev_end;		/* of the last non-empty FDE */
	u32 *pc;		/* pc[0] */
	u32 *pp;		/* the next row's pc */
	u16 *p16;		/* and its rule */
	u32 *p32;
	bool any;
};

/* How rows_order_gen() lays the rows out. */
enum rows_mode {
	ROWS_CHECK,		/* not: only check */
	ROWS_R16,		/* 16-bit rule indexes */
	ROWS_R32,		/* 32-bit rule indexes */
};

/*
 * The next FDE in address order.  Each is checked for overlap against the
 * last non-empty one before it, not only its neighbour: an empty FDE
 * between two overlapping ones must not hide the overlap (the layout
 * relies on sorted, disjoint ranges).  Then (@mode) its rows go out, then
 * its end marker, merging equal neighbours inside an FDE.  An FDE's first
 * row is always kept, even when it repeats the rule of the FDE before it:
 * the row a pc is reported under (debugfs rules, kunwind-dump rules) then
 * always starts inside that pc's function.  An end marker where the next
 * FDE starts gives way to its first row.
 */
static kuw_always_inline int rows_visit(struct rows_build *b,
					struct rows_ord *w,
					const struct rows_fde *f,
					enum rows_mode mode)
{
	const struct rows_row *r, *e;
	u32 fo, o, prev, rule, *pp, *p32;
	u16 *p16;

	if (f->start == f->end)
		return 0;
	if (w->any && f->start < w->prev_end)
		return kuw_fail(b->diag, b->secname, f->off, KUW_E_OVERLAP);
	w->any = true;
	w->prev_end = f->end;
	if (mode == ROWS_CHECK || !f->nrows)
		return 0;
	fo = f->start - w->base;
	r = &b->rows[f->first];
	e = r + f->nrows;
	o = fo + r->off;
	pp = w->pp;
	p16 = w->p16;
	p32 = w->p32;
	if (pp != w->pc && pp[-1] == o) {
		/* end marker where this FDE starts */
		pp--;
		if (mode == ROWS_R32)
			p32--;
		else
			p16--;
	}
	prev = r->rule;
	*pp++ = o;
	if (mode == ROWS_R32)
		*p32++ = prev;
	else
		*p16++ = prev;
	if (likely(!b->dups)) {
		/* no two neighbours in rows[] share a rule: a plain copy */
		while (++r < e) {
			*pp++ = fo + r->off;
			if (mode == ROWS_R32)
				*p32++ = r->rule;
			else
				*p16++ = r->rule;
		}
	} else {
		while (++r < e) {
			rule = r->rule;
			if (rule == prev)
				continue;
			prev = rule;
			*pp++ = fo + r->off;
			if (mode == ROWS_R32)
				*p32++ = rule;
			else
				*p16++ = rule;
		}
	}
	*pp++ = f->end - w->base;
	if (mode == ROWS_R32)
		*p32++ = KUW_RULE_NONE;
	else
		*p16++ = KUW_RULE_NONE;
	w->pp = pp;
	w->p16 = p16;
	w->p32 = p32;
	return 0;
}

/*
 * Deal the FDEs onto piles for rows_order(), summing @sm up on the way.
 * They come as a few ascending sequences interleaved: vmlinux .eh_frame
 * has 1337 ascending runs (each object file's .init.text FDEs follow its
 * .text ones) but only 10 such sequences.  Each FDE goes onto the first
 * pile whose last FDE does not sort after it (patience sorting; the
 * piles' last FDEs sort in decreasing order, so the pile the FDE before
 * went to is tried first, then a binary search).  More than ROWS_PILES
 * piles, or no memory: kuw_sort() (a heap sort in the kernel) in place.
 */
static kuw_noinline void rows_deal(struct rows_build *b, struct rows_piles *pl,
				   struct rows_sum *sm)
{
	const struct rows_fde *a = b->fdes, *bound = NULL;
	u32 n = b->nfdes, np = 0, i, p = 0, k, lo, hi, nfde = 0;
	u64 lo_start = ~0ULL, hi_end = 0, covered = 0;
	u32 *next, *last = pl->last, *head = pl->head;

	next = kuw_alloc_raw(((size_t)n + 1) * sizeof(u32));
	/*
	 * p is the pile of the FDE before (a[i - 1] is its last), @bound
	 * the last FDE of pile p - 1 (NULL for pile 0): x joins pile p when
	 * it sorts after the FDE before and before @bound.
	 */
	for (i = 0; i < n; i++) {
		const struct rows_fde *x = &a[i];

		if (x->nrows) {
			nfde++;
			covered += x->end - x->start;
			if (x->start < lo_start)
				lo_start = x->start;
			if (x->end > hi_end)
				hi_end = x->end;
		}
		if (!next)
			continue;
		if (!(np && !rows_fde_lt(x, x - 1) &&
		      (!bound || rows_fde_lt(x, bound)))) {
			/* the first pile whose last FDE is not after x */
			lo = 0;
			hi = np;
			while (lo < hi) {
				k = lo + (hi - lo) / 2;
				if (rows_fde_lt(x, &a[last[k]]))
					lo = k + 1;
				else
					hi = k;
			}
			p = lo;
			bound = p ? &a[last[p - 1]] : NULL;
			if (p == np) {
				if (np == ROWS_PILES) {
					kuw_free(next);
					next = NULL;
					continue;
				}
				np++;
				head[p] = i;
				last[p] = i;
				continue;
			}
		}
		next[last[p]] = i;
		last[p] = i;
	}
	sm->lo = lo_start;
	sm->hi = hi_end;
	sm->covered = covered;
	sm->nfde = nfde;
	pl->next = next;
	pl->np = next ? np : 0;
	if (!next)
		kuw_sort(b->fdes, n, sizeof(*a), rows_cmp_fde);
}

/*
 * rows_visit() the FDEs in address order: start, then end, then offset
 * (no two compare equal, so any correct sort gives one order).  Merge the
 * piles, taking FDEs from the pile with the least head while it stays
 * below the second least (vmlinux: 37 switches).
 */
static kuw_always_inline int rows_order_gen(struct rows_build *b,
					    struct rows_piles *pl,
					    struct rows_ord *wo,
					    enum rows_mode mode)
{
	const struct rows_fde *a = b->fdes, *lim;
	u32 *next = pl->next, *head = pl->head, np = pl->np, i, p, q, k;
	struct rows_ord w = *wo;
	int ret = 0;

	if (!np) {	/* sorted in place */
		for (i = 0; i < b->nfdes; i++) {
			ret = rows_visit(b, &w, &a[i], mode);
			if (ret)
				break;
		}
		goto out;
	}
	for (p = 0; p < np; p++)
		next[pl->last[p]] = ROWS_NIL;
	while (np > 1) {
		/* p: the pile with the least head, q: the second least */
		p = 0;
		q = 1;
		if (rows_fde_lt(&a[head[1]], &a[head[0]])) {
			p = 1;
			q = 0;
		}
		for (k = 2; k < np; k++) {
			if (rows_fde_lt(&a[head[k]], &a[head[p]])) {
				q = p;
				p = k;
			} else if (rows_fde_lt(&a[head[k]], &a[head[q]])) {
				q = k;
			}
		}
		lim = &a[head[q]];
		i = head[p];
		do {
			ret = rows_visit(b, &w, &a[i], mode);
			if (ret)
				goto out;
			i = next[i];
		} while (i != ROWS_NIL && rows_fde_lt(&a[i], lim));
		if (i == ROWS_NIL)
			head[p] = head[--np];	/* pile p is empty */
		else
			head[p] = i;
	}
	for (i = head[0]; i != ROWS_NIL; i = next[i]) {
		ret = rows_visit(b, &w, &a[i], mode);
		if (ret)
			break;
	}
out:
	*wo = w;
	return ret;
}

/* rows_order_gen() once per mode: no per-row mode test. */
static kuw_noinline int rows_order_check(struct rows_build *b,
					 struct rows_piles *pl,
					 struct rows_ord *w)
{
	return rows_order_gen(b, pl, w, ROWS_CHECK);
}

static kuw_noinline int rows_order16(struct rows_build *b,
				     struct rows_piles *pl, struct rows_ord *w)
{
	return rows_order_gen(b, pl, w, ROWS_R16);
}

static kuw_noinline int rows_order32(struct rows_build *b,
				     struct rows_piles *pl, struct rows_ord *w)
{
	return rows_order_gen(b, pl, w, ROWS_R32);
}

/* page[p] = 1 for each page p holding an FDE with rows. */
static kuw_noinline void rows_mark_pages(const struct rows_build *b, u32 *page,
					 u64 base, u32 pshift)
{
	const struct rows_fde *f = b->fdes, *e = f + b->nfdes;
	u32 p, last;

	for (; f < e; f++) {
		if (!f->nrows)
			continue;
		p = (f->start - base) >> pshift;
		last = (f->end - 1 - base) >> pshift;
		page[p] = 1;
		while (p < last)
			page[++p] = 1;
	}
}

/* Rule 0, KUW_RULE_NONE: all zero (static: the build's frame is large). */
static const struct kuw_rule rows_none;

static void rows_build_free(struct rows_build *b)
{
	kuw_free(b->rows);
	kuw_free(b->fdes);
	kuw_free(b->pool);
	kuw_free(b->rule_off);
	kuw_free(b->hash);
	kuw_free(b->pend);
	kuw_free(b->idmap);
}

static u32 rows_align4(u64 n)
{
	return (n + 3) & ~3ULL;
}

/*
 * Block size: about four rows per block where there is code, from the
 * bytes the FDEs cover (not the span, which may hold large gaps); then
 * larger if the page array would outgrow the rows.
 */
static u32 rows_block_shift(u64 covered, u64 span, u32 nrows)
{
	u32 shift;

	for (shift = 4; shift < 24; shift++)
		if ((covered >> shift) < nrows / 4 + 1)
			break;
	while (shift < 31 - KUW_PAGE_BLOCKS_LOG &&
	       (span >> (shift + KUW_PAGE_BLOCKS_LOG)) > (u64)nrows + 1024)
		shift++;
	return shift;
}

/*
 * block[k]: the first row whose pc >= the start of block k, nrows when
 * none; the blocks of page p are block[page[p]] .. block[page[p + 1] - 1].
 * One pass over the blocks and the rows (pc[] is sorted).
 */
static kuw_noinline void rows_blocks(u32 *block, const u32 *page,
				     u32 npages, const u32 *pc, u32 nrows,
				     u32 shift, u32 pshift)
{
	u64 lim, step = 1ULL << shift, top;
	const u32 *pj = pc;
	u32 i, k, kend;

	if (!nrows) {	/* no FDE with rows: no blocks */
		block[page[npages]] = 0;
		return;
	}
	/* a block starting at or before the last row's pc stops the scan */
	top = pc[nrows - 1];
	for (i = 0; i < npages; i++) {
		k = page[i];
		kend = page[i + 1];
		lim = (u64)i << pshift;
		for (; k < kend; k++, lim += step) {
			if (unlikely(lim > top))
				pj = pc + nrows;
			else
				while (*pj < lim)
					pj++;
			block[k] = pj - pc;
		}
	}
	block[page[npages]] = nrows;
}

/*
 * Check the FDEs in address order and lay their rows out in the final
 * table.  The table is not zeroed when allocated: every byte of it is
 * written here.  Overlap is reported first, then a table too large (or no
 * memory for it).
 */
static kuw_noinline int rows_layout(struct rows_build *b,
				    struct kuw_table **out)
{
	u32 nrows, i, nblocks = 0, shift, pshift, npages;
	const char *owner = b->obj->owner ? b->obj->owner : "?";
	u32 owner_len = strlen(owner) + 1;
	u64 base = 0, span = 0, off = 0, sz_hdr, sz_pc, sz_rule;
	u64 sz_roff, sz_block, sz_page, sz_pool;
	struct rows_ord w = { 0 };
	struct rows_piles pl;
	struct rows_sum sm;
	struct kuw_table *t;
	u32 *pc, *roff, *block, *page = NULL;
	u16 *r16 = NULL;
	u32 *r32 = NULL;
	u8 *mem = NULL;
	bool wide;
	int ret, err = 0;

	rows_deal(b, &pl, &sm);
	/* every row belongs to an FDE with rows, each gets an end marker */
	nrows = b->nrows + sm.nfde;
	if (sm.nfde) {
		base = sm.lo;
		span = sm.hi - base;
	}
	shift = rows_block_shift(sm.covered, span, nrows);
	pshift = shift + KUW_PAGE_BLOCKS_LOG;
	npages = (span >> pshift) + 1;
	wide = b->nrules > 0xffff;
	sz_hdr = rows_align4(sizeof(*t));
	sz_pc = rows_align4((u64)nrows * 4);
	sz_rule = rows_align4((u64)nrows * (wide ? 4 : 2));
	sz_roff = (u64)b->nrules * 4;
	sz_page = ((u64)npages + 1) * 4;
	sz_pool = rows_align4(b->pool_len);
	if (span > 0xffffffffULL) {
		err = KUW_E_TOOBIG;
	} else {
		/* pages holding some FDE, then their first blocks */
		page = kuw_alloc(sz_page);
		if (!page) {
			err = KUW_E_NOMEM;
		} else {
			rows_mark_pages(b, page, base, pshift);
			for (i = 0; i < npages; i++) {
				u32 present = page[i];

				page[i] = nblocks;
				if (present)
					nblocks += 1U << KUW_PAGE_BLOCKS_LOG;
			}
			page[npages] = nblocks;
		}
	}
	sz_block = ((u64)nblocks + 1) * 4;
	if (!err) {
		off = sz_hdr + sz_pc + sz_rule + sz_roff + sz_block + sz_page +
		      sz_pool + owner_len;
		if (off > 0x7fffffffULL)
			err = KUW_E_TOOBIG;
		else
			mem = kuw_alloc_raw(off);
		if (!err && !mem)
			err = KUW_E_NOMEM;
	}
	if (err) {
		/* the FDEs are still checked: an overlap is reported first */
		ret = rows_order_check(b, &pl, &w);
		if (!ret)
			ret = kuw_fail(b->diag, b->secname, 0, err);
		goto out;
	}
	t = (struct kuw_table *)mem;
	memset(mem, 0, sz_hdr);
	t->bytes = off;
	off = sz_hdr;
	pc = (u32 *)(mem + off);
	off += sz_pc;
	if (wide)
		r32 = (u32 *)(mem + off);
	else
		r16 = (u16 *)(mem + off);
	off += sz_rule;
	roff = (u32 *)(mem + off);
	off += sz_roff;
	block = (u32 *)(mem + off);
	off += sz_block;
	memcpy(mem + off, page, sz_page);
	kuw_free(page);
	page = (u32 *)(mem + off);
	off += sz_page;
	memcpy(mem + off, b->pool, b->pool_len);
	memset(mem + off + b->pool_len, 0, sz_pool - b->pool_len);
	t->pool = mem + off;
	off += sz_pool;
	memcpy(mem + off, owner, owner_len);
	t->owner = (const char *)(mem + off);
	memcpy(roff, b->rule_off, (size_t)b->nrules * 4);

	w.base = base;
	w.pc = pc;
	w.pp = pc;
	w.p16 = r16;
	w.p32 = r32;
	if (wide)
		ret = rows_order32(b, &pl, &w);
	else
		ret = rows_order16(b, &pl, &w);
	if (ret) {
		kuw_free(mem);
		kuw_free(pl.next);
		return ret;
	}
	i = w.pp - pc;
	/* merged rows leave the arrays' tails unused: zero them */
	memset(pc + i, 0, sz_pc - (u64)i * 4);
	if (wide)
		memset(r32 + i, 0, sz_rule - (u64)i * 4);
	else
		memset(r16 + i, 0, sz_rule - (u64)i * 2);
	nrows = i;
	rows_blocks(block, page, npages, pc, nrows, shift, pshift);

	t->src = b->src;
	t->arch = b->obj->arch;
	t->block_shift = shift;
	t->page_shift = pshift;
	t->npages = npages;
	t->page = page;
	t->base = base;
	t->start = base;
	t->end = base + span;
	t->nrows = nrows;
	t->nrules = b->nrules;
	t->nblocks = nblocks;
	t->nfde = sm.nfde;
	t->pc = pc;
	t->rule16 = r16;
	t->rule32 = r32;
	t->rule_off = roff;
	t->block = block;
	*out = t;
	kuw_free(pl.next);
	return 0;
out:
	kuw_free(page);
	kuw_free(pl.next);
	return ret;
}

/**
 * kuw_table_build() - validate one unwind section and compile its rows
 * @o: the object the section belongs to
 * @src: enum kuw_src: which walker reads @s
 * @s: the section
 * @out: the new table, freed with kuw_table_free()
 * @d: where the first error was found
 *
 * Runs at load time in process context; allocates.  On error nothing is
 * left allocated.  Return: 0 or a negative enum kuw_err.
 */
int kuw_table_build(const struct kuw_obj *o, int src, const struct kuw_sec *s,
		    struct kuw_table **out, struct kuw_diag *d)
{
	struct kuw_sink sink = { rows_sink_fde, rows_sink_row, NULL };
	struct kuw_sink_ext ext = {
		.row_id = rows_sink_row_id,
		.rows = rows_sink_rows,
	};
	struct kuw_stats st = { 0 };
	struct rows_build b;
	u32 idx;
	int ret;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	b.obj = o;
	b.src = src;
	b.diag = d;
	b.secname = rows_secname(src);
	sink.ctx = &b;

	/*
	 * Room for the usual row density (a row takes 4 or more bytes of
	 * .eh_frame or .sframe) and FDE size, so that the arrays are seldom
	 * grown (and copied); a failure here is retried by rows_grow().
	 */
	if (s->size < 0x40000000ULL) {
		rows_grow((void **)&b.rows, &b.cap_rows, s->size / 4 + 16,
			  sizeof(*b.rows));
		rows_grow((void **)&b.fdes, &b.cap_fdes, s->size / 32 + 16,
			  sizeof(*b.fdes));
	}

	/* rule 0: no unwind info */
	ret = rows_intern(&b, &rows_none, &idx);
	if (ret) {
		ret = kuw_fail(d, b.secname, 0, -ret);
		goto out;
	}

	if (src == KUW_SRC_SFRAME)
		ret = kuw_sfr_walk_ext(o, s, &sink, &ext, &st, d);
	else if (src == KUW_SRC_EH_FRAME || src == KUW_SRC_DEBUG_FRAME)
		ret = kuw_ehf_walk_ext(o, s, src == KUW_SRC_DEBUG_FRAME, &sink,
				       &ext, &st, d);
	else
		ret = kuw_fail(d, "?", 0, KUW_E_INVAL);
	if (!ret)
		ret = rows_finish_fde(&b);
	if (ret) {
		/* a sink error has no position yet: name the FDE */
		ret = kuw_fail(d, b.secname,
			       b.nfdes ? b.fdes[b.nfdes - 1].off : 0, -ret);
		goto out;
	}

	ret = rows_layout(&b, out);
	if (!ret) {
		(*out)->ncie = st.ncie;
		(*out)->sec = s->data;
		(*out)->sec_size = s->size;
	}
out:
	rows_build_free(&b);
	return ret;
}

void kuw_table_free(struct kuw_table *t)
{
	kuw_free(t);
}

/**
 * kuw_table_relocate() - move a table built at link-time addresses
 * @t: the table
 * @delta: run-time address minus link-time address (the KASLR offset)
 *
 * Rows are stored relative to the table base, so only the base moves.
 */
void kuw_table_relocate(struct kuw_table *t, s64 delta)
{
	t->base += delta;
	t->start += delta;
	t->end += delta;
}

/**
 * kuw_table_lookup() - the rule in force at a pc
 * @t: the table
 * @pc: the address to look up (already pc - 1 for a return address)
 * @rule: set to the rule
 * @row_pc: set to the start of the row, may be NULL
 *
 * Lock-free and allocation-free; the table is immutable once built.
 * Return: 0, or -KUW_E_NOINFO when no FDE covers @pc.
 */
int kuw_table_lookup(const struct kuw_table *t, u64 pc,
		     const struct kuw_rule **rule, u64 *row_pc)
{
	u32 x, pg, blk, lo, hi, idx;

	if (pc < t->start || pc >= t->end)
		return -KUW_E_NOINFO;
	x = pc - t->base;
	pg = x >> t->page_shift;
	if (pg >= t->npages)
		return -KUW_E_NOINFO;
	blk = t->page[pg];
	if (blk == t->page[pg + 1])
		return -KUW_E_NOINFO;	/* no FDE in this page */
	blk += (x >> t->block_shift) &
	       ((1U << (t->page_shift - t->block_shift)) - 1);
	/* the answer is the last row with pc <= x: in [block[b] - 1, block[b + 1]) */
	lo = t->block[blk];
	hi = t->block[blk + 1];
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (t->pc[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -KUW_E_NOINFO;
	idx = lo - 1;
	idx = t->rule16 ? t->rule16[idx] : t->rule32[idx];
	if (idx == KUW_RULE_NONE || idx >= t->nrules)
		return -KUW_E_NOINFO;
	*rule = (const struct kuw_rule *)(t->pool + t->rule_off[idx]);
	if (row_pc)
		*row_pc = t->base + t->pc[lo - 1];
	return 0;
}
