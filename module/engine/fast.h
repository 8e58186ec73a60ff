/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unwind path's hot pieces, inline, so that a home can build its
 * per-frame loop without a call per piece: the row look-up of a built
 * table (rows.h) and kuw_step()'s one-pass step for KUW_RF_FAST rules,
 * cut in two around its one memory read, so that the home reads the
 * return address its own way (the kernel glue: a plain load when the slot
 * lies on the stack it established for the walk).  step.c and
 * rows_lookup.c are built from these same functions: one logic for the
 * host and the kernel.
 */
#ifndef KUNWIND_FAST_H
#define KUNWIND_FAST_H

#include "engine.h"
#include "arch.h"

/*
 * Blocks per page of the look-up index: a table's page_shift is its
 * block_shift + KUW_PAGE_BLOCKS_LOG (rows_layout.c).
 */
#define KUW_PAGE_BLOCKS_LOG	6

/*
 * A table's pc[] ends with this many sentinel rows (U32_MAX, above any
 * offset looked up), so that the look-up may peek past its block.
 */
#define KUW_ROW_PAD		9

/* AArch64 kernel addresses: a signed (PAC) return address gets its top bits back. */
#define KUW_A64_VA_BITS	48

/**
 * kuw_table_find() - the rule in force at a pc (kuw_table_lookup())
 * @t: the table
 * @pc: the address to look up (already pc - 1 for a return address)
 * @rule: set to the rule
 * @row_pc: set to the start of the row
 *
 * The block index gives the rows that may hold @pc (about four); a short
 * forward scan finds the last one that starts at or below it.
 *
 * Return: 0, or -KUW_E_NOINFO when no FDE covers @pc.
 */
static kuw_always_inline int kuw_table_find(const struct kuw_table *t, u64 pc,
					    const struct kuw_rule **rule,
					    u64 *row_pc)
{
	u32 x, pg, blk, lo, hi, idx;
	const u32 *page, *row;

	/* the table's span is below its npages pages (rows_layout.c) */
	if (pc < t->start || pc >= t->end)
		return -KUW_E_NOINFO;
	x = pc - t->base;
	pg = x >> t->page_shift;
	page = t->page + pg;
	blk = page[0];
	if (blk == page[1])
		return -KUW_E_NOINFO;	/* no FDE in this page */
	blk += (x >> t->block_shift) & ((1U << KUW_PAGE_BLOCKS_LOG) - 1);
	/*
	 * The answer is the last row with pc <= x: in [block[b] - 1,
	 * block[b + 1]), and row[block[b + 1]] > x (the next block's first
	 * row, or a sentinel).  Blocks hold about four rows: a forward scan,
	 * after halving a dense block (more than eight).
	 */
	lo = t->block[blk];
	row = t->pc;
	if (unlikely(row[lo + 8] <= x)) {
		hi = t->block[blk + 1];
		lo += 9;
		while (hi - lo > 8) {
			u32 mid = lo + (hi - lo) / 2;

			if (row[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	while (row[lo] <= x)
		lo++;
	if (!lo)
		return -KUW_E_NOINFO;
	idx = lo - 1;
	idx = t->rule16 ? t->rule16[idx] : t->rule32[idx];
	if (idx == KUW_RULE_NONE)	/* a gap; others index rule_off[] */
		return -KUW_E_NOINFO;
	*rule = (const struct kuw_rule *)(t->pool + t->rule_off[idx]);
	*row_pc = t->base + row[lo - 1];
	return 0;
}

/**
 * kuw_fast_ra_slot() - first half of the one-pass step: CFA and RA slot
 * @rule: a KUW_RF_FAST rule
 * @cfa_base: the value of the rule's CFA register
 * @cfa: set to the CFA
 *
 * Return: the address of the saved return address (the rule's last entry,
 * checked when the table was built).
 */
static kuw_always_inline u64 kuw_fast_ra_slot(const struct kuw_rule *rule,
					      u64 cfa_base, u64 *cfa)
{
	*cfa = cfa_base + (s64)rule->cfa_off;
	return *cfa + (s64)rule->regs[rule->nregs - 1].off;
}

/**
 * kuw_fast_ra() - the return address as read, made an address
 * @arch: enum kuw_arch
 * @rule: the rule
 * @ra: the word read from the rule's return-address slot
 *
 * Return: @ra, with its top bits put back when AArch64 signed it.
 */
static kuw_always_inline u64 kuw_fast_ra(u8 arch, const struct kuw_rule *rule,
					 u64 ra)
{
	if (arch == KUW_ARCH_ARM64 && (rule->flags & KUW_RF_MANGLED_RA))
		ra |= ~((1ULL << KUW_A64_VA_BITS) - 1);
	return ra;
}

/**
 * kuw_fast_slots() - where a KUW_RF_FAST rule saved the registers
 * @rule: the rule
 * @n: how many of its entries to record (see kuw_fast_commit())
 * @r: the register values, each entry's register set to its slot
 * @cfa: the CFA
 *
 * Return: the mask of the registers set (their values are now lazy).
 */
static kuw_always_inline u64 kuw_fast_slots(const struct kuw_rule *rule,
					    u32 n, u64 *r, u64 cfa)
{
	const struct kuw_reg_rule *rr = rule->regs, *end = rr + n;
	u64 slots = 0;
	s64 off;
	u8 reg;

	/* each entry read once: the stores to r[] may alias the rule */
	for (; rr < end; rr++) {
		reg = rr->reg;
		off = rr->off;
		r[reg] = cfa + off;
		slots |= 1ULL << reg;
	}
	return slots;
}

/**
 * kuw_fast_find() - the entry of one register in a KUW_RF_FAST rule
 * @rule: the rule (entries sorted by register number)
 * @n: entries to search, from the first
 * @reg: the register
 *
 * From the last entry back: the frame pointer is near the end on both
 * arches (AArch64: x29 right before x30; x86-64: rbp, then r12-r15).
 *
 * Return: the entry, or NULL when the rule does not save @reg.
 */
static kuw_always_inline const struct kuw_reg_rule *
kuw_fast_find(const struct kuw_rule *rule, u32 n, u8 reg)
{
	const struct kuw_reg_rule *rr = rule->regs + n;

	while (rr > rule->regs) {
		rr--;
		if (rr->reg <= reg)
			return rr->reg == reg ? rr : NULL;
	}
	return NULL;
}

/**
 * kuw_fast_commit() - second half of the one-pass step: the caller's registers
 * @arch: enum kuw_arch
 * @rule: the rule, CFA = register + offset, every entry "saved at CFA + N"
 * @n: how many of its entries to record as slots (all but the return
 *     address's when it is the last one)
 * @regs: the callee's registers in, the caller's out
 * @cfa: the CFA
 * @ra: the return address, from kuw_fast_ra()
 */
static kuw_always_inline void kuw_fast_commit(u8 arch,
					      const struct kuw_rule *rule,
					      u32 n, struct kuw_regs *regs,
					      u64 cfa, u64 ra)
{
	const struct kuw_arch_info *ai = kuw_arch(arch);
	u64 bit, slots;

	/* the mask in a local: stores to r[] may alias regs->valid else */
	slots = kuw_fast_slots(rule, n, regs->r, cfa);
	regs->r[ai->ra] = ra;
	regs->r[ai->sp] = cfa;
	regs->r[ai->pc] = ra;
	bit = 1ULL << ai->ra | 1ULL << ai->sp | 1ULL << ai->pc;
	regs->valid |= slots | bit;
	regs->lazy = (regs->lazy | slots) & ~bit;
}

#endif /* KUNWIND_FAST_H */
