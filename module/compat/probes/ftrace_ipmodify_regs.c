// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace with IPMODIFY on full pt_regs (DYNAMIC_FTRACE_WITH_REGS and
 * FTRACE_OPS_FL_SAVE_REGS): the variant for a kernel without
 * DYNAMIC_FTRACE_WITH_ARGS; the pc is set in ftrace_get_regs().
 */
#include <linux/ftrace.h>
#include <linux/ptrace.h>

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#error "no DYNAMIC_FTRACE_WITH_REGS"
#endif

static void notrace kuw_probe_fn(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (regs)
		instruction_pointer_set(regs, parent_ip);
}

int kuw_probe(struct ftrace_ops *ops);
int kuw_probe(struct ftrace_ops *ops)
{
	ops->func = kuw_probe_fn;
	ops->flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS |
		     FTRACE_OPS_FL_DYNAMIC;
	return register_ftrace_function(ops);
}
