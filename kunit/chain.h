/* SPDX-License-Identifier: GPL-2.0 */
/* The chain of kunit/chain.c: its context and its functions (some in asm). */
#ifndef KUNWIND_KUNIT_CHAIN_H
#define KUNWIND_KUNIT_CHAIN_H

#include <linux/types.h>

struct kuw_chain {
	int (*leaf)(struct kuw_chain *c);
	void *priv;
	unsigned int alloca_n;
	bool sig;
	unsigned long sink;
};

/*
 * No inlining, cloning or IPA on the chain: the names, frames and ABI stay
 * as written (the attributes on the declarations apply to the definitions).
 */
#define __kuw_noipa	__attribute__((__noipa__))

noinline __used __kuw_noipa int kuw_chain_run(struct kuw_chain *c);
noinline __used __kuw_noipa int kuw_chain_f1(struct kuw_chain *c);
noinline __used __kuw_noipa int kuw_chain_f2(struct kuw_chain *c);
noinline __used __kuw_noipa int kuw_chain_f3(struct kuw_chain *c);
noinline __used __kuw_noipa int kuw_chain_f4(struct kuw_chain *c, unsigned int n);
int kuw_chain_f5(struct kuw_chain *c);	/* asm */
noinline __used __kuw_noipa int kuw_chain_f6(struct kuw_chain *c,
					     unsigned long a, unsigned long b,
					     unsigned long d, unsigned long e,
					     unsigned long f);
noinline __used __kuw_noipa int kuw_chain_f7(struct kuw_chain *c);
int kuw_chain_sig_glue(struct kuw_chain *c);
void kuw_chain_sig_tramp(void);
void kuw_chain_sig_victim(void);
noinline __used int kuw_chain_sleep_leaf(struct kuw_chain *c);
__used int kuw_chain_sleeper_fn(void *arg);

#endif /* KUNWIND_KUNIT_CHAIN_H */
