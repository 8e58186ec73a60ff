// SPDX-License-Identifier: GPL-2.0
/* x86: rdmsrq()/wrmsrq() (6.16+; rdmsrl()/wrmsrl() before) */
#include <asm/msr.h>

void kuw_probe(void);
void kuw_probe(void)
{
	u64 v;

	rdmsrq(MSR_IA32_S_CET, v);
	wrmsrq(MSR_IA32_S_CET, v);
}
