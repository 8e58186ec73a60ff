/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 side of kunit/bench.c: the kernel's own unwinder it measures
 * kunwind against follows frame records, arch_stack_walk() (what
 * stack_trace_save() and dump_stack() use; not exported: found with
 * kallsyms_lookup_name(), itself found through a kprobe, as
 * kunit/arch/arm64/kt_arch.h does).
 *
 *   BENCH_REF          its name in the "kunwind-bench:" lines
 *   BENCH_REF_STS      stack_trace_save() on top of it
 *   bench_arch_init()  find arch_stack_walk()
 *   walk_ref()         its walk from the caller on, return addresses stored
 */
#ifndef KUNWIND_KUNIT_BENCH_ARCH_H
#define KUNWIND_KUNIT_BENCH_ARCH_H

#include <linux/kprobes.h>
#include <linux/stacktrace.h>
#include "../../kt_lookup.h"

#define BENCH_REF	"fp"
#define BENCH_REF_STS	"fp-sts"

KUW_INTERNAL(arch_stack_walk);

static int bench_arch_init(void)
{
	return kt_lookup_fn(arch_stack_walk) ? 0 : -ENOENT;
}

struct bench_ref_buf {
	unsigned long *buf;
	unsigned int n, max;
	bool skip;
};

static bool bench_ref_consume(void *cookie, unsigned long pc)
{
	struct bench_ref_buf *b = cookie;

	if (b->skip) {
		b->skip = false;
		return true;
	}
	if (b->n >= b->max)
		return false;
	b->buf[b->n++] = pc;
	return b->n < b->max;
}

/*
 * arch_stack_walk() of current reports its caller (this function) first:
 * skipped, so that the walk starts at this function's caller as ORC's
 * unwind_start() and kunwind's first_frame do.
 */
static noinline unsigned int walk_ref(unsigned long *buf, unsigned int max)
{
	struct bench_ref_buf b = { .buf = buf, .max = max, .skip = true };

	kuw_call(arch_stack_walk, bench_ref_consume, &b, current, NULL);
	return b.n;
}

#endif /* KUNWIND_KUNIT_BENCH_ARCH_H */
