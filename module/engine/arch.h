/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Architecture facts in one place: DWARF register numbering, the SP, FP and
 * return-address columns, and the number of columns unwinding uses.
 */
#ifndef KUNWIND_ARCH_H
#define KUNWIND_ARCH_H

#include "env.h"

/* x86_64 DWARF numbering (System V psABI). */
#define KUW_X86_RAX	0
#define KUW_X86_RDX	1
#define KUW_X86_RCX	2
#define KUW_X86_RBX	3
#define KUW_X86_RSI	4
#define KUW_X86_RDI	5
#define KUW_X86_RBP	6
#define KUW_X86_RSP	7
#define KUW_X86_R8	8
#define KUW_X86_R15	15
#define KUW_X86_RA	16
#define KUW_X86_NREGS	17

/* AArch64 DWARF numbering. */
#define KUW_A64_X29	29	/* frame pointer */
#define KUW_A64_X30	30	/* link register, RA column */
#define KUW_A64_SP	31
#define KUW_A64_PC	32
#define KUW_A64_NREGS	33

struct kuw_arch_info {
	u8 nregs;	/* columns 0..nregs-1 are tracked */
	u8 sp;
	u8 fp;
	u8 ra;
	u8 pc;		/* column holding the frame's pc in struct kuw_regs */
	s8 sframe_ra_off;	/* fixed RA offset from CFA when SFrame has none */
};

static inline const struct kuw_arch_info *kuw_arch(u8 arch)
{
	static const struct kuw_arch_info x86_64 = {
		.nregs = KUW_X86_NREGS, .sp = KUW_X86_RSP,
		.fp = KUW_X86_RBP, .ra = KUW_X86_RA, .pc = KUW_X86_RA, .sframe_ra_off = -8,
	};
	static const struct kuw_arch_info arm64 = {
		.nregs = KUW_A64_NREGS, .sp = KUW_A64_SP,
		.fp = KUW_A64_X29, .ra = KUW_A64_X30, .pc = KUW_A64_PC, .sframe_ra_off = 0,
	};

	if (arch == KUW_ARCH_ARM64)
		return &arm64;
	return &x86_64;
}

#endif /* KUNWIND_ARCH_H */
