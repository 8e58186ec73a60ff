// SPDX-License-Identifier: GPL-2.0
/* struct module's core_layout / init_layout (up to 6.3) */
#include <linux/module.h>

unsigned long kuw_probe(const struct module *mod);
unsigned long kuw_probe(const struct module *mod)
{
	return (unsigned long)mod->core_layout.base +
	       mod->core_layout.text_size + mod->core_layout.size +
	       (unsigned long)mod->init_layout.base + mod->init_layout.text_size;
}
