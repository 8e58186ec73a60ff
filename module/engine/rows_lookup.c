// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled rows, unwind time (rows.h): look a pc up in a built table
 * (lock-free, allocation-free), move a table to its run-time address, free
 * it.
 */
#include "engine.h"

void kuw_table_free(struct kuw_table *t)
{
	kuw_free(t);
}
EXPORT_SYMBOL_GPL(kuw_table_free);

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
EXPORT_SYMBOL_GPL(kuw_table_lookup);
