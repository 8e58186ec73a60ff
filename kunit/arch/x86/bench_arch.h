/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 side of kunit/bench.c: the kernel's own unwinder it measures
 * kunwind against is ORC, unwind_start()/unwind_next_frame().
 *
 *   BENCH_REF          its name in the "kunwind-bench:" lines
 *   BENCH_REF_STS      stack_trace_save() on top of it
 *   bench_arch_init()  find what walk_ref() needs (nothing here)
 *   walk_ref()         its walk from the caller on, return addresses stored
 */
#ifndef KUNWIND_KUNIT_BENCH_ARCH_H
#define KUNWIND_KUNIT_BENCH_ARCH_H

#include <asm/unwind.h>

#define BENCH_REF	"orc"
#define BENCH_REF_STS	"orc-sts"

static inline int bench_arch_init(void)
{
	return 0;
}

static noinline unsigned int walk_ref(unsigned long *buf, unsigned int max)
{
	struct unwind_state s;
	unsigned long addr;
	unsigned int n = 0;

	for (unwind_start(&s, current, NULL, NULL);
	     !unwind_done(&s) && n < max; unwind_next_frame(&s)) {
		addr = unwind_get_return_address(&s);
		if (!addr)
			break;
		buf[n++] = addr;
	}
	return n;
}

#endif /* KUNWIND_KUNIT_BENCH_ARCH_H */
