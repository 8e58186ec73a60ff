/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the DW_CFA interpreter: what its general path (cfi.c) and its
 * fast path (cfi_fast.c) share.  Nothing else includes this header.
 * Calls go from cfi_fast.c into cfi.c only.
 */
#ifndef KUNWIND_CFI_INTERNAL_H
#define KUNWIND_CFI_INTERNAL_H

#include "cfi.h"

#define CFI_CFA_UNSET	0xff	/* private cfa_kind: no def_cfa yet */

/* One program run: cursor, mode and the error location. */
struct cfi_run {
	struct kuw_cur c;
	bool in_cie;
	bool dirty;		/* rules may differ from the last row */
	bool any_row;
	u64 insn;		/* offset of the instruction being run */
	const struct kuw_sink *sink;
};

/*
 * Hash of a state: equal (cfi_same()) states of one CIE hash the same.
 * O(1): the columns' part is kept up to date by cfi_set()/cfi_restore().
 */
static inline u32 cfi_hash(const struct kuw_cfi *x,
			   const struct kuw_cfi_state *s)
{
	u64 h = s->colh, cfa;

	cfa = s->cfa_kind | (u64)s->mangled_ra << 8 |
	      (u64)x->cie.signal << 16;
	if (s->cfa_kind == KUW_CFA_EXPR)
		cfa |= (u64)(u32)s->cfa_expr << 32;
	else
		cfa |= (u64)s->cfa_reg << 24 | (u64)(u32)s->cfa_off << 32;
	h ^= cfa * 0xff51afd7ed558ccdULL;
	h ^= (s->live + 0x632be59bd9b4e019ULL) * 0xc4ceb9fe1a85ec53ULL;
	return (u32)(h ^ (h >> 32));
}

/*
 * cfi.c, the general path, called by the fast path (cfi_fast.c) and never
 * calling it: run one instruction at r->c.pos on x->cur; run a CIE's
 * initial instructions or an FDE's program whole (kuw_cfi_run_cie() and
 * kuw_cfi_run_fde() of cfi.h, without the fast path).
 */
int kuw_cfi_step(struct kuw_cfi *x, struct cfi_run *r);
int kuw_cfi_general_cie(struct kuw_cfi *x, u64 off, u64 end,
			struct kuw_diag *d);
int kuw_cfi_general_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start,
			u64 fend, const struct kuw_sink *sink, u32 *nrows,
			struct kuw_diag *d);

#endif /* KUNWIND_CFI_INTERNAL_H */
