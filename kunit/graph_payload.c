// SPDX-License-Identifier: GPL-2.0
/*
 * graph_payload: the chain of kunit/chain.c in a module of its own, for
 * scripts/guest/graph.sh, which traces kuw_chain_f2 with the kernel's
 * function-graph tracer (tracefs) and then writes 1 to the parameter
 * "walk".  The write runs the chain and walks it with kunwind alone
 * (KUNWIND_NO_ORC) from its leaf; the tracer has replaced f2's return
 * address with return_to_handler, which kunwind must translate back.
 *
 * The write fails (-EINVAL) unless the trace shows kuw_chain_f3,
 * kuw_chain_f2, kuw_chain_f1 in order, no return_to_handler, reaches the
 * end of the stack and is reliable; the frames are logged either way.
 * The script checks in the trace buffer that the tracer did trace f2.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "kunwind.h"
#include "chain.c"

#define GP_MAX 64

struct gp_trace {
	unsigned long pc[GP_MAX];
	unsigned int n;
	int err;
	bool reliable;
};

static bool gp_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) && (sym[n] == 0 || sym[n] == ' ');
}

static noinline int gp_leaf(struct kuw_chain *c)
{
	struct gp_trace *t = c->priv;
	struct kunwind_state st;

	t->n = 0;
	for (__kunwind_start(&st, NULL, NULL, NULL,
			     KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
	     !kunwind_done(&st); kunwind_next_frame(&st))
		if (t->n < GP_MAX)
			t->pc[t->n++] = kunwind_get_return_address(&st);
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
	barrier();
	return 0;
}

static int gp_walk_set(const char *val, const struct kernel_param *kp)
{
	struct gp_trace *t = kzalloc(sizeof(*t), GFP_KERNEL);
	struct kuw_chain c = { .leaf = gp_leaf, .alloca_n = 16 };
	unsigned int i, f3 = 0, f2 = 0, f1 = 0, tramp = 0;
	int ret;

	if (!t)
		return -ENOMEM;
	c.priv = t;
	kuw_chain_run(&c);
	for (i = 0; i < t->n; i++) {
		pr_info("graph_payload: %2u %pS\n", i, (void *)t->pc[i]);
		if (gp_is(t->pc[i], "return_to_handler"))
			tramp++;
		if (!f3 && gp_is(t->pc[i], "kuw_chain_f3"))
			f3 = i + 1;
		if (!f2 && gp_is(t->pc[i], "kuw_chain_f2"))
			f2 = i + 1;
		if (!f1 && gp_is(t->pc[i], "kuw_chain_f1"))
			f1 = i + 1;
	}
	pr_info("graph_payload: stop: %s, %s\n", kunwind_strerror(t->err),
		t->reliable ? "reliable" : "unreliable");
	ret = f3 && f2 == f3 + 1 && f1 == f2 + 1 && !tramp &&
	      t->err == -KUW_E_END && t->reliable ? 0 : -EINVAL;
	kfree(t);
	return ret;
}

static const struct kernel_param_ops gp_walk_ops = {
	.set = gp_walk_set,
};
module_param_cb(walk, &gp_walk_ops, NULL, 0200);
MODULE_PARM_DESC(walk, "write 1: run the chain and walk it");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind test payload: the chain under the function-graph tracer");
