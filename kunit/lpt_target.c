// SPDX-License-Identifier: GPL-2.0
/*
 * lpt_target: livepatch as a real client of the reliable unwinder.  This
 * module's lpt_func() is what kunit/lpt_patch.c (a livepatch: klp_patch,
 * klp_object "lpt_target", klp_func "lpt_func") replaces;
 * scripts/guest-livepatch/livepatch.sh drives both, with kunwind's answer
 * to stack_trace_save_tsk_reliable() off and on.  Built where the kernel
 * has CONFIG_LIVEPATCH (kunit/Kbuild); it loads idle.
 *
 * /dev/kunwind_lpt: write "start S P N" to start, per online CPU, S
 * sleepers, P preempted callers and N spinners (below); "stop" stops them;
 * "reset" zeroes the counters.  A read prints the counters, ending with
 * "violations V", which must be 0.
 *
 * Threads (kthreads "lpt_sleep/I", "lpt_pre/I", "lpt_spin/I"):
 *   sleeper  calls lpt_func(), which works a chunk then sleeps a jiffy
 *            (schedule_timeout) LPT_ROUNDS times: the task sleeps INSIDE
 *            the function; then sleeps 1 to 8 jiffies outside it (at
 *            random: livepatch retries on whole seconds, and a period
 *            that divides HZ would find the task at the same place each
 *            time).
 *   preempt  calls lpt_func(), which works its chunks without sleeping,
 *            then works as long outside it: it is preempted (timer
 *            interrupt, kernel mode) inside and outside.
 *   spinner  never calls lpt_func(): works and is preempted elsewhere.
 * The last two rest a jiffy every LPT_REST_MS (lpt_rest(), outside
 * lpt_func), the voluntary context switch RCU Tasks waits for: without
 * it, removing any ftrace_ops (a livepatch's at the end of its unpatching,
 * the consumers switch's) would wait for as long as they run.  At each of
 * livepatch's tries (one a second) a task is thus asleep there with a
 * chance of a jiffy in LPT_REST_MS: the kernel switches it then even
 * where its unwinder gives up on every task preempted in kernel mode
 * (arm64), but only after a minute or more.
 * A chunk is ~LPT_CHUNK_US of work, partly in lpt_leaf(), a leaf that
 * saves no frame record (arm64: its caller is found only through x30, as
 * the CFI row at its pc says), partly in the caller's own body.  So a
 * preempted task's pc is in lpt_func() itself, or in the leaf called by it.
 * Preemption in kernel mode needs a preemptible kernel (preempt=full where
 * the model is dynamic): elsewhere "start" refuses preempt and spin
 * threads (EOPNOTSUPP), which would never yield.
 *
 * The invariant, checked without any unwinder: livepatch's consistency
 * model switches a task to the patched state only when the old function
 * is not on its stack.  After each chunk and each sleep, still inside,
 * lpt_func() reads current->patch_state and counts a violation when it is
 * KLP_TRANSITION_PATCHED during lpt_patch's patching transition (it was
 * switched while inside), or when the patch's post_patch callback already
 * ran (the transition completed with the task inside).  The replacement
 * checks the same for unpatching (KLP_TRANSITION_UNPATCHED, post_unpatch),
 * and the callbacks count the tasks still inside the function being left
 * when a transition completes.
 * Every chunk that was preempted (the task's involuntary context switches
 * moved) and every sleep inside is counted too: the evidence that tasks
 * were where the check matters.
 */
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "lpt.h"

#define LPT_PER_CPU_MAX	8		/* threads of one kind per CPU */
#define LPT_MAX		64		/* threads at most */
#define LPT_CHUNK_NS	(1000 * NSEC_PER_USEC)
#define LPT_LEAF_ITERS	2000
#define LPT_OUT_JIFFIES	8		/* a sleeper's sleep outside, at most */
#define LPT_REST_MS	250		/* the others' work between rests */

struct lpt_stats lpt_stats;
EXPORT_SYMBOL_GPL(lpt_stats);

static struct lpt_thread lpt_threads[LPT_MAX];
static unsigned int lpt_nthreads, lpt_per_cpu[LPT_KINDS];
static DEFINE_MUTEX(lpt_lock);
static const char * const lpt_kind_name[LPT_KINDS] = {
	"lpt_sleep", "lpt_pre", "lpt_spin"
};

/* The thread's own pseudo-random numbers (an LCG; no kernel API needed). */
static unsigned long lpt_rand(struct lpt_thread *t)
{
	t->seed = t->seed * 6364136223846793005UL + 1442695040888963407UL;
	return t->seed >> 33;
}

/*
 * A leaf: no call, nothing saved (arm64: no frame record, x30 live).
 * Volatile work, bounded.
 */
static noinline __noclone void lpt_leaf(struct lpt_thread *t)
{
	unsigned long x = t->seed;
	unsigned int i;

	for (i = 0; i < LPT_LEAF_ITERS; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		WRITE_ONCE(t->sink, x);
	}
	t->seed = x;
}

/* Counts a violation of the function @which (0 old, 1 new) of current. */
static void lpt_violation(int which, int state, int phase)
{
	atomic_long_inc(&lpt_stats.fn[which].violations);
	pr_err("lpt_target: VIOLATION: %s/%d runs the %s lpt_func with patch_state %d in phase %d\n",
	       current->comm, current->pid, which ? "new" : "old", state,
	       phase);
}

/*
 * Called inside the function @which, after a chunk or a sleep: current
 * must not have been switched away from it.  A task's patch_state is that
 * of whichever patch is in transition: it speaks of lpt_func only while
 * lpt_patch's own transition is on (another patch, the kernel's sample,
 * switches tasks running lpt_func, rightly).  @seen: the state the last
 * check of this call saw (KLP_TRANSITION_IDLE at first); a change between
 * two states of one transition is a switch while inside: counted apart
 * when another patch made it, the proof that the check sees switches.
 */
void lpt_check(int which, int *seen)
{
	int state = READ_ONCE(current->patch_state);
	int phase = READ_ONCE(lpt_stats.phase);
	bool ours = phase == (which ? LPT_UNPATCHING : LPT_PATCHING);

	if (!which && ((ours && state == KLP_TRANSITION_PATCHED) ||
		       phase == LPT_PATCHED))
		lpt_violation(which, state, phase);
	else if (which && ((ours && state == KLP_TRANSITION_UNPATCHED) ||
			   phase == LPT_UNPATCHED))
		lpt_violation(which, state, phase);
	else if (!ours && *seen != KLP_TRANSITION_IDLE &&
		 state != KLP_TRANSITION_IDLE && state != *seen)
		atomic_long_inc(&lpt_stats.fn[which].switched);
	*seen = state;
}
EXPORT_SYMBOL_GPL(lpt_check);

/*
 * A chunk of work for a caller (the new function, the threads outside
 * lpt_func): in lpt_leaf, with the caller's frame above it.  @which 0 or 1
 * counts the chunks preempted in that function, -1 none.
 */
void lpt_chunk(struct lpt_thread *t, int which)
{
	unsigned long nivcsw = READ_ONCE(current->nivcsw);
	u64 end = ktime_get_ns() + LPT_CHUNK_NS;

	do {
		lpt_leaf(t);
	} while (ktime_get_ns() < end);
	if (which >= 0 && READ_ONCE(current->nivcsw) != nivcsw)
		atomic_long_inc(&lpt_stats.fn[which].preempted);
}
EXPORT_SYMBOL_GPL(lpt_chunk);

/*
 * The function the livepatch replaces.  Global, not static: the compiler
 * makes no assumption about it in its callers (no IPA register
 * allocation), as for any function a livepatch may replace.  Its chunks
 * are worked in its own body and in lpt_leaf(); 1 once asked to stop.
 */
noinline __noclone int lpt_func(struct lpt_thread *t)
{
	struct lpt_fn_stats *s = &lpt_stats.fn[0];
	int seen = KLP_TRANSITION_IDLE;
	unsigned long nivcsw;
	unsigned int r, i;
	int stop = 0;
	u64 end;

	atomic_inc(&s->inside);
	atomic_long_inc(&s->calls);
	for (r = 0; r < LPT_ROUNDS && !stop; r++) {
		nivcsw = READ_ONCE(current->nivcsw);
		end = ktime_get_ns() + LPT_CHUNK_NS;
		do {
			lpt_leaf(t);
			for (i = 0; i < LPT_LEAF_ITERS; i++)
				WRITE_ONCE(t->sink, READ_ONCE(t->sink) + i);
		} while (ktime_get_ns() < end);
		if (READ_ONCE(current->nivcsw) != nivcsw)
			atomic_long_inc(&s->preempted);
		lpt_check(0, &seen);
		if (t->kind == LPT_SLEEP) {
			schedule_timeout_interruptible(1);
			atomic_long_inc(&s->slept);
			lpt_check(0, &seen);
		}
		stop = kthread_should_stop();
	}
	atomic_dec(&s->inside);
	return stop;
}

/* Work outside lpt_func: a frame of its own between the thread and the leaf. */
static noinline __noclone void lpt_outside(struct lpt_thread *t)
{
	unsigned int r;

	for (r = 0; r < LPT_ROUNDS && !kthread_should_stop(); r++)
		lpt_chunk(t, -1);
}

/* A voluntary context switch, outside lpt_func (see the top). */
static noinline __noclone void lpt_rest(void)
{
	schedule_timeout_interruptible(1);
}

static int lpt_thread_fn(void *arg)
{
	struct lpt_thread *t = arg;
	unsigned long rest = jiffies + msecs_to_jiffies(LPT_REST_MS);

	while (!kthread_should_stop()) {
		switch (t->kind) {
		case LPT_SLEEP:
			if (!lpt_func(t))
				schedule_timeout_interruptible(1 + lpt_rand(t) %
							       LPT_OUT_JIFFIES);
			break;
		case LPT_PREEMPT:
			if (!lpt_func(t))
				lpt_outside(t);
			break;
		default:
			lpt_outside(t);
			break;
		}
		if (t->kind != LPT_SLEEP && time_after(jiffies, rest)) {
			lpt_rest();
			rest = jiffies + msecs_to_jiffies(LPT_REST_MS);
		}
	}
	return 0;
}

static void lpt_stop(void)
{
	unsigned int i;

	for (i = 0; i < lpt_nthreads; i++) {
		kthread_stop(lpt_threads[i].task);
		put_task_struct(lpt_threads[i].task);
		lpt_threads[i].task = NULL;
	}
	lpt_nthreads = 0;
	memset(lpt_per_cpu, 0, sizeof(lpt_per_cpu));
}

static int lpt_start(const unsigned int *per_cpu)
{
	unsigned int k, i, n, id[LPT_KINDS] = { 0 };
	struct lpt_thread *t;
	struct task_struct *task;

	for (k = 0; k < LPT_KINDS; k++) {
		n = per_cpu[k] * num_online_cpus();
		for (i = 0; i < n && lpt_nthreads < LPT_MAX; i++) {
			t = &lpt_threads[lpt_nthreads];
			t->kind = k;
			t->seed = lpt_nthreads + 1;
			task = kthread_create(lpt_thread_fn, t, "%s/%u",
					      lpt_kind_name[k], id[k]++);
			if (IS_ERR(task)) {
				lpt_stop();
				return PTR_ERR(task);
			}
			/* the hogs leave the guest's shell its CPU time */
			if (k != LPT_SLEEP)
				set_user_nice(task, MAX_NICE);
			get_task_struct(task);
			t->task = task;
			lpt_nthreads++;
			wake_up_process(task);
		}
		lpt_per_cpu[k] = per_cpu[k];
	}
	return 0;
}

static const char * const lpt_phase_name[] = {
	[LPT_IDLE] = "idle", [LPT_PATCHING] = "patching",
	[LPT_PATCHED] = "patched", [LPT_UNPATCHING] = "unpatching",
	[LPT_UNPATCHED] = "unpatched",
};

static int lpt_show(struct seq_file *m, void *v)
{
	struct lpt_stats *s = &lpt_stats;
	int phase = READ_ONCE(s->phase), w;
	long viol = atomic_long_read(&s->done_violations);

	mutex_lock(&lpt_lock);
	seq_printf(m, "threads %u sleep %u preempt %u spin %u per-cpu preemptible %s\n",
		   lpt_nthreads, lpt_per_cpu[LPT_SLEEP],
		   lpt_per_cpu[LPT_PREEMPT], lpt_per_cpu[LPT_SPIN],
		   preempt_model_preemptible() ? "yes" : "no");
	mutex_unlock(&lpt_lock);
	for (w = 0; w < 2; w++) {
		struct lpt_fn_stats *f = &s->fn[w];

		seq_printf(m, "%s calls %ld inside %d preempted %ld slept %ld switched-by-another %ld violations %ld\n",
			   w ? "new" : "old", atomic_long_read(&f->calls),
			   atomic_read(&f->inside),
			   atomic_long_read(&f->preempted),
			   atomic_long_read(&f->slept),
			   atomic_long_read(&f->switched),
			   atomic_long_read(&f->violations));
		viol += atomic_long_read(&f->violations);
	}
	seq_printf(m, "phase %s transitions %lu last-transition-us %llu completion-violations %ld\n",
		   phase >= 0 && phase < ARRAY_SIZE(lpt_phase_name) ?
		   lpt_phase_name[phase] : "?", s->transitions,
		   s->done_ns > s->start_ns ?
		   div_u64(s->done_ns - s->start_ns, NSEC_PER_USEC) : 0,
		   atomic_long_read(&s->done_violations));
	seq_printf(m, "violations %ld\n", viol);
	return 0;
}

static int lpt_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() set it: seq_open() wants none */
	return single_open(file, lpt_show, NULL);
}

static ssize_t lpt_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	unsigned int n[LPT_KINDS];
	char buf[32] = "";
	int ret = 0, w;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	mutex_lock(&lpt_lock);
	if (!strncmp(buf, "reset", 5)) {
		for (w = 0; w < 2; w++) {
			atomic_long_set(&lpt_stats.fn[w].calls, 0);
			atomic_long_set(&lpt_stats.fn[w].preempted, 0);
			atomic_long_set(&lpt_stats.fn[w].slept, 0);
			atomic_long_set(&lpt_stats.fn[w].violations, 0);
			atomic_long_set(&lpt_stats.fn[w].switched, 0);
		}
		atomic_long_set(&lpt_stats.done_violations, 0);
	} else if (!strncmp(buf, "stop", 4)) {
		lpt_stop();
	} else if (sscanf(buf, "start %u %u %u", &n[LPT_SLEEP],
			  &n[LPT_PREEMPT], &n[LPT_SPIN]) == 3) {
		if (n[LPT_SLEEP] > LPT_PER_CPU_MAX ||
		    n[LPT_PREEMPT] > LPT_PER_CPU_MAX ||
		    n[LPT_SPIN] > LPT_PER_CPU_MAX)
			ret = -EINVAL;
		else if ((n[LPT_PREEMPT] || n[LPT_SPIN]) &&
			 !preempt_model_preemptible())
			ret = -EOPNOTSUPP;	/* they would never yield */
		if (!ret) {
			lpt_stop();
			ret = lpt_start(n);
		}
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&lpt_lock);
	return ret ? ret : len;
}

static const struct file_operations lpt_fops = {
	.owner = THIS_MODULE,
	.open = lpt_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = lpt_write,
};

static struct miscdevice lpt_dev = {
	.minor = MISC_DYNAMIC_MINOR, .name = "kunwind_lpt",
	.fops = &lpt_fops, .mode = 0600,
};

static int __init lpt_init(void)
{
	return misc_register(&lpt_dev);
}

static void __exit lpt_exit(void)
{
	misc_deregister(&lpt_dev);
	mutex_lock(&lpt_lock);
	lpt_stop();
	mutex_unlock(&lpt_lock);
}

module_init(lpt_init);
module_exit(lpt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test payload: the target of a livepatch, whose threads sleep and are preempted in the patched function");
