// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind's versions of the kernel's stack-trace entry points, with the
 * same contracts as the functions they stand in for (module/consumers.c
 * redirects the kernel's to them): stack_trace_save(),
 * stack_trace_save_tsk(), stack_trace_save_regs(),
 * stack_trace_save_tsk_reliable() (kernel/stacktrace.c) and the arch's
 * perf_callchain_kernel().
 *
 * Contract, as kernel/stacktrace.c's: @skipnr entries are left out after
 * the frames of the save function itself (the first entry of
 * stack_trace_save(store, size, 0) is the return address into its
 * caller); stack_trace_save_tsk() leaves out scheduler and lock functions
 * (in_sched_functions()); stack_trace_save_regs() starts with the regs'
 * pc; at most @size entries, the return value is the number stored;
 * stack_trace_save_tsk_reliable() returns -EINVAL for a stack it cannot
 * vouch for or that does not fit in @size entries, 0 for a task without a
 * stack.  perf_callchain_kernel() stores as perf_callchain_store() does,
 * until the entry is full.
 *
 * Who answers (counted per consumer, see kuw_serve_count()):
 *   - kunwind, when its walk reached the end of the stack (a clean end:
 *     kunwind_stop_reason() is -KUW_E_END) or filled the caller's buffer;
 *     for the reliable variant, when kunwind_reliable() says so;
 *   - otherwise the kernel's unwinder (arch_stack_walk(), which the
 *     kernel's functions use themselves) walks the same context too:
 *     the answer is kunwind's entries up to the frame where its walk
 *     stopped, then the kernel's entries after that same frame in the
 *     kernel's walk: the frame with that pc that comes as many times in
 *     the kernel's entries (its walk under the same skip count and
 *     filter) as in kunwind's, so that a recursion (one return address
 *     in many frames) is joined where kunwind stopped, not at its first
 *     frame; when the kernel's walk has no such frame, the kernel's trace
 *     alone.  So switching kunwind on can add frames the
 *     kernel's unwinder misses, never end a trace earlier than it does.
 *     The reliable variant takes the kernel's answer whole
 *     (arch_stack_walk_reliable()) when kunwind cannot vouch for the
 *     stack; perf takes the kernel's perf_callchain_kernel() whole (its
 *     entries are stored in place, nothing to splice into).
 * perf_callchain_kernel() is also left to the kernel when the regs were
 * not saved by an exception or interrupt (perf_fetch_caller_regs():
 * tracepoints; the arch decides, kuw_arch_perf_full_regs()) and when a
 * hypervisor registered perf guest callbacks (the kernel then leaves
 * guest samples without a kernel chain, which kunwind cannot tell).
 *
 * Context: everything here is safe where its caller is (perf: NMI on
 * x86, IRQ or pseudo-NMI on arm64): kunwind's walk takes no lock and
 * allocates nothing (RCU-protected registry, per-CPU counters,
 * bounds-checked reads), and neither do the kernel functions called in
 * fallback, which are the ones the replaced functions call.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#if IS_BUILTIN(CONFIG_KVM)
#include <linux/kvm_host.h>
#endif
#include <linux/perf_event.h>
#include <linux/sched/task_stack.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include "kunwind.h"
#include "kunwind_internal.h"
#include "kuw_arch.h"
#include "compat.h"

KUW_INTERNAL(arch_stack_walk);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
KUW_INTERNAL(arch_stack_walk_reliable);
#endif
#ifdef CONFIG_PERF_EVENTS
KUW_INTERNAL(perf_callchain_kernel);
static unsigned long kuw_perf_guest_cbs;	/* &perf_guest_cbs, or 0 */

#if IS_BUILTIN(CONFIG_KVM)
KUW_INTERNAL(kvm_get_running_vcpu);
#endif

/*
 * Is this perf sample a KVM guest's?  perf_callchain_kernel() leaves
 * those empty; kunwind leaves them to it.  With KVM built in (Debian's
 * arm64 kernels) kvm_get_running_vcpu() says whether a vCPU is loaded on
 * this CPU, which the kernel's own test (kvm_guest_state()) starts from:
 * a sample is left to the kernel whenever one is.  Else the callbacks
 * perf calls (perf_guest_cbs, found when kallsyms has data symbols): while
 * any are registered, every sample is left to it.
 */
static bool kuw_perf_guest(void)
{
#if IS_BUILTIN(CONFIG_KVM)
	if (KUW_FN(kvm_get_running_vcpu))
		return kuw_call(kvm_get_running_vcpu);
#endif
	return kuw_perf_guest_cbs && READ_ONCE(*(void **)kuw_perf_guest_cbs);
}

/* kuw_perf_guest() can tell (or there are no guests to tell) */
static bool kuw_perf_guest_known(void)
{
#if IS_BUILTIN(CONFIG_KVM)
	if (KUW_FN(kvm_get_running_vcpu))
		return true;
#endif
	return kuw_perf_guest_cbs || !IS_ENABLED(CONFIG_GUEST_PERF_EVENTS);
}
#endif
static unsigned long kuw_sched_text[2];

DEFINE_PER_CPU(struct kuw_serve_counters, kuw_serve_counters);

static __always_inline void kuw_serve_count(int c, bool kunwind)
{
	this_cpu_inc(kuw_serve_counters.n[c][KUNWIND_CONS_CALLS]);
	this_cpu_inc(kuw_serve_counters.n[c][kunwind ? KUNWIND_CONS_KUNWIND :
					   KUNWIND_CONS_FALLBACK]);
}

/* in_sched_functions(), which is not exported: data bounds and lock text */
static bool kuw_in_sched(unsigned long pc)
{
	return in_lock_functions(pc) ||
	       (pc >= kuw_sched_text[0] && pc < kuw_sched_text[1]);
}

/*
 * kernel/stacktrace.c's cookie (struct kuw_cookie, kuw_arch.h: in the
 * walk's slot), and its consume functions
 */

static bool kuw_sink_put(struct kuw_cookie *k, unsigned long pc)
{
	if (k->nosched && kuw_in_sched(pc))
		return true;
	if (k->len >= k->size)
		return false;
	if (k->skip) {
		k->skip--;
		return true;
	}
	k->store[k->len++] = pc;
	return k->len < k->size;
}

/*
 * The kernel's walk.  Started from here (@self set), it reports kunwind's
 * own frames first, maybe after one of the walker itself: everything up to
 * the last of kunwind's frames is left out, the caller's frame comes next.
 */
enum { KUW_SELF_NO, KUW_SELF_IN, KUW_SELF_BEFORE };

static bool kuw_sink_self(struct kuw_cookie *k, unsigned long pc)
{
	bool ours;

	if (k->self != KUW_SELF_NO) {
		ours = within_module(pc, THIS_MODULE);
		if (ours || k->self == KUW_SELF_BEFORE) {
			k->self = ours ? KUW_SELF_IN : KUW_SELF_BEFORE;
			return true;
		}
		k->self = KUW_SELF_NO;
	}
	return false;
}

static bool kuw_sink_kernel(void *cookie, unsigned long pc)
{
	struct kuw_cookie *k = cookie;

	return kuw_sink_self(k, pc) || kuw_sink_put(k, pc);
}

/*
 * The kernel's walk after kunwind's stopped at @join, the last entry it
 * stored: on from @join's @nth entry.  The kernel's frames are counted as
 * kuw_sink_put() would store them (kunwind's own left out, then the same
 * skip count and filter), so that its entries up to there are kunwind's.
 */
static bool kuw_sink_splice(void *cookie, unsigned long pc)
{
	struct kuw_cookie *k = cookie;

	if (k->joined)
		return kuw_sink_put(k, pc);
	if (kuw_sink_self(k, pc) || (k->nosched && kuw_in_sched(pc)))
		return true;
	if (k->kskip) {
		k->kskip--;
		return true;
	}
	if (pc == k->join && !--k->nth)
		k->joined = true;
	return true;
}

/*
 * Frames a walk steps per kunwind_next_frames() call into a buffer (on the
 * deepest stack path: README, "Stack use").
 */
#define KUW_SINK_BATCH	8

/*
 * kunwind's walk into @k.  Return: true when it answered (the end of the
 * stack, or @k full); false when it stopped early.
 *
 * The frames come in batches (kunwind_next_frames()): straight into
 * @k->store while nothing is skipped or left out, else through a buffer,
 * never more frames than @k can still take, so that the walk does not
 * step past the frame that fills @k.
 */
static bool kuw_sink_walk(struct kunwind_state *st, struct kuw_cookie *k)
{
	unsigned long *buf = st->work->sink;	/* not the stack */
	unsigned int i, n, room;

	BUILD_BUG_ON(ARRAY_SIZE(st->work->sink) != KUW_SINK_BATCH);

	if (kunwind_done(st))
		return kunwind_stop_reason(st) == -KUW_E_END;
	if (!kuw_sink_put(k, kunwind_get_return_address(st)))
		return true;
	for (;;) {
		/* @k is not full: kuw_sink_put() said so */
		room = k->size - k->len;
		if (!k->skip && !k->nosched) {
			k->len += kunwind_next_frames(st, k->store + k->len,
						      room);
			if (k->len >= k->size)
				return true;
		} else {
			n = kunwind_next_frames(st, buf,
						min_t(unsigned int,
						      KUW_SINK_BATCH,
						      room + k->skip));
			for (i = 0; i < n; i++)
				if (!kuw_sink_put(k, buf[i]))
					return true;
		}
		if (kunwind_done(st))
			return kunwind_stop_reason(st) == -KUW_E_END;
	}
}

/*
 * Fallback: the kernel's unwinder on the same context (@task, @regs from
 * where kunwind's walk began).  @k holds what kunwind stored and its skip
 * count left; @skip is the count the caller asked for.  The join is at
 * kunwind's last stored entry, as many times over as it is in @k: a frame
 * kunwind walked past but did not store (skipped, filtered) would be
 * skipped or filtered after the join too.
 */
static void kuw_sink_fallback(struct kuw_cookie *k, unsigned int skip,
			      struct task_struct *task, struct pt_regs *regs)
{
	unsigned int i;
	u8 self = task == current && !regs ? KUW_SELF_BEFORE : KUW_SELF_NO;

	if (!KUW_FN(arch_stack_walk))
		return;
	if (k->len && k->len < k->size) {
		k->join = k->store[k->len - 1];
		for (k->nth = 0, i = 0; i < k->len; i++)
			k->nth += k->store[i] == k->join;
		k->kskip = skip;
		k->self = self;
		k->joined = false;
		kuw_call(arch_stack_walk, kuw_sink_splice, k, task, regs);
		if (k->joined)
			return;
	}
	/* no frame in common: the kernel's trace alone */
	k->len = 0;
	k->skip = skip;
	k->self = self;
	kuw_call(arch_stack_walk, kuw_sink_kernel, k, task, regs);
}

/*
 * A consumer's walk refused (a walk of the same context holds this CPU's
 * slot: README, "Stack use"): the kernel's trace, counted as a fallback.
 * Out of line, with its cookie on its own stack: not on the walk's path.
 */
static noinline unsigned int kuw_save_refused(int c, struct task_struct *task,
					      struct pt_regs *regs,
					      unsigned long *store,
					      unsigned int size,
					      unsigned int skipnr)
{
	struct kuw_cookie k = { .store = store, .size = size, .skip = skipnr,
				.nosched = c == KUW_CONS_SAVE_TSK };

	if (!regs || (kuw_sink_put(&k, instruction_pointer(regs)) &&
		      !user_mode(regs)))
		kuw_sink_fallback(&k, skipnr, task, regs);
	kuw_serve_count(c, false);
	return k.len;
}

/**
 * kuw_stack_trace_save() - stack_trace_save() by kunwind
 * @store: where to store the return addresses
 * @size: entries @store holds
 * @skipnr: entries to leave out after the caller's own frame
 *
 * Return: entries stored.
 */
static noinline unsigned int kuw_stack_trace_save(unsigned long *store,
						  unsigned int size,
						  unsigned int skipnr)
{
	struct kunwind_state *st = kuw_walk_get(false);
	struct kuw_cookie *k;
	unsigned int len;
	bool ok;

	if (!st)
		return kuw_save_refused(KUW_CONS_SAVE, current, NULL, store,
					size, skipnr);
	k = &st->work->cookie;
	*k = (struct kuw_cookie){ .store = store, .size = size,
				  .skip = skipnr };
	/* the first frame outside kunwind is the caller's */
	kuw_walk_start(st, current, NULL, true);
	ok = kuw_sink_walk(st, k);
	if (!ok)
		kuw_sink_fallback(k, skipnr, current, NULL);
	len = k->len;
	kuw_walk_put(st);
	kuw_serve_count(KUW_CONS_SAVE, ok);
	return len;
}

/**
 * kuw_stack_trace_save_tsk() - stack_trace_save_tsk() by kunwind
 * @tsk: the task (current, or one that is not running)
 * @store: where to store the return addresses
 * @size: entries @store holds
 * @skipnr: entries to leave out (for current: after the caller's frame)
 *
 * Scheduler and lock functions are left out, as the kernel does.
 *
 * Return: entries stored; 0 for a task without a stack.
 */
static noinline unsigned int kuw_stack_trace_save_tsk(struct task_struct *tsk,
						      unsigned long *store,
						      unsigned int size,
						      unsigned int skipnr)
{
	struct kunwind_state *st;
	struct kuw_cookie *k;
	unsigned int len;
	bool ok;

	if (!try_get_task_stack(tsk))
		return 0;
	st = kuw_walk_get(false);
	if (!st) {
		len = kuw_save_refused(KUW_CONS_SAVE_TSK, tsk, NULL, store,
				       size, skipnr);
		kuw_put_task_stack(tsk);
		return len;
	}
	k = &st->work->cookie;
	*k = (struct kuw_cookie){ .store = store, .size = size,
				  .skip = skipnr, .nosched = true };
	kuw_walk_start(st, tsk, NULL, true);
	ok = kuw_sink_walk(st, k);
	if (!ok)
		kuw_sink_fallback(k, skipnr, tsk, NULL);
	len = k->len;
	kuw_walk_put(st);
	kuw_put_task_stack(tsk);
	kuw_serve_count(KUW_CONS_SAVE_TSK, ok);
	return len;
}

/**
 * kuw_stack_trace_save_regs() - stack_trace_save_regs() by kunwind
 * @regs: registers of the current task (an exception's, a kprobe's)
 * @store: where to store the return addresses
 * @size: entries @store holds
 * @skipnr: entries to leave out, the regs' own pc being the first
 *
 * Return: entries stored.
 */
static noinline unsigned int kuw_stack_trace_save_regs(struct pt_regs *regs,
						       unsigned long *store,
						       unsigned int size,
						       unsigned int skipnr)
{
	struct kunwind_state *st = kuw_walk_get(false);
	struct kuw_cookie *k;
	unsigned int len;
	bool ok = true;

	if (!st)
		return kuw_save_refused(KUW_CONS_SAVE_REGS, current, regs, store,
					size, skipnr);
	k = &st->work->cookie;
	*k = (struct kuw_cookie){ .store = store, .size = size,
				  .skip = skipnr };
	/* the regs' pc, then their caller on: the kernel's order */
	if (kuw_sink_put(k, instruction_pointer(regs)) && !user_mode(regs)) {
		kuw_walk_start(st, current, regs, false);
		if (!kunwind_done(st))
			kunwind_next_frame(st);
		if (kunwind_done(st))
			ok = kunwind_stop_reason(st) == -KUW_E_END;
		else
			ok = kuw_sink_walk(st, k);
		if (!ok)
			kuw_sink_fallback(k, skipnr, current, regs);
	}
	len = k->len;
	kuw_walk_put(st);
	kuw_serve_count(KUW_CONS_SAVE_REGS, ok);
	return len;
}

#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
/* kuw_save_refused() for the reliable consumer: the kernel's answer */
static noinline int kuw_reliable_refused(struct task_struct *tsk,
					 unsigned long *store,
					 unsigned int size)
{
	struct kuw_cookie k = { .store = store, .size = size,
				.self = tsk == current ? KUW_SELF_BEFORE :
				KUW_SELF_NO };
	int ret = -EINVAL;

	if (KUW_FN(arch_stack_walk_reliable)) {
		ret = kuw_call(arch_stack_walk_reliable, kuw_sink_kernel, &k,
			       tsk);
		ret = ret ? ret : k.len;
	}
	kuw_serve_count(KUW_CONS_SAVE_RELIABLE, false);
	return ret;
}

/**
 * kuw_stack_trace_save_tsk_reliable() - stack_trace_save_tsk_reliable()
 * by kunwind
 * @tsk: the task (current, or one that is not running)
 * @store: where to store the return addresses
 * @size: entries @store holds
 *
 * Return: entries stored when the whole stack is known to be right (see
 * kunwind_reliable(); otherwise the kernel's arch_stack_walk_reliable()
 * decides), -EINVAL when it is not or does not fit in @size entries, 0
 * for a task without a stack.
 */
static noinline int kuw_stack_trace_save_tsk_reliable(struct task_struct *tsk,
						      unsigned long *store,
						      unsigned int size)
{
	struct kunwind_state *st;
	struct kuw_cookie *k;
	int ret = -EINVAL;
	bool ok;

	if (!try_get_task_stack(tsk))
		return 0;
	st = kuw_walk_get(false);
	if (!st) {
		ret = kuw_reliable_refused(tsk, store, size);
		kuw_put_task_stack(tsk);
		return ret;
	}
	k = &st->work->cookie;
	*k = (struct kuw_cookie){ .store = store, .size = size };
	kuw_walk_start(st, tsk, NULL, true);
	ok = kuw_sink_walk(st, k);
	/* kernel/stacktrace.c: a full buffer is unreliable too */
	if (ok && k->len >= k->size)
		ret = -EINVAL;
	else if (ok && kunwind_reliable(st))
		ret = k->len;
	else
		ok = false;
	if (!ok && KUW_FN(arch_stack_walk_reliable)) {
		k->len = 0;
		k->self = tsk == current ? KUW_SELF_BEFORE : KUW_SELF_NO;
		ret = kuw_call(arch_stack_walk_reliable, kuw_sink_kernel, k,
			       tsk);
		ret = ret ? ret : k->len;
	}
	kuw_walk_put(st);
	kuw_put_task_stack(tsk);
	kuw_serve_count(KUW_CONS_SAVE_RELIABLE, ok);
	return ret;
}

NOKPROBE_SYMBOL(kuw_reliable_refused);
NOKPROBE_SYMBOL(kuw_stack_trace_save_tsk_reliable);
#endif

#ifdef CONFIG_PERF_EVENTS
/* perf_callchain_kernel(), not redirected when called from kunwind */
static void kuw_perf_kernel(struct perf_callchain_entry_ctx *entry,
			    struct pt_regs *regs)
{
	if (KUW_FN(perf_callchain_kernel))
		kuw_call(perf_callchain_kernel, entry, regs);
}

/*
 * kunwind's walk into perf's @entry, after the regs' pc.  Return: true
 * when it answered (the end of the stack, or @entry full).
 */
static bool kuw_perf_walk(struct kunwind_state *st,
			  struct perf_callchain_entry_ctx *entry,
			  struct pt_regs *regs)
{
	struct perf_callchain_entry *e = entry->entry;
	unsigned int n;

	kuw_walk_start(st, current, regs, false);
	/*
	 * The callers, in one batch straight into the entry: what
	 * perf_callchain_store() does for each (room while nr is below
	 * max_stack and the contexts are not maxed), no further than the
	 * entry can take (a full entry is an answer, as when
	 * perf_callchain_store() stops the kernel's walk).
	 */
	BUILD_BUG_ON(sizeof(e->ip[0]) != sizeof(unsigned long));
	while (!kunwind_done(st)) {
		if (entry->contexts_maxed || entry->nr >= entry->max_stack)
			return true;
		n = kunwind_next_frames(st, (unsigned long *)&e->ip[e->nr],
					entry->max_stack - entry->nr);
		e->nr += n;
		entry->nr += n;
	}
	return kunwind_stop_reason(st) == -KUW_E_END;
}

/**
 * kuw_perf_callchain_kernel() - perf_callchain_kernel() by kunwind
 * @entry: the callchain being filled (perf_callchain_store() says when
 *	   it is full)
 * @regs: the sampled registers
 *
 * The regs' pc, then their callers.  Regs perf made itself
 * (perf_fetch_caller_regs()) and samples under a hypervisor's guest
 * callbacks are left to the kernel's function.
 */
static noinline void kuw_perf_callchain_kernel(struct perf_callchain_entry_ctx *entry,
					       struct pt_regs *regs)
{
	struct kunwind_state *st;
	u32 nr = entry->nr;
	bool ok = false;

	if (kuw_perf_guest() || !kuw_arch_perf_full_regs(regs)) {
		kuw_perf_kernel(entry, regs);
		goto out;
	}
	ok = true;
	if (perf_callchain_store(entry, instruction_pointer(regs)))
		goto out;
	ok = false;
	st = kuw_walk_get(false);	/* NULL: a nested walk, refused */
	if (st) {
		ok = kuw_perf_walk(st, entry, regs);
		kuw_walk_put(st);
	}
	if (!ok) {
		/* refused or stopped early: the kernel's chain, not ours */
		entry->entry->nr -= entry->nr - nr;
		entry->nr = nr;
		kuw_perf_kernel(entry, regs);
	}
out:
	kuw_serve_count(KUW_CONS_PERF, ok);
}

NOKPROBE_SYMBOL(kuw_perf_walk);
NOKPROBE_SYMBOL(kuw_perf_callchain_kernel);
#endif

/**
 * kuw_serve_fn() - kunwind's version of one consumer's kernel function
 * @c: enum kuw_consumer
 * @name: set to the kernel function's name
 *
 * Return: the function, or NULL when this kernel cannot have kunwind
 * answer for it (no such function, or what the fallback needs was not
 * found).
 */
void *kuw_serve_fn(int c, const char **name)
{
	static const char *const names[KUW_CONS__COUNT] = {
		[KUW_CONS_SAVE] = "stack_trace_save",
		[KUW_CONS_SAVE_TSK] = "stack_trace_save_tsk",
		[KUW_CONS_SAVE_REGS] = "stack_trace_save_regs",
		[KUW_CONS_SAVE_RELIABLE] = "stack_trace_save_tsk_reliable",
		[KUW_CONS_PERF] = "perf_callchain_kernel",
	};

	*name = names[c];
	if (!KUW_FN(arch_stack_walk) || !kuw_sched_text[1])
		return NULL;
	switch (c) {
	case KUW_CONS_SAVE:
		return kuw_stack_trace_save;
	case KUW_CONS_SAVE_TSK:
		return kuw_stack_trace_save_tsk;
	case KUW_CONS_SAVE_REGS:
		return kuw_stack_trace_save_regs;
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
	case KUW_CONS_SAVE_RELIABLE:
		return KUW_FN(arch_stack_walk_reliable) ?
		       kuw_stack_trace_save_tsk_reliable : NULL;
#endif
#ifdef CONFIG_PERF_EVENTS
	case KUW_CONS_PERF:
		/* without GUEST_PERF_EVENTS there are no guest callbacks */
		return KUW_FN(perf_callchain_kernel) && kuw_perf_guest_known() ?
		       kuw_perf_callchain_kernel : NULL;
#endif
	}
	return NULL;
}

/**
 * kuw_serve_init() - find the kernel functions the fallbacks call
 *
 * Return: 0 (a consumer whose fallback is missing is not offered).
 */
int kuw_serve_init(void)
{
	kuw_lookup_fn(arch_stack_walk);
#ifdef CONFIG_HAVE_RELIABLE_STACKTRACE
	kuw_lookup_fn(arch_stack_walk_reliable);
#endif
#ifdef CONFIG_PERF_EVENTS
	kuw_lookup_fn(perf_callchain_kernel);
	kuw_perf_guest_cbs = kuw_lookup_name("perf_guest_cbs");
#if IS_BUILTIN(CONFIG_KVM)
	kuw_lookup_fn(kvm_get_running_vcpu);
#endif
#endif
	kuw_sched_text[0] = kuw_lookup_name("__sched_text_start");
	kuw_sched_text[1] = kuw_lookup_name("__sched_text_end");
	if (kuw_sched_text[1] <= kuw_sched_text[0])
		kuw_sched_text[1] = 0;
	return 0;
}

/* the walk's path: never kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_sink_put);
NOKPROBE_SYMBOL(kuw_sink_kernel);
NOKPROBE_SYMBOL(kuw_sink_splice);
NOKPROBE_SYMBOL(kuw_sink_walk);
NOKPROBE_SYMBOL(kuw_sink_fallback);
NOKPROBE_SYMBOL(kuw_save_refused);
NOKPROBE_SYMBOL(kuw_stack_trace_save);
NOKPROBE_SYMBOL(kuw_stack_trace_save_tsk);
NOKPROBE_SYMBOL(kuw_stack_trace_save_regs);
