// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite: the walk's memory per CPU and context, and the walk's path
 * kept from kprobes and ftrace (README, "Stack use").
 *
 *   bt_nested: with this context's slot held (kuw_walk_get(), as a walk
 *     holds it), a walk nested in it is refused: stack_trace_save()
 *     through kunwind's hook answers with the kernel's own trace, the
 *     same as the kernel gives with the switch off from the same call
 *     site, and kunwind_start() stops with -KUW_E_NESTED (-EBUSY); the
 *     stop counter "nested walk refused" (debugfs kunwind/stats) counts
 *     both.  In the switch guest (scripts/lib.sh KUW_SWITCH_MODS): it
 *     turns the consumers switch on, which patches text.
 *   bt_nokprobe: register_kprobe() refuses every out-of-line function of
 *     the walk's path (-EINVAL: the kprobe blacklist), found by name in
 *     kunwind.ko's symbols.
 *   bt_notrace: none of them can be traced: ftrace_set_filter() on a
 *     throwaway ftrace_ops finds no such traceable function (-EINVAL).
 *
 * The list is every function the walk objects (Kbuild KUW_WALK_OBJS) and
 * the glue they call keep out of line on some architecture; a name this
 * build inlined is not a symbol (-ENOENT for the kprobe) and is counted
 * apart.
 */
#include <kunit/test.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include "kunwind.h"
#include "kunwind_internal.h"

#define BT_MAX	64

static const char *const bt_walk_fns[] = {
	/* module/engine/ */
	"kuw_regs_get", "kuw_step_in", "step_expr", "step_fast",
	"step_generic", "step_resolve_all", "dwop_shape", "kuw_dwop_eval_in",
	"kuw_rd_uleb", "kuw_rd_sleb", "kuw_table_lookup", "kuw_strerror",
	/* module/unwind.c */
	"__kunwind_start", "kunwind_start", "kunwind_next_frame",
	"kunwind_next_frames", "kunwind_errno", "kunwind_error",
	"kunwind_get_return_address", "kunwind_reliable", "kunwind_strerror",
	"kuw_check_stack", "kuw_find_row", "kuw_how_name", "kuw_on_other",
	"kuw_read_mem", "kuw_skip", "kuw_step_common", "kuw_step_frame_any",
	"kuw_step_lean", "kuw_stop", "kuw_walk_get", "kuw_walk_put",
	"kuw_walk_start",
	/* module/serve.c, oops.c, the glue the walk calls */
	"kuw_sink_put", "kuw_sink_kernel", "kuw_sink_splice", "kuw_sink_walk",
	"kuw_sink_fallback", "kuw_save_refused", "kuw_reliable_refused",
	"kuw_stack_trace_save", "kuw_stack_trace_save_tsk",
	"kuw_stack_trace_save_regs", "kuw_stack_trace_save_tsk_reliable",
	"kuw_perf_walk", "kuw_perf_callchain_kernel", "kuw_print_trace",
	"kuw_die_notify", "kunwind_dump_stack", "kuw_registry_text",
	"kuw_kernel_text", "kuw_put_task_stack",
	/* module/arch/ */
	"kuw_arch_stack_of", "kuw_arch_regs_from_pt", "kuw_arch_task_regs",
	"kuw_arch_at_end", "kuw_arch_unknown_pc", "kuw_arch_perf_full_regs",
	"kuw_arch_boundary_step", "kuw_arch_entry_pad_lookup",
	"kuw_x86_ret_addr", "kuw_orc_step", "kuw_in_entry",
	"kuw_a64_ret_addr", "kuw_record_step",
};

/* debugfs kunwind/stats' "stop N nested walk refused": its counters */
static long bt_nested_count(void)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(kuw_counters, cpu).stops[KUW_E_NESTED]);
	return n;
}

/*
 * @a and @b lie in the same function (kallsyms).  The names off the
 * stack (a KSYM_SYMBOL_LEN each): one test runs at a time.
 */
static bool bt_same_fn(unsigned long a, unsigned long b)
{
	static char sa[KSYM_SYMBOL_LEN], sb[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sa, a);
	sprint_symbol_no_offset(sb, b);
	/* no symbol: the raw address, "0x..." */
	return !strcmp(sa, sb) && sa[0] != '0';
}

static noinline unsigned int bt_take(unsigned long *buf)
{
	return stack_trace_save(buf, BT_MAX, 0);
}

static void bt_nested(struct kunit *test)
{
	unsigned long *tr[2];
	unsigned int n[2], i;
	struct kunwind_state *held, *ks;
	long before, after;
	int err = 0, ks_err = 0;

	tr[0] = kunit_kzalloc(test, BT_MAX * sizeof(long), GFP_KERNEL);
	tr[1] = kunit_kzalloc(test, BT_MAX * sizeof(long), GFP_KERNEL);
	ks = kunit_kzalloc(test, sizeof(*ks), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tr[0] && tr[1] && ks);
	before = bt_nested_count();
	/* 0: the kernel's own answer; 1: kunwind's hook, its walk refused */
	for (i = 0; i < 2; i++) {
		held = NULL;
		if (i == 1) {
			KUNIT_ASSERT_EQ(test, kunwind_consumers_set(true), 0);
			held = kuw_walk_get(false);
			if (!held)
				break;
		}
		n[i] = bt_take(tr[i]);
		if (held) {
			kunwind_start(ks, NULL, NULL, NULL);
			if (!kunwind_done(ks))
				kunwind_next_frame(ks);
			ks_err = kunwind_stop_reason(ks);
			err = kunwind_error(ks);
			kuw_walk_put(held);
		}
	}
	kunwind_consumers_set(false);
	after = bt_nested_count();
	KUNIT_ASSERT_NOT_NULL_MSG(test, held, "this context's slot was taken");
	KUNIT_EXPECT_EQ(test, ks_err, -KUW_E_NESTED);
	KUNIT_EXPECT_EQ(test, err, -EBUSY);
	KUNIT_EXPECT_EQ(test, after - before, 2L);
	KUNIT_EXPECT_GT(test, n[0], 2U);
	KUNIT_EXPECT_EQ(test, n[1], n[0]);
	/*
	 * Entry 1 is the return address into this function: the compiler
	 * may unroll the loop, so each round may call bt_take() from a call
	 * site of its own.  Same function, then the very same frames.
	 */
	for (i = 0; i < min(n[0], n[1]); i++) {
		if (i == 1) {
			KUNIT_EXPECT_TRUE_MSG(test, bt_same_fn(tr[1][i], tr[0][i]),
					      "entry 1: %pS and %pS",
					      (void *)tr[1][i], (void *)tr[0][i]);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, tr[1][i], tr[0][i], "entry %u", i);
	}
}

static void bt_nokprobe(struct kunit *test)
{
	char name[KSYM_NAME_LEN + 16];
	unsigned int i, found = 0, absent = 0;
	struct kprobe *kp;
	int ret;

	kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kp);
	for (i = 0; i < ARRAY_SIZE(bt_walk_fns); i++) {
		snprintf(name, sizeof(name), "kunwind:%s", bt_walk_fns[i]);
		memset(kp, 0, sizeof(*kp));
		kp->symbol_name = name;
		ret = register_kprobe(kp);
		if (!ret)
			unregister_kprobe(kp);
		if (ret == -ENOENT) {
			absent++;
			continue;
		}
		found++;
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "kprobe on %s",
				    bt_walk_fns[i]);
	}
	kunit_info(test, "%u walk functions refused a kprobe, %u not symbols here",
		   found, absent);
	KUNIT_EXPECT_GE(test, found, 40U);
}

#ifdef CONFIG_DYNAMIC_FTRACE
static void bt_trace_fn(unsigned long ip, unsigned long parent_ip,
			struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static void bt_notrace(struct kunit *test)
{
	struct ftrace_ops *ops;
	unsigned int i;
	int ret;

	ops = kunit_kzalloc(test, sizeof(*ops), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	ops->func = bt_trace_fn;
	for (i = 0; i < ARRAY_SIZE(bt_walk_fns); i++) {
		ret = ftrace_set_filter(ops, (unsigned char *)bt_walk_fns[i],
					strlen(bt_walk_fns[i]), 1);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s is traceable",
				    bt_walk_fns[i]);
	}
	ftrace_free_filter(ops);
}
#else
static void bt_notrace(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_DYNAMIC_FTRACE");
}
#endif

static struct kunit_case kunwind_budget_cases[] = {
	KUNIT_CASE(bt_nested),
	KUNIT_CASE(bt_nokprobe),
	KUNIT_CASE(bt_notrace),
	{}
};

static struct kunit_suite kunwind_budget_suite = {
	.name = "kunwind_budget",
	.test_cases = kunwind_budget_cases,
};

kunit_test_suite(kunwind_budget_suite);

MODULE_DESCRIPTION("kunwind KUnit: the walk's per-CPU memory, no kprobes or tracing on its path");
MODULE_LICENSE("GPL");
