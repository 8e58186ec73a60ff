// SPDX-License-Identifier: GPL-2.0
/*
 * The sanity probe: must compile on every kernel kunwind supports.  When it
 * does not, the probe command itself is broken (flags, compiler, paths) and
 * every other probe's "no" would be a lie: compat.mk stops the build.
 */
#include <linux/module.h>
#include <linux/kprobes.h>

int kuw_probe(struct module *mod);
int kuw_probe(struct module *mod)
{
	return mod->state == MODULE_STATE_LIVE;
}
