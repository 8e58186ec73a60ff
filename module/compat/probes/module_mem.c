// SPDX-License-Identifier: GPL-2.0
/* struct module's memory regions: mod->mem[MOD_TEXT] ... (6.4+) */
#include <linux/module.h>

unsigned long kuw_probe(const struct module *mod);
unsigned long kuw_probe(const struct module *mod)
{
	return (unsigned long)mod->mem[MOD_TEXT].base +
	       mod->mem[MOD_INIT_TEXT].size + mod->mem[MOD_RODATA].size +
	       mod->mem[MOD_RO_AFTER_INIT].size + mod->mem[MOD_DATA].size;
}
