// SPDX-License-Identifier: GPL-2.0
/*
 * The consumers switch: whether the kernel's own stack-trace entry points
 * (stack_trace_save(), stack_trace_save_tsk(), stack_trace_save_regs(),
 * the arch's perf_callchain_kernel(), and, opted in apart,
 * stack_trace_save_tsk_reliable()) are answered by kunwind
 * (module/serve.c) instead of the kernel's unwinder.  Off by default;
 * module parameter "consumers", /dev/kunwind/consumers (read: state
 * and counters per consumer; write 0/1), kunwind_consumers_set().
 *
 * stack_trace_save_tsk_reliable() is livepatch's consistency check: a
 * wrong "reliable" there lets a livepatch switch a task that is still in
 * a patched function.  It is hooked only when also opted in: module
 * parameter "consumers_reliable" (default off),
 * kunwind_consumers_set_reliable(); the switch alone leaves it the
 * kernel's.
 *
 * How: one ftrace_ops per function, each filtering that function alone,
 * with FTRACE_OPS_FL_IPMODIFY, as livepatch does (the ftrace_regs or
 * pt_regs variant the kernel has: compat.h).  The handler sends the call
 * on to kunwind's function of the same prototype, except for calls made
 * by kunwind itself (the fallback of perf_callchain_kernel() calls the
 * kernel's).  ftrace lets one IPMODIFY ops hold a function: one ops per
 * function keeps a livepatch of one of them from taking the others with
 * it.  A function a livepatch holds already cannot be hooked (-EBUSY,
 * shown as its error; the others switch on), and a function hooked here
 * cannot be livepatched until the switch is off; every other function
 * coexists with livepatches.  A consumer whose function cannot be traced
 * (not in this kernel, notrace) stays on the kernel's path; its error is
 * shown.
 *
 * Off, and rmmod: unregister_ftrace_function() of an ops in module memory
 * (FTRACE_OPS_FL_DYNAMIC) returns only after synchronize_rcu_tasks_rude()
 * (no CPU is left in the trampoline or the handler) and, on a preemptible
 * kernel, synchronize_rcu_tasks() (no task is left preempted on the
 * trampoline); kunwind then waits itself for synchronize_rcu() and
 * synchronize_rcu_tasks() (rcupdate.h makes the latter synchronize_rcu()
 * without TASKS_RCU): no call that was redirected is still running in
 * kunwind's functions, which never sleep, so the module's text can go.
 * Module exit switches off first of all, before the tables go.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include "compat.h"
#include "kunwind.h"
#include "kunwind_internal.h"

struct kuw_cons {
	const char *name;	/* the kernel's function */
	unsigned long addr;	/* its address */
	unsigned long fn;	/* kunwind's, 0 when not offered */
	bool hooked;
	bool filtered;		/* @ops has a filter to free */
	int err;		/* last switch-on result */
#if KUW_FTRACE_IPMODIFY
	struct ftrace_ops ops;	/* this function's alone */
#endif
};

static struct kuw_cons kuw_cons[KUW_CONS__COUNT];
static DEFINE_MUTEX(kuw_cons_mutex);
static bool kuw_cons_on;		/* the switch, as last asked */
static bool kuw_cons_reliable;		/* stack_trace_save_tsk_reliable() opted in */
static bool kuw_cons_ready;		/* init done, exit not begun */
static bool kuw_cons_param;		/* "consumers" given at load */
static struct kuw_range kuw_cons_self;	/* kunwind's text */

/*
 * The pc ftrace reports for a traced function lies this close after the
 * function's symbol: x86 fentry after an ENDBR, arm64's patched BL after
 * its "mov x9, x30" (and a BTI).
 */
#define KUW_CONS_ENTRY_SLOP	16

#if KUW_FTRACE_IPMODIFY
static void notrace kuw_cons_handler(unsigned long ip,
				     unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	const struct kuw_cons *c = container_of(op, struct kuw_cons, ops);

	/* kunwind's own calls reach the kernel's function */
	if (parent_ip >= kuw_cons_self.start && parent_ip < kuw_cons_self.end)
		return;
	if (ip - c->addr < KUW_CONS_ENTRY_SLOP)
		kuw_ftrace_set_ip(fregs, c->fn);
}

/* Filter @c's ops on @c's function alone. */
static int kuw_cons_filter(struct kuw_cons *c)
{
	char buf[KSYM_NAME_LEN];
	int ret;

	c->ops.func = kuw_cons_handler;
	c->ops.flags = KUW_FTRACE_OPS_FLAGS;
	/* ftrace_set_filter() parses (and cuts) its buffer */
	strscpy(buf, c->name, sizeof(buf));
	ret = ftrace_set_filter(&c->ops, buf, strlen(buf), 1);
	c->filtered = !ret;
	return ret;
}

static int kuw_cons_register(struct kuw_cons *c)
{
	return register_ftrace_function(&c->ops);
}

static void kuw_cons_unregister(struct kuw_cons *c)
{
	WARN_ON(unregister_ftrace_function(&c->ops));
}

static void kuw_cons_free(struct kuw_cons *c)
{
	if (c->filtered)
		ftrace_free_filter(&c->ops);
	c->filtered = false;
}
#else
static int kuw_cons_filter(struct kuw_cons *c)
{
	return -EOPNOTSUPP;
}

static int kuw_cons_register(struct kuw_cons *c)
{
	return -EOPNOTSUPP;
}

static void kuw_cons_unregister(struct kuw_cons *c)
{
}

static void kuw_cons_free(struct kuw_cons *c)
{
}
#endif

/*
 * Hook @c: its filter (kept from an earlier switch on), then its ops.
 * Caller holds kuw_cons_mutex.  Return: 0, or @c's error (kept in @c).
 */
static int kuw_cons_hook(struct kuw_cons *c)
{
	int ret = -ENOENT;

	if (c->hooked)
		return 0;
	if (c->fn)
		ret = c->filtered ? 0 : kuw_cons_filter(c);
	if (!ret)
		ret = kuw_cons_register(c);
	c->err = ret;
	c->hooked = !ret;
	return ret;
}

static void kuw_cons_unhook(struct kuw_cons *c)
{
	if (!c->hooked)
		return;
	kuw_cons_unregister(c);
	c->hooked = false;
}

/* No call that was redirected is still in kunwind's functions. */
static void kuw_cons_quiesce(void)
{
	synchronize_rcu();
	synchronize_rcu_tasks();
}

/* The switch on hooks @i: every consumer, the reliable one opted in. */
static bool kuw_cons_wanted(int i)
{
	return i != KUW_CONS_SAVE_RELIABLE || kuw_cons_reliable;
}

/*
 * Caller holds kuw_cons_mutex.  Each consumer wanted is hooked on its own
 * (one that cannot be keeps its error and stays the kernel's).
 */
static int kuw_cons_set(bool on)
{
	bool any = false;
	int i, err, ret = 0;

	if (on == kuw_cons_on)
		return 0;
	if (!on) {
		for (i = 0; i < KUW_CONS__COUNT; i++)
			kuw_cons_unhook(&kuw_cons[i]);
		kuw_cons_quiesce();
		kuw_cons_on = false;
		return 0;
	}
	for (i = 0; i < KUW_CONS__COUNT; i++) {
		if (!kuw_cons_wanted(i))
			continue;
		err = kuw_cons_hook(&kuw_cons[i]);
		any |= !err;
		/* one this kernel does not have is no error of the switch */
		if (err && kuw_cons[i].fn && !ret)
			ret = err;
	}
	kuw_cons_on = any;
	return ret;
}

/* Caller holds kuw_cons_mutex: the reliable opt-in, applied at once. */
static int kuw_cons_set_reliable(bool on)
{
	struct kuw_cons *c = &kuw_cons[KUW_CONS_SAVE_RELIABLE];
	int ret;

	kuw_cons_reliable = on;
	if (!kuw_cons_on)
		return 0;
	if (!on) {
		if (c->hooked) {
			kuw_cons_unhook(c);
			kuw_cons_quiesce();
		}
		return 0;
	}
	ret = kuw_cons_hook(c);
	return c->fn ? ret : 0;
}

/**
 * kuw_consumers_switch() - the switch, from /dev/kunwind/consumers or the parameter
 * @on: redirect the kernel's consumers to kunwind, or give them back
 *
 * Switching on hooks every consumer this kernel offers, each on its own
 * (stack_trace_save_tsk_reliable() only when opted in:
 * kunwind_consumers_set_reliable()); one that cannot be hooked stays on
 * the kernel's path and keeps its error (shown in
 * /dev/kunwind/consumers).
 *
 * Return: 0, the first error of a consumer this kernel has (the others
 * are on), -EOPNOTSUPP without ftrace, -ENODEV while the module goes.
 */
int kuw_consumers_switch(bool on)
{
	int ret;

	mutex_lock(&kuw_cons_mutex);
	if (!kuw_cons_ready)
		ret = -ENODEV;
	else if (on && !KUW_FTRACE_IPMODIFY)
		ret = -EOPNOTSUPP;
	else
		ret = kuw_cons_set(on);
	mutex_unlock(&kuw_cons_mutex);
	return ret;
}

/**
 * kunwind_consumers_set() - switch kunwind in or out as the kernel's
 * stack-trace unwinder
 * @on: true: stack_trace_save(), stack_trace_save_tsk(),
 *      stack_trace_save_regs() and perf_callchain_kernel() are answered by
 *      kunwind (the kernel's unwinder where kunwind's walk stops early),
 *      stack_trace_save_tsk_reliable() too when opted in
 *      (kunwind_consumers_set_reliable()); false: by the kernel alone again
 *
 * May sleep (ftrace code patching, RCU grace periods).
 *
 * Return: 0; -EOPNOTSUPP when the kernel has no ftrace with IPMODIFY;
 * else the first consumer that could not be switched on (the others are).
 */
int kunwind_consumers_set(bool on)
{
	return kuw_consumers_switch(on);
}
EXPORT_SYMBOL_GPL(kunwind_consumers_set);

/**
 * kuw_consumers_reliable() - the reliable opt-in, from the parameter
 * @on: let the switch hook stack_trace_save_tsk_reliable() too, or not
 *
 * Applied at once when the switch is on.
 *
 * Return: 0, stack_trace_save_tsk_reliable()'s error when it could not be
 * hooked, -ENODEV while the module goes.
 */
static int kuw_consumers_reliable(bool on)
{
	int ret;

	mutex_lock(&kuw_cons_mutex);
	if (!kuw_cons_ready)
		ret = -ENODEV;
	else
		ret = kuw_cons_set_reliable(on);
	mutex_unlock(&kuw_cons_mutex);
	return ret;
}

/**
 * kunwind_consumers_set_reliable() - let the consumers switch hook
 * stack_trace_save_tsk_reliable() too
 * @on: true: while the switch is on (kunwind_consumers_set()), livepatch's
 *      consistency check is answered by kunwind too (kunwind_reliable(),
 *      else the kernel's arch_stack_walk_reliable()); false (the default):
 *      it stays the kernel's whatever the switch
 *
 * The opt-in is kept across switching; applied at once when the switch
 * is on.  May sleep.
 *
 * Return: 0; stack_trace_save_tsk_reliable()'s error when it could not be
 * hooked (-EBUSY: a livepatch holds it); -ENODEV while the module goes.
 */
int kunwind_consumers_set_reliable(bool on)
{
	return kuw_consumers_reliable(on);
}
EXPORT_SYMBOL_GPL(kunwind_consumers_set_reliable);

/**
 * kunwind_consumer_info() - one consumer's state and counters
 * @i: 0, 1, ... (enum kuw_consumer order)
 * @info: filled in
 *
 * Return: 0, or -ENOENT past the last consumer.
 */
int kunwind_consumer_info(unsigned int i, struct kunwind_consumer_info *info)
{
	int cpu, j;

	if (i >= KUW_CONS__COUNT)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	mutex_lock(&kuw_cons_mutex);
	info->name = kuw_cons[i].name;
	info->offered = kuw_cons[i].fn;
	info->hooked = kuw_cons[i].hooked;
	info->err = kuw_cons[i].err;
	mutex_unlock(&kuw_cons_mutex);
	for_each_possible_cpu(cpu) {
		const struct kuw_serve_counters *n =
			per_cpu_ptr(&kuw_serve_counters, cpu);

		for (j = 0; j < KUNWIND_CONS__N; j++)
			info->count[j] += READ_ONCE(n->n[i][j]);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kunwind_consumer_info);

/**
 * kuw_consumers_show() - /dev/kunwind/consumers
 * @m: the seq_file
 * @v: unused
 *
 * Return: 0.
 */
int kuw_consumers_show(struct seq_file *m, void *v)
{
	struct kunwind_consumer_info in;
	unsigned int i;

	seq_printf(m, "consumers %s (%s; consumers_reliable %s)\n",
		   READ_ONCE(kuw_cons_on) ? "on" : "off",
		   KUW_FTRACE_IPMODIFY ? "ftrace IPMODIFY, " KUW_FTRACE_VARIANT :
		   "unavailable: no ftrace with IPMODIFY",
		   READ_ONCE(kuw_cons_reliable) ? "on" : "off");
	seq_puts(m, "consumer state calls kunwind fallback\n");
	for (i = 0; !kunwind_consumer_info(i, &in); i++) {
		seq_printf(m, "%s ", in.name);
		if (in.hooked)
			seq_puts(m, "on");
		else if (!in.offered)
			seq_puts(m, "none");
		else if (in.err)
			seq_printf(m, "error(%d)", in.err);
		else
			seq_puts(m, "off");
		seq_printf(m, " %lu %lu %lu\n", in.count[KUNWIND_CONS_CALLS],
			   in.count[KUNWIND_CONS_KUNWIND],
			   in.count[KUNWIND_CONS_FALLBACK]);
	}
	return 0;
}

static int kuw_cons_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!READ_ONCE(kuw_cons_ready)) {
		/* at load: applied by kuw_consumers_init() */
		kuw_cons_param = on;
		return 0;
	}
	return kuw_consumers_switch(on);
}

static int kuw_cons_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(kuw_cons_on) ? 'Y' : 'N');
}

static const struct kernel_param_ops kuw_cons_param_ops = {
	.set = kuw_cons_param_set,
	.get = kuw_cons_param_get,
};

module_param_cb(consumers, &kuw_cons_param_ops, NULL, 0644);
MODULE_PARM_DESC(consumers,
		 "answer the kernel's stack_trace_save(), _tsk(), _regs() and perf_callchain_kernel() with kunwind (default off)");

static int kuw_cons_rel_param_set(const char *val,
				  const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!READ_ONCE(kuw_cons_ready)) {
		/* at load: before kuw_consumers_init() applies "consumers" */
		kuw_cons_reliable = on;
		return 0;
	}
	return kuw_consumers_reliable(on);
}

static int kuw_cons_rel_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(kuw_cons_reliable) ? 'Y' : 'N');
}

static const struct kernel_param_ops kuw_cons_rel_param_ops = {
	.set = kuw_cons_rel_param_set,
	.get = kuw_cons_rel_param_get,
};

module_param_cb(consumers_reliable, &kuw_cons_rel_param_ops, NULL, 0644);
MODULE_PARM_DESC(consumers_reliable,
		 "with the consumers switch on, answer livepatch's stack_trace_save_tsk_reliable() with kunwind too (default off)");

/**
 * kuw_consumers_init() - find kunwind's functions, apply "consumers=1"
 *
 * Called last in module init: the unwinder is ready.
 *
 * Return: 0 (a consumer that cannot be switched on is logged).
 */
int kuw_consumers_init(void)
{
	int i, ret;

	kuw_serve_init();
	kuw_cons_self = kuw_module_text(THIS_MODULE);
	for (i = 0; i < KUW_CONS__COUNT; i++) {
		struct kuw_cons *c = &kuw_cons[i];

		c->fn = (unsigned long)kuw_serve_fn(i, &c->name);
		c->addr = c->fn ? kuw_lookup_name(c->name) : 0;
		if (!c->addr)
			c->fn = 0;
	}
	mutex_lock(&kuw_cons_mutex);
	kuw_cons_ready = true;
	mutex_unlock(&kuw_cons_mutex);
	if (kuw_cons_param) {
		ret = kuw_consumers_switch(true);
		if (ret)
			pr_warn("consumers: not every consumer switched on (%d): see /dev/kunwind/consumers\n",
				ret);
	}
	return 0;
}

/**
 * kuw_consumers_exit() - give every consumer back to the kernel, for good
 *
 * Returns once no call is left in kunwind's functions.
 */
void kuw_consumers_exit(void)
{
	int i;

	mutex_lock(&kuw_cons_mutex);
	kuw_cons_set(false);
	kuw_cons_ready = false;
	for (i = 0; i < KUW_CONS__COUNT; i++)
		kuw_cons_free(&kuw_cons[i]);
	mutex_unlock(&kuw_cons_mutex);
}
