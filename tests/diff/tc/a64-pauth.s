/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AArch64 CFI of today's return-address signing, for tests/difftest-tc.sh
 * (assembled with --gsframe by binutils 2.44+, never run): PAuth_LR
 * (.cfi_negate_ra_state_with_pc, DW_CFA_AARCH64_negate_ra_state_with_pc:
 * what -mbranch-protection=pac-ret+pc asks for), the B key, a signal
 * frame and an outermost frame.  The instructions are hint-space NOPs
 * (paciasp/autiasp) or plain ones: only the CFI matters.
 */
	.text
	.globl g_pauthlr
	.type g_pauthlr, %function
g_pauthlr:
	.cfi_startproc
	hint	#39		/* pacm */
	paciasp
	.cfi_negate_ra_state_with_pc
	stp	x29, x30, [sp, -32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	bl	g_bkey
	ldp	x29, x30, [sp], 32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#39
	autiasp
	.cfi_negate_ra_state_with_pc
	ret
	.cfi_endproc
	.size g_pauthlr, .-g_pauthlr

	.globl g_bkey
	.type g_bkey, %function
g_bkey:
	.cfi_startproc
	.cfi_b_key_frame
	pacibsp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	g_signal
	ldp	x29, x30, [sp], 16
	.cfi_def_cfa 31, 0
	.cfi_restore 30
	.cfi_restore 29
	autibsp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size g_bkey, .-g_bkey

	.globl g_signal
	.type g_signal, %function
g_signal:
	.cfi_startproc
	.cfi_signal_frame
	sub	sp, sp, #32
	.cfi_def_cfa_offset 32
	add	sp, sp, #32
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size g_signal, .-g_signal

	.globl _start
	.type _start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	bl	g_pauthlr
	b	.
	.cfi_endproc
	.size _start, .-_start
