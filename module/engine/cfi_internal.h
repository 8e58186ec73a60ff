/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the DW_CFA interpreter: what its general path (cfi.c) and its
 * fast path (cfi_fast.c) share.  Nothing else includes this header.
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

/* cfi.c: run one instruction at r->c.pos on x->cur. */
int kuw_cfi_step(struct kuw_cfi *x, struct cfi_run *r);

/* cfi_fast.c: the fast path's memory, its CIE set-up, its FDE run. */
struct kuw_cfi_fast *kuw_cfi_fast_alloc(u64 size);
void kuw_cfi_fast_cie(struct kuw_cfi *x, int ret);
bool kuw_cfi_fast_fde(struct kuw_cfi *x, u64 off, u64 end, u64 start,
		      u64 fend, const struct kuw_sink *sink,
		      struct kuw_diag *d, int *ret);

#endif /* KUNWIND_CFI_INTERNAL_H */
