// SPDX-License-Identifier: GPL-2.0
/*
 * eventfd() for a kernel without CONFIG_EVENTFD (the test kernels, built
 * from tinyconfig), preloaded into Debian's perf by scripts/init/clients.sh
 * only there: perf record (6.1 on) refuses to start without its "done"
 * eventfd, which it only polls for input and writes to when it stops.
 * The read end of a pipe whose write end stays open polls the same (never
 * readable); perf's write to it fails, and perf ends on its next wakeup
 * (its sampled events wake it) instead of at once.  Nothing else changes:
 * the kernel's callchains are the same.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

int eventfd(unsigned int initval, int flags)
{
	int p[2];

	(void)initval;
	if (pipe2(p, flags & (O_NONBLOCK | O_CLOEXEC)))
		return -1;
	return p[0];
}
