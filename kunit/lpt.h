/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by kunit/lpt_target.c (the module a livepatch patches) and
 * kunit/lpt_patch.c (the livepatch): the threads' state and the counters
 * both functions, old and new, keep.  See lpt_target.c.
 */
#ifndef KUNWIND_LPT_H
#define KUNWIND_LPT_H

#include <linux/atomic.h>
#include <linux/livepatch.h>
#include <linux/types.h>

/* Before 6.10 (Debian 12's 6.1), the task states had other names. */
#ifndef KLP_TRANSITION_PATCHED
#define KLP_TRANSITION_IDLE		KLP_UNDEFINED
#define KLP_TRANSITION_UNPATCHED	KLP_UNPATCHED
#define KLP_TRANSITION_PATCHED		KLP_PATCHED
#endif

enum lpt_kind {
	LPT_SLEEP,	/* sleeps in lpt_func (schedule_timeout), then outside */
	LPT_PREEMPT,	/* never sleeps: preempted in lpt_func and outside it */
	LPT_SPIN,	/* never calls lpt_func: preempted elsewhere */
	LPT_KINDS
};

/* Where the livepatch of lpt_func is, as its callbacks see it. */
enum lpt_phase {
	LPT_IDLE,
	LPT_PATCHING,	/* pre_patch ran: the patching transition is on */
	LPT_PATCHED,	/* post_patch ran: every task runs the new function */
	LPT_UNPATCHING,
	LPT_UNPATCHED,	/* post_unpatch ran: every task runs the old one */
};

struct lpt_thread {
	struct task_struct *task;
	enum lpt_kind kind;
	unsigned long seed;
	unsigned long sink;
};

/* One function's counters: lpt_func (old) or its replacement (new). */
struct lpt_fn_stats {
	atomic_t inside;		/* tasks in the function now */
	atomic_long_t calls;
	atomic_long_t preempted;	/* chunks preempted in the function */
	atomic_long_t slept;		/* sleeps in the function */
	atomic_long_t violations;	/* switched while inside (see below) */
	atomic_long_t switched;		/* by another patch's transition */
};

struct lpt_stats {
	struct lpt_fn_stats fn[2];	/* [0] old, [1] new */
	atomic_long_t done_violations;	/* tasks inside at completion */
	int phase;			/* enum lpt_phase */
	u64 start_ns, done_ns;		/* the last transition's callbacks */
	unsigned long transitions;
};

extern struct lpt_stats lpt_stats;

int lpt_func(struct lpt_thread *t);
void lpt_chunk(struct lpt_thread *t, int which);
void lpt_check(int which, int *seen);

#define LPT_ROUNDS	4		/* chunks in a call of lpt_func */

#endif /* KUNWIND_LPT_H */
