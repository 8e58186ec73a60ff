// SPDX-License-Identifier: GPL-2.0
/* hrtimer_setup(timer, function, clock, mode) (6.13+) */
#include <linux/hrtimer.h>

static enum hrtimer_restart kuw_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void kuw_probe(struct hrtimer *t);
void kuw_probe(struct hrtimer *t)
{
	hrtimer_setup(t, kuw_probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
}
