/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunwind: kernel stack unwinding from DWARF CFI (.eh_frame, .debug_frame)
 * and SFrame tables.  The public kernel API, shaped like the kernel's own
 * unwind_start()/unwind_next_frame() (arch/x86/include/asm/unwind.h):
 *
 *	struct kunwind_state state;
 *
 *	for (kunwind_start(&state, current, NULL, NULL);
 *	     !kunwind_done(&state); kunwind_next_frame(&state))
 *		pr_info("%pS\n", (void *)kunwind_get_return_address(&state));
 *	if (kunwind_error(&state))
 *		pr_info("stopped: %s\n",
 *			kunwind_strerror(kunwind_stop_reason(&state)));
 *
 * Exported functions return 0 or a negative errno; the precise reason an
 * unwind stopped is kunwind_stop_reason(), named by kunwind_strerror().
 *
 * Every function here is safe in any context (process, IRQ, NMI, oops):
 * nothing allocates or sleeps, every stack read is bounds-checked against
 * the stacks of the unwound context and fault-safe.
 *
 * Another task's stack: pin it (try_get_task_stack(), then
 * kunwind_put_task_stack()) for the walk.  A task running on a CPU is
 * refused at the start (-EBUSY).  A task may still start to run at any
 * moment of the walk, and overwrite the slots the walk is about to read:
 * the end of the walk checks that it did not (its context-switch counts
 * are those of the start, it is not on a CPU).  If it ran, the walk stops
 * with -KUW_E_RUNNING (kunwind_error() -EBUSY) instead of a clean end, and
 * kunwind_reliable() is false; the frames reported before may be stale.
 * A caller that needs the walk to succeed keeps the task from running
 * meanwhile, as livepatch does (its walk runs inside task_call_func(),
 * under the locks that keep the task from being woken or scheduled).
 */
#ifndef KUNWIND_KUNWIND_H
#define KUNWIND_KUNWIND_H

#include <linux/types.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <asm/ptrace.h>
#include "engine.h"

struct kuw_work;

/* Use whichever table covers the pc (eh_frame, then debug_frame, sframe). */
#define KUNWIND_SRC_ANY		0x7f

/*
 * OR'ed into the @src of __kunwind_start(): never step a frame with the
 * kernel's own unwinder (ORC); kunwind's tables and its own knowledge of
 * entry frames, stack switches and trampolines only.
 */
#define KUNWIND_NO_ORC		0x80

/* Frames one unwind walks at most (kernel stacks are 16 KiB). */
#define KUNWIND_MAX_FRAMES	256

/* How the current frame was reached. */
enum kunwind_how {
	KUNWIND_FRAME_START = 0,	/* first frame: regs, current, task */
	KUNWIND_FRAME_CFI,		/* stepped with a table row */
	KUNWIND_FRAME_PT_REGS,		/* an entry frame's pt_regs */
	KUNWIND_FRAME_ORC,		/* stepped with the kernel's ORC */
	KUNWIND_FRAME_FP,		/* code without tables: frame record, or leaf guess */
};

/* Kinds of stack a frame may be on. */
enum kunwind_stack_type {
	KUNWIND_STACK_NONE = 0,
	KUNWIND_STACK_TASK,
	KUNWIND_STACK_IRQ,
	KUNWIND_STACK_EXCEPTION,	/* x86 IST, arm64 overflow/SDEI */
	KUNWIND_STACK_ENTRY,		/* x86 entry trampoline stack */
};

/**
 * struct kunwind_stack - one stack of the unwound context
 * @begin: lowest address
 * @end: one past the highest
 * @next_sp: where the previous stack's sp is kept, if the arch knows
 * @type: enum kunwind_stack_type
 */
struct kunwind_stack {
	unsigned long begin;
	unsigned long end;
	unsigned long next_sp;
	u8 type;
};

/**
 * struct kunwind_state - one unwind in progress
 * @task: the task whose stack is walked
 * @regs: registers of the current frame (DWARF numbering), those known
 *	  (@regs.valid); the pc is kunwind_get_return_address().
 *	  kunwind_next_frame() tracks every register a row restores;
 *	  kunwind_next_frames() only pc, sp, frame pointer and return address
 * @stack: the stack the current frame's sp is on
 * @stack_mask: stacks entered so far (a stack is never re-entered)
 * @table: after kunwind_next_frame(): the table whose row was used to
 *	   leave the previous frame, or NULL (stepped by ORC, or none)
 * @rule: that row's rule, or NULL (see also kunwind_rule_for_pc())
 * @row_pc: start of that row
 * @error: 0 while going; then the stop reason, a negative enum kuw_err
 *	   (-KUW_E_END for a clean end at the outermost frame)
 * @nframes: frames reported so far
 * @src: KUNWIND_SRC_ANY or the one enum kuw_src tables are taken from
 * @how: enum kunwind_how of the current frame
 * @no_orc: KUNWIND_NO_ORC was asked for
 * @signal: the pc is not a return address (first frame, pt_regs frame,
 *	    signal frame): look it up as is, not at pc - 1
 * @reliable: every frame so far was left by a table row or by an exact
 *	      crossing (an exception entry's pt_regs, a stack switch whose
 *	      layout is known), and every frame a kernel-mode exception
 *	      interrupted was left by a table row
 * @rel_pending: the current frame is one a kernel-mode exception
 *		 interrupted: unless a table row steps it, @reliable goes
 *		 false
 * @sp_guess: the current frame's sp is only a lower bound (an arm64 frame
 *	      record gives the caller's x29 and pc, not where its frame
 *	      ends): a row whose CFA is sp-based cannot step it
 * @ret_idx: return-address translation state (function-graph tracer)
 * @ret_cur: return-address translation state (kretprobe/rethook)
 * @ahead_entry: look-ahead cache: the object of the current frame's pc ...
 * @ahead_table: ... its table, rule and row start, found when the frame
 * @ahead_rule:  was reached (the pc had to be checked anyway), so the next
 * @ahead_row:   step does not look it up again; valid while no object was
 * @ahead_look:  unregistered since (@ahead_seq)
 * @ahead_ret: the look-up's result
 * @ahead_seq: registry generation the cache was filled in
 * @ahead_ok: the cache is filled
 * @switches: for a task other than current, its context-switch count
 *	      (nvcsw + nivcsw) when the walk began: a clean end re-checks it
 *	      and the task's on_cpu, and a walk of a task that ran
 *	      meanwhile ends with -KUW_E_RUNNING (never reliable)
 * @work: the walk's memory beyond this state (per CPU and context, not
 *	  the stack): set by kunwind's own consumers for their whole walk;
 *	  NULL in a caller's state, whose every call takes its context's
 *	  for the call (a walk nested in one of the same context on the same
 *	  CPU is refused: -KUW_E_NESTED)
 *
 * @table and @rule stay valid only while the caller is in an RCU read-side
 * section (or has preemption disabled) around the calls.
 *
 * __kunwind_start() sets every field (a register value means something
 * only where @regs.valid has its bit): a state on the stack may be
 * declared __uninitialized, so that a kernel built with
 * CONFIG_INIT_STACK_ALL_ZERO does not clear it before each walk.
 */
struct kunwind_state {
	struct task_struct *task;
	struct kuw_regs regs;
	struct kunwind_stack stack;
	unsigned long stack_mask;
	const struct kuw_table *table;
	const struct kuw_rule *rule;
	u64 row_pc;
	int error;
	u32 nframes;
	u8 src;
	u8 how;
	bool no_orc;
	bool signal;
	bool reliable;
	bool rel_pending;
	bool sp_guess;
	bool ahead_ok;
	int ret_idx;
	struct llist_node *ret_cur;
	int ahead_ret;
	unsigned int ahead_seq;
	const void *ahead_entry;
	const struct kuw_table *ahead_table;
	const struct kuw_rule *ahead_rule;
	u64 ahead_row;
	u64 ahead_look;
	unsigned long switches;
	struct kuw_work *work;
};

void __kunwind_start(struct kunwind_state *state, struct task_struct *task,
		     struct pt_regs *regs, unsigned long *first_frame, u8 src);
void kunwind_start(struct kunwind_state *state, struct task_struct *task,
		   struct pt_regs *regs, unsigned long *first_frame);
bool kunwind_next_frame(struct kunwind_state *state);
unsigned int kunwind_next_frames(struct kunwind_state *state,
				 unsigned long *pcs, unsigned int max);
unsigned long kunwind_get_return_address(struct kunwind_state *state);
int kunwind_error(struct kunwind_state *state);
int kunwind_errno(int err);
bool kunwind_reliable(struct kunwind_state *state);
const char *kunwind_strerror(int err);

/**
 * kunwind_done() - has the unwind ended?
 * @state: the unwind
 *
 * Return: true once no frame is left, for whatever reason; then
 * kunwind_error() says why.
 */
static inline bool kunwind_done(struct kunwind_state *state)
{
	return state->error != 0;
}

/**
 * kunwind_stop_reason() - why the unwind ended, precisely
 * @state: the unwind
 *
 * Return: 0 while going, else a negative enum kuw_err (-KUW_E_END for a
 * clean end), named by kunwind_strerror().
 */
static inline int kunwind_stop_reason(struct kunwind_state *state)
{
	return state->error;
}

/**
 * struct kunwind_rule_info - the row in force at a pc
 * @owner: "vmlinux" or the module's name (copied)
 * @src: enum kuw_src of the table
 * @arch: enum kuw_arch
 * @row_pc: start of the row
 * @rule: the rule (the registers that have one, same_value included)
 */
struct kunwind_rule_info {
	char owner[MODULE_NAME_LEN];
	u8 src;
	u8 arch;
	u64 row_pc;
	struct kuw_rule rule;
};

int kunwind_rule_for_pc(unsigned long pc, u8 src,
			struct kunwind_rule_info *info);

/**
 * struct kunwind_table_info - one table of an object
 * @src: enum kuw_src
 * @nfde: FDEs
 * @nrows: rows
 * @bytes: memory the compiled table uses
 * @text_start: start of the object's (core) text
 * @text_end: its end
 * @sec_addr: run-time address of the section the table was built from
 * @sec_size: its size (an upper bound for a module found through sysfs)
 */
struct kunwind_table_info {
	u8 src;
	u32 nfde;
	u32 nrows;
	u64 bytes;
	unsigned long text_start;
	unsigned long text_end;
	u64 sec_addr;
	u64 sec_size;
};

int kunwind_tables_of(const char *owner, struct kunwind_table_info *info,
		      int max);
int kunwind_load_blob(const void *buf, size_t len);
int kunwind_drop_table(const char *owner, u8 src);
int kunwind_reread_module(const char *name);
void kunwind_dump_stack(void);
void kunwind_put_task_stack(struct task_struct *task);

/* Counters of one consumer (struct kunwind_consumer_info.count[]). */
enum {
	KUNWIND_CONS_CALLS,	/* calls that reached kunwind's version */
	KUNWIND_CONS_KUNWIND,	/* answered by kunwind's walk alone */
	KUNWIND_CONS_FALLBACK,	/* the kernel's unwinder answered (part of) it */
	KUNWIND_CONS__N
};

/**
 * struct kunwind_consumer_info - one of the kernel's stack-trace consumers
 * @name: the kernel function kunwind answers for ("stack_trace_save", ...)
 * @offered: this kernel has it and kunwind can answer for it
 * @hooked: the switch is on for it: its calls go to kunwind
 * @err: why switching it on failed last, or 0
 * @count: counters since load, KUNWIND_CONS_CALLS ...
 */
struct kunwind_consumer_info {
	const char *name;
	bool offered;
	bool hooked;
	int err;
	unsigned long count[KUNWIND_CONS__N];
};

unsigned long kunwind_row_cache_held(void);

/*
 * The consumers switch (module/consumers.c): stack_trace_save(),
 * stack_trace_save_tsk(), stack_trace_save_regs() and the arch's
 * perf_callchain_kernel() answered by kunwind; livepatch's
 * stack_trace_save_tsk_reliable() only when also opted in
 * (kunwind_consumers_set_reliable(), parameter consumers_reliable; off by
 * default).
 */
int kunwind_consumers_set(bool on);
int kunwind_consumers_set_reliable(bool on);
int kunwind_consumer_info(unsigned int i, struct kunwind_consumer_info *info);

#endif /* KUNWIND_KUNWIND_H */
