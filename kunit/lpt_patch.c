// SPDX-License-Identifier: GPL-2.0
/*
 * lpt_patch: a livepatch (the kernel's public API, <linux/livepatch.h>)
 * of kunit/lpt_target.c's lpt_func().  Loading it enables the patch
 * (/sys/kernel/livepatch/lpt_patch/); echo 0 > .../enabled unpatches, then
 * it can be removed.  The replacement does what lpt_func() does, with its
 * chunks in lpt_chunk() (the replacement is the caller on the stack) and
 * its sleeps in its own body, and checks after each that current was not
 * switched back to the unpatched state while inside it.
 *
 * The object's callbacks mark the transitions for lpt_target's counters:
 * pre_patch/pre_unpatch when one starts, post_patch/post_unpatch when it
 * is complete; then no task may still be inside the function being left
 * (lpt_stats.done_violations counts those that are).  The time between
 * them is the transition's, as the kernel saw it.
 */
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/sched.h>
#include "lpt.h"

static int lpt_new_func(struct lpt_thread *t)
{
	struct lpt_fn_stats *s = &lpt_stats.fn[1];
	int seen = KLP_TRANSITION_IDLE;
	unsigned int r;
	int stop = 0;

	atomic_inc(&s->inside);
	atomic_long_inc(&s->calls);
	for (r = 0; r < LPT_ROUNDS && !stop; r++) {
		lpt_chunk(t, 1);
		lpt_check(1, &seen);
		if (t->kind == LPT_SLEEP) {
			schedule_timeout_interruptible(1);
			atomic_long_inc(&s->slept);
			lpt_check(1, &seen);
		}
		stop = kthread_should_stop();
	}
	atomic_dec(&s->inside);
	return stop;
}

static void lpt_mark_start(int phase)
{
	lpt_stats.start_ns = ktime_get_ns();
	lpt_stats.done_ns = 0;
	WRITE_ONCE(lpt_stats.phase, phase);
}

/* Transition complete: nobody is left inside the function @left. */
static void lpt_mark_done(int phase, int left)
{
	int in = atomic_read(&lpt_stats.fn[left].inside);

	lpt_stats.done_ns = ktime_get_ns();
	lpt_stats.transitions++;
	if (in) {
		atomic_long_add(in, &lpt_stats.done_violations);
		pr_err("lpt_patch: VIOLATION: transition complete with %d tasks inside the %s lpt_func\n",
		       in, left ? "new" : "old");
	}
	WRITE_ONCE(lpt_stats.phase, phase);
}

static int lpt_pre_patch(struct klp_object *obj)
{
	lpt_mark_start(LPT_PATCHING);
	return 0;
}

static void lpt_post_patch(struct klp_object *obj)
{
	lpt_mark_done(LPT_PATCHED, 0);
}

static void lpt_pre_unpatch(struct klp_object *obj)
{
	lpt_mark_start(LPT_UNPATCHING);
}

static void lpt_post_unpatch(struct klp_object *obj)
{
	lpt_mark_done(LPT_UNPATCHED, 1);
}

static struct klp_func lpt_funcs[] = {
	{
		.old_name = "lpt_func",
		.new_func = lpt_new_func,
	}, { }
};

static struct klp_object lpt_objs[] = {
	{
		.name = "lpt_target",
		.funcs = lpt_funcs,
		.callbacks = {
			.pre_patch = lpt_pre_patch,
			.post_patch = lpt_post_patch,
			.pre_unpatch = lpt_pre_unpatch,
			.post_unpatch = lpt_post_unpatch,
		},
	}, { }
};

static struct klp_patch lpt_patch = {
	.mod = THIS_MODULE,
	.objs = lpt_objs,
};

static int __init lpt_patch_init(void)
{
	return klp_enable_patch(&lpt_patch);
}

static void __exit lpt_patch_exit(void)
{
}

module_init(lpt_patch_init);
module_exit(lpt_patch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test payload: a livepatch of lpt_target's lpt_func");
MODULE_INFO(livepatch, "Y");
