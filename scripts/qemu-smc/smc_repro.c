// SPDX-License-Identifier: GPL-2.0
/*
 * smc_repro: cross-modified code under a CPU emulator, without kunwind.
 *
 * One kthread, bound to CPU 1, calls a function in a tight loop; another,
 * bound to CPU 0, registers and unregisters an empty ftrace_ops filtered
 * on that function, @toggles times.  Each switch rewrites the function's
 * first instruction (the 5-byte NOP at its fentry site) through
 * text_poke_bp(): an int3 first, then the call to the ftrace trampoline,
 * and back.  On real hardware (and under any emulator that keeps code
 * coherent with memory) the caller never stops; the toggler waits after
 * every switch until the caller has made a call again, so a caller that
 * stops shows as a toggle that never completes.
 *
 * Parameters:
 *   toggles  register/unregister pairs (default 100)
 *   func     the ftrace filter: "smc_repro_target" (default, this
 *            module's own empty function) or "stack_trace_save" (the
 *            kernel's; the caller then saves its own stack trace)
 *
 * Output, one line each, on the console:
 *   smc_repro: target <func> at <address>, count at <address of calls>
 *   smc_repro: toggle <k>/<n> calls <c>        (every 10 toggles)
 *   smc_repro: caller stuck after toggle <k> (...), <bytes at the target>
 *   smc_repro: done <n> toggles, <c> calls
 *
 * scripts/check-qemu-smc.sh boots it (docs/testbed.md, "The switch guest").
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/ftrace.h>
#include <linux/stacktrace.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/string.h>

static unsigned int toggles = 100;
module_param(toggles, uint, 0444);
MODULE_PARM_DESC(toggles, "ftrace_ops register/unregister pairs");

static char func[KSYM_NAME_LEN] = "smc_repro_target";
module_param_string(func, func, sizeof(func), 0444);
MODULE_PARM_DESC(func, "smc_repro_target or stack_trace_save");

static unsigned long calls;	/* the caller's count, read by the toggler */
static bool use_save;		/* func is stack_trace_save */
static DECLARE_COMPLETION(done);

static noinline void smc_repro_target(void)
{
	/* a body the compiler keeps; the fentry NOP is what gets patched */
	barrier();
}

static void notrace smc_repro_cb(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops smc_ops = {
	.func = smc_repro_cb,
};

static int smc_caller(void *arg)
{
	unsigned long buf[4];

	while (!kthread_should_stop()) {
		if (use_save)
			stack_trace_save(buf, ARRAY_SIZE(buf), 0);
		else
			smc_repro_target();
		WRITE_ONCE(calls, calls + 1);
		/* sleeps now and then: switching off waits for Tasks RCU */
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

static void *smc_target_addr(void)
{
	return use_save ? (void *)stack_trace_save : (void *)smc_repro_target;
}

/*
 * Wait until the caller has made a call since @seen; false if it has not
 * for 20 s (under TCG on a loaded host a call takes microseconds).
 */
static bool smc_wait_call(unsigned long seen, unsigned int k, const char *what)
{
	unsigned long end = jiffies + 20 * HZ;

	while (READ_ONCE(calls) == seen) {
		if (time_after(jiffies, end)) {
			pr_info("smc_repro: caller stuck after toggle %u (%s), %*ph at the target\n",
				k, what, 5, smc_target_addr());
			return false;
		}
		usleep_range(500, 1000);
	}
	return true;
}

static int smc_toggler(void *arg)
{
	unsigned int k;
	int err;

	for (k = 1; k <= toggles; k++) {
		err = register_ftrace_function(&smc_ops);
		if (err) {
			pr_info("smc_repro: register_ftrace_function: %d\n", err);
			break;
		}
		if (!smc_wait_call(READ_ONCE(calls), k, "on"))
			goto stuck;
		err = unregister_ftrace_function(&smc_ops);
		if (err) {
			pr_info("smc_repro: unregister_ftrace_function: %d\n", err);
			break;
		}
		if (!smc_wait_call(READ_ONCE(calls), k, "off"))
			goto stuck;
		if (k % 10 == 0)
			pr_info("smc_repro: toggle %u/%u calls %lu\n", k, toggles,
				READ_ONCE(calls));
	}
	if (k > toggles)
		pr_info("smc_repro: done %u toggles, %lu calls\n", toggles,
			READ_ONCE(calls));
	complete(&done);
	return 0;
stuck:
	/* the caller cannot be stopped: stay here, the host looks at it */
	for (;;)
		msleep(1000);
	return 0;
}

static int __init smc_repro_init(void)
{
	struct task_struct *caller, *toggler;
	int err;

	if (num_online_cpus() < 2) {
		pr_info("smc_repro: needs 2 CPUs\n");
		return -ENODEV;
	}
	use_save = !strcmp(func, "stack_trace_save");
	if (!use_save && strcmp(func, "smc_repro_target")) {
		pr_info("smc_repro: func=%s: smc_repro_target or stack_trace_save\n",
			func);
		return -EINVAL;
	}
	err = ftrace_set_filter(&smc_ops, func, strlen(func), 1);
	if (err) {
		pr_info("smc_repro: ftrace_set_filter(%s): %d\n", func, err);
		return err;
	}
	/* the real addresses: the host reads them through QEMU's monitor */
	pr_info("smc_repro: target %s at %px, count at %px, %u toggles\n",
		func, smc_target_addr(), &calls, toggles);

	caller = kthread_create(smc_caller, NULL, "smc_caller");
	if (IS_ERR(caller))
		return PTR_ERR(caller);
	kthread_bind(caller, 1);
	get_task_struct(caller);
	wake_up_process(caller);
	while (!READ_ONCE(calls))
		usleep_range(1000, 2000);

	toggler = kthread_create(smc_toggler, NULL, "smc_toggler");
	if (IS_ERR(toggler)) {
		kthread_stop(caller);
		put_task_struct(caller);
		return PTR_ERR(toggler);
	}
	kthread_bind(toggler, 0);
	wake_up_process(toggler);
	wait_for_completion(&done);

	kthread_stop(caller);
	put_task_struct(caller);
	ftrace_free_filter(&smc_ops);
	return 0;
}

static void __exit smc_repro_exit(void)
{
}

module_init(smc_repro_init);
module_exit(smc_repro_exit);
MODULE_DESCRIPTION("Cross-modified code test: ftrace_ops toggled over a running function");
MODULE_LICENSE("GPL");
