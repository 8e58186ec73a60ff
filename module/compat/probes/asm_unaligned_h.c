// SPDX-License-Identifier: GPL-2.0
/* <asm/unaligned.h> (up to 6.11) */
#include <asm/unaligned.h>

u32 kuw_probe(const void *p);
u32 kuw_probe(const void *p)
{
	return get_unaligned_le32(p);
}
