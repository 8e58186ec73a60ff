/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AArch64 functions with CFI for the differential tests (assembled with
 * aarch64-linux-gnu-as --gsframe; never run): frame record, pointer
 * authentication (negate_ra_state), callee-saved pairs, a large frame.
 */
	.text
	.globl f1
	.type f1, %function
f1:
	.cfi_startproc
	paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, -48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	.cfi_def_cfa_register 29
	stp	x19, x20, [sp, 16]
	.cfi_offset 19, -32
	.cfi_offset 20, -24
	bl	f2
	ldp	x19, x20, [sp, 16]
	.cfi_restore 20
	.cfi_restore 19
	ldp	x29, x30, [sp], 48
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, %function
f2:
	.cfi_startproc
	sub	sp, sp, #4096
	.cfi_def_cfa_offset 4096
	sub	sp, sp, #64
	.cfi_def_cfa_offset 4160
	add	sp, sp, #4096
	.cfi_def_cfa_offset 64
	add	sp, sp, #64
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size f2, .-f2
