// SPDX-License-Identifier: GPL-2.0
/* del_timer_sync() (up to 6.14) */
#include <linux/timer.h>

int kuw_probe(struct timer_list *t);
int kuw_probe(struct timer_list *t)
{
	return del_timer_sync(t);
}
