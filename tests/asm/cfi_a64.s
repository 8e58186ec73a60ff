// AArch64 fixture (llvm-mc -triple=aarch64-linux-gnu): PAC with the B key,
// negate_ra_state toggled and remembered, frame pointer CFA, restores.
	.text
	.globl f
	.type f,%function
f:
	.cfi_startproc
	.cfi_b_key_frame
	hint #27
	.cfi_negate_ra_state
	stp x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset w29, -32
	.cfi_offset w30, -24
	mov x29, sp
	.cfi_def_cfa w29, 32
	str x19, [sp, #16]
	.cfi_offset w19, -16
	.cfi_remember_state
	ldp x29, x30, [sp], #32
	.cfi_restore w30
	.cfi_restore w29
	.cfi_def_cfa sp, 0
	hint #31
	.cfi_negate_ra_state
	ret
	.cfi_restore_state
	nop
	ret
	.cfi_endproc
