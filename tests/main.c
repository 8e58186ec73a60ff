// SPDX-License-Identifier: GPL-2.0
/* Host test runner: runs every KT_TEST, prints "N passed, N failed". */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include "kt.h"

bool kuw_host_log_enabled;
const char *kt_srcdir = "tests";
const char *kt_builddir = "build/tests";

static struct kt_test *kt_head, **kt_tail = &kt_head;
static int kt_cur_failed;
static char kt_cur_skip[256];

void kt_register(struct kt_test *t)
{
	*kt_tail = t;
	kt_tail = &t->next;
}

void kt_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	kt_cur_failed = 1;
}

void kt_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kt_cur_skip, sizeof(kt_cur_skip), fmt, ap);
	va_end(ap);
	if (!kt_cur_skip[0])
		snprintf(kt_cur_skip, sizeof(kt_cur_skip), "skipped");
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	struct kt_test *t;
	const char *e;

	e = getenv("KT_SRCDIR");
	if (e)
		kt_srcdir = e;
	e = getenv("KT_BUILDDIR");
	if (e)
		kt_builddir = e;
	kuw_host_log_enabled = getenv("KT_VERBOSE") != NULL;
	for (t = kt_head; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		kt_cur_failed = 0;
		kt_cur_skip[0] = 0;
		t->fn();
		if (kt_cur_failed) {
			printf("not ok %s\n", t->name);
			failed++;
		} else if (kt_cur_skip[0]) {
			printf("ok %s # SKIP %s\n", t->name, kt_cur_skip);
			skipped++;
		} else {
			printf("ok %s\n", t->name);
			passed++;
		}
		fflush(stdout);
	}
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed,
		       skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
