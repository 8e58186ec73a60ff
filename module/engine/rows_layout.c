// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled rows, load time (rows.h): the collected FDEs in address order,
 * checked for overlap, their rows laid out into the table with its
 * two-level block index.
 */
#include "rows.h"
#include "fast.h"

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
 * The table's geometry and the sizes of its parts, in the order they are
 * laid out in its one allocation: header, pc[], rule16/32[], rule_off[],
 * block[], page[], the rule pool, the owner's name.
 */
struct rows_plan {
	u64 base;
	u64 span;
	u32 nrows;		/* rows and end markers, before merging */
	u32 shift;		/* block_shift */
	u32 pshift;		/* page_shift */
	u32 npages;
	u32 nblocks;
	bool wide;		/* 32-bit rule indexes */
	u32 *page;		/* page[] while the table is not allocated */
	u32 *block;		/* block[] in the table */
	const char *owner;
	u64 sz_hdr, sz_pc, sz_rule, sz_roff, sz_block, sz_page, sz_pool;
	u64 sz_owner;
	u64 bytes;		/* all of them */
};

/* Geometry and sizes from the FDEs' sums (@sm); block[] comes later. */
static void rows_plan_init(const struct rows_build *b,
			   const struct rows_sum *sm, struct rows_plan *p)
{
	memset(p, 0, sizeof(*p));
	/* every row belongs to an FDE with rows, each gets an end marker */
	p->nrows = b->nrows + sm->nfde;
	if (sm->nfde) {
		p->base = sm->lo;
		p->span = sm->hi - p->base;
	}
	p->shift = rows_block_shift(sm->covered, p->span, p->nrows);
	p->pshift = p->shift + KUW_PAGE_BLOCKS_LOG;
	p->npages = (p->span >> p->pshift) + 1;
	p->wide = b->nrules > 0xffff;
	p->owner = b->obj->owner ? b->obj->owner : "?";
	p->sz_owner = strlen(p->owner) + 1;
	p->sz_hdr = rows_align4(sizeof(struct kuw_table));
	/* and sentinels past the last row: kuw_table_find() looks at them */
	p->sz_pc = ((u64)p->nrows + KUW_ROW_PAD) * 4;
	p->sz_rule = rows_align4((u64)p->nrows * (p->wide ? 4 : 2));
	p->sz_roff = (u64)b->nrules * 4;
	p->sz_page = ((u64)p->npages + 1) * 4;
	p->sz_pool = rows_align4(b->pool_len);
}

/*
 * page[] (pages holding some FDE, then their first blocks) and the size
 * of the whole table.  Return: 0 or a positive enum kuw_err.
 */
static int rows_plan_pages(const struct rows_build *b, struct rows_plan *p)
{
	u32 i, present;

	if (p->span > 0xffffffffULL)
		return KUW_E_TOOBIG;
	p->page = kuw_alloc(p->sz_page);
	if (!p->page)
		return KUW_E_NOMEM;
	rows_mark_pages(b, p->page, p->base, p->pshift);
	for (i = 0; i < p->npages; i++) {
		present = p->page[i];
		p->page[i] = p->nblocks;
		if (present)
			p->nblocks += 1U << KUW_PAGE_BLOCKS_LOG;
	}
	p->page[p->npages] = p->nblocks;
	p->sz_block = ((u64)p->nblocks + 1) * 4;
	p->bytes = p->sz_hdr + p->sz_pc + p->sz_rule + p->sz_roff +
		   p->sz_block + p->sz_page + p->sz_pool + p->sz_owner;
	return p->bytes > 0x7fffffffULL ? KUW_E_TOOBIG : 0;
}

/*
 * Lay the parts out in @mem (p->bytes, not zeroed): the header zeroed,
 * page[], the rules and the owner copied, @w aimed at pc[] and the rule
 * indexes for rows_order16() or rows_order32().  p->page moves in.
 */
static struct kuw_table *rows_carve(const struct rows_build *b,
				    struct rows_plan *p, u8 *mem,
				    struct rows_ord *w)
{
	struct kuw_table *t = (struct kuw_table *)mem;
	u64 off = p->sz_hdr;

	memset(mem, 0, p->sz_hdr);
	t->bytes = p->bytes;
	w->base = p->base;
	w->pc = (u32 *)(mem + off);
	w->pp = w->pc;
	t->pc = w->pc;
	off += p->sz_pc;
	if (p->wide) {
		w->p32 = (u32 *)(mem + off);
		t->rule32 = w->p32;
	} else {
		w->p16 = (u16 *)(mem + off);
		t->rule16 = w->p16;
	}
	off += p->sz_rule;
	t->rule_off = (u32 *)(mem + off);
	memcpy(mem + off, b->rule_off, (size_t)b->nrules * 4);
	off += p->sz_roff;
	p->block = (u32 *)(mem + off);
	t->block = p->block;
	off += p->sz_block;
	memcpy(mem + off, p->page, p->sz_page);
	kuw_free(p->page);
	p->page = NULL;
	t->page = (u32 *)(mem + off);
	off += p->sz_page;
	memcpy(mem + off, b->pool, b->pool_len);
	memset(mem + off + b->pool_len, 0, p->sz_pool - b->pool_len);
	t->pool = mem + off;
	off += p->sz_pool;
	memcpy(mem + off, p->owner, p->sz_owner);
	t->owner = (const char *)(mem + off);
	return t;
}

/* After the rows are laid out (up to w->pp): tails, block[], the rest. */
static void rows_finish(const struct rows_build *b, const struct rows_plan *p,
			const struct rows_ord *w, u32 nfde, struct kuw_table *t)
{
	u32 n = w->pp - w->pc;

	/*
	 * Sentinels, above every pc looked up (they are below the span, at
	 * most U32_MAX), in place of merged rows too.
	 */
	memset(w->pc + n, 0xff, p->sz_pc - (u64)n * 4);
	if (p->wide)
		memset(w->p32, 0, p->sz_rule - (u64)n * 4);
	else
		memset(w->p16, 0, p->sz_rule - (u64)n * 2);
	rows_blocks(p->block, t->page, p->npages, t->pc, n, p->shift,
		    p->pshift);
	t->src = b->src;
	t->arch = b->obj->arch;
	t->block_shift = p->shift;
	t->page_shift = p->pshift;
	t->npages = p->npages;
	t->base = p->base;
	t->start = p->base;
	t->end = p->base + p->span;
	t->nrows = n;
	t->nrules = b->nrules;
	t->nblocks = p->nblocks;
	t->nfde = nfde;
}

/**
 * kuw_rows_layout() - check the collected FDEs and lay out the table
 * @b: the rows and rules collected from one section
 * @out: the new table
 *
 * Checks the FDEs in address order and lays their rows out in the final
 * table.  The table is not zeroed when allocated: every byte of it is
 * written here.  Overlap is reported first, then a table too large (or no
 * memory for it).
 *
 * Return: 0, or a negative enum kuw_err (named in b->diag).
 */
int kuw_rows_layout(struct rows_build *b, struct kuw_table **out)
{
	struct rows_ord w = { 0 };
	struct rows_piles pl;
	struct rows_plan p;
	struct rows_sum sm;
	struct kuw_table *t;
	u8 *mem = NULL;
	int ret, err;

	rows_deal(b, &pl, &sm);
	rows_plan_init(b, &sm, &p);
	err = rows_plan_pages(b, &p);
	if (!err) {
		mem = kuw_alloc_raw(p.bytes);
		if (!mem)
			err = KUW_E_NOMEM;
	}
	if (err) {
		/* the FDEs are still checked: an overlap is reported first */
		ret = rows_order_check(b, &pl, &w);
		if (!ret)
			ret = kuw_fail(b->diag, b->secname, 0, err);
		kuw_free(p.page);
		kuw_free(pl.next);
		return ret;
	}
	t = rows_carve(b, &p, mem, &w);
	if (p.wide)
		ret = rows_order32(b, &pl, &w);
	else
		ret = rows_order16(b, &pl, &w);
	kuw_free(pl.next);
	if (ret) {
		kuw_free(mem);
		return ret;
	}
	rows_finish(b, &p, &w, sm.nfde, t);
	*out = t;
	return 0;
}
