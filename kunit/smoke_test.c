// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke suite for the test bed itself: proves that a KUnit module built out
 * of tree loads and runs in the guest, and that the guest is what the other
 * suites assume (two CPUs, a fine-grained clock, a working ORC unwinder for
 * module code built with unwind tables).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/kallsyms.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/stacktrace.h>

/* The guest is booted with -smp 2; concurrency tests rely on it. */
static void smoke_two_cpus(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_SMP));
	KUNIT_EXPECT_GE(test, num_online_cpus(), 2U);
}

/*
 * Without tsc_early_khz= the minimal guest runs on the jiffies clocksource
 * and ktime moves in 4 ms steps: timings would be meaningless.  Expect a
 * few hundred calls to see the clock advance by less than 1 ms.
 */
static void smoke_fine_clock(struct kunit *test)
{
	u64 t0 = ktime_get_ns(), t1 = t0, step = U64_MAX;
	int i;

	for (i = 0; i < 100000 && step == U64_MAX; i++) {
		t1 = ktime_get_ns();
		if (t1 != t0)
			step = t1 - t0;
	}
	KUNIT_ASSERT_NE_MSG(test, step, U64_MAX, "clock never moved");
	KUNIT_EXPECT_LT_MSG(test, step, (u64)NSEC_PER_MSEC,
			    "clock step %llu ns: booted without tsc_early_khz?",
			    step);
}

static noinline unsigned int smoke_leaf(unsigned long *entries,
					unsigned int n)
{
	unsigned int got = stack_trace_save(entries, n, 0);

	barrier();
	return got;
}

static noinline unsigned int smoke_caller(unsigned long *entries,
					  unsigned int n)
{
	unsigned int got = smoke_leaf(entries, n);

	barrier();
	return got;
}

/* @sym is @fn of this module, or a clone of it (fn.constprop.0, ...). */
static bool smoke_is(const char *sym, const char *fn)
{
	size_t len = strlen(fn);

	return !strncmp(sym, fn, len) && (sym[len] == ' ' || sym[len] == '.') &&
	       strstr(sym, " [smoke_test]");
}

/*
 * ORC, the reference unwinder, must walk through this module's frames:
 * the trace from smoke_leaf() has smoke_leaf, then smoke_caller, then this
 * test function.
 */
static void smoke_orc_walks_module(struct kunit *test)
{
	unsigned long entries[16];
	char sym[KSYM_SYMBOL_LEN];
	unsigned int n, i;
	int leaf = -1, caller = -1, self = -1;

	n = smoke_caller(entries, ARRAY_SIZE(entries));
	KUNIT_ASSERT_GE(test, n, 3U);
	for (i = 0; i < n; i++) {
		sprint_symbol_no_offset(sym, entries[i]);
		kunit_info(test, "ORC frame %u: %s\n", i, sym);
		if (leaf < 0 && smoke_is(sym, "smoke_leaf"))
			leaf = i;
		else if (caller < 0 && smoke_is(sym, "smoke_caller"))
			caller = i;
		else if (self < 0 && smoke_is(sym, "smoke_orc_walks_module"))
			self = i;
	}
	KUNIT_EXPECT_GE(test, leaf, 0);
	KUNIT_EXPECT_EQ(test, caller, leaf + 1);
	KUNIT_EXPECT_EQ(test, self, caller + 1);
}

static struct kunit_case smoke_cases[] = {
	KUNIT_CASE(smoke_two_cpus),
	KUNIT_CASE(smoke_fine_clock),
	KUNIT_CASE(smoke_orc_walks_module),
	{}
};

static struct kunit_suite smoke_suite = {
	.name = "kunwind_smoke",
	.test_cases = smoke_cases,
};

kunit_test_suite(smoke_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test bed smoke suite");
