/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interface of the .eh_frame / .debug_frame parser (ehframe.c)
 * for the .eh_frame_hdr checker (ehframe_hdr.c).
 */
#ifndef KUNWIND_EHFRAME_H
#define KUNWIND_EHFRAME_H

#include "engine.h"

/*
 * Parse the FDE at offset @off of .eh_frame @s (and the CIE it names),
 * without running its program: *@start and *@end are its address range.
 * -KUW_E_BADCIE when @off holds a CIE, other errors as kuw_ehf_walk().
 */
int kuw_ehf_fde_at(const struct kuw_obj *o, const struct kuw_sec *s, u64 off,
		   u64 *start, u64 *end, struct kuw_diag *d);

#endif /* KUNWIND_EHFRAME_H */
