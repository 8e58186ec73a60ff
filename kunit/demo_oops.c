// SPDX-License-Identifier: GPL-2.0
/*
 * demo_oops: a chain of functions built without frame pointers and with
 * DWARF CFI and SFrame tables (see kunit/Kbuild), whose deepest function
 * writes through a NULL pointer.  Used by `make demo` to show kunwind's
 * trace beside the kernel's, and as a payload module with unwind tables
 * for the stock-kernel check.
 *
 *   echo 1 > /dev/kunwind_demo/oops   oops in demo_depth5()
 *   cat /dev/kunwind_demo/oops        the chain's depth
 *   insmod demo_oops.ko oops_on_load=1             oops from module init
 *
 * One translation unit on purpose: binutils 2.40 `ld -r` misplaces .sframe
 * relocations when several objects carry .sframe.
 */
#include <linux/compiler.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>

static bool oops_on_load;
module_param(oops_on_load, bool, 0444);
MODULE_PARM_DESC(oops_on_load, "oops from module init (demo only)");

#define DEMO_DEPTH 5

/*
 * Each level keeps a small array on its stack (barrier_data() makes it
 * real) so that every frame has its own CFA offset, and uses the callee's
 * result after the call so that no call becomes a tail call and every level
 * stays on the stack.
 */
static noinline __noclone int demo_depth5(int v)
{
	int buf[4] = { v, v + 1, v + 2, v + 3 };
	int *null = NULL;

	barrier_data(buf);
	pr_info("demo_oops: writing through NULL at depth %d\n", DEMO_DEPTH);
	OPTIMIZER_HIDE_VAR(null);
	WRITE_ONCE(*null, buf[v & 3]);
	return buf[0];
}

static noinline __noclone int demo_depth4(int v)
{
	int buf[6] = { v };

	barrier_data(buf);
	return demo_depth5(buf[0] + 1) + buf[5];
}

static noinline __noclone int demo_depth3(int v)
{
	long buf[3] = { v };

	barrier_data(buf);
	return demo_depth4(buf[0] + 1) + (int)buf[2];
}

static noinline __noclone int demo_depth2(int v)
{
	char buf[40] = { (char)v };

	barrier_data(buf);
	return demo_depth3(buf[0] + 1) + buf[39];
}

static noinline __noclone int demo_depth1(int v)
{
	int buf[2] = { v };

	barrier_data(buf);
	return demo_depth2(buf[0] + 1) + buf[1];
}

static ssize_t demo_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char c;

	if (!len || get_user(c, ubuf))
		return -EINVAL;
	if (c == '1')
		demo_depth1(1);
	return len;
}

static ssize_t demo_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%d\n", DEMO_DEPTH);

	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations demo_fops = {
	.owner = THIS_MODULE,
	.read = demo_read,
	.write = demo_write,
	.llseek = default_llseek,
};

/* A character device, not debugfs: it works on a locked-down kernel too. */
static struct miscdevice demo_dev = {
	.minor = MISC_DYNAMIC_MINOR, .name = "kunwind_demo-oops",
	.nodename = "kunwind_demo/oops", .fops = &demo_fops, .mode = 0600,
};

static int __init demo_init(void)
{
	int ret;

	if (oops_on_load)
		demo_depth1(1);
	ret = misc_register(&demo_dev);
	if (ret)
		pr_err("demo_oops: /dev/kunwind_demo/oops: %d\n", ret);
	return ret;
}

static void __exit demo_exit(void)
{
	misc_deregister(&demo_dev);
}

module_init(demo_init);
module_exit(demo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind demo: oops deep in a chain without frame pointers");
