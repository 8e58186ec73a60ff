/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 assembly of kunit/chain.c (kunit/Kbuild puts kunit/arch/$(SRCARCH)
 * on the include path): f5's tail call and the signal-like frame.
 */
#ifndef KUNWIND_KUNIT_CHAIN_ASM_H
#define KUNWIND_KUNIT_CHAIN_ASM_H

/*
 * ASM_RET: the kernel's return for inline asm ("jmp __x86_return_thunk" on
 * rethunk kernels, "ret; int3" with SLS), which objtool requires there.
 */
#include <linux/linkage.h>
/*
 * ASM_ENDBR: the victim's address is taken (the glue's leaq), so on IBT
 * kernels it starts with ENDBR as a C function whose address is taken would.
 */
#include <asm/ibt.h>

/* f5: a tail call to f6, in asm so that no compiler flag can undo it. */
asm(".pushsection .text, \"ax\"\n"
	".globl kuw_chain_f5\n"
	".type kuw_chain_f5, @function\n"
	"kuw_chain_f5:\n"
	"	.cfi_startproc\n"
	"	movl $1, %esi\n"
	"	movl $2, %edx\n"
	"	movl $3, %ecx\n"
	"	movl $4, %r8d\n"
	"	movl $5, %r9d\n"
	"	jmp kuw_chain_f6\n"
	"	.cfi_endproc\n"
	".size kuw_chain_f5, . - kuw_chain_f5\n"
	".popsection\n");

/*
 * The signal-like frame.  glue: at entry [rsp] is the return address into
 * f2, exactly the state at the first instruction of a function called from
 * f2; push that context (sp, then pc = victim) and call the tramp.  The
 * tramp's CFI (signal frame): CFA = rsp + 24 = the glue's entry sp, the
 * "return address" is the saved pc at CFA - 16.  The victim is placed
 * right after the tramp, so victim - 1 is tramp code with other rules.
 */
asm(".pushsection .text, \"ax\"\n"
	".globl kuw_chain_sig_glue\n"
	".type kuw_chain_sig_glue, @function\n"
	"kuw_chain_sig_glue:\n"
	"	.cfi_startproc\n"
	"	movq %rsp, %rax\n"
	"	leaq kuw_chain_sig_victim(%rip), %rcx\n"
	"	pushq %rax\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rcx\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	call kuw_chain_sig_tramp\n"
	"	addq $16, %rsp\n"
	"	.cfi_adjust_cfa_offset -16\n"
	"	" ASM_RET
	"	.cfi_endproc\n"
	".size kuw_chain_sig_glue, . - kuw_chain_sig_glue\n"
	".globl kuw_chain_sig_tramp\n"
	".type kuw_chain_sig_tramp, @function\n"
	"kuw_chain_sig_tramp:\n"
	"	.cfi_startproc\n"
	"	.cfi_signal_frame\n"
	"	.cfi_def_cfa_offset 24\n"
	"	.cfi_offset 16, -16\n"
	"	call kuw_chain_f3\n"
	"	" ASM_RET
	"	.cfi_endproc\n"
	".size kuw_chain_sig_tramp, . - kuw_chain_sig_tramp\n"
	".globl kuw_chain_sig_victim\n"
	".type kuw_chain_sig_victim, @function\n"
	"kuw_chain_sig_victim:\n"
	"	.cfi_startproc\n"
	"	" ASM_ENDBR
	"	nop\n"
	"	" ASM_RET
	"	.cfi_endproc\n"
	".size kuw_chain_sig_victim, . - kuw_chain_sig_victim\n"
	".popsection\n");

#endif /* KUNWIND_KUNIT_CHAIN_ASM_H */
