// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kunwind/: kunwind's controls, one character device (misc) each,
 * mode 0600.  Lockdown leaves character devices alone, so these work on a
 * Secure Boot machine, where debugfs refuses every file that can be
 * written; what lockdown forbids kunwind is decided in lockdown.c.
 *
 * Who may (the kernel's way, as /proc/PID/stack and /proc/kallsyms do):
 *  - every node: CAP_SYS_ADMIN in the initial user namespace to open
 *    (capable()); a write checks the opener's credentials again
 *    (file_ns_capable(), file->f_cred), so an fd handed to another process
 *    carries the opener's rights, not the holder's, and never more.  uid 0
 *    without CAP_SYS_ADMIN (an emptied bounding set, a container's root in
 *    its own user namespace) opens nothing;
 *  - backtrace: a task is walked only when the writer may ptrace it
 *    (ptrace_may_access(PTRACE_MODE_ATTACH_FSCREDS) under the task's
 *    exec_update_lock, as lock_trace() does for /proc/PID/stack); "pid N"
 *    is N in the opener's pid namespace (taken at open), "all" lists the
 *    tasks visible there, with their pids there, and leaves out the ones
 *    the writer may not trace (counted on a "skipped:" line);
 *  - kernel addresses (rules, backtrace, debugfs): printed only when
 *    kallsyms_show_value(file->f_cred) allows, as /proc/kallsyms does
 *    (kptr_restrict, CAP_SYSLOG); else as 0.  A symbol name (%pS) is
 *    printed only where a symbol covers the address (%pS falls back to the
 *    raw address), and without that right rules refuses raw addresses and
 *    offsets past the symbol's end: it is no KASLR oracle;
 *  - unload: under lockdown=integrity only the tables that are already
 *    untrusted (lockdown.c).
 *
 * Each node keeps the text protocol of a file, for shells and the loader:
 *   rules      write "ADDR|SYMBOL[+OFF] [eh_frame|debug_frame|sframe]";
 *              read "%pS" of the address, the row line (the text
 *              "kunwind-dump rules" prints) and "row <%pS> <src> <owner>".
 *              Each open file has its own address; an accepted write
 *              moves the file's position back to 0, so that a shell's
 *              "exec 3<>rules; echo vfs_read >&3; cat <&3" reads the answer.
 *   backtrace  write "self", "pid N" or "all" (every thread, one block
 *              each headed "task PID COMM"): the stacks are walked then;
 *              a read of the same open file gives the frames (index,
 *              address, %pS, row used to leave the frame), the stop reason
 *              and the reliable flag.  Each open file has its own result,
 *              sized as needed (at most KUW_BT_MAX); a walk's block keeps
 *              its "stop:" and "reliable:" lines and says "truncated:"
 *              when frames were left out, "all" says "truncated:" with
 *              counts when tasks were.
 *   load       write a vmlinux or module blob (kunwind-dump export); it is
 *              applied by the write that completes it, or refused whole
 *              with the reason's errno (see kuw_blob_apply()).  One blob
 *              per open file, its writes serialised; the buffer grows as
 *              bytes arrive, charged to the writer's memory cgroup, within
 *              KUW_LOAD_INFLIGHT over all open files.
 *   unload     write "OWNER SECTION" (e.g. "vmlinux eh_frame"): that table
 *              is dropped, so that a blob may replace it
 *   consumers  write 0 or 1: the consumers switch (consumers.c); read: its
 *              state and what each hooked consumer is
 * A bad write returns -EINVAL (load, unload: the reason's errno) and logs
 * one rate-limited line; nothing is half-applied.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
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
#include "kuw_call.h"
#include "blob.h"

#define kuw_bad(file, fmt, ...)						\
	pr_warn_ratelimited("/dev/kunwind/%s: " fmt "\n", file,	\
			    ##__VA_ARGS__)

/* ---- who may ---- */

/* unexported, called with kuw_call(), typed from their headers */
KUW_INTERNAL(kallsyms_show_value);
KUW_INTERNAL(ptrace_may_access);

/* Every node: the opener holds CAP_SYS_ADMIN (initial user namespace). */
static int kuw_open_may(void)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

/* A write: the opener's credentials, whoever holds the fd now. */
static bool kuw_write_may(struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

/**
 * kuw_show_addresses() - may these credentials see kernel addresses?
 * @cred: the opener's (file->f_cred)
 *
 * kallsyms_show_value(), as /proc/kallsyms decides (kptr_restrict,
 * CAP_SYSLOG); no when kallsyms does not give the function.
 *
 * Return: true when addresses may be printed.
 */
bool kuw_show_addresses(const struct cred *cred)
{
	return KUW_FN(kallsyms_show_value) &&
	       kuw_call(kallsyms_show_value, cred);
}

/*
 * "%pS" of @pc into @buf (KSYM_SYMBOL_LEN bytes); "?" where no symbol
 * covers it and addresses are hidden (%pS prints the raw address there).
 */
static void kuw_sym(char *buf, unsigned long pc, bool show)
{
	sprint_symbol(buf, pc);
	if (!show && !strncmp(buf, "0x", 2))
		strscpy(buf, "?", KSYM_SYMBOL_LEN);
}

/* As lock_trace() for /proc/PID/stack; 0 or -EPERM, -EINTR */
static int kuw_trace_lock(struct task_struct *task)
{
	bool may;
	int ret;

	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		return ret;
	if (KUW_FN(ptrace_may_access))
		may = kuw_call(ptrace_may_access, task,
			       PTRACE_MODE_ATTACH_FSCREDS);
	else	/* not found: the caller's own threads only */
		may = same_thread_group(task, current);
	if (!may) {
		up_read(&task->signal->exec_update_lock);
		return -EPERM;
	}
	return 0;
}

static void kuw_trace_unlock(struct task_struct *task)
{
	up_read(&task->signal->exec_update_lock);
}

/* ---- consumers (module/consumers.c) ---- */

static int kuw_consumers_open(struct inode *inode, struct file *file)
{
	int ret = kuw_open_may();

	if (ret)
		return ret;
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, kuw_consumers_show, NULL);
}

static ssize_t kuw_consumers_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *off)
{
	bool on;
	int ret;

	if (!kuw_write_may(file))
		return -EPERM;
	ret = kstrtobool_from_user(ubuf, len, &on);
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

/* One open file's address; seq_read() and writes take @lock. */
struct kuw_rules {
	struct mutex lock;	/* pc, src, set */
	unsigned long pc;
	u8 src;
	bool set;
	char sym[KSYM_SYMBOL_LEN];	/* show's, under the seq_file's lock */
	char row[512];
	struct kunwind_rule_info info;
};

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

/*
 * "0x..." / decimal, or SYMBOL[+OFF] (module symbols too).  Without the
 * right to see addresses (@show false) only SYMBOL[+OFF] within the
 * symbol: an address, or an offset past the symbol's end, would be
 * answered with the name of what is there.  0, -EINVAL or -EPERM.
 */
static int kuw_parse_addr(char *s, bool show, unsigned long *pc)
{
	unsigned long base, off = 0, start, size;
	char *plus;

	if (*s >= '0' && *s <= '9')
		return show ? kstrtoul(s, 0, pc) : -EPERM;
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
	if (!show && off &&
	    (!kuw_fn_extent(base, &start, &size) || start != base ||
	     off >= size))
		return -EPERM;
	*pc = base + off;
	return 0;
}

static char *kuw_copy_line(const char __user *ubuf, size_t len)
{
	if (!len || len > 255)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, len);
}

static ssize_t kuw_rules_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct kuw_rules *r = ((struct seq_file *)file->private_data)->private;
	bool show = kuw_show_addresses(file->f_cred);
	char *buf, *p, *addr, *src;
	unsigned long pc;
	u8 s;
	int ret;

	if (!kuw_write_may(file))
		return -EPERM;
	buf = kuw_copy_line(ubuf, len);
	if (IS_ERR(buf)) {
		kuw_bad("rules", "write of %zu bytes refused", len);
		return PTR_ERR(buf);
	}
	p = strim(buf);
	addr = strsep(&p, " \t");
	src = p ? strim(p) : NULL;
	ret = addr ? kuw_parse_addr(addr, show, &pc) : -EINVAL;
	if (ret == -EPERM) {
		kuw_bad("rules",
			"kernel addresses are hidden from this opener (kptr_restrict): SYMBOL[+OFF] within the symbol only");
		goto out;
	}
	if (ret) {
		kuw_bad("rules", "bad address or unknown symbol");
		goto out;
	}
	ret = kuw_parse_src(src, &s);
	if (ret) {
		kuw_bad("rules", "unknown source (eh_frame, debug_frame, sframe)");
		goto out;
	}
	ret = mutex_lock_killable(&r->lock);
	if (ret)
		goto out;
	r->pc = pc;
	r->src = s;
	r->set = true;
	mutex_unlock(&r->lock);
	*ppos = 0;	/* the next read of this file starts at the answer */
	ret = len;
out:
	kfree(buf);
	return ret;
}

static int kuw_rules_show(struct seq_file *m, void *v)
{
	struct kuw_rules *r = m->private;
	bool show = kuw_show_addresses(m->file->f_cred);
	struct kunwind_rule_info *info = &r->info;
	unsigned long pc;
	u8 src;
	bool set;
	int ret;

	ret = mutex_lock_killable(&r->lock);
	if (ret)
		return ret;
	pc = r->pc;
	src = r->src;
	set = r->set;
	mutex_unlock(&r->lock);
	if (!set) {
		seq_puts(m, "write an address or symbol[+off] first\n");
		return 0;
	}
	kuw_sym(r->sym, pc, show);
	seq_printf(m, "%s\n", r->sym);
	if (kunwind_rule_for_pc(pc, src, info) ||
	    kuw_format_row(r->row, sizeof(r->row), info->arch,
			   show ? info->row_pc : 0, &info->rule) < 0) {
		seq_printf(m, "0x%lx none\n", show ? pc : 0);
	} else {
		seq_printf(m, "%s\n", r->row);
		kuw_sym(r->sym, info->row_pc, show);
		seq_printf(m, "row %s %s %s\n", r->sym,
			   kuw_src_name(info->src), info->owner);
	}
	return 0;
}

static int kuw_rules_open(struct inode *inode, struct file *file)
{
	struct kuw_rules *r;
	int ret = kuw_open_may();

	if (ret)
		return ret;
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	mutex_init(&r->lock);
	r->src = KUNWIND_SRC_ANY;
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	ret = single_open(file, kuw_rules_show, r);
	if (ret)
		kfree(r);
	return ret;
}

static int kuw_rules_release(struct inode *inode, struct file *file)
{
	struct kuw_rules *r = ((struct seq_file *)file->private_data)->private;

	single_release(inode, file);
	kfree(r);
	return 0;
}

static const struct file_operations kuw_rules_fops = {
	.owner = THIS_MODULE,
	.open = kuw_rules_open,
	.read = seq_read,
	.write = kuw_rules_write,
	.llseek = seq_lseek,
	.release = kuw_rules_release,
};

/* ---- backtrace ---- */

/*
 * Each open file has its own result: a write walks and keeps the text in
 * the file's state, a read of the same file shows it.  Two readers do not
 * see each other's walks.  One write walks at a time per open file.
 */
#define KUW_BT_TASK	(32 * 1024)	/* one task's block at most */
#define KUW_BT_TAIL	256		/* kept for its last lines */
#define KUW_BT_MAX	(16 * 1024 * 1024)	/* one result at most */
#define KUW_BT_END	256		/* kept for "all"'s last lines */

struct kuw_bt {
	struct mutex lock;	/* text, len; one write at a time */
	struct pid_namespace *ns;	/* the opener's */
	char *text;
	size_t len;
};

/* One write's work: the result so far and one task's block. */
struct kuw_bt_ctx {
	char *out;		/* the result, grown as needed */
	size_t len, size;
	bool full;		/* KUW_BT_MAX reached: no more blocks */
	bool show;		/* addresses may be printed */
	char blk[KUW_BT_TASK];	/* one task's block */
	char sym[KSYM_SYMBOL_LEN];
	char row[256];
};

/* Append one whole block, or none (and note that the result is full). */
static void kuw_bt_put(struct kuw_bt_ctx *c, size_t n)
{
	size_t need = c->len + n + KUW_BT_END, size;
	char *nb;

	if (c->full)
		return;
	if (need > c->size) {
		size = max_t(size_t, need, 2 * c->size);
		size = max_t(size_t, size, 4096);
		if (need > KUW_BT_MAX) {
			c->full = true;
			return;
		}
		size = min_t(size_t, size, KUW_BT_MAX);
		nb = kvmalloc(size, GFP_KERNEL_ACCOUNT);
		if (!nb) {
			c->full = true;
			return;
		}
		if (c->len)
			memcpy(nb, c->out, c->len);
		kvfree(c->out);
		c->out = nb;
		c->size = size;
	}
	memcpy(c->out + c->len, c->blk, n);
	c->len += n;
}

/*
 * One task's walk, into c->blk after @n bytes already there.  The last
 * KUW_BT_TAIL bytes are kept for "truncated:", "stop:" and "reliable:".
 */
static size_t kuw_bt_walk(struct kuw_bt_ctx *c, struct task_struct *task,
			  size_t n)
{
	const size_t lim = sizeof(c->blk) - KUW_BT_TAIL;
	struct kunwind_state state;
	unsigned long pc;
	u32 i = 0, cut = 0;
	int w;

	rcu_read_lock();
	kunwind_start(&state, task, NULL, NULL);
	while (!kunwind_done(&state)) {
		pc = kunwind_get_return_address(&state);
		kunwind_next_frame(&state);
		if (cut) {
			cut++;
			i++;
			continue;
		}
		if (state.rule && state.table) {
			if (kuw_format_row(c->row, sizeof(c->row),
					   state.table->arch,
					   c->show ? state.row_pc : 0,
					   state.rule) < 0)
				strscpy(c->row, "?", sizeof(c->row));
		} else {
			scnprintf(c->row, sizeof(c->row), "-%s%s",
				  kunwind_done(&state) ? "" : " ",
				  kunwind_done(&state) ? "" :
				  kuw_how_name(state.how));
		}
		kuw_sym(c->sym, pc, c->show);
		w = snprintf(c->blk + n, lim - n, "%2u 0x%lx %s %s%s%s\n",
			     i, c->show ? pc : 0, c->sym, state.table ?
			     kuw_src_name(state.table->src) : "",
			     state.table ? " " : "", c->row);
		i++;
		if (w < 0 || w >= lim - n) {
			c->blk[n] = 0;	/* that line does not fit: none from here */
			cut = 1;
			continue;
		}
		n += w;
	}
	rcu_read_unlock();
	if (cut)
		n += scnprintf(c->blk + n, sizeof(c->blk) - n,
			       "truncated: %u of %u frames not shown\n", cut, i);
	/*
	 * A task that ran while its stack was read ends "task running", as
	 * one found running at the start does (kunwind.h)
	 */
	n += scnprintf(c->blk + n, sizeof(c->blk) - n,
		       "stop: %s\nreliable: %s\n",
		       kunwind_strerror(kunwind_stop_reason(&state)),
		       kunwind_reliable(&state) ? "yes" : "no");
	return n;
}

/*
 * One task, headed "task PID COMM" when @nr is not 0, appended to the
 * result.  The writer must be allowed to trace it (kuw_trace_lock());
 * another task's stack is pinned while it is walked.  0, -EPERM, -EINTR.
 */
static int kuw_bt_task(struct kuw_bt_ctx *c, struct task_struct *task,
		       pid_t nr)
{
	size_t n = 0;
	int ret;

	ret = kuw_trace_lock(task);
	if (ret)
		return ret;
	if (nr)
		n = scnprintf(c->blk, sizeof(c->blk), "task %d %s\n", nr,
			      task->comm);
	if (task != current && !try_get_task_stack(task)) {
		n += scnprintf(c->blk + n, sizeof(c->blk) - n,
			       "stop: task exited\nreliable: no\n");
	} else {
		n = kuw_bt_walk(c, task, n);
		if (task != current)
			kuw_put_task_stack(task);
	}
	kuw_trace_unlock(task);
	kuw_bt_put(c, n);
	return 0;
}

/*
 * "all": every thread visible in @ns, by pid there, one block each; the
 * ones the writer may not trace are left out and counted.
 */
static int kuw_bt_all(struct kuw_bt_ctx *c, struct pid_namespace *ns)
{
	unsigned int listed = 0, denied = 0, left = 0;
	struct task_struct *t;
	struct pid *pid;
	int nr = 1, ret = 0;

	for (;;) {
		t = NULL;
		rcu_read_lock();
		pid = find_ge_pid(nr, ns);
		if (pid) {
			nr = pid_nr_ns(pid, ns);
			t = pid_task(pid, PIDTYPE_PID);
			if (t)
				get_task_struct(t);
		}
		rcu_read_unlock();
		if (!pid)
			break;
		if (t && c->full) {
			left++;
		} else if (t) {
			ret = kuw_bt_task(c, t, nr);
			if (ret == -EPERM)
				denied++;
			else if (!ret && !c->full)
				listed++;
			else if (!ret)
				left++;
		}
		if (t)
			put_task_struct(t);
		if (ret == -EINTR || fatal_signal_pending(current))
			return -EINTR;
		ret = 0;
		nr++;
		cond_resched();
	}
	/* kuw_bt_put() kept KUW_BT_END bytes for these */
	if (denied)
		c->len += scnprintf(c->out + c->len, c->size - c->len,
				    "skipped: %u tasks this opener may not trace\n",
				    denied);
	if (left)
		c->len += scnprintf(c->out + c->len, c->size - c->len,
				    "truncated: %u of %u tasks listed (%u bytes at most)\n",
				    listed, listed + left, KUW_BT_MAX);
	return 0;
}

/* Parse "self", "pid N" or "all" and walk into c->out. */
static int kuw_bt_run(struct kuw_bt_ctx *c, const char *p,
		      struct pid_namespace *ns)
{
	struct task_struct *task;
	int pid, ret;

	/* the result holds at least the last lines */
	c->out = kvmalloc(4096, GFP_KERNEL_ACCOUNT);
	if (!c->out)
		return -ENOMEM;
	c->size = 4096;
	if (!strcmp(p, "all"))
		return kuw_bt_all(c, ns);
	if (!strcmp(p, "self")) {
		task = get_task_struct(current);
	} else if (!strncmp(p, "pid ", 4) &&
		   !kstrtoint(strim((char *)p + 4), 10, &pid) && pid > 0) {
		/* the pid as the opener's namespace numbers it */
		rcu_read_lock();
		task = pid_task(find_pid_ns(pid, ns), PIDTYPE_PID);
		if (task)
			get_task_struct(task);
		rcu_read_unlock();
		if (!task) {
			kuw_bad("backtrace", "no task with pid %d", pid);
			return -ESRCH;
		}
	} else {
		kuw_bad("backtrace", "expected 'self', 'pid N' or 'all'");
		return -EINVAL;
	}
	ret = kuw_bt_task(c, task, 0);
	put_task_struct(task);
	if (ret == -EPERM)
		kuw_bad("backtrace", "may not trace that task (ptrace access)");
	return ret;
}

static ssize_t kuw_bt_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct kuw_bt *bt = file->private_data;
	struct kuw_bt_ctx *c;
	char *buf;
	int ret;

	if (!kuw_write_may(file))
		return -EPERM;
	buf = kuw_copy_line(ubuf, len);
	if (IS_ERR(buf)) {
		kuw_bad("backtrace", "write of %zu bytes refused", len);
		return PTR_ERR(buf);
	}
	c = kvzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c) {
		kfree(buf);
		return -ENOMEM;
	}
	c->show = kuw_show_addresses(file->f_cred);
	ret = mutex_lock_killable(&bt->lock);
	if (!ret) {
		ret = kuw_bt_run(c, strim(buf), bt->ns);
		if (!ret) {
			swap(bt->text, c->out);
			bt->len = c->len;
			*ppos = 0;	/* the next read starts at the new result */
		}
		mutex_unlock(&bt->lock);
	}
	kvfree(c->out);
	kvfree(c);
	kfree(buf);
	return ret ? ret : len;
}

static ssize_t kuw_bt_read(struct file *file, char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	static const char hint[] = "write 'self', 'pid N' or 'all' first\n";
	struct kuw_bt *bt = file->private_data;
	ssize_t ret;

	ret = mutex_lock_killable(&bt->lock);
	if (ret)
		return ret;
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
	struct kuw_bt *bt;
	int ret = kuw_open_may();

	if (ret)
		return ret;
	bt = kzalloc(sizeof(*bt), GFP_KERNEL_ACCOUNT);
	if (!bt)
		return -ENOMEM;
	mutex_init(&bt->lock);
	bt->ns = get_pid_ns(task_active_pid_ns(current));
	file->private_data = bt;
	return 0;
}

static int kuw_bt_release(struct inode *inode, struct file *file)
{
	struct kuw_bt *bt = file->private_data;

	put_pid_ns(bt->ns);
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

/* bytes of blobs being written, over every open file */
#define KUW_LOAD_INFLIGHT	(256L * 1024 * 1024)
static atomic_long_t kuw_load_inflight = ATOMIC_LONG_INIT(0);

struct kuw_load {
	struct mutex lock;	/* everything below; one write at a time */
	u8 *buf;
	size_t size;	/* of buf, counted in kuw_load_inflight */
	size_t len;	/* bytes received */
	size_t want;	/* the whole blob once the header is in, else 0 */
	bool done;	/* applied or refused: further writes refused */
};

static int kuw_load_open(struct inode *inode, struct file *file)
{
	struct kuw_load *l;
	int ret = kuw_open_may();

	if (ret)
		return ret;
	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	if (!l)
		return -ENOMEM;
	mutex_init(&l->lock);
	file->private_data = l;
	return nonseekable_open(inode, file);
}

static void kuw_load_free(struct kuw_load *l)
{
	kvfree(l->buf);
	l->buf = NULL;
	atomic_long_sub(l->size, &kuw_load_inflight);
	l->size = 0;
}

static int kuw_load_release(struct inode *inode, struct file *file)
{
	struct kuw_load *l = file->private_data;

	if (l->len && !l->done)
		kuw_bad("load", "blob incomplete (%zu of %zu bytes): ignored",
			l->len, l->want);
	kuw_load_free(l);
	kfree(l);
	return 0;
}

/*
 * Room for @need bytes: the buffer doubles as bytes arrive, up to the size
 * the header announced (the header's own 160 bytes before), charged to
 * the writer.
 */
static int kuw_load_room(struct kuw_load *l, size_t need)
{
	size_t size, cap = l->want ? l->want : KUW_BLOB_HDR_SIZE;
	u8 *nb;

	if (need <= l->size)
		return 0;
	size = min(max3(need, 2 * l->size, (size_t)4096), cap);
	if (atomic_long_add_return(size - l->size, &kuw_load_inflight) >
	    KUW_LOAD_INFLIGHT) {
		atomic_long_sub(size - l->size, &kuw_load_inflight);
		kuw_bad("load", "more than %ld bytes of blobs in flight",
			KUW_LOAD_INFLIGHT);
		return -ENOMEM;
	}
	nb = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!nb) {
		atomic_long_sub(size - l->size, &kuw_load_inflight);
		return -ENOMEM;
	}
	if (l->len)
		memcpy(nb, l->buf, l->len);
	kvfree(l->buf);
	l->buf = nb;
	l->size = size;
	return 0;
}

/*
 * Take what @ubuf has of the blob, l->lock held.  Return: the bytes
 * consumed (a short write when a page of @ubuf faulted after some were),
 * or an errno when none were or the blob was refused.
 */
static ssize_t kuw_load_take(struct kuw_load *l, const char __user *ubuf,
			     size_t len)
{
	size_t got = 0, n, left, was;
	int ret;

	if (l->done) {
		kuw_bad("load", "write after the blob ended");
		return -EINVAL;
	}
	while (got < len) {
		/* the header first, then the size it announces */
		n = min(len - got, (l->want ? l->want : KUW_BLOB_HDR_SIZE) -
			l->len);
		if (!n)
			break;
		ret = kuw_load_room(l, l->len + n);
		if (ret)
			return got ? got : ret;
		left = copy_from_user(l->buf + l->len, ubuf + got, n);
		if (left == n)
			return got ? got : -EFAULT;
		n -= left;
		was = l->len;
		l->len += n;
		got += n;
		if (l->len >= sizeof(KUW_BLOB_MAGIC) &&
		    was < sizeof(KUW_BLOB_MAGIC) &&
		    memcmp(l->buf, KUW_BLOB_MAGIC, sizeof(KUW_BLOB_MAGIC))) {
			l->done = true;
			kuw_bad("load", "not a blob (bad magic)");
			return -EINVAL;
		}
		if (!l->want && l->len == KUW_BLOB_HDR_SIZE) {
			l->want = kuw_blob_total(l->buf);
			if (!l->want) {
				l->done = true;
				kuw_bad("load", "bad section or map size in the header");
				return -EINVAL;
			}
		}
		if (left)
			return got;	/* short: the caller writes the rest */
		if (l->want && l->len == l->want)
			break;
	}
	if (got < len) {
		l->done = true;
		kuw_bad("load", "%zu bytes beyond the blob's end", len - got);
		return -EINVAL;
	}
	if (!l->want || l->len < l->want)
		return got;
	l->done = true;
	ret = kuw_blob_apply(l->buf, l->len);
	if (ret)
		return ret;
	/* the registry owns the buffer now */
	l->buf = NULL;
	atomic_long_sub(l->size, &kuw_load_inflight);
	l->size = 0;
	return got;
}

static ssize_t kuw_load_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct kuw_load *l = file->private_data;
	ssize_t ret;

	if (!kuw_write_may(file))
		return -EPERM;
	if (!len)
		return 0;
	ret = mutex_lock_killable(&l->lock);
	if (ret)
		return ret;
	ret = kuw_load_take(l, ubuf, len);
	mutex_unlock(&l->lock);
	return ret;
}

/* ---- unload ---- */

static ssize_t kuw_unload_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char *buf, *p, *owner, *sec;
	u8 src;
	int ret;

	if (!kuw_write_may(file))
		return -EPERM;
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
	/* lockdown=integrity: untrusted tables only (lockdown.c says why) */
	ret = kuw_registry_drop_table(owner, src, true);
	if (ret > 0) {
		ret = -EPERM;
		goto out;
	}
	if (ret) {
		kuw_bad("unload", "%*pE %s: %s", (int)strnlen(owner, 64),
			owner, kuw_src_name(src), kuw_strerror(ret));
		ret = kunwind_errno(ret);
		goto out;
	}
	pr_info("%s: %s table dropped\n", owner, kuw_src_section(src));
	ret = len;
out:
	kfree(buf);
	return ret;
}

static int kuw_unload_open(struct inode *inode, struct file *file)
{
	int ret = kuw_open_may();

	return ret ? ret : nonseekable_open(inode, file);
}

static const struct file_operations kuw_unload_fops = {
	.owner = THIS_MODULE,
	.open = kuw_unload_open,
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

	/* not found: no addresses shown, only the caller's threads walked */
	kuw_lookup_fn(kallsyms_show_value);
	kuw_lookup_fn(ptrace_may_access);
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
