// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kunwind's unwinder, run at load under QEMU (make check).
 * The chain of kunit/chain.c is part of this translation unit, so this
 * module carries .eh_frame and .sframe for it (kunit/Kbuild).
 *
 * Independent truths: the kernel's own ORC unwinder (stack_trace_save(),
 * unwind_start()) on the same stack, the function names the chain is made
 * of, and the x86_64 ABI's rule at a function's first instruction.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/unwind.h>
#include "kunwind.h"
#include "arch.h"
#include "blob.h"
#include "chain.c"

#define KT_MAX	96

struct kt_trace {
	unsigned long pc[KT_MAX];
	u8 how[KT_MAX];
	unsigned int n;
	int err;
	bool reliable;
};

/* The first frame of a trace from here is kt_unwind itself. */
static noinline void kt_unwind(struct kt_trace *t, struct task_struct *task,
			       struct pt_regs *regs, u8 src)
{
	struct kunwind_state st;

	t->n = 0;
	for (__kunwind_start(&st, task, regs, NULL, src); !kunwind_done(&st);
	     kunwind_next_frame(&st))
		if (t->n < KT_MAX) {
			t->how[t->n] = st.how;
			t->pc[t->n++] = kunwind_get_return_address(&st);
		}
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
	barrier();
}

/* Is @pc in the function called @name (of any module or vmlinux)? */
static bool kt_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) && (sym[n] == 0 || sym[n] == ' ');
}

static void kt_dump(struct kunit *test, const char *what,
		    const unsigned long *pc, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		kunit_info(test, "%s %2u %pS\n", what, i, (void *)pc[i]);
}

/* ---- unwinding from inside the chain ---- */

struct kt_leaf {
	u8 src;
	struct kt_trace ours;
	unsigned long orc[KT_MAX];
	unsigned int norc;
};

static noinline int kt_leaf(struct kuw_chain *c)
{
	struct kt_leaf *l = c->priv;

	kt_unwind(&l->ours, NULL, NULL, l->src);
	l->norc = stack_trace_save(l->orc, KT_MAX, 0);
	barrier();
	return 0;
}

/* ours: kt_unwind, kt_leaf, then @names, then the test function */
static void kt_expect_chain(struct kunit *test, const struct kt_trace *t,
			    const char *const *names, unsigned int nnames,
			    const char *test_fn)
{
	unsigned int i;

	KUNIT_ASSERT_GE(test, t->n, nnames + 3);
	KUNIT_EXPECT_TRUE(test, kt_is(t->pc[0], "kt_unwind"));
	KUNIT_EXPECT_TRUE(test, kt_is(t->pc[1], "kt_leaf"));
	for (i = 0; i < nnames; i++)
		KUNIT_EXPECT_TRUE_MSG(test, kt_is(t->pc[2 + i], names[i]),
				      "frame %u: %pS, expected %s", 2 + i,
				      (void *)t->pc[2 + i], names[i]);
	KUNIT_EXPECT_TRUE_MSG(test, kt_is(t->pc[2 + nnames], test_fn),
			      "frame %u: %pS, expected %s", 2 + nnames,
			      (void *)t->pc[2 + nnames], test_fn);
}

/* Same return addresses as ORC, from the leaf's caller to the end. */
static void kt_expect_orc(struct kunit *test, const struct kt_leaf *l)
{
	unsigned int i, same = 0;

	KUNIT_EXPECT_EQ(test, l->ours.n - 2, l->norc - 1);
	for (i = 0; i + 2 < l->ours.n && i + 1 < l->norc; i++)
		if (l->ours.pc[i + 2] == l->orc[i + 1])
			same++;
	KUNIT_EXPECT_EQ(test, same, l->norc - 1);
	if (same != l->norc - 1 || l->ours.n - 2 != l->norc - 1) {
		kt_dump(test, "kunwind", l->ours.pc, l->ours.n);
		kt_dump(test, "orc", l->orc, l->norc);
	}
}

static noinline __noclone void kt_chain_case(struct kunit *test, u8 src,
					     bool sig)
{
	unsigned int i;
	struct kt_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_leaf, .alloca_n = 200, .sig = sig };

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->src = src;
	c.priv = l;
	kuw_chain_run(&c);
	if (sig)
		kt_expect_chain(test, &l->ours, kuw_chain_frames_sig,
				ARRAY_SIZE(kuw_chain_frames_sig), "kt_chain_case");
	else
		kt_expect_chain(test, &l->ours, kuw_chain_frames_plain,
				ARRAY_SIZE(kuw_chain_frames_plain),
				"kt_chain_case");
	KUNIT_EXPECT_EQ_MSG(test, l->ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->ours.err));
	KUNIT_EXPECT_TRUE(test, l->ours.reliable);
	if (!l->ours.reliable)
		for (i = 0; i < l->ours.n; i++)
			kunit_info(test, "%2u %pS how %u\n", i,
				   (void *)l->ours.pc[i], l->ours.how[i]);
	if (!sig)
		kt_expect_orc(test, l);
}

static void kt_chain_eh_frame(struct kunit *test)
{
	kt_chain_case(test, KUW_SRC_EH_FRAME, false);
}

static void kt_chain_sframe(struct kunit *test)
{
	kt_chain_case(test, KUW_SRC_SFRAME, false);
}

static void kt_chain_any(struct kunit *test)
{
	kt_chain_case(test, KUNWIND_SRC_ANY, false);
}

/* The victim's frame is an exact pc: its first instruction. */
static void kt_chain_signal_frame(struct kunit *test)
{
	struct kt_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_leaf, .alloca_n = 24, .sig = true };
	unsigned int i;
	bool seen = false;

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->src = KUW_SRC_EH_FRAME;
	c.priv = l;
	kuw_chain_run(&c);
	kt_expect_chain(test, &l->ours, kuw_chain_frames_sig,
			ARRAY_SIZE(kuw_chain_frames_sig), __func__);
	for (i = 0; i < l->ours.n; i++)
		if (l->ours.pc[i] == (unsigned long)kuw_chain_sig_victim)
			seen = true;
	KUNIT_EXPECT_TRUE(test, seen);
	KUNIT_EXPECT_EQ_MSG(test, l->ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(l->ours.err));
}

/* ---- a sleeping task ---- */

struct kt_sleeper {
	struct completion ready, go;
};

static noinline int kt_sleep_leaf(struct kuw_chain *c)
{
	struct kt_sleeper *s = c->priv;

	complete(&s->ready);
	wait_for_completion(&s->go);
	return 0;
}

static int kt_sleeper_fn(void *arg)
{
	struct kuw_chain c = { .leaf = kt_sleep_leaf, .priv = arg,
			       .alloca_n = 64 };

	kuw_chain_run(&c);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kt_sleeping_task(struct kunit *test)
{
	struct kt_sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct kt_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned long *orc = kunit_kcalloc(test, KT_MAX, sizeof(long),
					   GFP_KERNEL);
	struct unwind_state os;
	struct task_struct *task;
	unsigned int n = 0, i, first = 0;
	int tries;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, orc);
	init_completion(&s->ready);
	init_completion(&s->go);
	task = kthread_run(kt_sleeper_fn, s, "kuw_sleeper");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	wait_for_completion(&s->ready);
	for (tries = 0; tries < 2000; tries++) {
		if (READ_ONCE(task->__state) != TASK_RUNNING &&
		    !READ_ONCE(task->on_cpu))
			break;
		usleep_range(100, 200);
	}
	kt_unwind(t, task, NULL, KUNWIND_SRC_ANY);
	for (unwind_start(&os, task, NULL, NULL); !unwind_done(&os);
	     unwind_next_frame(&os))
		if (n < KT_MAX)
			orc[n++] = unwind_get_return_address(&os);
	complete(&s->go);
	kthread_stop(task);
	put_task_struct(task);

	KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(t->err));
	KUNIT_EXPECT_EQ(test, t->n, n);
	for (i = 0; i < min(t->n, n); i++)
		KUNIT_EXPECT_EQ_MSG(test, t->pc[i], orc[i], "frame %u", i);
	/* the chain is there, below the leaf */
	for (i = 0; i < t->n; i++)
		if (kt_is(t->pc[i], "kt_sleep_leaf"))
			first = i + 1;
	KUNIT_ASSERT_GT(test, first, 0U);
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain) &&
	     first + i < t->n; i++)
		KUNIT_EXPECT_TRUE(test, kt_is(t->pc[first + i],
					      kuw_chain_frames_plain[i]));
	if (t->n != n)
		kt_dump(test, "kunwind", t->pc, t->n), kt_dump(test, "orc", orc, n);
}

static int kt_never_fn(void *arg)
{
	return 0;
}

/*
 * A kthread created but not woken: it waits in kthread() for its first
 * wake-up.  Same frames as ORC, down to ret_from_fork, and a clean end.
 */
static void kt_new_task(struct kunit *test)
{
	struct kt_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct unwind_state os;
	struct task_struct *task;
	unsigned long orc[KT_MAX / 4];
	unsigned int n = 0, i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	task = kthread_create(kt_never_fn, NULL, "kuw_new");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kt_unwind(t, task, NULL, KUNWIND_SRC_ANY);
	for (unwind_start(&os, task, NULL, NULL); !unwind_done(&os);
	     unwind_next_frame(&os))
		if (n < ARRAY_SIZE(orc))
			orc[n++] = unwind_get_return_address(&os);
	kthread_stop(task);
	KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(t->err));
	KUNIT_EXPECT_EQ(test, t->n, n);
	for (i = 0; i < min(t->n, n); i++)
		KUNIT_EXPECT_EQ(test, t->pc[i], orc[i]);
	KUNIT_EXPECT_TRUE(test, t->n && kt_is(t->pc[t->n - 1], "ret_from_fork"));
	KUNIT_EXPECT_TRUE(test, t->reliable);
}

/* ---- from a hard interrupt, across the IRQ entry into the chain ---- */

struct kt_irq {
	struct hrtimer timer;
	struct kt_leaf l;
	int done;
};

static struct kt_irq *kt_irq_cur;

static enum hrtimer_restart kt_irq_fn(struct hrtimer *h)
{
	struct kt_irq *k = container_of(h, struct kt_irq, timer);

	kt_unwind(&k->l.ours, NULL, NULL, KUNWIND_SRC_ANY);
	k->l.norc = stack_trace_save(k->l.orc, KT_MAX, 0);
	/* publish the traces before the flag the spinning chain polls */
	smp_store_release(&k->done, 1);
	return HRTIMER_NORESTART;
}

static noinline int kt_spin_leaf(struct kuw_chain *c)
{
	struct kt_irq *k = c->priv;
	unsigned long end = jiffies + 2 * HZ;

	/* pairs with the release in kt_irq_fn() */
	while (!smp_load_acquire(&k->done) && time_before(jiffies, end))
		cpu_relax();
	return 0;
}

static void kt_irq_context(struct kunit *test)
{
	struct kt_irq *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_spin_leaf, .alloca_n = 32 };
	unsigned int i, chain_at = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	c.priv = k;
	kt_irq_cur = k;
	hrtimer_init(&k->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	k->timer.function = kt_irq_fn;
	preempt_disable();	/* the timer fires on this CPU, in the chain */
	hrtimer_start(&k->timer, ns_to_ktime(200 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	kuw_chain_run(&c);
	preempt_enable();
	hrtimer_cancel(&k->timer);
	/* pairs with the release in kt_irq_fn(): the traces are complete */
	KUNIT_ASSERT_EQ(test, smp_load_acquire(&k->done), 1);

	/* ours[2..] (after kt_unwind and the callback) == orc[1..] */
	KUNIT_EXPECT_TRUE(test, kt_is(k->l.ours.pc[1], "kt_irq_fn"));
	kt_expect_orc(test, &k->l);
	/* the interrupted chain is in the trace */
	for (i = 0; i < k->l.ours.n; i++)
		if (kt_is(k->l.ours.pc[i], "kt_spin_leaf"))
			chain_at = i + 1;
	KUNIT_EXPECT_GT(test, chain_at, 0U);
	if (chain_at && chain_at < k->l.ours.n)
		KUNIT_EXPECT_TRUE(test, kt_is(k->l.ours.pc[chain_at],
					      "kuw_chain_f7"));
	/* the IRQ entry has no CFI: crossed with ORC, so not reliable */
	KUNIT_EXPECT_FALSE(test, k->l.ours.reliable);
	KUNIT_EXPECT_EQ_MSG(test, k->l.ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(k->l.ours.err));
}

/* ---- from an NMI, across the NMI entry (its own stack) into the chain ---- */

static struct kt_irq *kt_nmi_cur;

static int kt_nmi_fn(unsigned int type, struct pt_regs *regs)
{
	struct kt_irq *k = READ_ONCE(kt_nmi_cur);

	/* one trace only; pairs with the release below for a later NMI */
	if (!k || smp_load_acquire(&k->done))
		return NMI_DONE;
	kt_unwind(&k->l.ours, NULL, NULL, KUNWIND_SRC_ANY);
	k->l.norc = stack_trace_save(k->l.orc, KT_MAX, 0);
	/* publish the traces before the flag the spinning chain polls */
	smp_store_release(&k->done, 1);
	return NMI_HANDLED;
}

/* deep in the chain: send this CPU an NMI and wait for its handler */
static noinline int kt_nmi_leaf(struct kuw_chain *c)
{
	apic->send_IPI_self(NMI_VECTOR);
	return kt_spin_leaf(c) + 1;
}

static void kt_nmi_context(struct kunit *test)
{
	struct kt_irq *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_nmi_leaf, .alloca_n = 48 };
	unsigned int i, chain_at = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	c.priv = k;
	WRITE_ONCE(kt_nmi_cur, k);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, kt_nmi_fn, 0,
						   "kunwind_test"), 0);
	preempt_disable();	/* the NMI hits this CPU, inside the chain */
	kuw_chain_run(&c);
	preempt_enable();
	unregister_nmi_handler(NMI_LOCAL, "kunwind_test");
	WRITE_ONCE(kt_nmi_cur, NULL);
	/* pairs with the release in kt_nmi_fn(): the traces are complete */
	if (!smp_load_acquire(&k->done))
		kunit_skip(test, "no self-NMI delivered in this guest");
	KUNIT_EXPECT_TRUE(test, kt_is(k->l.ours.pc[1], "kt_nmi_fn"));
	kt_expect_orc(test, &k->l);
	for (i = 0; i < k->l.ours.n; i++)
		if (kt_is(k->l.ours.pc[i], "kuw_chain_f7"))
			chain_at = i;
	KUNIT_EXPECT_GT(test, chain_at, 0U);
	KUNIT_EXPECT_FALSE(test, k->l.ours.reliable);
	KUNIT_EXPECT_EQ_MSG(test, k->l.ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(k->l.ours.err));
}

/* ---- from a pt_regs, as the oops hook starts: same frames as ORC ---- */

struct kt_regs_out {
	struct pt_regs regs;
	u8 src;
	struct kt_trace ours;
	unsigned long orc[KT_MAX];
	unsigned int norc;
};

static noinline int kt_regs_leaf(struct kuw_chain *c)
{
	struct kt_regs_out *o = c->priv;
	struct pt_regs *r = &o->regs;
	struct unwind_state os;

	/* the registers of this function at the asm, as an exception saves them */
	asm volatile("leaq (%%rip), %%rax\n\t"
		     "movq %%rax, %0\n\t"
		     "movq %%rsp, %1\n\t"
		     "movq %%rbp, %2\n\t"
		     "movq %%rbx, %3\n\t"
		     "movq %%r12, %4\n\t"
		     "movq %%r13, %5\n\t"
		     "movq %%r14, %6\n\t"
		     "movq %%r15, %7\n\t"
		     : "=m" (r->ip), "=m" (r->sp), "=m" (r->bp), "=m" (r->bx),
		       "=m" (r->r12), "=m" (r->r13), "=m" (r->r14),
		       "=m" (r->r15)
		     : : "rax", "memory");
	r->cs = __KERNEL_CS;
	r->ss = __KERNEL_DS;
	kt_unwind(&o->ours, current, r, o->src);
	o->norc = 0;
	for (unwind_start(&os, current, r, NULL); !unwind_done(&os);
	     unwind_next_frame(&os))
		if (o->norc < KT_MAX)
			o->orc[o->norc++] = unwind_get_return_address(&os);
	barrier();
	return 0;
}

/*
 * kunwind's first frame is regs->ip; ORC's unwind_start(regs) reports from
 * the caller on: ours[1..] == orc[0..], through the chain to the end.
 */
static void kt_regs_case(struct kunit *test, u8 src)
{
	struct kt_regs_out *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_regs_leaf, .alloca_n = 56 };
	unsigned int i, same = 0;

	KUNIT_ASSERT_NOT_NULL(test, o);
	o->src = src;
	c.priv = o;
	kuw_chain_run(&c);
	KUNIT_EXPECT_EQ(test, o->ours.pc[0], o->regs.ip);
	KUNIT_EXPECT_TRUE(test, kt_is(o->ours.pc[0], "kt_regs_leaf"));
	KUNIT_EXPECT_EQ(test, o->ours.n, o->norc + 1);
	for (i = 0; i + 1 < o->ours.n && i < o->norc; i++)
		same += o->ours.pc[i + 1] == o->orc[i];
	KUNIT_EXPECT_EQ(test, same, o->norc);
	KUNIT_EXPECT_GT(test, o->norc, (unsigned int)ARRAY_SIZE(kuw_chain_frames_plain));
	for (i = 0; i < ARRAY_SIZE(kuw_chain_frames_plain); i++)
		KUNIT_EXPECT_TRUE(test, kt_is(o->ours.pc[1 + i],
					      kuw_chain_frames_plain[i]));
	KUNIT_EXPECT_EQ_MSG(test, o->ours.err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(o->ours.err));
	KUNIT_EXPECT_TRUE(test, o->ours.reliable);
	if (same != o->norc || o->ours.n != o->norc + 1) {
		kt_dump(test, "kunwind", o->ours.pc, o->ours.n);
		kt_dump(test, "orc", o->orc, o->norc);
	}
}

static void kt_regs_eh_frame(struct kunit *test)
{
	kt_regs_case(test, KUW_SRC_EH_FRAME);
}

static void kt_regs_sframe(struct kunit *test)
{
	kt_regs_case(test, KUW_SRC_SFRAME);
}

/* ---- blobs the kernel must refuse ---- */

/* The running kernel's build id, as /sys/kernel/notes gives it. */
static int kt_kernel_build_id(struct kunit *test, u8 *id, u8 *id_len)
{
	const u8 *p;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	u32 len;
	u8 *buf;

	buf = kunit_kmalloc(test, 4096, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	f = filp_open("/sys/kernel/notes", O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, 4096, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kuw_note_build_id(buf, n, &p, &len))
		return -ENOENT;
	memcpy(id, p, len);
	*id_len = len;
	return 0;
}

/*
 * A blob made from the kernel's own .eh_frame, with the running kernel's
 * build id, is well formed: loading it must still be refused because the
 * kernel has that table already (-EEXIST); with a build id of another
 * kernel (-ESTALE), with a byte of its section flipped (-EBADMSG), as a
 * module blob of a module that is not loaded (-ENOENT).  Each refusal
 * leaves the rules as they were.
 */
static void kt_blob_refused(struct kunit *test)
{
	static const struct kuw_blob_sect sect = { ".text", 0x10000, 0x1000 };
	unsigned long pc = (unsigned long)stack_trace_save + 0x10;
	struct kunwind_rule_info *a, *b2;
	struct kunwind_table_info info[4];
	struct kuw_blob b = {};
	u64 size;
	u8 *buf;
	int n, i, eh = -1;

	n = kunwind_tables_of("vmlinux", info, ARRAY_SIZE(info));
	for (i = 0; i < n && i < ARRAY_SIZE(info); i++)
		if (info[i].src == KUW_SRC_EH_FRAME)
			eh = i;
	if (eh < 0)
		kunit_skip(test, "the kernel keeps no .eh_frame");
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b2 = kunit_kzalloc(test, sizeof(*b2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b2);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(pc, KUW_SRC_EH_FRAME, a), 0);

	strscpy(b.owner, "vmlinux", sizeof(b.owner));
	KUNIT_ASSERT_EQ(test, kt_kernel_build_id(test, b.build_id, &b.id_len),
			0);
	b.kind = KUW_BLOB_VMLINUX;
	b.obj.arch = KUW_ARCH_X86_64;
	b.src = KUW_SRC_EH_FRAME;
	b.stext = info[eh].text_start;
	b.obj.text_start = b.stext;
	b.obj.text_end = info[eh].text_end;
	b.sec.data = (const u8 *)(unsigned long)info[eh].sec_addr;
	b.sec.size = info[eh].sec_size;
	b.sec.addr = info[eh].sec_addr;
	size = kuw_blob_size(0, b.sec.size);
	KUNIT_ASSERT_GT(test, size, 0ULL);
	buf = kunit_kmalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -EEXIST);

	b.build_id[0] ^= 0xff;
	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -ESTALE);
	b.build_id[0] ^= 0xff;

	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	buf[size - b.sec.size + 100] ^= 0xff;
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -EBADMSG);

	/* a module blob needs a .debug_frame; its bytes are never reached */
	b.kind = KUW_BLOB_MODULE;
	strscpy(b.owner, "kunwind_no_such_module", sizeof(b.owner));
	b.src = KUW_SRC_DEBUG_FRAME;
	b.stext = 0;
	b.obj.text_start = 0x10000;
	b.obj.text_end = 0x20000;
	b.sec.addr = 0;
	b.nsect = 1;
	b.sect = &sect;
	size = kuw_blob_size(1, b.sec.size);
	buf = kunit_kmalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kuw_blob_write(&b, buf, size), 0);
	KUNIT_EXPECT_EQ(test, kunwind_load_blob(buf, size), -ENOENT);

	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(pc, KUW_SRC_EH_FRAME, b2), 0);
	KUNIT_EXPECT_EQ(test, b2->row_pc, a->row_pc);
	KUNIT_EXPECT_EQ(test, memcmp(&b2->rule, &a->rule,
				     kuw_rule_size(&a->rule)), 0);
}

/* ---- rules ---- */

/* At a function's first instruction the x86_64 ABI says: CFA = rsp + 8, RA at CFA - 8. */
static void kt_expect_entry_rule(struct kunit *test, unsigned long fn, u8 src)
{
	struct kunwind_rule_info *info;
	const struct kuw_reg_rule *ra;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(fn, src, info), 0);
	KUNIT_EXPECT_EQ(test, info->src, src);
	KUNIT_EXPECT_LE(test, info->row_pc, (u64)fn);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_kind, KUW_CFA_REG);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_reg, KUW_X86_RSP);
	KUNIT_EXPECT_EQ(test, info->rule.cfa_off, 8);
	ra = kuw_rule_find(&info->rule, KUW_X86_RA);
	KUNIT_ASSERT_NOT_NULL(test, ra);
	KUNIT_EXPECT_EQ(test, ra->kind, KUW_R_OFFSET);
	KUNIT_EXPECT_EQ(test, ra->off, -8);
}

static void kt_rules_entry(struct kunit *test)
{
	struct kunwind_rule_info *info;

	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f1,
			     KUW_SRC_EH_FRAME);
	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f1, KUW_SRC_SFRAME);
	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f6,
			     KUW_SRC_EH_FRAME);
	kt_expect_entry_rule(test, (unsigned long)kuw_chain_f6, KUW_SRC_SFRAME);
	/* a vmlinux function too */
	kt_expect_entry_rule(test, (unsigned long)kunit_kmalloc_array,
			     KUW_SRC_EH_FRAME);
	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc((unsigned long)kuw_chain_f1,
						  KUNWIND_SRC_ANY, info), 0);
	KUNIT_EXPECT_STREQ(test, info->owner, KBUILD_MODNAME);
}

/* Inside f3, once its 768-byte frame is set up, the CFA is far above rsp. */
static void kt_rules_big_frame(struct kunit *test)
{
	struct kunwind_rule_info *info;
	unsigned long pc;
	bool big = false;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	for (pc = (unsigned long)kuw_chain_f3;
	     pc < (unsigned long)kuw_chain_f3 + 64; pc++) {
		if (kunwind_rule_for_pc(pc, KUW_SRC_EH_FRAME, info))
			continue;
		if (info->rule.cfa_reg == KUW_X86_RSP &&
		    info->rule.cfa_off >= 768)
			big = true;
		/* with frame pointers the body's CFA is rbp-based */
		if (IS_ENABLED(CONFIG_FRAME_POINTER) &&
		    info->rule.cfa_reg == KUW_X86_RBP)
			big = true;
	}
	KUNIT_EXPECT_TRUE(test, big);
}

/* ---- error paths ---- */

static int kt_data_word;

static void kt_bad_pc(struct kunit *test)
{
	struct kunwind_rule_info *info;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc(0x1000, KUNWIND_SRC_ANY,
						  info), -ENOENT);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc((unsigned long)&kt_data_word,
						  KUNWIND_SRC_ANY, info),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc((unsigned long)info,
						  KUNWIND_SRC_ANY, info),
			-ENOENT);
}

/*
 * Start from made-up registers: a pc inside the chain and a stack of
 * garbage on this stack.  Every walk must end, inside the frame limit,
 * without a fault; a data pc stops at once with "no unwind info".
 */
static void kt_garbage_stack(struct kunit *test)
{
	unsigned long fns[] = {
		(unsigned long)kuw_chain_f1, (unsigned long)kuw_chain_f3,
		(unsigned long)kuw_chain_f4, (unsigned long)kuw_chain_f6,
		(unsigned long)kuw_chain_f7,
	};
	struct kt_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct pt_regs *regsp = kunit_kzalloc(test, sizeof(*regsp), GFP_KERNEL);
	unsigned long garbage[32];
	struct rnd_state rnd;
	unsigned int i, j, stopped_bad = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, regsp);
	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 200; i++) {
		for (j = 0; j < ARRAY_SIZE(garbage); j++) {
			u64 v = prandom_u32_state(&rnd);

			v = v << 32 | prandom_u32_state(&rnd);
			/* some words look like kernel text or stack */
			if (j % 3 == 0)
				v = fns[v % ARRAY_SIZE(fns)] + (v >> 40) % 64;
			else if (j % 3 == 1)
				v = (unsigned long)&garbage[(v >> 7) % 32];
			garbage[j] = v;
		}
		barrier_data(garbage);
		memset(regsp, 0, sizeof(*regsp));
		regsp->cs = __KERNEL_CS;
		regsp->ip = fns[i % ARRAY_SIZE(fns)] + (i * 7) % 48;
		regsp->sp = (unsigned long)&garbage[i % 8];
		regsp->bp = garbage[(i + 3) % 32];
		kt_unwind(t, current, regsp, KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
		KUNIT_EXPECT_NE(test, t->err, 0);
		KUNIT_EXPECT_LE(test, t->n, (unsigned int)KUNWIND_MAX_FRAMES + 1);
		if (t->err != -KUW_E_END)
			stopped_bad++;
	}
	KUNIT_EXPECT_GT(test, stopped_bad, 150U);

	/* a stack pointer outside every stack */
	memset(regsp, 0, sizeof(*regsp));
	regsp->cs = __KERNEL_CS;
	regsp->ip = (unsigned long)kuw_chain_f3;
	regsp->sp = (unsigned long)t;	/* kmalloc memory */
	kt_unwind(t, current, regsp, KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
	KUNIT_EXPECT_EQ(test, t->err, -KUW_E_BADSTACK);

	/* a data address as pc: no unwind info */
	regsp->ip = (unsigned long)&kt_data_word;
	regsp->sp = (unsigned long)&garbage[8];
	memset(garbage, 0, sizeof(garbage));
	barrier_data(garbage);
	kt_unwind(t, current, regsp, KUW_SRC_EH_FRAME | KUNWIND_NO_ORC);
	KUNIT_EXPECT_EQ(test, t->n, 1U);
	KUNIT_EXPECT_EQ(test, t->err, -KUW_E_NOINFO);
	KUNIT_EXPECT_FALSE(test, t->reliable);
}

/*
 * first_frame, as in the kernel's unwind_start(): frames whose sp is at or
 * below it are skipped.  Take the sp of frame 3 of a walk; a second walk
 * from there starts at frame 4 and goes on identically.
 */
static noinline void kt_first_frame_walk(struct kunit *test)
{
	unsigned long *pcs = kunit_kcalloc(test, KT_MAX, sizeof(long),
					   GFP_KERNEL);
	struct kunwind_state st;
	unsigned int n = 0, m = 0;
	unsigned long sp3 = 0;

	KUNIT_ASSERT_NOT_NULL(test, pcs);
	for (kunwind_start(&st, current, NULL, NULL); !kunwind_done(&st);
	     kunwind_next_frame(&st)) {
		if (n == 3)
			sp3 = st.regs.r[KUW_X86_RSP];
		if (n < KT_MAX)
			pcs[n++] = kunwind_get_return_address(&st);
	}
	KUNIT_ASSERT_GT(test, n, 5U);
	for (kunwind_start(&st, current, NULL, (unsigned long *)sp3);
	     !kunwind_done(&st); kunwind_next_frame(&st)) {
		KUNIT_EXPECT_LT(test, 4 + m, n);
		if (4 + m < n)
			KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st),
					pcs[4 + m]);
		m++;
	}
	KUNIT_EXPECT_EQ(test, 4 + m, n);
}

static void kt_first_frame(struct kunit *test)
{
	kt_first_frame_walk(test);
}

/* The API used like the kernel's unwind_*: from here to the end. */
static void kt_api_shape(struct kunit *test)
{
	struct kunwind_state st;

	kunwind_start(&st, current, NULL, NULL);
	KUNIT_EXPECT_FALSE(test, kunwind_done(&st));
	KUNIT_EXPECT_TRUE(test, kt_is(kunwind_get_return_address(&st),
				      "kt_api_shape"));
	KUNIT_EXPECT_EQ(test, kunwind_error(&st), 0);
	while (kunwind_next_frame(&st))
		;
	KUNIT_EXPECT_TRUE(test, kunwind_done(&st));
	KUNIT_EXPECT_EQ(test, kunwind_get_return_address(&st), 0UL);
	KUNIT_EXPECT_EQ(test, kunwind_error(&st), 0);
	KUNIT_EXPECT_EQ(test, kunwind_stop_reason(&st), -KUW_E_END);
	KUNIT_EXPECT_TRUE(test, kunwind_reliable(&st));
	KUNIT_EXPECT_FALSE(test, kunwind_next_frame(&st));
	/* prints this stack: must not crash (the log shows it) */
	kunwind_dump_stack();
}

/* The tables of this module were there before its suites ran. */
static void kt_own_tables(struct kunit *test)
{
	struct kunwind_table_info info[4];
	int n = kunwind_tables_of(KBUILD_MODNAME, info, ARRAY_SIZE(info));
	int i, eh = 0, sf = 0;

	KUNIT_ASSERT_EQ(test, n, 2);
	for (i = 0; i < n; i++) {
		eh += info[i].src == KUW_SRC_EH_FRAME;
		sf += info[i].src == KUW_SRC_SFRAME;
		KUNIT_EXPECT_LE(test, info[i].text_start,
				(unsigned long)kuw_chain_f1);
		KUNIT_EXPECT_GT(test, info[i].text_end,
				(unsigned long)kuw_chain_f1);
		KUNIT_EXPECT_GT(test, info[i].nfde, 10U);
	}
	KUNIT_EXPECT_EQ(test, eh, 1);
	KUNIT_EXPECT_EQ(test, sf, 1);
	KUNIT_EXPECT_GE(test, kunwind_tables_of("vmlinux", info, 4), 1);
}

static struct kunit_case kt_cases[] = {
	KUNIT_CASE(kt_own_tables),
	KUNIT_CASE(kt_chain_eh_frame),
	KUNIT_CASE(kt_chain_sframe),
	KUNIT_CASE(kt_chain_any),
	KUNIT_CASE(kt_chain_signal_frame),
	KUNIT_CASE(kt_sleeping_task),
	KUNIT_CASE(kt_new_task),
	KUNIT_CASE(kt_irq_context),
	KUNIT_CASE(kt_nmi_context),
	KUNIT_CASE(kt_regs_eh_frame),
	KUNIT_CASE(kt_regs_sframe),
	KUNIT_CASE(kt_blob_refused),
	KUNIT_CASE(kt_rules_entry),
	KUNIT_CASE(kt_rules_big_frame),
	KUNIT_CASE(kt_bad_pc),
	KUNIT_CASE(kt_garbage_stack),
	KUNIT_CASE(kt_api_shape),
	KUNIT_CASE(kt_first_frame),
	{}
};

static struct kunit_suite kt_suite = {
	.name = "kunwind_unwind",
	.test_cases = kt_cases,
};

kunit_test_suite(kt_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind unwinder tests");
