// SPDX-License-Identifier: GPL-2.0
/* hrtimer_init(timer, clock, mode), then ->function (up to 6.14) */
#include <linux/hrtimer.h>

static enum hrtimer_restart kuw_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void kuw_probe(struct hrtimer *t);
void kuw_probe(struct hrtimer *t)
{
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t->function = kuw_probe_fn;
}
