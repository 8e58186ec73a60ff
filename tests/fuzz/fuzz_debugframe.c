// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: .debug_frame (CIE id all-ones, section-offset CIE
 * pointers, absolute addresses), the walker and CFI interpreter as for
 * .eh_frame, then the compiled table, lookup and one step.
 *
 * Input: as fuzz_ehframe.c, with the mode's .debug_frame bit forced on.
 * Seeds: tests/fuzz/corpus/fuzz_debugframe/, the .debug_frame of objects
 * and programs built with -g -fno-asynchronous-unwind-tables.
 */
#define FZ_FORCE_DEBUG_FRAME 1
#include "fuzz_ehframe.c"
