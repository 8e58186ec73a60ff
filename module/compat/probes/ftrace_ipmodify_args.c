// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace with IPMODIFY through struct ftrace_regs (DYNAMIC_FTRACE_WITH_ARGS:
 * no SAVE_REGS needed, as livepatch does), the pc set with
 * ftrace_regs_set_instruction_pointer() (6.12+).  Without ARGS the header
 * defines that setter as a no-op: the probe refuses such a kernel.
 */
#include <linux/ftrace.h>

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#error "no DYNAMIC_FTRACE_WITH_ARGS"
#endif

static void notrace kuw_probe_fn(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	ftrace_regs_set_instruction_pointer(fregs, parent_ip);
}

int kuw_probe(struct ftrace_ops *ops);
int kuw_probe(struct ftrace_ops *ops)
{
	ops->func = kuw_probe_fn;
	ops->flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_DYNAMIC;
	return register_ftrace_function(ops);
}
