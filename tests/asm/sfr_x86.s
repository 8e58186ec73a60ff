# SFrame fixture (x86_64): assembled by `as --gsframe`, linked by ld and
# laid out by hand in tests/test_sframe.c, compared with `objdump --sframe`.
# Covers every FRE start address size (functions < 256, < 64 KiB, larger),
# every stack offset size (CFA offsets < 128, < 32 KiB, larger), SP- and
# FP-based CFA, the FP offset, remember/restore, a zero-size function and
# a second text section (relocations against two sections).
	.text
	.globl	sfr_fp
	.type	sfr_fp, @function
sfr_fp:					# addr1, 1-byte offsets, FP-based CFA
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	sfr_fp, .-sfr_fp

	.type	sfr_empty, @function
sfr_empty:				# zero-size function: one FRE at 0
	.cfi_startproc
	.cfi_endproc
	.size	sfr_empty, .-sfr_empty

	.type	sfr_off2, @function
sfr_off2:				# addr2 (300+ bytes), 2-byte offsets
	.cfi_startproc
	subq	$200, %rsp
	.cfi_def_cfa_offset 208
	.skip	300, 0x90
	addq	$200, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sfr_off2, .-sfr_off2

	.type	sfr_off4, @function
sfr_off4:				# addr4 (70000+ bytes), 4-byte offsets
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	subq	$40000, %rsp
	.cfi_def_cfa_offset 40016
	.skip	70000, 0x90
	addq	$40000, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sfr_off4, .-sfr_off4

	.type	sfr_fp2, @function
sfr_fp2:				# FP saved far away: 2-byte FP offset
	.cfi_startproc
	subq	$296, %rsp
	.cfi_def_cfa_offset 304
	movq	%rbp, 0(%rsp)
	.cfi_offset %rbp, -304
	nop
	movq	0(%rsp), %rbp
	.cfi_restore %rbp
	addq	$296, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sfr_fp2, .-sfr_fp2

	.type	sfr_remember, @function
sfr_remember:				# remember/restore state
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	testq	%rdi, %rdi
	je	1f
	.cfi_remember_state
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
1:
	.cfi_restore_state
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset %rbp, -24
	popq	%rbp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sfr_remember, .-sfr_remember

	.section .text.other, "ax", @progbits
	.globl	sfr_other
	.type	sfr_other, @function
sfr_other:				# second text section
	.cfi_startproc
	pushq	%r12
	.cfi_def_cfa_offset 16
	popq	%r12
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sfr_other, .-sfr_other
