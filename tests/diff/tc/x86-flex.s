/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 CFI that binutils 2.46+ encodes as SFrame v3 flexible FDEs (and
 * 2.44 as nothing or v2): a CFA from a register other than SP/FP, a CFA
 * loaded from memory (DRAP), FP saved at a register-relative address and
 * held in another register; a signal frame and an outermost frame (RA
 * undefined).  For tests/difftest-tc.sh (assembled with --gsframe, never
 * run).
 */
	.text
	.globl f_flex
	.type f_flex, @function
f_flex:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	.cfi_def_cfa %r12, 32
	nop
	/* DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref */
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
	nop
	/* DW_CFA_expression rbp: DW_OP_breg6 0 */
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
	nop
	.cfi_register %rbp, %rbx
	nop
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size f_flex, .-f_flex

	.globl f_signal
	.type f_signal, @function
f_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop
	.cfi_def_cfa_offset 16
	nop
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size f_signal, .-f_signal

	.globl f_outermost
	.type f_outermost, @function
f_outermost:
	.cfi_startproc
	.cfi_undefined %rip
	xorl	%ebp, %ebp
	call	f_flex
	hlt
	.cfi_endproc
	.size f_outermost, .-f_outermost
