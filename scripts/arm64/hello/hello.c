// SPDX-License-Identifier: GPL-2.0
/*
 * hello.ko: the module of the arm64 test bed (scripts/check-arm64.sh).
 * Built out of tree against the cross-built test kernel with .eh_frame and
 * .sframe; its init prints the kernel's own trace (arm64 unwinds by frame
 * pointers) through two of its own functions, a reference for the port.
 */
#include <linux/module.h>
#include <linux/printk.h>

static noinline void hello_depth2(void)
{
	pr_info("hello: dump_stack from hello_depth2\n");
	dump_stack();
}

static noinline void hello_depth1(void)
{
	hello_depth2();
	barrier();	/* keeps the call from becoming a tail call */
}

static int __init hello_init(void)
{
	hello_depth1();
	pr_info("hello: loaded\n");
	return 0;
}

static void __exit hello_exit(void)
{
	pr_info("hello: unloaded\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_DESCRIPTION("kunwind arm64 test bed: trivial module with unwind tables");
MODULE_LICENSE("GPL");
