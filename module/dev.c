// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kunwind/: kunwind's controls, one character device (misc) each,
 * root only (0600).  Lockdown leaves character devices alone, so these
 * work on a Secure Boot machine, where debugfs refuses every file that can
 * be written; what lockdown forbids kunwind is decided in lockdown.c.
 * Each node keeps the text protocol of a file, for shells and the loader:
 *   rules      write "ADDR|SYMBOL[+OFF] [eh_frame|debug_frame|sframe]";
 *              read "%pS" of the address, the row line (the text
 *              "kunwind-dump rules" prints) and "row <%pS> <src> <owner>"
 *   backtrace  write "self", "pid N" or "all" (every thread, one block
 *              each headed "task PID COMM"): the stacks are walked then;
 *              a read of the same open file gives the frames (index,
 *              address, %pS, row used to leave the frame), the stop reason
 *              and the reliable flag.  Each open file has its own result.
 *   load       write a vmlinux or module blob (kunwind-dump export); it is
 *              applied by the write that completes it, or refused whole
 *              with the reason's errno (see kuw_blob_apply())
 *   unload     write "OWNER SECTION" (e.g. "vmlinux eh_frame"): that table
 *              is dropped, so that a blob may replace it
 *   consumers  write 0 or 1: the consumers switch (consumers.c); read: its
 *              state and what each hooked consumer is
 * A bad write returns -EINVAL (load, unload: the reason's errno) and logs
 * one rate-limited line; nothing is half-applied.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "kunwind.h"
#include "kunwind_internal.h"
#include "blob.h"

static DEFINE_MUTEX(kuw_rules_mutex);	/* rules state */

#define kuw_bad(file, fmt, ...)						\
	pr_warn_ratelimited("/dev/kunwind/%s: " fmt "\n", file,	\
			    ##__VA_ARGS__)

/* ---- consumers (module/consumers.c) ---- */

static int kuw_consumers_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, kuw_consumers_show, NULL);
}

static ssize_t kuw_consumers_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *off)
{
	bool on;
	int ret = kstrtobool_from_user(ubuf, len, &on);

	if (ret) {
		kuw_bad("consumers", "write 0 or 1");
		return ret;
	}
	ret = kuw_consumers_switch(on);
	return ret ? ret : len;
}

static const struct file_operations kuw_consumers_fops = {
	.owner = THIS_MODULE,
	.open = kuw_consumers_open,
	.read = seq_read,
	.write = kuw_consumers_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- rules ---- */

static unsigned long kuw_rules_pc;
static u8 kuw_rules_src = KUNWIND_SRC_ANY;
static bool kuw_rules_set;

static int kuw_parse_src(const char *s, u8 *src)
{
	int i;

	if (!s || !*s) {
		*src = KUNWIND_SRC_ANY;
		return 0;
	}
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		if (!strcmp(s, kuw_src_name(i))) {
			*src = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* "0x..." / decimal, or SYMBOL[+OFF] (module symbols too) */
static int kuw_parse_addr(char *s, unsigned long *pc)
{
	unsigned long base, off = 0;
	char *plus;

	if (*s >= '0' && *s <= '9')
		return kstrtoul(s, 0, pc);
	plus = strchr(s, '+');
	if (plus) {
		*plus = 0;
		if (kstrtoul(plus + 1, 0, &off))
			return -EINVAL;
	}
	if (!*s)
		return -EINVAL;
	base = kuw_lookup_name(s);
	if (!base)
		return -EINVAL;
	*pc = base + off;
	return 0;
}

static char *kuw_copy_line(const char __user *ubuf, size_t len)
{
	char *buf;

	if (!len || len > 255)
		return ERR_PTR(-EINVAL);
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return buf;
	return buf;
}

static ssize_t kuw_rules_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char *buf, *p, *addr, *src;
	unsigned long pc;
	u8 s;
	int ret = -EINVAL;

	buf = kuw_copy_line(ubuf, len);
	if (IS_ERR(buf)) {
		kuw_bad("rules", "write of %zu bytes refused", len);
		return PTR_ERR(buf);
	}
	p = strim(buf);
	addr = strsep(&p, " \t");
	src = p ? strim(p) : NULL;
	if (!addr || kuw_parse_addr(addr, &pc)) {
		kuw_bad("rules", "bad address or unknown symbol");
		goto out;
	}
	if (kuw_parse_src(src, &s)) {
		kuw_bad("rules", "unknown source (eh_frame, debug_frame, sframe)");
		goto out;
	}
	mutex_lock(&kuw_rules_mutex);
	kuw_rules_pc = pc;
	kuw_rules_src = s;
	kuw_rules_set = true;
	mutex_unlock(&kuw_rules_mutex);
	ret = len;
out:
	kfree(buf);
	return ret;
}

static int kuw_rules_show(struct seq_file *m, void *v)
{
	struct kunwind_rule_info *info;
	char row[512];
	unsigned long pc;
	u8 src;
	bool set;

	mutex_lock(&kuw_rules_mutex);
	pc = kuw_rules_pc;
	src = kuw_rules_src;
	set = kuw_rules_set;
	mutex_unlock(&kuw_rules_mutex);
	if (!set) {
		seq_puts(m, "write an address or symbol[+off] first\n");
		return 0;
	}
	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	seq_printf(m, "%pS\n", (void *)pc);
	if (kunwind_rule_for_pc(pc, src, info) ||
	    kuw_format_row(row, sizeof(row), info->arch, info->row_pc,
			   &info->rule) < 0) {
		seq_printf(m, "0x%lx none\n", pc);
	} else {
		seq_printf(m, "%s\n", row);
		seq_printf(m, "row %pS %s %s\n", (void *)(unsigned long)info->row_pc,
			   kuw_src_name(info->src), info->owner);
	}
	kfree(info);
	return 0;
}

static int kuw_rules_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, kuw_rules_show, NULL);
}

static const struct file_operations kuw_rules_fops = {
	.owner = THIS_MODULE,
	.open = kuw_rules_open,
	.read = seq_read,
	.write = kuw_rules_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- backtrace ---- */

/*
 * Each open file has its own result: a write walks and keeps the text in
 * the file's state, a read of the same file shows it.  Two readers do not
 * see each other's walks.
 */
#define KUW_BT_SIZE	(32 * 1024)
#define KUW_BT_ALL_SIZE	(1024 * 1024)
#define KUW_BT_MAX_TASKS	4096

struct kuw_bt {
	struct mutex lock;	/* text, len, size */
	char *text;
	size_t len;
	size_t size;
};

/* One task's walk, appended at out + *used. */
static void kuw_bt_walk(struct task_struct *task, char *out, size_t size,
			size_t *used)
{
	struct kunwind_state state;
	char row[256];
	size_t n = *used;
	unsigned long pc;
	u32 i = 0;

	rcu_read_lock();
	kunwind_start(&state, task, NULL, NULL);
	while (!kunwind_done(&state)) {
		pc = kunwind_get_return_address(&state);
		kunwind_next_frame(&state);
		if (state.rule && state.table) {
			if (kuw_format_row(row, sizeof(row), state.table->arch,
					   state.row_pc, state.rule) < 0)
				strscpy(row, "?", sizeof(row));
		} else {
			scnprintf(row, sizeof(row), "-%s%s",
				  kunwind_done(&state) ? "" : " ",
				  kunwind_done(&state) ? "" :
				  kuw_how_name(state.how));
		}
		n += scnprintf(out + n, size - n, "%2u 0x%lx %pS %s%s%s\n",
			       i++, pc, (void *)pc, state.table ?
			       kuw_src_name(state.table->src) : "",
			       state.table ? " " : "", row);
	}
	rcu_read_unlock();
	/*
	 * A task that ran while its stack was read ends "task running", as
	 * one found running at the start does (kunwind.h)
	 */
	n += scnprintf(out + n, size - n, "stop: %s\nreliable: %s\n",
		       kunwind_strerror(kunwind_stop_reason(&state)),
		       kunwind_reliable(&state) ? "yes" : "no");
	*used = n;
}

/* Another task's stack is pinned while it is walked. */
static void kuw_bt_task(struct task_struct *task, char *out, size_t size,
			size_t *used)
{
	if (task != current && !try_get_task_stack(task)) {
		*used += scnprintf(out + *used, size - *used,
				   "stop: task exited\nreliable: no\n");
		return;
	}
	kuw_bt_walk(task, out, size, used);
	if (task != current)
		kuw_put_task_stack(task);
}

/* "all": every thread, one block each, headed "task PID COMM". */
static int kuw_bt_all(char *out, size_t size, size_t *used)
{
	struct task_struct **tasks, *g, *t;
	unsigned int n = 0, i;

	tasks = kvcalloc(KUW_BT_MAX_TASKS, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (n == KUW_BT_MAX_TASKS)
			break;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		if (size - *used > 4096) {
			*used += scnprintf(out + *used, size - *used,
					   "task %d %s\n", task_pid_nr(tasks[i]),
					   tasks[i]->comm);
			kuw_bt_task(tasks[i], out, size, used);
		}
		put_task_struct(tasks[i]);
		cond_resched();
	}
	if (size - *used <= 4096)
		*used += scnprintf(out + *used, size - *used, "truncated\n");
	kvfree(tasks);
	return 0;
}

/* Parse "self", "pid N" or "all" and walk into a new buffer. */
static int kuw_bt_run(const char *p, char **textp, size_t *lenp,
		      size_t *sizep)
{
	struct task_struct *task;
	size_t size = KUW_BT_SIZE, used = 0;
	bool all = !strcmp(p, "all");
	char *out;
	int pid, ret = 0;

	if (all) {
		size = KUW_BT_ALL_SIZE;
		task = NULL;
	} else if (!strcmp(p, "self")) {
		task = get_task_struct(current);
	} else if (!strncmp(p, "pid ", 4) &&
		   !kstrtoint(strim((char *)p + 4), 10, &pid)) {
		struct pid *p = find_get_pid(pid);

		/* find_vpid() alone needs RCU: the pid may go meanwhile */
		task = get_pid_task(p, PIDTYPE_PID);
		put_pid(p);
		if (!task) {
			kuw_bad("backtrace", "no task with pid %d", pid);
			return -ESRCH;
		}
	} else {
		kuw_bad("backtrace", "expected 'self', 'pid N' or 'all'");
		return -EINVAL;
	}
	out = kvmalloc(size, GFP_KERNEL);
	if (!out)
		ret = -ENOMEM;
	else if (all)
		ret = kuw_bt_all(out, size, &used);
	else
		kuw_bt_task(task, out, size, &used);
	if (task)
		put_task_struct(task);
	if (ret) {
		kvfree(out);
		return ret;
	}
	*textp = out;
	*lenp = used;
	*sizep = size;
	return 0;
}

static ssize_t kuw_bt_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct kuw_bt *bt = file->private_data;
	char *buf, *out = NULL;
	size_t used = 0, size = 0;
	int ret;

	buf = kuw_copy_line(ubuf, len);
	if (IS_ERR(buf)) {
		kuw_bad("backtrace", "write of %zu bytes refused", len);
		return PTR_ERR(buf);
	}
	ret = kuw_bt_run(strim(buf), &out, &used, &size);
	kfree(buf);
	if (ret)
		return ret;
	mutex_lock(&bt->lock);
	swap(bt->text, out);
	bt->len = used;
	bt->size = size;
	mutex_unlock(&bt->lock);
	kvfree(out);
	*ppos = 0;	/* the next read starts at the new result */
	return len;
}

static ssize_t kuw_bt_read(struct file *file, char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	static const char hint[] = "write 'self', 'pid N' or 'all' first\n";
	struct kuw_bt *bt = file->private_data;
	ssize_t ret;

	mutex_lock(&bt->lock);
	if (bt->text)
		ret = simple_read_from_buffer(ubuf, len, ppos, bt->text,
					      bt->len);
	else
		ret = simple_read_from_buffer(ubuf, len, ppos, hint,
					      sizeof(hint) - 1);
	mutex_unlock(&bt->lock);
	return ret;
}

static int kuw_bt_open(struct inode *inode, struct file *file)
{
	struct kuw_bt *bt = kzalloc(sizeof(*bt), GFP_KERNEL);

	if (!bt)
		return -ENOMEM;
	mutex_init(&bt->lock);
	file->private_data = bt;
	return 0;
}

static int kuw_bt_release(struct inode *inode, struct file *file)
{
	struct kuw_bt *bt = file->private_data;

	kvfree(bt->text);
	kfree(bt);
	return 0;
}

static const struct file_operations kuw_bt_fops = {
	.owner = THIS_MODULE,
	.open = kuw_bt_open,
	.read = kuw_bt_read,
	.write = kuw_bt_write,
	.llseek = default_llseek,
	.release = kuw_bt_release,
};

/* ---- load ---- */

struct kuw_load {
	u8 *buf;
	size_t len;	/* bytes received */
	size_t want;	/* whole blob, known once the header is in */
	bool done;	/* applied or refused: further writes refused */
};

static int kuw_load_open(struct inode *inode, struct file *file)
{
	struct kuw_load *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return -ENOMEM;
	file->private_data = l;
	return nonseekable_open(inode, file);
}

static int kuw_load_release(struct inode *inode, struct file *file)
{
	struct kuw_load *l = file->private_data;

	if (l->len && !l->done)
		kuw_bad("load", "blob incomplete (%zu of %zu bytes): ignored",
			l->len, l->want);
	kvfree(l->buf);
	kfree(l);
	return 0;
}

static ssize_t kuw_load_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct kuw_load *l = file->private_data;
	size_t need;
	int ret;

	if (l->done || !len) {
		kuw_bad("load", "write after the blob ended");
		return -EINVAL;
	}
	if (!l->buf) {
		l->buf = kvmalloc(KUW_BLOB_HDR_SIZE, GFP_KERNEL);
		if (!l->buf)
			return -ENOMEM;
		l->want = KUW_BLOB_HDR_SIZE;
	}
	/* header first, then the size it announces */
	need = min(len, l->want - l->len);
	if (copy_from_user(l->buf + l->len, ubuf, need))
		return -EFAULT;
	l->len += need;
	if (l->len >= sizeof(KUW_BLOB_MAGIC) &&
	    l->len - need < sizeof(KUW_BLOB_MAGIC) &&
	    memcmp(l->buf, KUW_BLOB_MAGIC, sizeof(KUW_BLOB_MAGIC))) {
		l->done = true;
		kuw_bad("load", "not a blob (bad magic)");
		return -EINVAL;
	}
	if (l->len == KUW_BLOB_HDR_SIZE && l->want == KUW_BLOB_HDR_SIZE) {
		size_t total = kuw_blob_total(l->buf);
		u8 *nb;

		if (!total) {
			l->done = true;
			kuw_bad("load", "bad section or map size in the header");
			return -EINVAL;
		}
		nb = kvmalloc(total, GFP_KERNEL);
		if (!nb)
			return -ENOMEM;
		memcpy(nb, l->buf, l->len);
		kvfree(l->buf);
		l->buf = nb;
		l->want = total;
		if (len > need) {
			size_t more = min(len - need, l->want - l->len);

			if (copy_from_user(l->buf + l->len, ubuf + need, more))
				return -EFAULT;
			l->len += more;
			need += more;
		}
	}
	if (need < len) {
		l->done = true;
		kuw_bad("load", "%zu bytes beyond the blob's end", len - need);
		return -EINVAL;
	}
	if (l->len < l->want)
		return len;
	l->done = true;
	ret = kuw_blob_apply(l->buf, l->len);
	if (ret)
		return ret;
	l->buf = NULL;		/* the registry owns it now */
	return len;
}

/* ---- unload ---- */

static ssize_t kuw_unload_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char *buf, *p, *owner, *sec;
	u8 src;
	int ret;

	buf = memdup_user_nul(ubuf, min_t(size_t, len, 127));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	p = strim(buf);
	owner = strsep(&p, " \t");
	sec = p ? strim(p) : NULL;
	ret = -EINVAL;
	if (!owner || !*owner || !sec || kuw_parse_src(sec, &src) ||
	    src >= KUW_SRC__COUNT) {
		kuw_bad("unload", "expected OWNER eh_frame|debug_frame|sframe");
		goto out;
	}
	ret = kuw_registry_drop_table(owner, src);
	if (ret) {
		kuw_bad("unload", "%s %s: %s", owner, kuw_src_name(src),
			kuw_strerror(ret));
		ret = kunwind_errno(ret);
		goto out;
	}
	pr_info("%s: %s table dropped\n", owner, kuw_src_section(src));
	ret = len;
out:
	kfree(buf);
	return ret;
}

static const struct file_operations kuw_unload_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.write = kuw_unload_write,
};

static const struct file_operations kuw_load_fops = {
	.owner = THIS_MODULE,
	.open = kuw_load_open,
	.write = kuw_load_write,
	.release = kuw_load_release,
};

static struct miscdevice kuw_devs[] = {
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind-rules",
	  .nodename = "kunwind/rules", .fops = &kuw_rules_fops, .mode = 0600 },
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind-backtrace",
	  .nodename = "kunwind/backtrace", .fops = &kuw_bt_fops, .mode = 0600 },
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind-load",
	  .nodename = "kunwind/load", .fops = &kuw_load_fops, .mode = 0600 },
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind-unload",
	  .nodename = "kunwind/unload", .fops = &kuw_unload_fops, .mode = 0600 },
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind-consumers",
	  .nodename = "kunwind/consumers", .fops = &kuw_consumers_fops,
	  .mode = 0600 },
};

static unsigned int kuw_ndevs;

/**
 * kuw_dev_init() - create the nodes of /dev/kunwind/
 *
 * Return: 0, or the error of the node that could not be registered (the
 * others are gone again).
 */
int kuw_dev_init(void)
{
	int ret;

	for (kuw_ndevs = 0; kuw_ndevs < ARRAY_SIZE(kuw_devs); kuw_ndevs++) {
		ret = misc_register(&kuw_devs[kuw_ndevs]);
		if (ret) {
			pr_err("/dev/%s: not registered (%d)\n",
			       kuw_devs[kuw_ndevs].nodename, ret);
			kuw_dev_exit();
			return ret;
		}
	}
	return 0;
}

/**
 * kuw_dev_exit() - remove them
 */
void kuw_dev_exit(void)
{
	while (kuw_ndevs)
		misc_deregister(&kuw_devs[--kuw_ndevs]);
}
