/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compiled rows, inside the engine.  A table is built at load in two steps:
 * rows_build.c runs a section walker once, collects its rows and
 * deduplicates their rules; rows_layout.c sorts the FDEs, checks them and
 * lays the rows out.  rows_lookup.c searches the table at unwind time.
 *
 * The table (struct kuw_table):
 *
 *   pc[i]        u32 row start relative to the table base, sorted, then
 *                KUW_ROW_PAD sentinels (U32_MAX)
 *   rule16/32[i] index of the row's rule (0: no unwind info, a gap)
 *   rule_off[k]  offset of rule k in the pool of struct kuw_rule (4-aligned,
 *                only nregs register entries stored)
 *   page[p]      first block of page p (1 << page_shift bytes of text);
 *                pages without any FDE have no blocks
 *   block[k]     first row whose pc >= the start of block k
 *
 * A lookup is two index loads, a scan over the few rows of one block
 * (about four), and the rule: no interpretation on the hot path.  The
 * unwinder inlines it (kuw_table_find(), fast.h).
 */
#ifndef KUNWIND_ROWS_H
#define KUNWIND_ROWS_H

#include "engine.h"

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

/* rows_layout.c: the FDEs checked in address order, the table laid out. */
int kuw_rows_layout(struct rows_build *b, struct kuw_table **out);

#endif /* KUNWIND_ROWS_H */
