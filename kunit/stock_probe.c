// SPDX-License-Identifier: GPL-2.0
/*
 * stock_probe: a kprobe payload for the stock-kernel test bed (make
 * check-stock), built against the stock headers like demo_oops.
 *
 * A kprobe on @sym (+@off), a function of a stock module (e.g. loop.ko's
 * loop_configure, reached from lo_ioctl on LOOP_SET_FD); without @sym the
 * module loads idle (make check loads every test module on its kernel).
 * /dev/kunwind_stock_probe/walk takes "probe SYM [OFF]" (move the kprobe
 * there), "unprobe", or anything else (arm it); armed, the next hit walks
 * from the probe's pt_regs three ways.  The probe moves by a write rather
 * than by loading the module again: on a locked-down kernel (make
 * check-stock raises lockdown) this module, signed with a key the stock
 * kernel does not trust, loads only before lockdown is raised.
 *
 *
 *   kernel  the kernel's own unwinder, as stack_trace_save_regs() does it
 *           (not exported): on x86_64 ORC (Debian's kernel), regs->ip,
 *           then unwind_start()/unwind_next_frame() from the regs; on
 *           arm64 the frame-record walker, arch_stack_walk() from the regs
 *           (found with kallsyms_lookup_name(), as kunit/arch/arm64/
 *           kt_arch.h does): regs->pc, then the frame records from x29,
 *           so it misses the caller of a function probed before it saved
 *           its record (the return address is still in x30);
 *   any     kunwind, any table, ORC where no table covers a frame;
 *   noorc   kunwind alone (KUNWIND_NO_ORC): its tables only.
 *
 * For each kunwind frame: how it was reached (state->how), the table whose
 * row stepped into it (state->table, "-" when ORC or none did), and the
 * table holding the row in force at its pc (kunwind_rule_for_pc()).  A
 * read of the file prints the last result (a frame's line cut in two here):
 *
 *   sym loop_configure+0x0 hits 3 pid 52 comm losetup
 *   kernel 7 error 0
 *   kernel 0 0xffffffffc0a1c0e1 loop_configure+0x1/0x4c0 [loop]
 *   ...
 *   any 7 stop end of stack reliable yes
 *   any 0 0xffffffffc0a1c0e1 loop_configure+0x1/0x4c0 [loop] how start
 *         via - row loop/debug_frame
 *   any 1 0xffffffffc0a1d2a3 lo_ioctl+0x1b3/0x7e0 [loop] how cfi
 *         via loop/debug_frame row loop/debug_frame
 *   ...
 *
 * The guest (scripts/init/stock.sh) compares the pcs with the kernel's and
 * checks which table stepped the frames inside the stock module.
 */
#include <linux/atomic.h>
#include <linux/miscdevice.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86_64
#include <asm/unwind.h>
#endif
#include "kunwind.h"
#include "kt_lookup.h"

static char *sym = "";
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "function to probe (none: the module loads idle, as make check loads every test module)");
static unsigned int off;
module_param(off, uint, 0444);
MODULE_PARM_DESC(off, "offset of the probe in it (default 0)");

#define SP_MAX	64

struct sp_frame {
	unsigned long pc;
	u8 how;
	bool via;			/* stepped into with a table row */
	u8 via_src;
	bool row;			/* a table covers the frame's pc */
	u8 row_src;
	char via_owner[MODULE_NAME_LEN];
	char row_owner[MODULE_NAME_LEN];
};

struct sp_walk {
	struct sp_frame f[SP_MAX];
	unsigned int n;
	int err;
	bool reliable;
};

static struct {
	struct sp_walk any, noorc;
	unsigned long kpc[SP_MAX];
	unsigned int kn;
	int kerr;
	pid_t pid;
	char comm[TASK_COMM_LEN];
} sp_res;

/* Used by the one handler that took the arming (sp_armed): not shared. */
static struct kunwind_rule_info sp_info;
static atomic_t sp_armed = ATOMIC_INIT(0);
static atomic_t sp_done = ATOMIC_INIT(0);
static atomic_t sp_hits = ATOMIC_INIT(0);
static DEFINE_MUTEX(sp_lock);		/* readers, arming, the probe */
static struct kprobe sp_kp;
static bool sp_registered;		/* sp_kp */
static char sp_sym[128];
static unsigned int sp_off;

static const char *const sp_how[] = {
	[KUNWIND_FRAME_START] = "start",
	[KUNWIND_FRAME_CFI] = "cfi",
	[KUNWIND_FRAME_PT_REGS] = "pt_regs",
	[KUNWIND_FRAME_ORC] = "orc",
	[KUNWIND_FRAME_FP] = "fp",
};

static void sp_walk(struct sp_walk *w, struct pt_regs *regs, u8 src)
{
	struct kunwind_state st;
	struct sp_frame *f;
	unsigned long look;

	w->n = 0;
	for (__kunwind_start(&st, current, regs, NULL, src);
	     !kunwind_done(&st) && w->n < SP_MAX; kunwind_next_frame(&st)) {
		f = &w->f[w->n++];
		memset(f, 0, sizeof(*f));
		f->pc = kunwind_get_return_address(&st);
		f->how = st.how;
		if (st.table) {
			f->via = true;
			f->via_src = st.table->src;
			strscpy(f->via_owner, st.table->owner ?: "?",
				sizeof(f->via_owner));
		}
		/* a return address is looked up inside its call */
		look = st.signal ? f->pc : f->pc - 1;
		if (!kunwind_rule_for_pc(look, KUNWIND_SRC_ANY, &sp_info)) {
			f->row = true;
			f->row_src = sp_info.src;
			strscpy(f->row_owner, sp_info.owner,
				sizeof(f->row_owner));
		}
	}
	w->err = kunwind_stop_reason(&st);
	w->reliable = kunwind_reliable(&st);
}

#ifdef CONFIG_X86_64
/* stack_trace_save_regs(): arch_stack_walk() with regs, ORC here */
static void sp_kernel_walk(struct pt_regs *regs)
{
	struct unwind_state os;
	unsigned long addr;

	sp_res.kn = 0;
	sp_res.kpc[sp_res.kn++] = regs->ip;
	for (unwind_start(&os, current, regs, NULL); !unwind_done(&os);
	     unwind_next_frame(&os)) {
		addr = unwind_get_return_address(&os);
		if (!addr || sp_res.kn >= SP_MAX)
			break;
		sp_res.kpc[sp_res.kn++] = addr;
	}
	sp_res.kerr = unwind_error(&os);
}

static int sp_kernel_walk_init(void)
{
	return 0;
}
#else
/*
 * arm64: arch_stack_walk() itself, not exported: found with
 * kallsyms_lookup_name(), whose address a kprobe gives (at load time, not
 * in the probe handler).  From regs it reports regs->pc first, then each
 * frame record's return address.
 */
KUW_INTERNAL(arch_stack_walk);

static bool sp_consume(void *cookie, unsigned long pc)
{
	if (sp_res.kn >= SP_MAX)
		return false;
	sp_res.kpc[sp_res.kn++] = pc;
	return true;
}

static void sp_kernel_walk(struct pt_regs *regs)
{
	sp_res.kn = 0;
	sp_res.kerr = 0;
	kuw_call(arch_stack_walk, sp_consume, NULL, current, regs);
}

static int sp_kernel_walk_init(void)
{
	return kt_lookup_fn(arch_stack_walk) ? 0 : -ENOENT;
}
#endif

static int sp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&sp_hits);
	if (atomic_cmpxchg(&sp_armed, 1, 0) != 1)
		return 0;
	sp_res.pid = current->pid;
	get_task_comm(sp_res.comm, current);
	sp_kernel_walk(regs);
	sp_walk(&sp_res.any, regs, KUNWIND_SRC_ANY);
	sp_walk(&sp_res.noorc, regs, KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
	atomic_set_release(&sp_done, 1);
	return 0;
}

/* Move the probe to @name+@at ("" removes it).  Under sp_lock. */
static int sp_probe(const char *name, unsigned int at)
{
	int ret;

	if (sp_registered) {
		unregister_kprobe(&sp_kp);
		sp_registered = false;
		pr_info("stock_probe: kprobe on %s+0x%x removed\n", sp_sym, sp_off);
	}
	sp_sym[0] = 0;
	sp_off = 0;
	if (!*name)
		return 0;
	strscpy(sp_sym, name, sizeof(sp_sym));
	memset(&sp_kp, 0, sizeof(sp_kp));
	sp_kp.pre_handler = sp_pre;
	sp_kp.symbol_name = sp_sym;
	sp_kp.offset = at;
	ret = register_kprobe(&sp_kp);
	if (ret) {
		pr_err("stock_probe: kprobe on %s+0x%x: %d\n", name, at, ret);
		sp_sym[0] = 0;
		return ret;
	}
	sp_registered = true;
	sp_off = at;
	atomic_set(&sp_done, 0);
	atomic_set(&sp_armed, 0);
	atomic_set(&sp_hits, 0);
	pr_info("stock_probe: kprobe on %s+0x%x at %pS\n", name, at, sp_kp.addr);
	return 0;
}

static void sp_show_walk(struct seq_file *m, const char *name,
			 const struct sp_walk *w)
{
	const struct sp_frame *f;
	unsigned int i;

	seq_printf(m, "%s %u stop %s reliable %s\n", name, w->n,
		   kunwind_strerror(w->err), w->reliable ? "yes" : "no");
	for (i = 0; i < w->n; i++) {
		f = &w->f[i];
		seq_printf(m, "%s %u 0x%lx %pS how %s via ", name, i, f->pc,
			   (void *)f->pc,
			   f->how < ARRAY_SIZE(sp_how) ? sp_how[f->how] : "?");
		if (f->via)
			seq_printf(m, "%s/%s", f->via_owner,
				   kuw_src_name(f->via_src));
		else
			seq_puts(m, "-");
		if (f->row)
			seq_printf(m, " row %s/%s\n", f->row_owner,
				   kuw_src_name(f->row_src));
		else
			seq_puts(m, " row -\n");
	}
}

static int sp_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&sp_lock);
	seq_printf(m, "sym %s+0x%x hits %d", sp_sym, sp_off,
		   atomic_read(&sp_hits));
	if (!atomic_read_acquire(&sp_done)) {
		seq_puts(m, " walk none\n");
		mutex_unlock(&sp_lock);
		return 0;
	}
	seq_printf(m, " pid %d comm %s\n", sp_res.pid, sp_res.comm);
	seq_printf(m, "kernel %u error %d\n", sp_res.kn, sp_res.kerr);
	for (i = 0; i < sp_res.kn; i++)
		seq_printf(m, "kernel %u 0x%lx %pS\n", i, sp_res.kpc[i],
			   (void *)sp_res.kpc[i]);
	sp_show_walk(m, "any", &sp_res.any);
	sp_show_walk(m, "noorc", &sp_res.noorc);
	mutex_unlock(&sp_lock);
	return 0;
}

static int sp_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, sp_show, NULL);
}

/*
 * "probe SYM [OFF]" moves the probe, "unprobe" removes it, anything else
 * arms it: the next hit records its walks.
 */
static ssize_t sp_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	char buf[160], name[128];
	unsigned int at = 0;
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	mutex_lock(&sp_lock);
	if (!strncmp(buf, "probe ", 6)) {
		if (sscanf(buf + 6, "%127s %u", name, &at) < 1)
			ret = -EINVAL;
		else
			ret = sp_probe(name, at);
	} else if (!strncmp(buf, "unprobe", 7)) {
		ret = sp_probe("", 0);
	} else if (!sp_registered) {
		ret = -ENOENT;
	} else {
		atomic_set(&sp_done, 0);
		atomic_set(&sp_armed, 1);
	}
	mutex_unlock(&sp_lock);
	return ret ? ret : len;
}

static const struct file_operations sp_fops = {
	.owner = THIS_MODULE,
	.open = sp_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = sp_write,
};

/* A character device, not debugfs: it works on a locked-down kernel too. */
static struct miscdevice sp_dev = {
	.minor = MISC_DYNAMIC_MINOR, .name = "kunwind_stock_probe-walk",
	.nodename = "kunwind_stock_probe/walk", .fops = &sp_fops, .mode = 0600,
};

static int __init sp_init(void)
{
	int ret;

	ret = sp_kernel_walk_init();
	if (ret) {
		pr_err("stock_probe: the kernel's unwinder not found: %d\n", ret);
		return ret;
	}
	if (sym && *sym) {
		ret = sp_probe(sym, off);
		if (ret)
			return ret;
	} else {
		pr_info("stock_probe: no sym=, nothing probed yet\n");
	}
	ret = misc_register(&sp_dev);
	if (ret)
		sp_probe("", 0);
	return ret;
}

static void __exit sp_exit(void)
{
	misc_deregister(&sp_dev);
	sp_probe("", 0);
}

module_init(sp_init);
module_exit(sp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind stock-kernel bed: walks from a kprobe in a stock module, beside the kernel's own");
