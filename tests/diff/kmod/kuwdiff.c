// SPDX-License-Identifier: GPL-2.0
/*
 * A small kernel module for the differential tests: built with .eh_frame
 * and .sframe against the test bed's kernel tree (tests/difftest.sh), never
 * loaded.  Functions in .text, .init.text and .exit.text, varied frames.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

static noinline int kuwd_leaf(int x)
{
	return x * 7 + 1;
}

static noinline int kuwd_big(int n)
{
	char buf[512];

	memset(buf, n, sizeof(buf));
	return kuwd_leaf(buf[n & 511]) + buf[3];
}

noinline long kuwd_saved(long a, long b, long c, long d)
{
	long x = kuwd_leaf(a), y = kuwd_leaf(b), z = kuwd_leaf(c);
	long w = kuwd_leaf(d);

	return x * y + z * w + kuwd_leaf(x + y + z + w);
}
EXPORT_SYMBOL_GPL(kuwd_saved);

noinline int kuwd_alloc(size_t n)
{
	char *p = kmalloc(n, GFP_KERNEL);
	int r;

	if (!p)
		return -ENOMEM;
	memset(p, 1, n);
	r = kuwd_big(p[n / 2]);
	kfree(p);
	return r;
}
EXPORT_SYMBOL_GPL(kuwd_alloc);

static int __init kuwd_init(void)
{
	return kuwd_alloc(64) + kuwd_saved(1, 2, 3, 4) > 0 ? 0 : 0;
}

static void __exit kuwd_exit(void)
{
	kuwd_big(3);
}

module_init(kuwd_init);
module_exit(kuwd_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind differential test module (never loaded)");
