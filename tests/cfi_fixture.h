/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the CFI tests (test_cfi.c, test_ehframe.c): assemble CFI
 * directives with `as`, link them with `ld -shared --eh-frame-hdr` so that
 * pcrel fields hold final addresses, load the result with tools/elf.c, and
 * collect what kuw_ehf_walk() reports.  Also a parser of
 * `readelf --debug-dump=frames-interp`, the independent reference.
 */
#ifndef KUNWIND_TESTS_CFI_FIXTURE_H
#define KUNWIND_TESTS_CFI_FIXTURE_H

#include "engine.h"
#include "elf.h"

#define KCFI_MAX_FDES	512
#define KCFI_MAX_ROWS	8192

struct kcfi_row {
	u64 pc;
	struct kuw_rule r;
};

struct kcfi_fde {
	struct kuw_fde_info f;
	u32 first;
	u32 n;
};

struct kcfi_col {
	struct kcfi_fde fde[KCFI_MAX_FDES];
	u32 nfde;
	struct kcfi_row *row;
	u32 nrow;
	int bad;	/* a row out of order, repeated, or before any FDE */
	u32 stop_at;	/* return 77 from the n-th row callback (1-based) */
};

struct kcfi_col *kcfi_col_new(void);
void kcfi_col_free(struct kcfi_col *c);

/* kuw_ehf_walk() into @c (NULL: validate only). */
int kcfi_walk(const struct kuw_obj *o, const struct kuw_sec *s, bool debug,
	      struct kcfi_col *c, struct kuw_stats *st, struct kuw_diag *d);

/*
 * Assemble @asm_text (or tests/asm/<name>.s when NULL) into
 * <builddir>/<name>.o and link it into <builddir>/<name>.so.  @as_flags is
 * passed to `as`.  Returns the path of the .so (static buffer per call
 * site is not needed: the result is strdup'ed), NULL on failure.
 */
char *kcfi_build(const char *name, const char *asm_text, const char *as_flags);

/* An ELF file loaded with its sections as the engine sees them. */
struct kcfi_obj {
	struct kuw_elf e;
	struct kuw_obj o;
	struct kuw_sec ehf, hdr, dbg;
	bool has_ehf, has_hdr, has_dbg;
};

int kcfi_load(struct kcfi_obj *x, const char *path);

/*
 * Open @path and find its section @name, with bytes: *@o describes the
 * file, *@s the section.  False, with nothing left open, when either
 * fails.  kuw_elf_close(@e) after use.
 */
bool kcfi_open_sec(struct kuw_elf *e, const char *path, const char *name,
		   struct kuw_obj *o, struct kuw_sec *s);
void kcfi_unload(struct kcfi_obj *x);

/* Build + load + walk .eh_frame (or .debug_frame) in one go; 0 or error. */
int kcfi_run_asm(const char *name, const char *asm_text, bool debug,
		 struct kcfi_obj *x, struct kcfi_col *c, struct kuw_diag *d);

/*
 * The rows of FDE @i as text, one "0x<pc> cfa=... ..." line each with pc
 * relative to the FDE start, adjacent equal rules merged, lines joined by
 * '\n'.  Static buffer.
 */
const char *kcfi_fde_text(const struct kcfi_col *c, u32 i, u8 arch);

/* The rule in force at @pc (last row at or below it), or NULL. */
const struct kuw_rule *kcfi_rule_at(const struct kcfi_col *c, u64 pc);

/*
 * Compare every row of @c with `readelf --debug-dump=frames-interp @path`
 * (.eh_frame, or .debug_frame when @debug; register names of @arch): same FDEs, and at every row pc
 * of either side the same CFA and register rules.  readelf prints "u" both
 * for undefined and for a register with no rule yet, so "u" there matches
 * our undefined or no rule; its "s" (same_value) must be ours.  Returns the number of mismatches (printed),
 * or -1 when readelf could not be run or parsed; *@nrows = rows compared.
 */
int kcfi_readelf_compare(const char *path, bool debug, u8 arch,
			 const struct kcfi_col *c, u32 *nrows);

#endif /* KUNWIND_TESTS_CFI_FIXTURE_H */
