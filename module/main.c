// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind: kernel stack unwinding from DWARF CFI (.eh_frame, .debug_frame)
 * and SFrame.  Module entry: find what the unwinder needs in the kernel,
 * build the tables of the kernel image and every module, then hook oops,
 * create /dev/kunwind/ and debugfs and, when asked (consumers=1), answer the kernel's
 * stack-trace consumers.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>
#include "kunwind_internal.h"
#include "kuw_arch.h"

static int __init kunwind_init(void)
{
	int ret;

	ret = kuw_lockdown_init();
	if (ret)
		return ret;
	ret = kuw_ksyms_init();
	if (ret)
		return ret;
	ret = kuw_arch_init();
	if (ret)
		return ret;
	/* before anything can walk: kunwind's own text, the row cache */
	kuw_unwind_init();
	ret = kuw_registry_init();
	if (ret)
		goto out_unwind;
	ret = kuw_modules_init();
	if (ret)
		goto out_registry;
	ret = kuw_oops_init();
	if (ret)
		goto out_modules;
	ret = kuw_dev_init();
	if (ret)
		goto out_oops;
	kuw_debugfs_init();
	kuw_consumers_init();
	pr_info("loaded\n");
	return 0;
out_oops:
	kuw_oops_exit();
out_modules:
	kuw_modules_exit();
out_registry:
	kuw_registry_exit();
out_unwind:
	kuw_unwind_exit();
	kuw_arch_exit();
	return ret;
}

static void __exit kunwind_exit(void)
{
	/* first: no caller may be left in kunwind when the rest goes */
	kuw_consumers_exit();
	kuw_debugfs_exit();
	kuw_dev_exit();
	kuw_oops_exit();
	kuw_modules_exit();
	kuw_registry_exit();
	kuw_unwind_exit();
	kuw_arch_exit();
	pr_info("unloaded\n");
}

module_init(kunwind_init);
module_exit(kunwind_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Kernel stack unwinder from DWARF CFI and SFrame tables");
