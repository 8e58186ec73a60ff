/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AArch64 assembly of kunit/chain.c (kunit/Kbuild puts kunit/arch/$(SRCARCH)
 * on the include path): f5's tail call and the signal-like frame.  None of
 * it signs its return address: what it saves is a plain pc.
 */
#ifndef KUNWIND_KUNIT_CHAIN_ASM_H
#define KUNWIND_KUNIT_CHAIN_ASM_H

/*
 * f5: a tail call to f6, in asm so that no compiler flag can undo it.  No
 * frame record: f6's record links to f4's, so both unwinders skip f5.
 */
asm(".pushsection .text, \"ax\"\n"
	".globl kuw_chain_f5\n"
	".type kuw_chain_f5, %function\n"
	"kuw_chain_f5:\n"
	"	.cfi_startproc\n"
	"	mov x1, #1\n"
	"	mov x2, #2\n"
	"	mov x3, #3\n"
	"	mov x4, #4\n"
	"	mov x5, #5\n"
	"	b kuw_chain_f6\n"
	"	.cfi_endproc\n"
	".size kuw_chain_f5, . - kuw_chain_f5\n"
	".popsection\n");

/*
 * The signal-like frame.  At the glue's entry (sp E) x30 is the return
 * address into f2, x29 f2's frame pointer.  The glue builds the frame the
 * victim would have 4 instructions into a function that began with
 * "stp x29, x30, [sp, #-32]!": [E-32] x29, [E-24] x30, victim sp E-32.
 * Then it pushes the "interrupted" context (sp E-32 at [E-48], pc = the
 * victim at [E-40]) and calls the tramp.
 *
 * The tramp's CFI (signal frame): CFA = sp + 16 at its entry, E-32, the
 * victim's sp; its "return address" x30 is the saved pc at CFA - 8.  The
 * victim's own CFI at its first instruction is that 32-byte frame
 * (CFA = sp + 32, x29 and x30 at CFA - 32 and CFA - 24), which gives back
 * f2.  The victim is placed right after the tramp, whose last instruction
 * says the return address is undefined: an unwinder that looks the
 * victim's pc up at pc - 1 ends the trace there.
 */
asm(".pushsection .text, \"ax\"\n"
	".globl kuw_chain_sig_glue\n"
	".type kuw_chain_sig_glue, %function\n"
	"kuw_chain_sig_glue:\n"
	"	.cfi_startproc\n"
	"	stp x29, x30, [sp, #-32]!\n"
	"	.cfi_def_cfa_offset 32\n"
	"	.cfi_offset 29, -32\n"
	"	.cfi_offset 30, -24\n"
	"	mov x9, sp\n"
	"	adr x10, kuw_chain_sig_victim\n"
	"	stp x9, x10, [sp, #-16]!\n"
	"	.cfi_def_cfa_offset 48\n"
	"	bl kuw_chain_sig_tramp\n"
	"	add sp, sp, #16\n"
	"	.cfi_def_cfa_offset 32\n"
	"	ldp x29, x30, [sp], #32\n"
	"	.cfi_def_cfa_offset 0\n"
	"	.cfi_restore 29\n"
	"	.cfi_restore 30\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size kuw_chain_sig_glue, . - kuw_chain_sig_glue\n"
	".globl kuw_chain_sig_tramp\n"
	".type kuw_chain_sig_tramp, %function\n"
	"kuw_chain_sig_tramp:\n"
	"	.cfi_startproc\n"
	"	.cfi_signal_frame\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset 30, -8\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	.cfi_def_cfa_offset 32\n"
	"	bl kuw_chain_f3\n"
	"	ldp x29, x30, [sp], #16\n"
	"	.cfi_def_cfa_offset 16\n"
	"	ret\n"
	"	.cfi_undefined 30\n"
	"	nop\n"
	"	.cfi_endproc\n"
	".size kuw_chain_sig_tramp, . - kuw_chain_sig_tramp\n"
	".globl kuw_chain_sig_victim\n"
	".type kuw_chain_sig_victim, %function\n"
	"kuw_chain_sig_victim:\n"
	"	.cfi_startproc\n"
	"	.cfi_def_cfa_offset 32\n"
	"	.cfi_offset 29, -32\n"
	"	.cfi_offset 30, -24\n"
	"	ldp x29, x30, [sp], #32\n"
	"	.cfi_def_cfa_offset 0\n"
	"	.cfi_restore 29\n"
	"	.cfi_restore 30\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size kuw_chain_sig_victim, . - kuw_chain_sig_victim\n"
	".popsection\n");

#endif /* KUNWIND_KUNIT_CHAIN_ASM_H */
