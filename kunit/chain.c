// SPDX-License-Identifier: GPL-2.0
/*
 * A deep chain of functions of varied frame shapes, to unwind through.
 * Not a module of its own: a test module #includes it so that the chain
 * and the tests are ONE translation unit (binutils 2.40 `ld -r` misplaces
 * .sframe relocations of multi-object modules), built with
 * -fasynchronous-unwind-tables -Wa,--gsframe (kunit/Kbuild).
 *
 * kuw_chain_run(c) calls, one level each:
 *   kuw_chain_f1        small frame
 *   kuw_chain_f2        chooses the signal-like path when c->sig
 *  [kuw_chain_sig_glue  asm: builds a fake "interrupted" context whose pc
 *                       is kuw_chain_sig_victim's first instruction, calls]
 *  [kuw_chain_sig_tramp asm with .cfi_signal_frame: its CFI restores that
 *                       context, so the unwinder must look the victim's pc
 *                       up as is, not at pc - 1 (which is in the tramp).
 *                       In a trace: tramp, victim, f2; the glue is hidden]
 *   kuw_chain_f3        a large frame (768 bytes of locals)
 *   kuw_chain_f4        alloca: the CFA is based on the frame pointer
 *   kuw_chain_f5        asm, tail-calls f6 (absent from traces)
 *   kuw_chain_f6        six values live across the call: callee-saved
 *                       registers are saved
 *   kuw_chain_f7        calls c->leaf(c), where the test unwinds
 * Every call but f5's is followed by work, so none becomes a tail call.
 * The asm (f5, the signal-like frame) is per architecture:
 * kunit/arch/$(SRCARCH)/chain_asm.h, which kunit/Kbuild puts on the
 * include path.
 */
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "chain.h"
#include "chain_asm.h"

int kuw_chain_f7(struct kuw_chain *c)
{
	int r = c->leaf(c);

	barrier();
	return r + 1;
}

int kuw_chain_f6(struct kuw_chain *c, unsigned long a, unsigned long b,
		 unsigned long d, unsigned long e, unsigned long f)
{
	unsigned long x1 = a * 3, x2 = b ^ 5, x3 = d + 7, x4 = e * 11;
	unsigned long x5 = f - 13, x6 = a + f;
	int r;

	OPTIMIZER_HIDE_VAR(x1);
	OPTIMIZER_HIDE_VAR(x2);
	OPTIMIZER_HIDE_VAR(x3);
	OPTIMIZER_HIDE_VAR(x4);
	OPTIMIZER_HIDE_VAR(x5);
	OPTIMIZER_HIDE_VAR(x6);
	r = kuw_chain_f7(c);
	return r + (int)(x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6);
}

int kuw_chain_f4(struct kuw_chain *c, unsigned int n)
{
	char *p = __builtin_alloca(n);
	int r;

	memset(p, 0x5a, n);
	OPTIMIZER_HIDE_VAR(p);
	r = kuw_chain_f5(c);
	return r + p[n / 2];
}

int kuw_chain_f3(struct kuw_chain *c)
{
	char buf[768];
	int r;

	memset(buf, c->alloca_n & 0xff, sizeof(buf));
	barrier_data(buf);
	r = kuw_chain_f4(c, c->alloca_n);
	return r + buf[c->alloca_n % sizeof(buf)];
}

int kuw_chain_f2(struct kuw_chain *c)
{
	int r;

	if (c->sig)
		r = kuw_chain_sig_glue(c);
	else
		r = kuw_chain_f3(c);
	barrier();
	return r + 2;
}

int kuw_chain_f1(struct kuw_chain *c)
{
	int r = kuw_chain_f2(c);

	barrier();
	return r * 2;
}

int kuw_chain_run(struct kuw_chain *c)
{
	int r = kuw_chain_f1(c);

	barrier();
	return r + 3;
}

/*
 * A kthread asleep at the bottom of the chain, for walks of a sleeping
 * task: kthread_run(kuw_chain_sleeper_fn, s, ...), wait for s->ready,
 * walk it, complete(&s->go), kthread_stop().
 */
struct kuw_chain_sleeper {
	struct completion ready, go;
};

noinline __used int kuw_chain_sleep_leaf(struct kuw_chain *c)
{
	struct kuw_chain_sleeper *s = c->priv;

	complete(&s->ready);
	wait_for_completion(&s->go);
	return 0;
}

__used int kuw_chain_sleeper_fn(void *arg)
{
	struct kuw_chain c = { .leaf = kuw_chain_sleep_leaf, .priv = arg,
			       .alloca_n = 64 };

	kuw_chain_run(&c);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Names of the frames a trace from c->leaf shows, leaf's caller first. */
static const char *const kuw_chain_frames_plain[] = {
	"kuw_chain_f7", "kuw_chain_f6", "kuw_chain_f4", "kuw_chain_f3",
	"kuw_chain_f2", "kuw_chain_f1", "kuw_chain_run",
};

static const char *const kuw_chain_frames_sig[] = {
	"kuw_chain_f7", "kuw_chain_f6", "kuw_chain_f4", "kuw_chain_f3",
	"kuw_chain_sig_tramp", "kuw_chain_sig_victim", "kuw_chain_f2",
	"kuw_chain_f1", "kuw_chain_run",
};
