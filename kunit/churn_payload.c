// SPDX-License-Identifier: GPL-2.0
/*
 * churn_payload: a small module with unwind tables (.eh_frame, .sframe,
 * see kunit/Kbuild) that registry_test.ko loads and unloads over and over
 * to check that kunwind follows modules coming and going.
 *
 * Its init function checks that kunwind has a row for it while it runs
 * (init text is covered until the module is live); the parameters tell the
 * test what it saw:
 *   init_pc        address of churn_init (freed once the module is live)
 *   init_had_rule  1 if kunwind_rule_for_pc(init_pc) found a row in init
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "kunwind.h"

static unsigned long init_pc;
module_param(init_pc, ulong, 0444);
MODULE_PARM_DESC(init_pc, "address of the init function");

static int init_had_rule;
module_param(init_had_rule, int, 0444);
MODULE_PARM_DESC(init_had_rule, "kunwind had a row for init while it ran");

static noinline int churn_work(int v)
{
	int buf[8] = { v };

	barrier_data(buf);
	return buf[v & 7] + 1;
}

static int __init churn_init(void)
{
	struct kunwind_rule_info *info = kzalloc(sizeof(*info), GFP_KERNEL);

	init_pc = (unsigned long)churn_init;
	if (info) {
		init_had_rule = !kunwind_rule_for_pc(init_pc, KUNWIND_SRC_ANY,
						     info) &&
				!strcmp(info->owner, KBUILD_MODNAME);
		kfree(info);
	}
	return churn_work(1) > 0 ? 0 : -EINVAL;
}

static void __exit churn_exit(void)
{
	churn_work(2);
}

module_init(churn_init);
module_exit(churn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test payload loaded and unloaded by registry_test");
