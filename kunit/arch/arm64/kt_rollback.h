/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 frames for unwind_test.c's failed-step cases (kunit/Kbuild puts
 * kunit/arch/$(SRCARCH) on the include path).
 *
 *   kt_rb_fn          asm: "stp x19, x30, [sp, #-16]!" and its CFI; at
 *                     kt_rb_fn_body (KT_RB_BODY) the row is CFA = sp + 16,
 *                     x19 at CFA - 16, x30 (the return address) at CFA - 8
 *   kt_rb_caller      asm: calls kt_rb_fn; KT_RB_RET is its return address
 *   kt_rb_nocfi       asm without CFI (no FDE covers it): code without
 *                     tables, which the frame record steps;
 *                     KT_RB_NOCFI_RET is a return address into it
 *   KT_RB_REG         the register that row restores (x19)
 *   kt_rb_fail()      a pt_regs at KT_RB_BODY over a stack on which that
 *                     row's step fails after it wrote KT_RB_REG, and the
 *                     arch's fallback (the frame record) steps the frame
 *                     to KT_RB_RET
 *   kt_rb_record()    a pt_regs at KT_RB_BODY whose row steps to
 *                     KT_RB_NOCFI_RET (x19 then a slot on the stack), from
 *                     where the frame record steps to KT_RB_RET
 *
 * The addresses are the function's plus offsets the assembler computes,
 * as on x86 (kunit/arch/x86/kt_rollback.h).
 */
#ifndef KUNWIND_KUNIT_KT_ROLLBACK_H
#define KUNWIND_KUNIT_KT_ROLLBACK_H

#include "kt_arch.h"

asm(".pushsection .text, \"ax\"\n"
	".globl kt_rb_fn\n"
	".type kt_rb_fn, %function\n"
	"kt_rb_fn:\n"
	"	.cfi_startproc\n"
	"	stp x19, x30, [sp, #-16]!\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset 19, -16\n"
	"	.cfi_offset 30, -8\n"
	"kt_rb_fn_body:\n"
	"	nop\n"
	"	ldp x19, x30, [sp], #16\n"
	"	.cfi_restore 19\n"
	"	.cfi_restore 30\n"
	"	.cfi_def_cfa_offset 0\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size kt_rb_fn, . - kt_rb_fn\n"
	".globl kt_rb_caller\n"
	".type kt_rb_caller, %function\n"
	"kt_rb_caller:\n"
	"	.cfi_startproc\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset 29, -16\n"
	"	.cfi_offset 30, -8\n"
	"	mov x29, sp\n"
	"	bl kt_rb_fn\n"
	"kt_rb_caller_ret:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	.cfi_restore 29\n"
	"	.cfi_restore 30\n"
	"	.cfi_def_cfa_offset 0\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size kt_rb_caller, . - kt_rb_caller\n"
	".globl kt_rb_nocfi\n"
	".type kt_rb_nocfi, %function\n"
	"kt_rb_nocfi:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"	mov x29, sp\n"
	"	bl kt_rb_fn\n"
	"kt_rb_nocfi_ret:\n"
	"	ldp x29, x30, [sp], #16\n"
	"	ret\n"
	".size kt_rb_nocfi, . - kt_rb_nocfi\n"
	".popsection\n"
	".pushsection .rodata, \"a\"\n"
	".balign 8\n"
	"kt_rb_off:\n"
	"	.quad kt_rb_fn_body - kt_rb_fn\n"
	"	.quad kt_rb_caller_ret - kt_rb_fn\n"
	"	.quad kt_rb_nocfi_ret - kt_rb_fn\n"
	".popsection\n");

void kt_rb_fn(void);
extern const unsigned long kt_rb_off[3];

#define KT_RB_BODY	((unsigned long)kt_rb_fn + kt_rb_off[0])
#define KT_RB_RET	((unsigned long)kt_rb_fn + kt_rb_off[1])
#define KT_RB_NOCFI_RET	((unsigned long)kt_rb_fn + kt_rb_off[2])
#define KT_RB_REG	19

/*
 * At KT_RB_BODY, sp = @buf, x19 = @val, x29 = &buf[2]: the row reads x19's
 * slot (buf[0]) and the return address (buf[1], not text), writes x19,
 * then fails on that pc.  The fallback: the frame record at x29 (buf[2]:
 * the caller's x29, 0; buf[3]: its pc, KT_RB_RET), which keeps x19.
 * Return: the pc that fallback reaches.
 */
static inline unsigned long kt_rb_fail(struct pt_regs *r, unsigned long *buf,
				       unsigned long val)
{
	kt_set_regs(r, KT_RB_BODY, (unsigned long)buf,
		    (unsigned long)&buf[2]);
	r->regs[19] = val;
	buf[0] = ~val;
	buf[1] = 0x10;
	buf[2] = 0;
	buf[3] = KT_RB_RET;
	return KT_RB_RET;
}

/* any value of x19 */
static inline unsigned long kt_rb_val(void)
{
	return 0x5a5a0000a5a5f00dUL;
}

/*
 * At KT_RB_BODY, sp = @buf, x19 = @val, x29 = &buf[2]: the row steps to
 * KT_RB_NOCFI_RET (buf[1]) with x19 = @saved (buf[0], its slot); no row
 * covers that pc: the frame record at x29 (0, KT_RB_RET) steps it, and
 * x19 stays @saved.  Return: the pc of that second step.
 */
static inline unsigned long kt_rb_record(struct pt_regs *r,
					 unsigned long *buf, unsigned long val,
					 unsigned long saved)
{
	kt_set_regs(r, KT_RB_BODY, (unsigned long)buf,
		    (unsigned long)&buf[2]);
	r->regs[19] = val;
	buf[0] = saved;
	buf[1] = KT_RB_NOCFI_RET;
	buf[2] = 0;
	buf[3] = KT_RB_RET;
	return KT_RB_RET;
}

#endif /* KUNWIND_KUNIT_KT_ROLLBACK_H */
