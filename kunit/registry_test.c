// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kunwind's registry: module tables appear when a module
 * comes and disappear when it goes, a module's init text is covered while
 * init runs and dropped once the module is live, and unwinding through a
 * module keeps giving the right frames while other modules come and go.
 *
 * Modules are loaded and unloaded with the guest's insmod/rmmod through
 * call_usermodehelper(): the test bed's initramfs has busybox and the test
 * modules under /lib/kunwind/kunit/ (the cases skip when they do not).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/umh.h>
#include "compat.h"
#include "kunwind.h"
#include "chain.c"

static char *churn_ko = "/lib/kunwind/kunit/churn_payload.ko";
module_param(churn_ko, charp, 0444);
MODULE_PARM_DESC(churn_ko, "path of churn_payload.ko in the guest");

#define CHURN "churn_payload"

/* call_usermodehelper() takes char **: neither array can be const. */
static char *kt_envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin",
			   NULL };

static int kt_run(const char *prog, const char *arg)
{
	char *argv[3] = { (char *)prog, (char *)arg, NULL };

	return call_usermodehelper(prog, argv, kt_envp, UMH_WAIT_PROC);
}

static const char *kt_tool(const char *name)
{
	static const char *const dirs[] = { "/sbin/", "/bin/", "/usr/sbin/" };
	static char path[64];
	struct file *f;
	int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s%s", dirs[i], name);
		f = kuw_filp_open_init(path, O_RDONLY, 0);
		if (!IS_ERR(f)) {
			filp_close(f, NULL);
			return path;
		}
	}
	return NULL;
}

static bool kt_can_churn(struct kunit *test)
{
	struct file *f = kuw_filp_open_init(churn_ko, O_RDONLY, 0);

	if (IS_ERR(f))
		return false;
	filp_close(f, NULL);
	return kt_tool("insmod") && kt_tool("rmmod");
}

static int kt_insmod(void)
{
	char tool[64];

	strscpy(tool, kt_tool("insmod"), sizeof(tool));
	return kt_run(tool, churn_ko);
}

static int kt_rmmod(void)
{
	char tool[64];

	strscpy(tool, kt_tool("rmmod"), sizeof(tool));
	return kt_run(tool, CHURN);
}

static int kt_ntables(struct kunwind_table_info *info)
{
	return kunwind_tables_of(CHURN, info, 4);
}

static int kt_read_param(const char *name, unsigned long *v)
{
	char path[96], buf[32];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", CHURN,
		 name);
	f = kuw_filp_open_init(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return kstrtoul(strim(buf), 0, v);
}

/*
 * The first address of the module's text with a row (its first function:
 * the text may start with padding before it, CONFIG_CALL_PADDING's
 * __pfx_ symbols), at most 64 bytes in; @start when none.
 */
static unsigned long kt_first_row(unsigned long start,
				  struct kunwind_rule_info *ri)
{
	unsigned long pc;

	for (pc = start; pc < start + 64; pc++)
		if (!kunwind_rule_for_pc(pc, KUNWIND_SRC_ANY, ri))
			return pc;
	return start;
}

/* Load, unload, load: the tables follow, rows answer only while loaded. */
static void kt_tables_follow_modules(struct kunit *test)
{
	struct kunwind_table_info info[4];
	struct kunwind_rule_info *ri;
	unsigned long text;
	int n;

	if (!kt_can_churn(test))
		kunit_skip(test, "no %s or insmod/rmmod in this guest", churn_ko);
	ri = kunit_kzalloc(test, sizeof(*ri), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ri);
	if (!kt_ntables(info))
		KUNIT_ASSERT_EQ(test, kt_insmod(), 0);
	n = kt_ntables(info);
	KUNIT_ASSERT_EQ(test, n, 2);
	text = kt_first_row(info[0].text_start, ri);
	KUNIT_EXPECT_EQ(test, kunwind_rule_for_pc(text, KUNWIND_SRC_ANY, ri),
			0);
	KUNIT_EXPECT_STREQ(test, ri->owner, CHURN);

	KUNIT_ASSERT_EQ(test, kt_rmmod(), 0);
	KUNIT_EXPECT_EQ(test, kt_ntables(info), 0);
	if (!kunwind_rule_for_pc(text, KUNWIND_SRC_ANY, ri))
		KUNIT_EXPECT_STRNEQ(test, ri->owner, CHURN);

	KUNIT_ASSERT_EQ(test, kt_insmod(), 0);
	n = kt_ntables(info);
	KUNIT_EXPECT_EQ(test, n, 2);
	if (n)
		KUNIT_EXPECT_EQ(test,
				kunwind_rule_for_pc(kt_first_row(info[0].text_start, ri),
						    KUNWIND_SRC_ANY, ri), 0);
}

/* Init text: covered while init runs, dropped once the module is live. */
static void kt_init_text_dropped(struct kunit *test)
{
	struct kunwind_rule_info *ri;
	unsigned long pc = 0, had = 0;

	if (!kt_can_churn(test))
		kunit_skip(test, "no %s or insmod/rmmod in this guest", churn_ko);
	ri = kunit_kzalloc(test, sizeof(*ri), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ri);
	if (kunwind_tables_of(CHURN, NULL, 0))
		KUNIT_ASSERT_EQ(test, kt_rmmod(), 0);
	KUNIT_ASSERT_EQ(test, kt_insmod(), 0);
	KUNIT_ASSERT_EQ(test, kt_read_param("init_pc", &pc), 0);
	KUNIT_ASSERT_EQ(test, kt_read_param("init_had_rule", &had), 0);
	KUNIT_EXPECT_NE(test, pc, 0UL);
	KUNIT_EXPECT_EQ(test, had, 1UL);
	if (!kunwind_rule_for_pc(pc, KUNWIND_SRC_ANY, ri))
		KUNIT_EXPECT_STRNEQ(test, ri->owner, CHURN);
}

/* The answer at every pc of [start, end) from one source: row and rule. */
static void kt_answers(unsigned long start, unsigned long end, u8 src,
		       u64 *row, u32 *sum, struct kunwind_rule_info *ri)
{
	unsigned long pc;

	for (pc = start; pc < end; pc++) {
		u32 i = pc - start;

		if (kunwind_rule_for_pc(pc, src, ri)) {
			row[i] = 0;
			sum[i] = 0;
			continue;
		}
		row[i] = ri->row_pc;
		sum[i] = jhash(&ri->rule, kuw_rule_size(&ri->rule), 0);
	}
}

/*
 * The sysfs path (modules loaded before kunwind) gives the same tables as
 * the module_finalize kprobe: same FDEs and rows, and the same row and rule
 * at every pc of the module's text, from .eh_frame and from .sframe.
 */
static void kt_sysfs_path_same_tables(struct kunit *test)
{
	struct kunwind_table_info a[4], b[4];
	struct kunwind_rule_info *ri;
	unsigned long start, end;
	u64 *row[2][2];
	u32 *sum[2][2], len;
	int n, m, i, s, k, diff = 0;
	static const u8 srcs[2] = { KUW_SRC_EH_FRAME, KUW_SRC_SFRAME };

	if (!kt_can_churn(test))
		kunit_skip(test, "no %s or insmod/rmmod in this guest", churn_ko);
	ri = kunit_kzalloc(test, sizeof(*ri), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ri);
	/* a fresh load: tables from the kprobe */
	if (kunwind_tables_of(CHURN, NULL, 0))
		KUNIT_ASSERT_EQ(test, kt_rmmod(), 0);
	KUNIT_ASSERT_EQ(test, kt_insmod(), 0);
	n = kunwind_tables_of(CHURN, a, ARRAY_SIZE(a));
	KUNIT_ASSERT_EQ(test, n, 2);
	start = a[0].text_start;
	end = a[0].text_end;
	len = end - start;
	KUNIT_ASSERT_GT(test, len, 0U);
	KUNIT_ASSERT_LE(test, len, 1U << 20);
	for (k = 0; k < 2; k++) {
		for (s = 0; s < 2; s++) {
			row[k][s] = kunit_kcalloc(test, len, sizeof(u64),
						  GFP_KERNEL);
			sum[k][s] = kunit_kcalloc(test, len, sizeof(u32),
						  GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, row[k][s]);
			KUNIT_ASSERT_NOT_NULL(test, sum[k][s]);
		}
	}
	for (s = 0; s < 2; s++)
		kt_answers(start, end, srcs[s], row[0][s], sum[0][s], ri);

	KUNIT_ASSERT_EQ(test, kunwind_reread_module(CHURN), 0);
	m = kunwind_tables_of(CHURN, b, ARRAY_SIZE(b));
	KUNIT_ASSERT_EQ(test, m, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, b[i].src, a[i].src);
		KUNIT_EXPECT_EQ(test, b[i].nfde, a[i].nfde);
		KUNIT_EXPECT_EQ(test, b[i].nrows, a[i].nrows);
		KUNIT_EXPECT_EQ(test, b[i].sec_addr, a[i].sec_addr);
		/* sysfs gives an upper bound of the size */
		KUNIT_EXPECT_GE(test, b[i].sec_size, a[i].sec_size);
	}
	for (s = 0; s < 2; s++)
		kt_answers(start, end, srcs[s], row[1][s], sum[1][s], ri);
	for (s = 0; s < 2; s++)
		for (i = 0; i < len; i++)
			diff += row[0][s][i] != row[1][s][i] ||
				sum[0][s][i] != sum[1][s][i];
	KUNIT_EXPECT_EQ(test, diff, 0);
	/* and the module had rows at all (not at its first byte: padding) */
	for (i = 0, k = 0; i < len; i++)
		k += row[0][0][i] != 0;
	KUNIT_EXPECT_GT(test, k, 0);
}

/* ---- unwinding while modules come and go ---- */

static noinline int kt_reg_leaf(struct kuw_chain *c)
{
	struct kunwind_state st;
	unsigned long *pc = c->priv;
	unsigned int n = 0;

	for (kunwind_start(&st, current, NULL, NULL); !kunwind_done(&st);
	     kunwind_next_frame(&st))
		if (n < 16)
			pc[n++] = kunwind_get_return_address(&st);
	pc[16] = n;
	pc[17] = kunwind_stop_reason(&st);
	barrier();
	return 0;
}

/* @pc is in @name or in a clone of it the compiler made (name.isra.0) */
static bool kt_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) &&
	       (sym[n] == 0 || sym[n] == ' ' || sym[n] == '.');
}

struct kt_churn {
	atomic_t rounds;
	atomic_t failures;
	bool stop;
};

static int kt_churn_fn(void *arg)
{
	struct kt_churn *c = arg;
	int i;

	for (i = 0; i < 8 && !READ_ONCE(c->stop); i++) {
		if (kt_rmmod() || kt_insmod())
			atomic_inc(&c->failures);
		atomic_inc(&c->rounds);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kt_unwind_while_churning(struct kunit *test)
{
	struct kt_churn *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	unsigned long *pc = kunit_kcalloc(test, 18, sizeof(long), GFP_KERNEL);
	struct kuw_chain c = { .leaf = kt_reg_leaf, .alloca_n = 40 };
	struct task_struct *t;
	unsigned int walks = 0, good = 0, i;

	if (!kt_can_churn(test))
		kunit_skip(test, "no %s or insmod/rmmod in this guest", churn_ko);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	KUNIT_ASSERT_NOT_NULL(test, pc);
	if (!kunwind_tables_of(CHURN, NULL, 0))
		KUNIT_ASSERT_EQ(test, kt_insmod(), 0);
	c.priv = pc;
	t = kthread_run(kt_churn_fn, ch, "kuw_churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	while (atomic_read(&ch->rounds) < 8 && walks < 200000) {
		bool ok;

		kuw_chain_run(&c);
		walks++;
		ok = pc[16] >= 2 + ARRAY_SIZE(kuw_chain_frames_plain) &&
		     pc[17] == -KUW_E_END && kt_is(pc[0], "kt_reg_leaf");
		for (i = 0; ok && i < ARRAY_SIZE(kuw_chain_frames_plain); i++)
			ok = kt_is(pc[1 + i], kuw_chain_frames_plain[i]);
		good += ok;
		cond_resched();
	}
	WRITE_ONCE(ch->stop, true);
	kthread_stop(t);
	put_task_struct(t);
	kunit_info(test, "%u walks during %d load/unload rounds\n", walks,
		   atomic_read(&ch->rounds));
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->failures), 0);
	KUNIT_EXPECT_GT(test, walks, 8U);
	KUNIT_EXPECT_EQ(test, good, walks);
	/* leave it loaded, as the test bed expects to unload it */
	if (!kunwind_tables_of(CHURN, NULL, 0))
		kt_insmod();
}

static struct kunit_case kt_reg_cases[] = {
	KUNIT_CASE(kt_tables_follow_modules),
	KUNIT_CASE(kt_init_text_dropped),
	KUNIT_CASE(kt_sysfs_path_same_tables),
	KUNIT_CASE(kt_unwind_while_churning),
	{}
};

static struct kunit_suite kt_reg_suite = {
	.name = "kunwind_registry",
	.test_cases = kt_reg_cases,
};

kunit_test_suite(kt_reg_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind registry tests: modules coming and going");
