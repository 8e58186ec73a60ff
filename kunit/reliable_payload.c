// SPDX-License-Identifier: GPL-2.0
/*
 * reliable_payload: kunwind's reliable flag against the kernel's own
 * reliable stack walk, on tasks preempted in kernel mode (arm64 reliable
 * beyond the kernel's own); scripts/guest/reliable.sh drives it.
 * Built for every kernel (kunit/Kbuild), it loads idle.
 *
 * /dev/kunwind_reliable/:
 *
 *   load  write N (1..RP_PER_CPU_MAX): start N spinner kthreads per online
 *         CPU; 0 stops them.  Refused (EOPNOTSUPP) on a kernel that does
 *         not preempt in kernel mode (preempt_model_preemptible(): boot
 *         with preempt=full where the model is dynamic): a spinner never
 *         yields.  A read says what runs.
 *   run   a write samples every thread once (counts add up over the
 *         writes; "reset" zeroes them; "selftest" makes one round of
 *         traces wrong on purpose, see rp_mutate(), counted apart); a
 *         read prints the counts, the per-task lines of the first
 *         disagreements, and the summary line
 *
 *           reliable: tasks N kernel K kunwind U only-kunwind X
 *                     only-kernel Y both B disagree D wrong W
 *
 * A spinner runs the chain rp_thread -> rp_chain_a -> rp_chain_b ->
 * rp_chain_c -> rp_spin, whose loop does volatile work in its own body and
 * in rp_leaf, a leaf that saves no frame record (arm64: no stp x29, x30;
 * the return address stays in x30, so where a timer interrupt stops it
 * only the CFI row at its pc says where its caller is).  It checks
 * kthread_should_stop() now and then and never calls schedule() or
 * cond_resched(): when it is not on a CPU, an interrupt preempted it in
 * that chain (preempt_schedule_irq()).
 *
 * Each thread (for_each_process_thread() under RCU, current skipped) is
 * pinned with task_call_func(), as livepatch's klp_check_stack() does (not
 * exported: found with kallsyms, called with kuw_call()); the callback
 * (no allocation, no lock) skips a task on a CPU and records, into fixed
 * buffers:
 *   kernel  stack_trace_save_tsk_reliable() (not exported; where the kernel
 *           has CONFIG_HAVE_RELIABLE_STACKTRACE): frames, or < 0 when the
 *           kernel calls the stack unreliable
 *   plain   stack_trace_save_tsk() (exported since 6.2, found like the
 *           others): the frames the kernel's unwinder sees (scheduler
 *           functions left out)
 *   kunwind kunwind_start(task) ... kunwind_next_frame(): pcs, whether
 *           each is a return address, and kunwind_reliable()
 * Then, outside the callback, every trace kunwind calls reliable is
 * judged against the kernel's answers, never against kunwind's own:
 *   - the kernel's reliable too: the same pcs, frame for frame; one may
 *     end up to RP_TAIL_MAX frames earlier when the other's extra frames
 *     are the last frames of the kernel's plain walk (where each stops at
 *     the task's entry frame: the kernel's reliable walk of x86 stops
 *     before a user-mode pt_regs);
 *   - only kunwind's: the kernel's plain walk appears in kunwind's in
 *     order (kunwind may have more: the caller of a function stopped
 *     before it saved its frame record, which a frame-record walk skips);
 *   - a spinner's: from its first frame in rp_leaf or rp_spin on, exactly
 *     [rp_leaf,] rp_spin, rp_chain_c, rp_chain_b, rp_chain_a, rp_thread,
 *     kthread, ret_from_fork[_asm] and the end, with an interrupted frame
 *     (a pc that is not a return address) at or above the first.
 * A reliable kunwind trace that fails one of them is wrong; one wrong trace
 * fails reliable.sh.  The same chain check runs on every preempted
 * spinner's walk, reliable or not (counted apart).
 */
#include <linux/miscdevice.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "kunwind.h"
#include "kt_lookup.h"

#define RP_PER_CPU_MAX	4
#define RP_SPIN_MAX	64		/* spinners at most */
#define RP_MAX		128		/* frames kept of each trace */
#define RP_TASKS_MAX	8192		/* threads sampled per run, at most */
#define RP_TAIL_MAX	2		/* trailing frames one may lack */
#define RP_LEAF_ITERS	20000		/* rp_leaf's loop */
#define RP_SPIN_ROUNDS	64		/* rp_spin's loop, then back to rp_thread */
#define RP_TEXT		(48 * 1024)	/* the report's per-task lines */
#define RP_DETAIL_MAX	8		/* tasks printed with their frames */
#define RP_LINES_MAX	32		/* tasks printed, wrong ones aside */
#define RP_NAME		KSYM_NAME_LEN

struct rp_spinner {
	struct task_struct *task;
	unsigned long sink;
	unsigned long seed;
	int in_chain;			/* between rp_chain_a's entry and exit */
};

static struct rp_spinner rp_spinners[RP_SPIN_MAX];
static unsigned int rp_nspin, rp_per_cpu;

/* One thread's three traces, filled by rp_sample_cb(). */
struct rp_sample {
	unsigned long kr[RP_MAX];	/* the kernel's reliable walk */
	int krn;			/* frames, or < 0: unreliable */
	unsigned long kp[RP_MAX];	/* the kernel's plain walk */
	unsigned int kpn;
	unsigned long ku[RP_MAX];	/* kunwind's */
	bool ku_sig[RP_MAX];		/* the pc is not a return address */
	unsigned int kun;		/* frames walked (may exceed RP_MAX) */
	int ku_err;
	bool ku_rel;
	bool on_cpu;
	struct rp_spinner *spin;	/* the task is a spinner */
	bool spin_in_chain;		/* read while the task was pinned */
};

struct rp_counts {
	unsigned long rounds, tasks, on_cpu, gone, deep;
	unsigned long kernel, kunwind, only_kunwind, only_kernel, both;
	unsigned long disagree, wrong;
	unsigned long spin_seen, spin_pre, spin_leaf, spin_chain_ok;
	unsigned long spin_kunwind, spin_kernel, spin_missed;
	unsigned long tail_kernel, tail_kunwind;
	unsigned long details, lines, omitted;
	unsigned long mutated;		/* selftest: traces made wrong */
};

static DEFINE_MUTEX(rp_lock);		/* everything below, and the spinners */
static struct rp_sample rp_s;
static struct rp_counts rp_c;
static bool rp_selftest;
static unsigned long rp_self_mutated, rp_self_wrong;
static char *rp_text;
static size_t rp_len;
static char rp_name_a[RP_NAME], rp_name_b[RP_NAME];

KUW_INTERNAL(task_call_func);
KUW_INTERNAL(stack_trace_save_tsk);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
KUW_INTERNAL(stack_trace_save_tsk_reliable);
#endif

/* ---- the spinners ---- */

/*
 * A leaf: no call, nothing saved (arm64: no frame record, x30 live; no PAC
 * either, -msign-return-address=non-leaf).  Volatile work, bounded.
 */
static noinline __noclone void rp_leaf(struct rp_spinner *s)
{
	unsigned long x = s->seed;
	unsigned int i;

	for (i = 0; i < RP_LEAF_ITERS; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		WRITE_ONCE(s->sink, x);
	}
	s->seed = x;
}

/* Spins in its own body and in rp_leaf; 1 once asked to stop. */
static noinline __noclone int rp_spin(struct rp_spinner *s)
{
	unsigned int n, i;

	for (n = 0; n < RP_SPIN_ROUNDS; n++) {
		if (kthread_should_stop())
			return 1;
		rp_leaf(s);
		for (i = 0; i < RP_LEAF_ITERS; i++)
			WRITE_ONCE(s->sink, READ_ONCE(s->sink) + i);
	}
	return 0;
}

/* The chain: each a frame of its own (no inlining, no tail calls). */
static noinline __noclone int rp_chain_c(struct rp_spinner *s)
{
	int ret = rp_spin(s);

	barrier_data(s);
	return ret;
}

static noinline __noclone int rp_chain_b(struct rp_spinner *s)
{
	int ret = rp_chain_c(s);

	barrier_data(s);
	return ret;
}

static noinline __noclone int rp_chain_a(struct rp_spinner *s)
{
	int ret;

	WRITE_ONCE(s->in_chain, 1);
	ret = rp_chain_b(s);
	WRITE_ONCE(s->in_chain, 0);
	return ret;
}

static noinline __noclone int rp_thread(void *arg)
{
	struct rp_spinner *s = arg;

	while (!kthread_should_stop()) {
		if (rp_chain_a(s))
			break;
	}
	return 0;
}

static void rp_stop_spinners(void)
{
	unsigned int i;

	for (i = 0; i < rp_nspin; i++) {
		kthread_stop(rp_spinners[i].task);
		put_task_struct(rp_spinners[i].task);
		rp_spinners[i].task = NULL;
	}
	rp_nspin = 0;
	rp_per_cpu = 0;
}

static int rp_start_spinners(unsigned int per_cpu)
{
	unsigned int n = min_t(unsigned int, per_cpu * num_online_cpus(),
			       RP_SPIN_MAX);
	struct task_struct *t;
	unsigned int i;

	for (i = 0; i < n; i++) {
		rp_spinners[i].seed = i + 1;
		t = kthread_create(rp_thread, &rp_spinners[i], "kuw_rp_spin/%u",
				   i);
		if (IS_ERR(t)) {
			rp_stop_spinners();
			return PTR_ERR(t);
		}
		get_task_struct(t);
		rp_spinners[i].task = t;
		rp_nspin = i + 1;
		wake_up_process(t);
	}
	rp_per_cpu = per_cpu;
	return 0;
}

static struct rp_spinner *rp_spinner_of(struct task_struct *t)
{
	unsigned int i;

	for (i = 0; i < rp_nspin; i++)
		if (rp_spinners[i].task == t)
			return &rp_spinners[i];
	return NULL;
}

/* ---- sampling: in task_call_func(), the task pinned ---- */

/*
 * The task cannot run, wake or be scheduled meanwhile (its pi_lock, or
 * its runqueue's lock, is held); on a CPU, it is left alone.  No
 * allocation, no lock, every loop bounded.
 */
static int rp_sample_cb(struct task_struct *t, void *arg)
{
	struct rp_sample *s = arg;
	struct kunwind_state st;
	unsigned int n = 0;

	if (READ_ONCE(t->on_cpu)) {
		s->on_cpu = true;
		return -EBUSY;
	}
	/* its last store before it was switched out is visible here */
	s->spin_in_chain = s->spin && READ_ONCE(s->spin->in_chain);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
	s->krn = kuw_call(stack_trace_save_tsk_reliable, t, s->kr, RP_MAX);
#else
	s->krn = -EOPNOTSUPP;
#endif
	s->kpn = kuw_call(stack_trace_save_tsk, t, s->kp, RP_MAX, 0);
	for (kunwind_start(&st, t, NULL, NULL);
	     !kunwind_done(&st) && n <= KUNWIND_MAX_FRAMES;
	     kunwind_next_frame(&st)) {
		if (n < RP_MAX) {
			s->ku[n] = kunwind_get_return_address(&st);
			s->ku_sig[n] = st.signal;
		}
		n++;
	}
	s->kun = n;
	s->ku_err = kunwind_stop_reason(&st);
	s->ku_rel = kunwind_reliable(&st);
	return 0;
}

/* ---- judging, outside the callback ---- */

/* The function of a frame's pc (a return address: of the call before it). */
static const char *rp_fn(char *buf, unsigned long pc, bool sig)
{
	snprintf(buf, RP_NAME, "%ps", (void *)(sig ? pc : pc - 1));
	return buf;
}

static bool rp_is_fn(unsigned long pc, bool sig, void *fn)
{
	snprintf(rp_name_b, RP_NAME, "%ps", fn);
	return !strcmp(rp_fn(rp_name_a, pc, sig), rp_name_b);
}

static bool rp_is_name(unsigned long pc, bool sig, const char *name,
		       bool prefix)
{
	rp_fn(rp_name_a, pc, sig);
	return prefix ? !strncmp(rp_name_a, name, strlen(name)) :
			!strcmp(rp_name_a, name);
}

/* @a[0..na) appears in @b[0..nb) in order (not necessarily contiguous). */
static bool rp_subseq(const unsigned long *a, unsigned int na,
		      const unsigned long *b, unsigned int nb)
{
	unsigned int i = 0, j;

	for (j = 0; j < nb && i < na; j++)
		if (a[i] == b[j])
			i++;
	return i == na;
}

/*
 * The kernel's reliable trace and kunwind's are the same, but for up to
 * RP_TAIL_MAX frames the shorter lacks at the end, which must be the last
 * frames of the kernel's plain walk.  @tail: which side had them (0 none,
 * 1 the kernel's, 2 kunwind's).
 */
static bool rp_same(const struct rp_sample *s, int *tail)
{
	unsigned int nk = s->krn, nu = s->kun, n = min(nk, nu), i, extra;
	const unsigned long *longer = nk > nu ? s->kr : s->ku;

	*tail = 0;
	for (i = 0; i < n; i++)
		if (s->kr[i] != s->ku[i])
			return false;
	if (nk == nu)
		return true;
	extra = max(nk, nu) - n;
	if (extra > RP_TAIL_MAX || s->kpn < extra)
		return false;
	for (i = 0; i < extra; i++)
		if (longer[n + i] != s->kp[s->kpn - extra + i])
			return false;
	*tail = nk > nu ? 1 : 2;
	return true;
}

/*
 * A spinner's chain in kunwind's trace, from its first frame in rp_leaf or
 * rp_spin on; @leaf: that frame is rp_leaf's.
 */
static bool rp_chain_ok(const struct rp_sample *s, bool *leaf,
			unsigned int *spin_at)
{
	static void *const chain[] = {
		rp_spin, rp_chain_c, rp_chain_b, rp_chain_a, rp_thread,
	};
	unsigned int n = min_t(unsigned int, s->kun, RP_MAX), i, j, k;
	bool sig = false;

	*leaf = false;
	for (i = 0; i < n; i++) {
		sig |= s->ku_sig[i];
		if (rp_is_fn(s->ku[i], s->ku_sig[i], rp_leaf)) {
			*leaf = true;
			break;
		}
		if (rp_is_fn(s->ku[i], s->ku_sig[i], rp_spin))
			break;
	}
	/* it was interrupted at or above its first chain frame */
	if (i == n || !sig)
		return false;
	if (*leaf)
		i++;
	*spin_at = i;
	for (j = 0; j < ARRAY_SIZE(chain); j++, i++)
		if (i >= n || !rp_is_fn(s->ku[i], s->ku_sig[i], chain[j]))
			return false;
	if (i >= n || !rp_is_name(s->ku[i], s->ku_sig[i], "kthread", false))
		return false;
	/* ret_from_fork, and ret_from_fork_asm where it calls the C one */
	for (k = 0, i++; i < n && k <= RP_TAIL_MAX; i++, k++)
		if (!rp_is_name(s->ku[i], s->ku_sig[i], "ret_from_fork", true))
			return false;
	return k >= 1 && k <= RP_TAIL_MAX && i == s->kun;
}

static void rp_text_add(const char *fmt, ...) __printf(1, 2);
static void rp_text_add(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	rp_len += vscnprintf(rp_text + rp_len, RP_TEXT - rp_len, fmt, args);
	va_end(args);
}

/* A task's line, and its frames for the first few; wrong ones always. */
static void rp_detail(struct task_struct *t, const struct rp_sample *s,
		      const char *what, bool wrong)
{
	unsigned int i, nk = s->krn > 0 ? s->krn : 0;
	unsigned int nu = min_t(unsigned int, s->kun, RP_MAX);

	if (!wrong && rp_c.lines >= RP_LINES_MAX) {
		rp_c.omitted++;
		return;
	}
	rp_c.lines++;
	rp_text_add("task %d %s: %s: kernel %d plain %u kunwind %u %s reliable %s\n",
		    task_pid_nr(t), t->comm, what, s->krn, s->kpn, s->kun,
		    kunwind_strerror(s->ku_err), s->ku_rel ? "yes" : "no");
	if (rp_c.details >= RP_DETAIL_MAX)
		return;
	rp_c.details++;
	for (i = 0; i < max3(nk, s->kpn, nu); i++)
		rp_text_add("  %2u %-40pS %-40pS %pS%s\n", i,
			    (void *)(i < nk ? s->kr[i] : 0),
			    (void *)(i < s->kpn ? s->kp[i] : 0),
			    (void *)(i < nu ? s->ku[i] : 0),
			    i < nu && s->ku_sig[i] ? " (regs)" : "");
}

/* How many times @v is in @a[0..n). */
static unsigned int rp_count(const unsigned long *a, unsigned int n,
			     unsigned long v)
{
	unsigned int i, c = 0;

	for (i = 0; i < n; i++)
		c += a[i] == v;
	return c;
}

/*
 * The judge's own check ("selftest" written to run): traces made wrong on
 * purpose, each of which it must call wrong.  A trace kunwind calls
 * reliable gets two neighbouring frames swapped, two that the kernel's
 * plain walk has too, once each; a preempted spinner's walk that kunwind
 * does not call reliable is called reliable with its rp_spin frame left
 * out (the caller a frame-record walk misses).  Return: whether @s was
 * changed.
 */
static bool rp_mutate(struct rp_sample *s, struct rp_spinner *spin)
{
	unsigned int i, n = min_t(unsigned int, s->kun, RP_MAX);

	for (i = 0; s->ku_rel && i + 1 < n; i++) {
		if (s->ku[i] == s->ku[i + 1] ||
		    rp_count(s->ku, n, s->ku[i]) != 1 ||
		    rp_count(s->ku, n, s->ku[i + 1]) != 1 ||
		    rp_count(s->kp, s->kpn, s->ku[i]) != 1 ||
		    rp_count(s->kp, s->kpn, s->ku[i + 1]) != 1)
			continue;
		swap(s->ku[i], s->ku[i + 1]);
		return true;
	}
	if (s->ku_rel || !spin || !s->spin_in_chain)
		return false;
	for (i = 0; i < n; i++) {
		if (!rp_is_fn(s->ku[i], s->ku_sig[i], rp_spin))
			continue;
		memmove(&s->ku[i], &s->ku[i + 1], (n - i - 1) * sizeof(*s->ku));
		memmove(&s->ku_sig[i], &s->ku_sig[i + 1],
			(n - i - 1) * sizeof(*s->ku_sig));
		s->kun--;
		s->ku_rel = true;
		return true;
	}
	return false;
}

static void rp_judge(struct task_struct *t, struct rp_sample *s,
		     struct rp_spinner *spin)
{
	bool krel = s->krn > 0, urel, good = true, leaf = false;
	bool chain = false;
	const char *why = NULL;
	unsigned int spin_at = 0, i;
	int tail = 0;

	rp_c.tasks++;
	if (s->kun > RP_MAX) {
		rp_c.deep++;
		return;
	}
	if (rp_selftest && rp_mutate(s, spin))
		rp_c.mutated++;
	urel = s->ku_rel;
	rp_c.kernel += krel;
	rp_c.kunwind += urel;
	if (spin && s->spin_in_chain) {
		rp_c.spin_pre++;
		chain = rp_chain_ok(s, &leaf, &spin_at);
		rp_c.spin_chain_ok += chain;
		/* rp_spin's frame, which a frame-record walk may not see */
		for (i = 0; chain && i < s->kpn; i++)
			if (s->kp[i] == s->ku[spin_at])
				break;
		rp_c.spin_missed += chain && i == s->kpn;
		rp_c.spin_leaf += leaf;
		rp_c.spin_kunwind += urel;
		rp_c.spin_kernel += krel;
	}
	if (krel && urel) {
		rp_c.both++;
		if (!rp_same(s, &tail)) {
			rp_c.disagree++;
			good = false;
			why = "both reliable, frames differ";
		}
		rp_c.tail_kernel += tail == 1;
		rp_c.tail_kunwind += tail == 2;
	} else if (urel) {
		rp_c.only_kunwind++;
		if (!rp_subseq(s->kp, s->kpn, s->ku, s->kun)) {
			good = false;
			why = "only kunwind reliable, the kernel's frames not in it";
		}
	} else if (krel) {
		rp_c.only_kernel++;
	}
	if (urel && spin && s->spin_in_chain && !chain) {
		good = false;
		why = "reliable, not the spinner's chain";
	}
	if (!good) {
		rp_c.wrong++;
		rp_detail(t, s, why, true);
	} else if (krel != urel) {
		rp_detail(t, s, krel ? "only the kernel's reliable" :
				       "only kunwind's reliable", false);
	} else if (spin && s->spin_in_chain && !chain) {
		rp_detail(t, s, "preempted spinner, not its chain (unreliable)",
			  false);
	}
}

static void rp_run(void)
{
	struct task_struct *g, *t;
	struct rp_spinner *spin;
	unsigned int n = 0;
	int ret;

	rp_c.rounds++;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (t == current)
			continue;
		if (++n > RP_TASKS_MAX)
			break;
		if (!try_get_task_stack(t)) {
			rp_c.gone++;
			continue;
		}
		memset(&rp_s, 0, sizeof(rp_s));
		spin = rp_spinner_of(t);
		if (spin)
			rp_c.spin_seen++;
		rp_s.spin = spin;
		ret = kuw_call(task_call_func, t, rp_sample_cb, &rp_s);
		if (!ret)
			rp_judge(t, &rp_s, spin);
		else
			rp_c.on_cpu++;
		kunwind_put_task_stack(t);
	}
	rcu_read_unlock();
}

/* ---- debugfs ---- */

static int rp_run_show(struct seq_file *m, void *v)
{
	const struct rp_counts *c = &rp_c;

	mutex_lock(&rp_lock);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
	seq_puts(m, "kernel reliable: stack_trace_save_tsk_reliable\n");
#else
	seq_puts(m, "kernel reliable: none (no CONFIG_HAVE_RELIABLE_STACKTRACE)\n");
#endif
	seq_printf(m, "preemptible: %s\nspinners running: %u\n",
		   preempt_model_preemptible() ? "yes" : "no", rp_nspin);
	seq_printf(m, "rounds %lu tasks %lu on-cpu %lu gone %lu too-deep %lu\n",
		   c->rounds, c->tasks, c->on_cpu, c->gone, c->deep);
	seq_printf(m, "spinners: sampled %lu preempted %lu in-leaf %lu chain-ok %lu kunwind-reliable %lu kernel-reliable %lu rp_spin-missed-by-kernel %lu\n",
		   c->spin_seen, c->spin_pre, c->spin_leaf, c->spin_chain_ok,
		   c->spin_kunwind, c->spin_kernel, c->spin_missed);
	seq_printf(m, "trailing frames: kernel's reliable has more %lu, kunwind's %lu\n",
		   c->tail_kernel, c->tail_kunwind);
	if (rp_len)
		seq_write(m, rp_text, rp_len);
	if (c->omitted)
		seq_printf(m, "(%lu more tasks not printed)\n", c->omitted);
	seq_printf(m, "selftest: made wrong %lu called wrong %lu\n",
		   rp_self_mutated, rp_self_wrong);
	seq_printf(m, "reliable: tasks %lu kernel %lu kunwind %lu only-kunwind %lu only-kernel %lu both %lu disagree %lu wrong %lu\n",
		   c->tasks, c->kernel, c->kunwind, c->only_kunwind,
		   c->only_kernel, c->both, c->disagree, c->wrong);
	mutex_unlock(&rp_lock);
	return 0;
}

static int rp_run_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, rp_run_show, NULL);
}

static ssize_t rp_run_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char buf[16] = "";

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	mutex_lock(&rp_lock);
	if (!strncmp(buf, "reset", 5)) {
		memset(&rp_c, 0, sizeof(rp_c));
		rp_len = 0;
		rp_self_mutated = 0;
		rp_self_wrong = 0;
	} else if (!strncmp(buf, "selftest", 8)) {
		/* one round of wrong traces, counted apart */
		struct rp_counts keep = rp_c;
		size_t keep_len = rp_len;

		memset(&rp_c, 0, sizeof(rp_c));
		rp_c.details = RP_DETAIL_MAX;
		rp_c.lines = RP_LINES_MAX;
		rp_selftest = true;
		rp_run();
		rp_selftest = false;
		rp_self_mutated += rp_c.mutated;
		rp_self_wrong += rp_c.wrong;
		rp_c = keep;
		rp_len = keep_len;
	} else {
		rp_run();
	}
	mutex_unlock(&rp_lock);
	return len;
}

static const struct file_operations rp_run_fops = {
	.owner = THIS_MODULE,
	.open = rp_run_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = rp_run_write,
};

static int rp_load_show(struct seq_file *m, void *v)
{
	mutex_lock(&rp_lock);
	seq_printf(m, "spinners %u per-cpu %u preemptible %s\n", rp_nspin,
		   rp_per_cpu, preempt_model_preemptible() ? "yes" : "no");
	mutex_unlock(&rp_lock);
	return 0;
}

static int rp_load_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, rp_load_show, NULL);
}

static ssize_t rp_load_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	if (n > RP_PER_CPU_MAX)
		return -EINVAL;
	/* a spinner never yields: only where interrupts preempt it */
	if (n && !preempt_model_preemptible())
		return -EOPNOTSUPP;
	mutex_lock(&rp_lock);
	rp_stop_spinners();
	ret = n ? rp_start_spinners(n) : 0;
	mutex_unlock(&rp_lock);
	return ret ? ret : len;
}

static const struct file_operations rp_load_fops = {
	.owner = THIS_MODULE,
	.open = rp_load_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = rp_load_write,
};

/* Character devices, not debugfs: they work on a locked-down kernel too. */
static struct miscdevice rp_devs[] = {
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind_reliable-load",
	  .nodename = "kunwind_reliable/load", .fops = &rp_load_fops,
	  .mode = 0600, },
	{ .minor = MISC_DYNAMIC_MINOR, .name = "kunwind_reliable-run",
	  .nodename = "kunwind_reliable/run", .fops = &rp_run_fops,
	  .mode = 0600, },
};

static int __init rp_init(void)
{
	int ret;

	if (!kt_lookup_fn(task_call_func)) {
		pr_err("reliable_payload: task_call_func not found\n");
		return -ENOENT;
	}
	if (!kt_lookup_fn(stack_trace_save_tsk)) {
		pr_err("reliable_payload: stack_trace_save_tsk not found\n");
		return -ENOENT;
	}
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
	if (!kt_lookup_fn(stack_trace_save_tsk_reliable)) {
		pr_err("reliable_payload: stack_trace_save_tsk_reliable not found\n");
		return -ENOENT;
	}
#endif
	rp_text = kvzalloc(RP_TEXT, GFP_KERNEL);
	if (!rp_text)
		return -ENOMEM;
	ret = misc_register(&rp_devs[0]);
	if (!ret) {
		ret = misc_register(&rp_devs[1]);
		if (ret)
			misc_deregister(&rp_devs[0]);
	}
	if (ret)
		kvfree(rp_text);
	return ret;
}

static void __exit rp_exit(void)
{
	misc_deregister(&rp_devs[1]);
	misc_deregister(&rp_devs[0]);
	mutex_lock(&rp_lock);
	rp_stop_spinners();
	mutex_unlock(&rp_lock);
	kvfree(rp_text);
}

module_init(rp_init);
module_exit(rp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test payload: kunwind's reliable walks of preempted tasks against the kernel's");
