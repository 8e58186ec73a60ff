/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF constants kunwind reads: call frame instructions (DW_CFA_*),
 * expression operations (DW_OP_*) and .eh_frame pointer encodings
 * (DW_EH_PE_*).  Values from the DWARF 5 standard, the LSB (.eh_frame)
 * and the GNU extensions found in real objects.  Prefixed KUW_ so they
 * never clash with a header the kernel or libc might provide.
 */
#ifndef KUNWIND_DWARF_H
#define KUNWIND_DWARF_H

/* Call frame instructions: high two bits carry an operand. */
#define KUW_DW_CFA_advance_loc		0x40	/* low 6 bits: delta */
#define KUW_DW_CFA_offset		0x80	/* low 6 bits: register */
#define KUW_DW_CFA_restore		0xc0	/* low 6 bits: register */
#define KUW_DW_CFA_HIGH_MASK		0xc0
#define KUW_DW_CFA_LOW_MASK		0x3f

#define KUW_DW_CFA_nop			0x00
#define KUW_DW_CFA_set_loc		0x01
#define KUW_DW_CFA_advance_loc1		0x02
#define KUW_DW_CFA_advance_loc2		0x03
#define KUW_DW_CFA_advance_loc4		0x04
#define KUW_DW_CFA_offset_extended	0x05
#define KUW_DW_CFA_restore_extended	0x06
#define KUW_DW_CFA_undefined		0x07
#define KUW_DW_CFA_same_value		0x08
#define KUW_DW_CFA_register		0x09
#define KUW_DW_CFA_remember_state	0x0a
#define KUW_DW_CFA_restore_state	0x0b
#define KUW_DW_CFA_def_cfa		0x0c
#define KUW_DW_CFA_def_cfa_register	0x0d
#define KUW_DW_CFA_def_cfa_offset	0x0e
#define KUW_DW_CFA_def_cfa_expression	0x0f
#define KUW_DW_CFA_expression		0x10
#define KUW_DW_CFA_offset_extended_sf	0x11
#define KUW_DW_CFA_def_cfa_sf		0x12
#define KUW_DW_CFA_def_cfa_offset_sf	0x13
#define KUW_DW_CFA_val_offset		0x14
#define KUW_DW_CFA_val_offset_sf	0x15
#define KUW_DW_CFA_val_expression	0x16
#define KUW_DW_CFA_MIPS_advance_loc8	0x1d	/* not accepted */
/* PAuth_LR (GCC 15 -mbranch-protection=pac-ret+pc): arm64 only */
#define KUW_DW_CFA_AARCH64_negate_ra_state_with_pc 0x2c
#define KUW_DW_CFA_GNU_window_save	0x2d	/* SPARC; not accepted */
#define KUW_DW_CFA_AARCH64_negate_ra_state 0x2d	/* same code on arm64 */
#define KUW_DW_CFA_GNU_args_size	0x2e
#define KUW_DW_CFA_GNU_negative_offset_extended 0x2f

/* Expression operations. */
#define KUW_DW_OP_addr			0x03
#define KUW_DW_OP_deref			0x06
#define KUW_DW_OP_const1u		0x08
#define KUW_DW_OP_const1s		0x09
#define KUW_DW_OP_const2u		0x0a
#define KUW_DW_OP_const2s		0x0b
#define KUW_DW_OP_const4u		0x0c
#define KUW_DW_OP_const4s		0x0d
#define KUW_DW_OP_const8u		0x0e
#define KUW_DW_OP_const8s		0x0f
#define KUW_DW_OP_constu		0x10
#define KUW_DW_OP_consts		0x11
#define KUW_DW_OP_dup			0x12
#define KUW_DW_OP_drop			0x13
#define KUW_DW_OP_over			0x14
#define KUW_DW_OP_pick			0x15
#define KUW_DW_OP_swap			0x16
#define KUW_DW_OP_rot			0x17
#define KUW_DW_OP_xderef		0x18
#define KUW_DW_OP_abs			0x19
#define KUW_DW_OP_and			0x1a
#define KUW_DW_OP_div			0x1b
#define KUW_DW_OP_minus			0x1c
#define KUW_DW_OP_mod			0x1d
#define KUW_DW_OP_mul			0x1e
#define KUW_DW_OP_neg			0x1f
#define KUW_DW_OP_not			0x20
#define KUW_DW_OP_or			0x21
#define KUW_DW_OP_plus			0x22
#define KUW_DW_OP_plus_uconst		0x23
#define KUW_DW_OP_shl			0x24
#define KUW_DW_OP_shr			0x25
#define KUW_DW_OP_shra			0x26
#define KUW_DW_OP_xor			0x27
#define KUW_DW_OP_bra			0x28
#define KUW_DW_OP_eq			0x29
#define KUW_DW_OP_ge			0x2a
#define KUW_DW_OP_gt			0x2b
#define KUW_DW_OP_le			0x2c
#define KUW_DW_OP_lt			0x2d
#define KUW_DW_OP_ne			0x2e
#define KUW_DW_OP_skip			0x2f
#define KUW_DW_OP_lit0			0x30	/* lit0..lit31: 0x30..0x4f */
#define KUW_DW_OP_lit31			0x4f
#define KUW_DW_OP_reg0			0x50	/* reg0..reg31: 0x50..0x6f */
#define KUW_DW_OP_reg31			0x6f
#define KUW_DW_OP_breg0			0x70	/* breg0..breg31: 0x70..0x8f */
#define KUW_DW_OP_breg31		0x8f
#define KUW_DW_OP_regx			0x90
#define KUW_DW_OP_fbreg			0x91
#define KUW_DW_OP_bregx			0x92
#define KUW_DW_OP_piece			0x93
#define KUW_DW_OP_deref_size		0x94
#define KUW_DW_OP_xderef_size		0x95
#define KUW_DW_OP_nop			0x96
#define KUW_DW_OP_push_object_address	0x97
#define KUW_DW_OP_call2			0x98
#define KUW_DW_OP_call4			0x99
#define KUW_DW_OP_call_ref		0x9a
#define KUW_DW_OP_form_tls_address	0x9b
#define KUW_DW_OP_call_frame_cfa	0x9c
#define KUW_DW_OP_bit_piece		0x9d
#define KUW_DW_OP_implicit_value	0x9e
#define KUW_DW_OP_stack_value		0x9f
#define KUW_DW_OP_GNU_push_tls_address	0xe0

/* .eh_frame pointer encodings: low nibble = data type. */
#define KUW_DW_EH_PE_absptr		0x00
#define KUW_DW_EH_PE_uleb128		0x01
#define KUW_DW_EH_PE_udata2		0x02
#define KUW_DW_EH_PE_udata4		0x03
#define KUW_DW_EH_PE_udata8		0x04
#define KUW_DW_EH_PE_signed		0x08	/* bit of the signed types */
#define KUW_DW_EH_PE_sleb128		0x09
#define KUW_DW_EH_PE_sdata2		0x0a
#define KUW_DW_EH_PE_sdata4		0x0b
#define KUW_DW_EH_PE_sdata8		0x0c
#define KUW_DW_EH_PE_TYPE_MASK		0x0f

/* Bits 0x70 = base the value is relative to. */
#define KUW_DW_EH_PE_abs		0x00
#define KUW_DW_EH_PE_pcrel		0x10
#define KUW_DW_EH_PE_textrel		0x20
#define KUW_DW_EH_PE_datarel		0x30
#define KUW_DW_EH_PE_funcrel		0x40
#define KUW_DW_EH_PE_aligned		0x50
#define KUW_DW_EH_PE_BASE_MASK		0x70

/* 0x80 = the value is the address of the pointer; 0xff = no value. */
#define KUW_DW_EH_PE_indirect		0x80
#define KUW_DW_EH_PE_omit		0xff

/* CIE ids. */
#define KUW_CIE_ID_EH			0x0		/* .eh_frame */
#define KUW_CIE_ID_DEBUG32		0xffffffffU	/* .debug_frame */
#define KUW_CIE_ID_DEBUG64		0xffffffffffffffffULL
#define KUW_DWARF64_ESCAPE		0xffffffffU	/* 64-bit length */

#endif /* KUNWIND_DWARF_H */
