// SPDX-License-Identifier: GPL-2.0
/* timer_delete_sync() (6.2, and 6.1.y stable; del_timer_sync() is gone in 6.15) */
#include <linux/timer.h>

int kuw_probe(struct timer_list *t);
int kuw_probe(struct timer_list *t)
{
	return timer_delete_sync(t);
}
