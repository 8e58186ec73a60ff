# SPDX-License-Identifier: GPL-2.0
# Two FDEs over the same bytes: f covers 4 bytes from 0x1000 and g, in
# another section that fde_overlap.ld places at 0x1002, 2 of them
# (ld -shared --no-check-sections -T fde_overlap.ld).  Malformed for
# kunwind (overlapping FDEs): every kunwind-dump command exits 1.
	.section .text.a,"ax",@progbits
	.globl f
f:
	.cfi_startproc
	nop
	.cfi_def_cfa_offset 16
	nop
	nop
	nop
	.cfi_endproc

	.section .text.b,"ax",@progbits
	.globl g
g:
	.cfi_startproc
	nop
	nop
	.cfi_endproc
