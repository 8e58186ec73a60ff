// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled rows, load time (rows.h): run a section walker once, collect
 * its rows FDE by FDE and deduplicate their rules into a pool, then hand
 * them to kuw_rows_layout() for the table that lookup searches without
 * allocating.
 */
#include "rows.h"
#include "arch.h"

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
	    c->regs[c->nregs - 1].reg != ai->ra)
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
	c->cfa_reg = r->cfa_kind != KUW_CFA_EXPR ? r->cfa_reg : 0;
	c->flags = r->flags;
	c->cfa_off = r->cfa_off;
	if (r->cfa_kind > KUW_CFA__MAX ||
	    (r->cfa_kind != KUW_CFA_EXPR && r->cfa_reg >= nregs))
		return -KUW_E_BADREG;
	if (r->nregs > KUW_MAX_REGS)
		return -KUW_E_BADREG;
	for (i = 0; i < r->nregs; i++) {
		const struct kuw_reg_rule *s = &r->regs[i];

		if (s->reg >= nregs || s->kind > KUW_R__MAX ||
		    ((s->kind == KUW_R_REG || s->kind == KUW_R_AT_REG ||
		      s->kind == KUW_R_VAL_REG) && s->src >= nregs))
			return -KUW_E_BADREG;
		/* sorted, no duplicates */
		if (c->nregs && c->regs[c->nregs - 1].reg >= s->reg)
			return -KUW_E_BADREG;
		c->regs[c->nregs].reg = s->reg;
		c->regs[c->nregs].kind = s->kind;
		c->regs[c->nregs].pad = 0;
		c->regs[c->nregs].src = s->kind == KUW_R_REG ||
					s->kind == KUW_R_AT_REG ||
					s->kind == KUW_R_VAL_REG ? s->src : 0;
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
	b.secname = kuw_src_section(src);
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

	ret = kuw_rows_layout(&b, out);
	if (!ret) {
		(*out)->ncie = st.ncie;
		(*out)->sec = s->data;
		(*out)->sec_size = s->size;
	}
out:
	rows_build_free(&b);
	return ret;
}
EXPORT_SYMBOL_GPL(kuw_table_build);
