/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DW_CFA interpreter (cfi.c, its fast path cfi_fast.c), used by the
 * .eh_frame/.debug_frame walker.  It runs a CIE's initial instructions,
 * then an FDE's instructions, and reports one row per location where the
 * rules may have changed.  It allocates nothing: all state lives in struct
 * kuw_cfi, which the caller provides (about 4 KB: allocate it zeroed, never
 * on a kernel stack), with an optional larger cache of recent rules
 * (kuw_cfi.rc) and the fast path's memory (kuw_cfi_caches()).
 */
#ifndef KUNWIND_CFI_H
#define KUNWIND_CFI_H

#include "engine.h"
#include "read.h"

/*
 * One register column while interpreting (KUW_R_* kind).  Fields a kind
 * does not use are 0, and so is @pad: equal rules are equal u64 words.
 */
struct kuw_cfi_col {
	u8 kind;
	u8 src;		/* KUW_R_REG */
	u16 pad;
	s32 off;	/* OFFSET/VAL_OFFSET: bytes; EXPR/VAL_EXPR: section offset */
};

/* The rules at one location. */
struct kuw_cfi_state {
	u8 cfa_kind;		/* KUW_CFA_* */
	u8 cfa_reg;
	u8 mangled_ra;		/* AArch64 negate_ra_state toggles it */
	s32 cfa_off;		/* numeric offset, kept under an expression CFA */
	s32 cfa_expr;		/* section offset of the CFA expression */
	u64 live;		/* bit n: col[n] has a rule (same_value too) */
	u64 colh;		/* XOR of the live columns' hashes */
	struct kuw_cfi_col col[KUW_MAX_REGS];
};

/* What a CIE tells the interpreter. */
struct kuw_cfi_cie {
	u64 code_align;
	s64 data_align;
	u8 ra;			/* return address column */
	u8 fde_enc;		/* set_loc operand encoding */
	u8 signal;		/* 'S' */
	u8 debug;		/* .debug_frame: set_loc is an absolute address */
	u8 addr_size;
};

/*
 * States reported lately, by hash: a state met again is reported under the
 * same id (kuw_sink_ext.row_id) and rule without converting it.  Only the
 * fields cfi_same() reads are kept in @st.  An entry is about 600 bytes,
 * which the kernel zeroes: kuw_cfi_rc_size() sizes the cache by section.
 */
#define KUW_CFI_RCACHE	32	/* most entries (a power of two) */

struct kuw_cfi_rc {
	u32 id;			/* 0: empty */
	u32 hash;
	u8 signal;		/* of the CIE: part of the rule */
	struct kuw_cfi_state st;
	struct kuw_rule rule;
};

/* The fast path's interned states and memo (cfi_fast.c), per walk. */
struct kuw_cfi_fast;

/* Zeroed before the first program (kuw_alloc() zeroes). */
struct kuw_cfi {
	/* Set by the caller once per walk. */
	u8 arch;
	u8 nregs;		/* kuw_arch(arch)->nregs */
	const char *secname;	/* for diagnostics */
	const struct kuw_sec *sec;
	struct kuw_ptr_base pb;	/* bases for set_loc (text, data) */
	const struct kuw_sink_ext *ext;	/* may be NULL */

	/* Per program. */
	struct kuw_cfi_cie cie;
	struct kuw_cfi_state cur;
	struct kuw_cfi_state init;	/* after the CIE's initial instructions */
	struct kuw_cfi_state stack[KUW_REMEMBER_DEPTH];
	u32 depth;
	u64 loc;		/* current location */
	u64 end;		/* FDE end */
	u32 nrows;		/* rows of the current FDE */
	u32 last;		/* rc[] slot of the last row reported */
	u32 last_hash;

	/* Per walk. */
	u32 last_id;		/* ids handed out */
	u32 rc_mask;		/* entries in rc - 1 (a power of two - 1) */
	struct kuw_cfi_rc *rc;	/* zeroed by the caller; NULL: &rc1 */
	struct kuw_cfi_rc rc1;
	struct kuw_cfi_fast *fast;	/* NULL: every FDE on the general path */
};

/*
 * Allocate the walk's caches for a section of @size bytes (load time; on
 * failure the interpreter runs without them, only slower), and free them.
 */
void kuw_cfi_caches(struct kuw_cfi *x, u64 size);
void kuw_cfi_caches_free(struct kuw_cfi *x);

/* Reset @cur to "CFA undefined (rsp+0), no register rule". */
void kuw_cfi_reset(struct kuw_cfi *x);

/*
 * Run the CIE's initial instructions in [@off, @end) of x->sec, leaving the
 * result in x->init (and x->cur).  Location changes are an error here.
 */
int kuw_cfi_run_cie(struct kuw_cfi *x, u64 off, u64 end, struct kuw_diag *d);

/*
 * Run an FDE's instructions in [@off, @end) of x->sec from x->init over
 * [@start, @fend), reporting rows to @sink (may be NULL) in increasing pc:
 * one at @start and one at each later location where the rules differ
 * from the previous row's.  Adds the rows to *@nrows.  x->ext (may be
 * NULL) is the walk's struct kuw_sink_ext.
 */
int kuw_cfi_run_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start, u64 fend,
		    const struct kuw_sink *sink, u32 *nrows,
		    struct kuw_diag *d);

/* Convert a state into the row form (sorted; columns with no rule left out). */
void kuw_cfi_to_rule(const struct kuw_cfi *x, const struct kuw_cfi_state *s,
		     struct kuw_rule *r);

#endif /* KUNWIND_CFI_H */
