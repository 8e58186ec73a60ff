# SPDX-License-Identifier: GPL-2.0
# DW_CFA_same_value and DW_CFA_undefined where readelf --debug-dump=
# frames-interp prints "s" and "u": in the CIE (gas moves the directives
# before the first instruction there), after restore, across
# remember/restore_state, and beside other rules of the same register.
	.text
	.globl sv_cie
	.type sv_cie, @function
sv_cie:
	.cfi_startproc
	.cfi_same_value rbx
	.cfi_undefined r12
	push %rbx
	.cfi_def_cfa_offset 16
	.cfi_offset rbx, -16
	nop
	.cfi_restore rbx
	nop
	.cfi_restore r12
	pop %rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc

	.globl sv_body
	.type sv_body, @function
sv_body:
	.cfi_startproc
	nop
	.cfi_undefined r12
	nop
	.cfi_register rbx, r14
	nop
	.cfi_same_value r12
	nop
	.cfi_same_value r13
	.cfi_same_value rbp
	nop
	.cfi_offset r13, -16
	nop
	.cfi_restore r13
	nop
	.cfi_same_value rbx
	nop
	.cfi_undefined rip
	nop
	.cfi_endproc

	.globl sv_state
	.type sv_state, @function
sv_state:
	.cfi_startproc
	nop
	.cfi_remember_state
	.cfi_same_value rbx
	.cfi_def_cfa_offset 16
	nop
	.cfi_remember_state
	.cfi_undefined rbx
	nop
	.cfi_restore_state
	nop
	.cfi_restore_state
	nop
	.cfi_same_value r15
	ret
	.cfi_endproc
