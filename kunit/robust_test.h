/* SPDX-License-Identifier: GPL-2.0 */
/*
 * robust_test.c's view of its own unwind sections: labels an asm() block
 * in robust_test.c places at offset 0 of this module's .eh_frame and
 * .sframe (declared here, as the kernel declares its section symbols in
 * headers; the labels are local to robust_test.o, the only includer).
 */
#ifndef KUNWIND_KUNIT_ROBUST_TEST_H
#define KUNWIND_KUNIT_ROBUST_TEST_H

#include <linux/types.h>

extern const u8 robust_ehf_start[];
extern const u8 robust_sfr_start[];

#endif
