// SPDX-License-Identifier: GPL-2.0
/*
 * robust_payload: a module with unwind tables (.eh_frame, .sframe; see
 * kunit/Kbuild) for the load/unload storm of scripts/guest/robust_storm.sh.
 * While loaded, two kthreads "kuw_robust_pl/N" live inside a chain of this
 * module's functions, alternately computing and sleeping, so that an
 * unwinder walking them on another CPU steps through this module's frames
 * with its tables while the module comes and goes.  Unloading stops them.
 *
 * One translation unit on purpose: binutils 2.40 `ld -r` misplaces .sframe
 * relocations when several objects carry .sframe.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>

#define PL_THREADS	2
#define PL_DEPTH	6

static struct task_struct *pl_thread[PL_THREADS];

static noinline __noclone unsigned long pl_work(unsigned long v)
{
	unsigned long buf[8];
	int i;

	for (i = 0; i < ARRAY_SIZE(buf); i++)
		buf[i] = v * 31 + i;
	barrier_data(buf);
	return buf[v & 7];
}

/* Each level has its own frame and keeps it across the call. */
static noinline __noclone unsigned long pl_level(int depth, unsigned long v)
{
	unsigned long buf[2] = { v, depth };
	unsigned long r;

	barrier_data(buf);
	if (depth < PL_DEPTH) {
		r = pl_level(depth + 1, buf[0] + 1);
	} else {
		r = 0;
		/*
		 * Compute a while, then sleep: a thread that never sleeps
		 * would hold up RCU-tasks grace periods (kprobes, module
		 * loading) on a preemptible kernel.
		 */
		while (!kthread_should_stop()) {
			unsigned long n = 16 + (r & 63);

			while (n--)
				r += pl_work(r + v);
			usleep_range(100, 1000);
		}
	}
	barrier_data(buf);
	return r + buf[1];
}

static int pl_fn(void *data)
{
	return pl_level(0, (unsigned long)data) ? 0 : 1;
}

static int __init pl_init(void)
{
	int i;

	for (i = 0; i < PL_THREADS; i++) {
		pl_thread[i] = kthread_run(pl_fn, (void *)(unsigned long)i,
					   "kuw_robust_pl/%d", i);
		if (IS_ERR(pl_thread[i])) {
			int ret = PTR_ERR(pl_thread[i]);

			while (--i >= 0)
				kthread_stop(pl_thread[i]);
			return ret;
		}
	}
	return 0;
}

static void __exit pl_exit(void)
{
	int i;

	for (i = 0; i < PL_THREADS; i++)
		kthread_stop(pl_thread[i]);
}

module_init(pl_init);
module_exit(pl_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind robustness payload: kthreads inside a chain of frames with unwind tables");
