// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled rows, unwind time (rows.h): look a pc up in a built table
 * (lock-free, allocation-free), move a table to its run-time address, free
 * it.
 */
#include "engine.h"
#include "fast.h"

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
 * The unwinder inlines the same search, kuw_table_find() (fast.h).
 * Return: 0, or -KUW_E_NOINFO when no FDE covers @pc.
 */
int kuw_table_lookup(const struct kuw_table *t, u64 pc,
		     const struct kuw_rule **rule, u64 *row_pc)
{
	u64 row;

	return kuw_table_find(t, pc, rule, row_pc ? row_pc : &row);
}
EXPORT_SYMBOL_GPL(kuw_table_lookup);
/* the walk's path (kunwind_rule_for_pc()): never kprobed */
kuw_nokprobe(kuw_table_lookup);
