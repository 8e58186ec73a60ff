// SPDX-License-Identifier: GPL-2.0
/*
 * hung_payload: a kthread, "kuw_hung", held in D state (an uninterruptible
 * wait for a completion that only unloading the module gives) under three
 * functions of its own, so that the hung-task detector reports it and its
 * stack (scripts/guest/hung_task.sh): the report's frames and the task's
 * /proc/PID/stack, with kunwind's consumers switch off and on, are checked
 * on the host against the machine code (scripts/framecheck.py).
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static DECLARE_COMPLETION(hp_release);
static struct task_struct *hp_task;

static noinline int hp_wait(int v)
{
	wait_for_completion(&hp_release);
	barrier_data(&v);
	return v + 1;
}

static noinline int hp_middle(int v)
{
	int r = hp_wait(v + 1);

	barrier_data(&r);
	return r + 1;
}

static noinline int hp_outer(int v)
{
	int r = hp_middle(v + 1);

	barrier_data(&r);
	return r + 1;
}

static int hp_fn(void *arg)
{
	int r = hp_outer(1);

	/* kthread_stop() comes after the completion: wait for it */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return r > 0 ? 0 : -EINVAL;
}

static int __init hp_init(void)
{
	hp_task = kthread_run(hp_fn, NULL, "kuw_hung");
	return PTR_ERR_OR_ZERO(hp_task);
}

static void __exit hp_exit(void)
{
	complete(&hp_release);
	kthread_stop(hp_task);
}

module_init(hp_init);
module_exit(hp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test payload: a kthread held in D state for the hung-task detector");
