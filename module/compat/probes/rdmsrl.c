// SPDX-License-Identifier: GPL-2.0
/* x86: rdmsrl()/wrmsrl() (up to 6.15; rdmsrq()/wrmsrq() since) */
#include <asm/msr.h>

void kuw_probe(void);
void kuw_probe(void)
{
	u64 v;

	rdmsrl(MSR_IA32_S_CET, v);
	wrmsrl(MSR_IA32_S_CET, v);
}
