// SPDX-License-Identifier: GPL-2.0
/*
 * scoped_with_init_fs() (7.3 era: kernel threads resolve paths from an
 * empty nullfs root; this borrows PID 1's root and cwd for a scope)
 */
#include <linux/fs.h>
#include <linux/fs_struct.h>

struct file *kuw_probe(const char *path);
struct file *kuw_probe(const char *path)
{
	struct file *f;

	scoped_with_init_fs()
		f = filp_open(path, O_RDONLY, 0);
	return f;
}
