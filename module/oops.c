// SPDX-License-Identifier: GPL-2.0
/*
 * The oops hook: a die notifier that prints kunwind's own trace of the
 * faulting context next to the kernel's, and kunwind_dump_stack().
 *
 *	kunwind: Call Trace:
 *	kunwind:  demo_depth5+0x11/0x20 [demo_oops]
 *	...
 *	kunwind: end of trace: end of stack (reliable)
 *
 * Frames reached with the kernel's ORC unwinder (entry code has no CFI)
 * are marked "(orc)".  Rate-limited; turned off with oops_trace=0.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/ratelimit.h>
#include "kunwind.h"
#include "kunwind_internal.h"

static bool oops_trace = true;
module_param(oops_trace, bool, 0644);
MODULE_PARM_DESC(oops_trace, "print kunwind's trace on oops (default on)");

static DEFINE_RATELIMIT_STATE(kuw_oops_rs, 10 * HZ, 3);

/*
 * The walk state is this CPU's (kuw_walk_get(): @oops, the oops hook's
 * own, else this context's), not on the stack: the oops may be on an
 * exception stack, a stack overflow's (README, "Stack use").  Taken: a
 * walk nested in one of the same slot, refused (counted as a stop, no
 * trace; the kernel prints its own).
 */
static void kuw_print_trace(struct task_struct *task, struct pt_regs *regs,
			    bool oops)
{
	struct kunwind_state *st = kuw_walk_get(oops);
	const char *how;
	int err;

	if (!st)
		return;
	pr_warn("Call Trace:\n");
	for (kuw_walk_start(st, task, regs, false); !kunwind_done(st);
	     kunwind_next_frame(st)) {
		how = kuw_how_name(st->how);
		pr_warn(" %pS%s%s%s\n",
			(void *)kunwind_get_return_address(st),
			*how ? " (" : "", how, *how ? ")" : "");
	}
	err = kunwind_stop_reason(st);
	pr_warn("end of trace: %s (%s)\n", kunwind_strerror(err),
		kunwind_reliable(st) ? "reliable" : "unreliable");
	kuw_walk_put(st);
}

NOKPROBE_SYMBOL(kuw_print_trace);

static int kuw_die_notify(struct notifier_block *nb, unsigned long val,
			  void *data)
{
	struct die_args *args = data;

	if (val != DIE_OOPS || !READ_ONCE(oops_trace) || !args ||
	    !args->regs)
		return NOTIFY_DONE;
	if (!__ratelimit(&kuw_oops_rs))
		return NOTIFY_DONE;
	kuw_print_trace(current, args->regs, true);
	return NOTIFY_DONE;
}

static struct notifier_block kuw_die_nb = {
	.notifier_call = kuw_die_notify,
};

/**
 * kunwind_dump_stack() - print kunwind's trace of the current context
 *
 * Like dump_stack(), from the caller of this function up, one "%pS" line
 * a frame, then the stop reason.  Any context.
 */
void kunwind_dump_stack(void)
{
	kuw_print_trace(current, NULL, false);
}
EXPORT_SYMBOL_GPL(kunwind_dump_stack);

/**
 * kuw_oops_init() - register the die notifier
 *
 * Return: 0 or -errno.
 */
int kuw_oops_init(void)
{
	return register_die_notifier(&kuw_die_nb);
}

/**
 * kuw_oops_exit() - unregister the die notifier
 */
void kuw_oops_exit(void)
{
	unregister_die_notifier(&kuw_die_nb);
}

/* the walk's path: never kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_die_notify);
NOKPROBE_SYMBOL(kunwind_dump_stack);
