# SFrame fixture (AArch64): assembled by `aarch64-linux-gnu-as --gsframe`
# and compared with `aarch64-linux-gnu-objdump --sframe` in
# tests/test_sframe.c (skipped when the cross binutils are absent).
# Covers the signed-RA bit (PAC), FP-based CFA, RA and FP offsets, RA
# saved without FP, FP saved without RA, 2- and 4-byte offsets, 2- and
# 4-byte FRE start addresses, and a leaf function.
	.text
	.globl	a64_pac
	.type	a64_pac, %function
a64_pac:
	.cfi_startproc
	paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	a64_leaf
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	a64_pac, .-a64_pac

	.globl	a64_leaf
	.type	a64_leaf, %function
a64_leaf:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	a64_leaf, .-a64_leaf

	.type	a64_ra_only, %function
a64_ra_only:
	.cfi_startproc
	str	x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 30, -16
	bl	a64_leaf
	ldr	x30, [sp], 16
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	a64_ra_only, .-a64_ra_only

	.type	a64_big, %function
a64_big:
	.cfi_startproc
	sub	sp, sp, #512
	.cfi_def_cfa_offset 512
	stp	x29, x30, [sp, 496]
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	.skip	400
	ldp	x29, x30, [sp, 496]
	.cfi_restore 29
	.cfi_restore 30
	add	sp, sp, #512
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	a64_big, .-a64_big

	.type	a64_huge, %function
a64_huge:
	.cfi_startproc
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	sp, sp, #40, lsl #12
	.cfi_def_cfa_offset 163856
	.skip	70000
	add	sp, sp, #40, lsl #12
	.cfi_def_cfa_offset 16
	ldp	x29, x30, [sp], 16
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	a64_huge, .-a64_huge
