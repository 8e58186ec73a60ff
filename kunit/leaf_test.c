// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kunwind_leaf: an interrupt in the kernel's memset(), code
 * without unwind tables that keeps its return address in a register (arm64:
 * x30, never saved: a leaf), must be left to memset()'s caller, not to the
 * caller's caller as a frame-record step would.
 *
 * An hrtimer fires every 50 us on this CPU while kt_leaf_loop() calls
 * memset() on 256 KiB again and again; each time it lands in memset(), its
 * callback walks from the interrupted registers (get_irq_regs()).  Truth is
 * the machine code, not kunwind: the frame after memset() must be in
 * kt_leaf_loop(), and the instruction before that return address must be
 * a call whose target is memset() (x86: call rel32; arm64: bl).
 */
#include <kunit/test.h>
#include <linux/hrtimer.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/irq_regs.h>
#include "compat.h"
#include "kunwind.h"

#define KL_SAMPLES	16
#define KL_BUF		(256 * 1024)

struct kl_sample {
	unsigned long pc[2];	/* the interrupted pc, kunwind's next frame */
};

struct kl_state {
	struct hrtimer timer;
	struct kl_sample s[KL_SAMPLES];
	unsigned int n;		/* samples in memset() */
	unsigned int ticks;
	bool stop;
};

static bool kl_in_memset(unsigned long pc)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym, pc);
	return !!strstr(sym, "memset");
}

static bool kl_in_loop(unsigned long pc)
{
	char sym[KSYM_SYMBOL_LEN];

	/* "kl_leaf_loop [leaf_test]": a module's symbol */
	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, "kl_leaf_loop", 12) &&
	       (sym[12] == 0 || sym[12] == ' ');
}

static enum hrtimer_restart kl_tick(struct hrtimer *h)
{
	struct kl_state *k = container_of(h, struct kl_state, timer);
	struct pt_regs *regs = get_irq_regs();
	struct kunwind_state st;
	struct kl_sample *s;

	k->ticks++;
	if (READ_ONCE(k->stop) || k->n == KL_SAMPLES)
		return HRTIMER_NORESTART;
	if (regs && !user_mode(regs) && kl_in_memset(instruction_pointer(regs))) {
		s = &k->s[k->n++];
		s->pc[0] = instruction_pointer(regs);
		s->pc[1] = 0;
		kunwind_start(&st, current, regs, NULL);
		if (!kunwind_done(&st)) {
			kunwind_next_frame(&st);
			if (!kunwind_done(&st))
				s->pc[1] = kunwind_get_return_address(&st);
		}
	}
	hrtimer_forward_now(h, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static noinline void kl_leaf_loop(struct kl_state *k, u8 *buf)
{
	unsigned long end = jiffies + HZ / 2;
	size_t len = KL_BUF;

	OPTIMIZER_HIDE_VAR(len);	/* a real call, whatever the size */
	while (READ_ONCE(k->n) < KL_SAMPLES && time_before(jiffies, end))
		memset(buf, k->ticks & 0xff, len);
}

/* The target of the direct call that returns to @ret, or 0. */
static unsigned long kl_call_target(unsigned long ret)
{
#if defined(CONFIG_ARM64)
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (void *)(ret - 4), 4) ||
	    (insn & 0xfc000000U) != 0x94000000U)	/* bl */
		return 0;
	return ret - 4 + ((long)((insn & 0x03ffffffU) << 6) >> 4);
#else
	u8 op;
	s32 rel;

	if (copy_from_kernel_nofault(&op, (void *)(ret - 5), 1) || op != 0xe8 ||
	    copy_from_kernel_nofault(&rel, (void *)(ret - 4), 4))
		return 0;
	return ret + rel;
#endif
}

static void kl_memset_caller(struct kunit *test)
{
	struct kl_state *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, KL_BUF, GFP_KERNEL);
	unsigned long tgt;
	unsigned int i, good = 0;
	char name[KSYM_SYMBOL_LEN];

	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	/*
	 * x86 without ORC: table-less assembly is stepped by the frame
	 * pointer, which skips a leaf's caller; there is no leaf rule on x86
	 * (arm64 has one, ORC covers the assembly)
	 */
	if (!IS_ENABLED(CONFIG_ARM64) && !IS_ENABLED(CONFIG_UNWINDER_ORC))
		kunit_skip(test, "x86 without ORC: no leaf rule for table-less assembly");
	kuw_hrtimer_setup(&k->timer, kl_tick, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	preempt_disable();	/* the timer fires on this CPU, in the loop */
	hrtimer_start(&k->timer, ns_to_ktime(50 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	kl_leaf_loop(k, buf);
	WRITE_ONCE(k->stop, true);
	preempt_enable();
	hrtimer_cancel(&k->timer);
	kunit_info(test, "%u ticks, %u in memset()\n", k->ticks, k->n);
	KUNIT_ASSERT_GT_MSG(test, k->n, 0U, "no tick landed in memset()");
	for (i = 0; i < k->n; i++) {
		unsigned long ret = k->s[i].pc[1];

		tgt = ret ? kl_call_target(ret) : 0;
		if (kl_in_loop(ret) && tgt && kl_in_memset(tgt)) {
			good++;
			continue;
		}
		sprint_symbol(name, tgt);
		kunit_info(test, "interrupted at %pS: next frame %pS, call before it to %s\n",
			   (void *)k->s[i].pc[0], (void *)ret,
			   tgt ? name : "(no direct call)");
	}
	KUNIT_EXPECT_EQ_MSG(test, good, k->n,
			    "%u of %u walks from memset() went to its caller",
			    good, k->n);
}

static struct kunit_case kl_cases[] = {
	KUNIT_CASE(kl_memset_caller),
	{}
};

static struct kunit_suite kl_suite = {
	.name = "kunwind_leaf",
	.test_cases = kl_cases,
};

kunit_test_suite(kl_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test: an interrupt in memset() is left to memset()'s caller");
