// SPDX-License-Identifier: GPL-2.0
/* arm64: ptrauth_strip_insn_pac() (up to 6.3) */
#include <asm/pointer_auth.h>

unsigned long kuw_probe(unsigned long pc);
unsigned long kuw_probe(unsigned long pc)
{
	return ptrauth_strip_insn_pac(pc);
}
