// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 meta frame records (6.13+): exception entry writes struct
 * frame_record_meta in pt_regs (FRAME_META_TYPE_PT_REGS / _FINAL); a
 * plain frame record u64 stackframe[2] before.  0 on x86_64.
 */
#include <asm/ptrace.h>

int kuw_probe(struct pt_regs *regs);
int kuw_probe(struct pt_regs *regs)
{
	return !regs->stackframe.record.fp &&
	       regs->stackframe.type == FRAME_META_TYPE_PT_REGS;
}
