/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 frames for unwind_test.c's failed-step cases (kunit/Kbuild puts
 * kunit/arch/$(SRCARCH) on the include path).
 *
 *   kt_rb_fn          asm: "push %rbp" and its CFI; at kt_rb_fn_body
 *                     (KT_RB_BODY) the row is CFA = rsp + 16, rbp at
 *                     CFA - 16, the return address at CFA - 8
 *   kt_rb_caller      asm: calls kt_rb_fn; KT_RB_RET is its return
 *                     address (right after a "call rel32")
 *   KT_RB_REG         the register that row restores (rbp)
 *   kt_rb_fail()      a pt_regs at KT_RB_BODY over a stack on which that
 *                     row's step fails after it wrote KT_RB_REG, and the
 *                     arch's fallback steps the frame to KT_RB_RET
 *   kt_rb_record()    arm64 only (a frame record after a row's step): 0
 *
 * The two addresses are the function's plus offsets the assembler computes
 * (no relocation to a label inside a function, which objtool's IBT check
 * would report).
 */
#ifndef KUNWIND_KUNIT_KT_ROLLBACK_H
#define KUNWIND_KUNIT_KT_ROLLBACK_H

#include <linux/linkage.h>
#include <asm/ibt.h>
#include "kt_arch.h"

asm(".pushsection .text, \"ax\"\n"
	".globl kt_rb_fn\n"
	".type kt_rb_fn, @function\n"
	"kt_rb_fn:\n"
	"	.cfi_startproc\n"
	"	" ASM_ENDBR
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"kt_rb_fn_body:\n"
	"	nop\n"
	"	popq %rbp\n"
	"	.cfi_restore %rbp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	" ASM_RET
	"	.cfi_endproc\n"
	".size kt_rb_fn, . - kt_rb_fn\n"
	".globl kt_rb_caller\n"
	".type kt_rb_caller, @function\n"
	"kt_rb_caller:\n"
	"	.cfi_startproc\n"
	"	pushq %rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq %rsp, %rbp\n"
	"	call kt_rb_fn\n"
	"kt_rb_caller_ret:\n"
	"	popq %rbp\n"
	"	.cfi_restore %rbp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	" ASM_RET
	"	.cfi_endproc\n"
	".size kt_rb_caller, . - kt_rb_caller\n"
	".popsection\n"
	".pushsection .rodata, \"a\"\n"
	".balign 8\n"
	"kt_rb_off:\n"
	"	.quad kt_rb_fn_body - kt_rb_fn\n"
	"	.quad kt_rb_caller_ret - kt_rb_fn\n"
	".popsection\n");

void kt_rb_fn(void);
extern const unsigned long kt_rb_off[2];

#define KT_RB_BODY	((unsigned long)kt_rb_fn + kt_rb_off[0])
#define KT_RB_RET	((unsigned long)kt_rb_fn + kt_rb_off[1])
#define KT_RB_REG	KUW_X86_RBP

/*
 * At KT_RB_BODY, sp = @buf, rbp = @val: the row reads rbp's slot (buf[0])
 * and the return address (buf[1], not text), writes rbp, then fails on
 * that pc.  The fallback: no frame record at rbp (@val must be below the
 * stack, see kt_rb_val()), no ORC (the walk is KUNWIND_NO_ORC); an
 * interrupted pc: the leaf guess, "return address at sp" (buf[0], right
 * after a call), which keeps rbp.  Return: the pc that fallback reaches.
 */
static inline unsigned long kt_rb_fail(struct pt_regs *r, unsigned long *buf,
				       unsigned long val)
{
	kt_set_regs(r, KT_RB_BODY, (unsigned long)buf, val);
	buf[0] = KT_RB_RET;
	buf[1] = 0x10;
	buf[2] = 0;
	buf[3] = 0;
	return KT_RB_RET;
}

/* a value of KT_RB_REG that is no frame record on the stack */
static inline unsigned long kt_rb_val(void)
{
	return 0x00005a5a0000f008UL;
}

static inline unsigned long kt_rb_record(struct pt_regs *r,
					 unsigned long *buf, unsigned long val,
					 unsigned long saved)
{
	return 0;
}

#endif /* KUNWIND_KUNIT_KT_ROLLBACK_H */
