/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame on-disk format, versions 1, 2 (errata 1) and 3: offsets and sizes
 * of the header, FDE and FRE fields and the meaning of their bits.  All
 * structures are packed and stored in the target's byte order; kunwind
 * reads them byte by byte (little endian only), so this header describes
 * layout with offsets rather than with C structs.
 *
 *   header (28 bytes, then sfh_auxhdr_len bytes of auxiliary header)
 *   FDE array at hdr_end + sfh_fdeoff: v1 17 bytes, v2 20 bytes an entry;
 *     v3 16 bytes (an index entry: start, size, FRE offset)
 *   FRE sub-section at hdr_end + sfh_freoff, sfh_fre_len bytes:
 *     v3 only: at each FDE's FRE offset, a 5-byte attribute record (FRE
 *     count, info, info2, rep size) before its FREs;
 *     FRE: start address (1/2/4 bytes), info byte, count x (1/2/4)-byte
 *     data words (offsets; in a v3 flexible FDE, control word and offset
 *     pairs)
 */
#ifndef KUNWIND_SFRAME_H
#define KUNWIND_SFRAME_H

#define KUW_SFRAME_MAGIC		0xdee2
#define KUW_SFRAME_VERSION_1		1
#define KUW_SFRAME_VERSION_2		2
#define KUW_SFRAME_VERSION_3		3	/* binutils 2.46+ */

/* Preamble flags (sfp_flags). */
#define KUW_SFRAME_F_FDE_SORTED		0x1
#define KUW_SFRAME_F_FRAME_POINTER	0x2
#define KUW_SFRAME_F_FDE_FUNC_START_PCREL 0x4	/* v2 errata 1 */
#define KUW_SFRAME_V1_FLAGS		0x3	/* bits defined in v1 */
#define KUW_SFRAME_V2_FLAGS		0x7	/* bits defined in v2 */
#define KUW_SFRAME_V3_FLAGS		0x5	/* v3: no FRAME_POINTER */

/* ABI/arch identifiers (sfh_abi_arch). */
#define KUW_SFRAME_ABI_AARCH64_BE	1
#define KUW_SFRAME_ABI_AARCH64_LE	2
#define KUW_SFRAME_ABI_AMD64_LE		3
#define KUW_SFRAME_ABI_S390X_BE		4

/* Header field offsets. */
#define KUW_SFH_MAGIC			0	/* u16 */
#define KUW_SFH_VERSION			2	/* u8 */
#define KUW_SFH_FLAGS			3	/* u8 */
#define KUW_SFH_ABI_ARCH		4	/* u8 */
#define KUW_SFH_CFA_FIXED_FP		5	/* s8 */
#define KUW_SFH_CFA_FIXED_RA		6	/* s8 */
#define KUW_SFH_AUXHDR_LEN		7	/* u8 */
#define KUW_SFH_NUM_FDES		8	/* u32 */
#define KUW_SFH_NUM_FRES		12	/* u32 */
#define KUW_SFH_FRE_LEN			16	/* u32 */
#define KUW_SFH_FDEOFF			20	/* u32, from the end of the header */
#define KUW_SFH_FREOFF			24	/* u32, from the end of the header */
#define KUW_SFH_SIZE			28

/* A fixed FP/RA offset of 0 in the header means "not fixed". */
#define KUW_SFRAME_CFA_FIXED_INVALID	0

/* FDE field offsets. */
#define KUW_SFDE_START			0	/* s32 function start */
#define KUW_SFDE_SIZE			4	/* u32 function size */
#define KUW_SFDE_FRE_OFF		8	/* u32, from the FRE sub-section */
#define KUW_SFDE_NUM_FRES		12	/* u32 */
#define KUW_SFDE_INFO			16	/* u8 info word */
#define KUW_SFDE_REP_SIZE		17	/* u8, v2 only: PCMASK block size */
#define KUW_SFDE_PAD			18	/* u16, v2 only */
#define KUW_SFDE_V1_SIZE		17
#define KUW_SFDE_V2_SIZE		20

/*
 * v3 FDE index entry (16 bytes): a signed 64-bit start, then the size and
 * FRE offset at the v1/v2 places.  Its attribute record (5 bytes) opens the
 * function's FREs in the FRE sub-section.
 */
#define KUW_SFDE3_START			0	/* s64 function start */
#define KUW_SFDE3_SIZE			8	/* u32 function size */
#define KUW_SFDE3_FRE_OFF		12	/* u32, from the FRE sub-section */
#define KUW_SFDE_V3_SIZE		16
#define KUW_SFDA3_NUM_FRES		0	/* u16 */
#define KUW_SFDA3_INFO			2	/* u8 info word, as v2's */
#define KUW_SFDA3_INFO2			3	/* u8: bits 0-4 FDE type */
#define KUW_SFDA3_REP_SIZE		4	/* u8 */
#define KUW_SFDA3_SIZE			5

/* FDE info word: bits 0-3 FRE type, 4 FDE type, 5 AArch64 PAuth key. */
#define KUW_SFDE_INFO_FRE_TYPE(i)	((i) & 0xf)
#define KUW_SFDE_INFO_FDE_TYPE(i)	(((i) >> 4) & 0x1)
#define KUW_SFDE_INFO_PAUTH_KEY(i)	(((i) >> 5) & 0x1)
#define KUW_SFDE_INFO_UNUSED		0xc0
/* v3: bit 4 is the pc type (as v1/v2's FDE type), bit 7 a signal frame. */
#define KUW_SFDE_INFO_SIGNAL(i)		(((i) >> 7) & 0x1)
#define KUW_SFDE3_INFO_UNUSED		0x40
#define KUW_SFDE3_INFO2_FDE_TYPE(i)	((i) & 0x1f)
#define KUW_SFDE3_INFO2_UNUSED		0xe0
#define KUW_SFDE_MKINFO(fde_type, fre_type) (((fde_type) << 4) | (fre_type))

#define KUW_SFRAME_FDE_TYPE_PCINC	0
#define KUW_SFRAME_FDE_TYPE_PCMASK	1

/* v3 FDE types (info2): default (as v1/v2) and flexible. */
#define KUW_SFRAME_FDE3_TYPE_DEFAULT	0
#define KUW_SFRAME_FDE3_TYPE_FLEX	1

#define KUW_SFRAME_FRE_TYPE_ADDR1	0
#define KUW_SFRAME_FRE_TYPE_ADDR2	1
#define KUW_SFRAME_FRE_TYPE_ADDR4	2

/*
 * Version 1 has no sfde_func_rep_size; the only producer of v1 PCMASK FDEs
 * is ld's x86-64 PLT, whose entries are 16 bytes.
 */
#define KUW_SFRAME_V1_AMD64_REP_SIZE	16

/*
 * FRE info byte: bit 0 CFA base register (0 FP, 1 SP, as binutils encodes
 * it), bits 1-4 offset count, 5-6 offset size, 7 mangled (signed) RA.
 */
#define KUW_SFRAME_BASE_REG_FP		0
#define KUW_SFRAME_BASE_REG_SP		1
#define KUW_SFRE_INFO_BASE_REG(i)	((i) & 0x1)
#define KUW_SFRE_INFO_COUNT(i)		(((i) >> 1) & 0xf)
#define KUW_SFRE_INFO_OFF_SIZE(i)	(((i) >> 5) & 0x3)
#define KUW_SFRE_INFO_MANGLED_RA(i)	(((i) >> 7) & 0x1)
#define KUW_SFRE_MKINFO(base_reg, count, size, mangled)			\
	((base_reg) | ((count) << 1) | ((size) << 5) | ((mangled) << 7))

#define KUW_SFRAME_FRE_OFFSET_1B	0
#define KUW_SFRAME_FRE_OFFSET_2B	1
#define KUW_SFRAME_FRE_OFFSET_4B	2

#define KUW_SFRAME_FRE_MAX_OFFSETS	15

/*
 * Offsets an FRE carries: AMD64 CFA[, FP] (RA at the header's fixed
 * offset); AArch64 CFA[, RA[, FP]].  An FRE with no offset at all means
 * "return address undefined": the outermost frame (binutils 2.45+).
 */
#define KUW_SFRAME_AMD64_MAX_OFFSETS	2
#define KUW_SFRAME_AARCH64_MAX_OFFSETS	3

/*
 * v3 flexible FDE: each FRE carries, in order, CFA, RA and FP rules, each a
 * control word and an offset; RA and FP may be absent (fewer words) or a
 * single control word of 0 (padding: the header's fixed offset, or not
 * saved).  Control word: bit 0 "based on register <bits 3..>" (else on the
 * CFA), bit 1 "dereference" (the value is loaded from base + offset, else
 * it is base + offset), bit 2 reserved (0).
 */
#define KUW_SFLEX_REG_P(c)		((c) & 0x1)
#define KUW_SFLEX_DEREF(c)		(((c) >> 1) & 0x1)
#define KUW_SFLEX_RESERVED(c)		((c) & 0x4)
#define KUW_SFLEX_REGNUM(c)		((c) >> 3)
#define KUW_SFLEX_MKCTRL(reg, deref, reg_p)				\
	(((reg) << 3) | ((deref) << 1) | (reg_p))
#define KUW_SFRAME_FLEX_MAX_WORDS	6

#endif /* KUNWIND_SFRAME_H */
