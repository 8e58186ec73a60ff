// SPDX-License-Identifier: GPL-2.0
/* <linux/unaligned.h> (6.12+; <asm/unaligned.h> before) */
#include <linux/unaligned.h>

u32 kuw_probe(const void *p);
u32 kuw_probe(const void *p)
{
	return get_unaligned_le32(p);
}
