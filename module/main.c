// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind: kernel stack unwinding from DWARF CFI and SFrame.
 * Minimal module entry so the test bed runs end to end; the glue
 * (registry, debugfs, oops hook) is added by its owner.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/printk.h>
#include <linux/uaccess.h>

#include "engine.h"

/* Fault-safe read for the engine: the kernel home of kuw_read_mem(). */
int kuw_read_mem(void *mem_ctx, u64 addr, void *dst, u32 len)
{
	if (copy_from_kernel_nofault(dst, (const void *)(unsigned long)addr,
				     len))
		return -KUW_E_FAULT;
	return 0;
}

static int __init kunwind_init(void)
{
	pr_info("kunwind: loaded\n");
	return 0;
}

static void __exit kunwind_exit(void)
{
	pr_info("kunwind: unloaded\n");
}

module_init(kunwind_init);
module_exit(kunwind_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Kernel stack unwinder from DWARF CFI and SFrame tables");
