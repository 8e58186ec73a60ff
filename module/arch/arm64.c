// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 side of the arch seam (module/kuw_arch.h).  arm64 has no ORC: the
 * kernel's own unwinder follows frame records, so it misses the caller of
 * a function stopped before it saved one (a prologue, a leaf) and cannot
 * say a trace through an exception is reliable.  kunwind steps every frame
 * with tables instead and crosses what has none by itself:
 *   - the stacks of a context: the task stack, this CPU's IRQ stack and
 *     overflow stack (per-CPU pointers found through kallsyms);
 *   - call_on_irq_stack(): it pushed a frame record {x29, x30} on the task
 *     stack, pointed x29 at it and moved sp to the IRQ stack; the handler's
 *     CFI gives back that x29, so a caller in call_on_irq_stack goes on
 *     from the record: sp = x29 + 16, pc = the saved x30, x29 = the saved
 *     x29;
 *   - exception entry (entry.S, no CFI): every vector calls its C handler
 *     with "mov x0, sp; bl handler", sp = the pt_regs kernel_entry built.
 *     A return address into entry text gives the interrupted registers;
 *     a user-mode pt_regs is the end of the stack.  Where the kernel has
 *     meta frame records (6.13+, KUW_A64_META_RECORDS in arm64.h), x29 is
 *     the PT_REGS meta record in that pt_regs and only the record decides,
 *     as for the kernel's own unwinder; before, the bl and sp do;
 *   - a frame record of two zeros (reached by frame pointer): a task's
 *     last record at its top pt_regs (every release), or a PT_REGS meta
 *     record, crossed to its pt_regs;
 *   - the end: a task's sp at its top pt_regs (ret_from_fork, user entry);
 *     an idle task's secondary_startup / __primary_switched bottom;
 *   - pointer authentication: return addresses are stripped of their PAC
 *     (kuw_arch_ret_addr() in arm64.h) before any lookup;
 *   - return_to_handler and the kretprobe trampoline are translated with
 *     the kernel's records, keyed by the caller's frame pointer as the
 *     kernel's own unwinder keys them, also as a pt_regs' pc (the BRK
 *     kretprobe trampoline after 6.1).
 *
 * The reliable flag goes further than arch_stack_walk_reliable() (6.17+),
 * which gives up at every exception boundary because it cannot know
 * whether x30 was live: crossing a kernel-mode exception's pt_regs (found
 * through the entry code's known layout, or its meta record) is exact,
 * and the interrupted frame keeps the trace reliable when a table row at
 * the interrupted pc steps it (the row says where the return address is:
 * x30, or its slot).  Frame records followed through code without tables
 * and trampolines whose real return address is unknown are not reliable.
 */
#define pr_fmt(fmt) "kunwind: " fmt

#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/memory.h>
#include <asm/ptrace.h>
#include "kunwind_internal.h"
#include "kuw_arch.h"

static unsigned long kuw_irq_stack_ptr;	/* per-CPU unsigned long * */
static unsigned long kuw_overflow_stack;	/* per-CPU array */
static unsigned long kuw_entry_text[2];	/* [start, end) */
static unsigned long kuw_irq_call[2];	/* call_on_irq_stack */
static unsigned long kuw_idle[2][2];	/* bottoms of idle tasks */
static unsigned long kuw_kimage[2];	/* [_text, _end) */
/* unexported functions, called with kuw_call(), typed from their headers */
KUW_INTERNAL(ftrace_graph_ret_addr);
KUW_INTERNAL(kretprobe_find_ret_addr);
unsigned long kuw_a64_tramp[2];
/* 6.1's kretprobe trampoline, which calls its handler (later: a BRK) */
static unsigned long kuw_krp_call[2];
/* without _end (no CONFIG_KALLSYMS_ALL): the module tree is asked */
KUW_INTERNAL(is_module_address);

/*
 * Up to 6.1 __kretprobe_trampoline starts with "sub sp, sp, #PT_REGS_SIZE",
 * saves a pt_regs there and calls its handler; later it is one BRK.  The
 * code itself says which (kprobes_trampoline.S: no header differs).
 */
static void kuw_a64_krp_init(void)
{
	u32 insn;

	BUILD_BUG_ON(sizeof(struct pt_regs) >= 4096);
	if (!kuw_a64_tramp[1] ||
	    copy_from_kernel_nofault(&insn, (void *)kuw_a64_tramp[1], 4) ||
	    insn != (0xd10003ffU | (u32)sizeof(struct pt_regs) << 10))
		return;
	kuw_lookup_range("__kretprobe_trampoline", kuw_krp_call);
}

/*
 * Leaf functions of the kernel image, proven from their machine code at
 * load time: no instruction of theirs writes sp or x30, calls (bl, blr),
 * or signs x30, and their code is whole (kuw_a64_leaf_closed()).  While
 * one runs, its return address is in x30 and its
 * caller's sp is sp: an exception in it that no row covers (assembly
 * without CFI: memset, memcpy, clear_page, copy_page, the user copies,
 * strlen...; any C leaf on a kernel whose tables are not loaded) is left
 * by that rule, where a frame-record step would skip the caller.  Ranges
 * are offsets from _stext, sorted; looked up by binary search.  The step
 * is exact but stays unreliable, as every crossing of an exception no row
 * covers does.
 */
static bool kuw_in(const unsigned long *range, u64 pc)
{
	return pc >= range[0] && pc < range[1];
}

struct kuw_leaf {
	u32 start, end;
};

static struct kuw_leaf *kuw_leaves;
static unsigned int kuw_nleaves;
static unsigned long kuw_leaf_base;
#define KUW_LEAF_MAX_INSNS	4096	/* longer: not looked at */

/* May @insn run in a leaf: it writes neither sp nor x30, calls nothing? */
static bool kuw_a64_leaf_insn(u32 insn)
{
	u32 rd = insn & 0x1f, rn = (insn >> 5) & 0x1f;

	if ((insn & 0xfc000000U) == 0x94000000U ||	/* bl */
	    (insn & 0xfffffc1fU) == 0xd63f0000U ||	/* blr */
	    (insn & 0xfefff800U) == 0xd63f0800U)	/* blraa, blrab... */
		return false;
	/* pac/aut of x30 (paciasp, autiasp, ...z), xpaclri */
	if ((insn & 0xffffff1fU) == 0xd503231fU || insn == 0xd50320ffU)
		return false;
	/*
	 * Loads and stores of SIMD&FP registers (pair, register, structures;
	 * V set): their Rt and Rt2 name a vector register, never x30.  With
	 * sp as the base (a writeback could move it): not looked at further.
	 */
	if ((insn & 0x3e000000U) == 0x2c000000U ||
	    (insn & 0x3c000000U) == 0x3c000000U ||
	    (insn & 0xbe000000U) == 0x0c000000U)
		return rn != 31;
	/* any write to x30: conservatively, x30 in Rd/Rt or a pair's Rt2 */
	if (rd == 30)
		return false;
	if ((insn & 0x3a000000U) == 0x28000000U) {	/* load/store pair */
		if (((insn >> 10) & 0x1f) == 30)
			return false;
		if ((insn & BIT(23)) && rn == 31)	/* sp written back */
			return false;
	}
	/* add/sub (immediate, extended register) to sp, not setting flags */
	if (rd == 31 && !(insn & BIT(29)) &&
	    ((insn & 0x1f000000U) == 0x11000000U ||
	     (insn & 0x1f200000U) == 0x0b200000U))
		return false;
	/* load/store register, pre- or post-indexed, on sp */
	if ((insn & 0x3b200400U) == 0x38000400U && rn == 31)
		return false;
	return true;
}

/* @insn at @pc: a direct branch (b, b.cond, cbz/cbnz, tbz/tbnz) to @to? */
static bool kuw_a64_branch(u32 insn, u64 pc, u64 *to)
{
	s64 off;

	if ((insn & 0xfc000000U) == 0x14000000U)		/* b */
		off = sign_extend64(insn & 0x3ffffff, 25);
	else if ((insn & 0xff000010U) == 0x54000000U ||	/* b.cond */
		 (insn & 0x7e000000U) == 0x34000000U)		/* cbz, cbnz */
		off = sign_extend64((insn >> 5) & 0x7ffff, 18);
	else if ((insn & 0x7e000000U) == 0x36000000U)		/* tbz, tbnz */
		off = sign_extend64((insn >> 5) & 0x3fff, 13);
	else
		return false;
	*to = pc + off * 4;
	return true;
}

/* the instructions kuw_a64_leaf_closed() has found reachable (init only) */
static DECLARE_BITMAP(kuw_leaf_reach, KUW_LEAF_MAX_INSNS);
#define KUW_LEAF_PASSES		16

/*
 * kallsyms splits assembly at its global inner labels (ftrace_common()
 * ends where ftrace_call begins, and runs on into it; ftrace_caller()
 * jumps to it with sp moved): an extent is a leaf only when it is a whole
 * function.  What it runs from its start may not run on past its end,
 * branch through a register other than ret's x30, or branch out of it but
 * to the start of a function (a tail call: 7.3's memset() is one to
 * __pi_memset_generic()); it ends in ret, loops or tail-calls.  What it
 * never runs (an alternative's replacement after the ret, padding) is not
 * followed.  Return: true when that is shown within KUW_LEAF_PASSES passes.
 */
static bool kuw_a64_leaf_closed(unsigned long start, unsigned int n)
{
	unsigned long fn, fn_size;
	unsigned int k, pass;
	bool grew;
	u32 insn;
	u64 to;

	bitmap_zero(kuw_leaf_reach, n);
	__set_bit(0, kuw_leaf_reach);
	for (pass = 0; pass < KUW_LEAF_PASSES; pass++) {
		grew = false;
		for_each_set_bit(k, kuw_leaf_reach, n) {
			if (copy_from_kernel_nofault(&insn,
						     (void *)(start + 4 * k), 4))
				return false;
			if ((insn & 0xfe000000U) == 0xd6000000U) {
				/* branch (register): only ret (x30) */
				if (insn != 0xd65f03c0U)
					return false;
				continue;
			}
			if (kuw_a64_branch(insn, start + 4 * k, &to)) {
				if (to >= start && to < start + 4 * n) {
					if (!__test_and_set_bit((to - start) / 4,
								kuw_leaf_reach))
						grew = true;
				} else if (!kuw_fn_extent(to, &fn, &fn_size) ||
					   fn != to) {
					return false;
				}
				if ((insn & 0xfc000000U) == 0x14000000U)
					continue;	/* b: never the next */
			}
			if (k + 1 == n)
				return false;	/* runs on past the end */
			if (!__test_and_set_bit(k + 1, kuw_leaf_reach))
				grew = true;
		}
		if (!grew)
			return true;
	}
	return false;
}

static bool kuw_a64_leaf_fn(unsigned long start, unsigned long size)
{
	unsigned long i;
	u32 insn;

	if (size > KUW_LEAF_MAX_INSNS * 4 || (start & 3) || size < 4)
		return false;
	for (i = 0; i + 4 <= size; i += 4) {
		if (copy_from_kernel_nofault(&insn, (void *)(start + i), 4) ||
		    !kuw_a64_leaf_insn(insn))
			return false;
	}
	return kuw_a64_leaf_closed(start, size / 4);
}

/*
 * Every function of [lo, hi) outside entry text, classified; the leaves
 * stored in @l (room for @room) when it is not NULL.  Return: how many.
 */
static unsigned int kuw_a64_leaves_scan(unsigned long lo, unsigned long hi,
					struct kuw_leaf *l, unsigned int room)
{
	unsigned long a, start, size;
	unsigned int n = 0;

	for (a = lo; a < hi; a = max(start + size, a + 4)) {
		if (!kuw_fn_extent(a, &start, &size)) {
			start = a;
			size = 4;
			continue;
		}
		if (start < lo || start + size > hi ||
		    kuw_in(kuw_entry_text, start) ||
		    !kuw_a64_leaf_fn(start, size))
			continue;
		if (l) {
			if (n == room)
				break;
			l[n].start = start - lo;
			l[n].end = start + size - lo;
		}
		n++;
		if (!(n & 255))
			cond_resched();
	}
	return n;
}

static void kuw_a64_leaves_init(void)
{
	unsigned long lo = kuw_lookup_name("_stext");
	unsigned long hi = kuw_lookup_name("_etext");
	struct kuw_leaf *l;
	unsigned int n;

	if (!lo || hi <= lo || hi - lo > U32_MAX)
		return;
	n = kuw_a64_leaves_scan(lo, hi, NULL, 0);
	l = n ? kvmalloc_array(n, sizeof(*l), GFP_KERNEL) : NULL;
	if (!l)
		return;
	/* text does not change meanwhile: the second pass finds the same */
	n = kuw_a64_leaves_scan(lo, hi, l, n);
	kuw_leaf_base = lo;
	kuw_leaves = l;
	kuw_nleaves = n;
	pr_info("arm64: %u leaf functions (return address in x30 throughout)\n",
		n);
}

/* Is @pc in a leaf function of the kernel image? */
static bool kuw_a64_leaf(u64 pc)
{
	unsigned int lo = 0, hi = READ_ONCE(kuw_nleaves), mid;
	u64 off = pc - kuw_leaf_base;

	if (!kuw_leaves || off > U32_MAX)
		return false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (off < kuw_leaves[mid].start)
			hi = mid;
		else if (off >= kuw_leaves[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/*
 * An exception interrupted a leaf (@pc, no row): the caller's pc is in x30,
 * its sp is sp, every other register is as the leaf left it.
 */
static int kuw_leaf_step(struct kunwind_state *s, u64 pc, u64 sp)
{
	const u64 lr = BIT_ULL(KUW_A64_X30);

	if ((s->regs.valid & ~s->regs.lazy & lr) != lr || !kuw_a64_leaf(pc))
		return -KUW_E_NOINFO;
	s->regs.r[KUW_REG_PC] = s->regs.r[KUW_A64_X30];
	s->regs.r[KUW_REG_SP] = sp;
	s->regs.valid &= ~lr;	/* the caller's own x30: not known */
	s->signal = false;
	kuw_arch_ret_addr(s);
	s->how = KUNWIND_FRAME_CFI;
	return 0;
}

/**
 * kuw_arch_exit() - free what kuw_arch_init() built
 */
void kuw_arch_exit(void)
{
	kvfree(kuw_leaves);
	kuw_leaves = NULL;
	kuw_nleaves = 0;
}

/*
 * The address of the per-CPU irq_stack_ptr from call_on_irq_stack()'s code,
 * which loads it with ldr_this_cpu: "adrp xN, sym; add xN, xN, :lo12:sym;
 * mrs xT, tpidr_el1 (tpidr_el2 with VHE); ldr xN, [xN, xT]".  A kernel
 * without CONFIG_KALLSYMS_ALL (Debian's 6.1 arm64) has no data symbols in
 * kallsyms; every release's call_on_irq_stack() has that sequence.
 *
 * Return: the address, or 0 when the code is not that.
 */
static unsigned long kuw_a64_irq_stack_ptr(void)
{
	unsigned long pc = kuw_irq_call[0];
	unsigned int i, rd, rt;
	u32 c[16];
	s64 off;

	if (!pc || copy_from_kernel_nofault(c, (void *)pc, sizeof(c)))
		return 0;
	for (i = 0; i + 3 < ARRAY_SIZE(c); i++) {
		rd = c[i] & 0x1f;
		rt = c[i + 2] & 0x1f;
		if ((c[i] & 0x9f000000U) != 0x90000000U ||	/* adrp xN */
		    /* add xN, xN, #imm12 */
		    (c[i + 1] & 0xffc003ffU) != (0x91000000U | rd << 5 | rd) ||
		    /* mrs xT, tpidr_el1 / tpidr_el2 */
		    ((c[i + 2] & ~0x1fU) != 0xd538d080U &&
		     (c[i + 2] & ~0x1fU) != 0xd53cd040U) ||
		    /* ldr xN, [xN, xT] */
		    c[i + 3] != (0xf8606800U | rt << 16 | rd << 5 | rd))
			continue;
		off = ((c[i] >> 29) & 3) | ((c[i] >> 5) & 0x7ffff) << 2;
		off = sign_extend64(off, 20) * 4096;
		return ((pc + 4 * i) & ~0xfffUL) + off +
		       ((c[i + 1] >> 10) & 0xfff);
	}
	return 0;
}

/*
 * irq_stack_ptr: read from the code, checked against kallsyms where that
 * has it (a kernel with CONFIG_KALLSYMS_ALL: every test kernel).
 */
static void kuw_a64_irq_stack_init(void)
{
	unsigned long code = kuw_a64_irq_stack_ptr();
	unsigned long sym = kuw_lookup_name("irq_stack_ptr");

	if (code && sym && code != sym)
		pr_warn("irq_stack_ptr: call_on_irq_stack's code and kallsyms disagree (by %+ld bytes); kallsyms wins\n",
			(long)(code - sym));
	/*
	 * Read from the code only: this CPU's pointer must read back as an
	 * IRQ stack would (set, 16-aligned) before walks dereference it
	 */
	if (code && !sym) {
		unsigned long *slot = raw_cpu_ptr((unsigned long __percpu *)code);
		unsigned long low;

		if (copy_from_kernel_nofault(&low, slot, sizeof(low)) || !low ||
		    (low & 15)) {
			pr_warn("irq_stack_ptr: call_on_irq_stack's code names no IRQ stack\n");
			code = 0;
		}
	}
	kuw_irq_stack_ptr = sym ? sym : code;
	if (!kuw_irq_stack_ptr)
		pr_warn("irq_stack_ptr not found: IRQ stacks are not walked\n");
	else if (!sym)
		pr_info("irq_stack_ptr read from call_on_irq_stack's code\n");
}

/**
 * kuw_arch_init() - find what the arm64 unwinder needs from the kernel
 *
 * Return: 0; each symbol missing only costs the boundary it serves.
 */
int kuw_arch_init(void)
{
	kuw_overflow_stack = kuw_lookup_name("overflow_stack");
	kuw_entry_text[0] = kuw_lookup_name("__entry_text_start");
	kuw_entry_text[1] = kuw_lookup_name("__entry_text_end");
	kuw_kimage[0] = kuw_lookup_name("_text");
	kuw_kimage[1] = kuw_lookup_name("_end");
	/*
	 * Neither is a text symbol: a kernel without CONFIG_KALLSYMS_ALL
	 * (Debian's stock kernel) has neither in kallsyms, and an empty
	 * range would take the module list's head (in .data) for a module.
	 * is_module_address() (a function: in kallsyms) answers then.
	 */
	if (!kuw_kimage[0] || !kuw_kimage[1])
		kuw_lookup_fn(is_module_address);
	kuw_lookup_range("call_on_irq_stack", kuw_irq_call);
	kuw_a64_irq_stack_init();
	kuw_lookup_range("secondary_startup", kuw_idle[0]);
	kuw_lookup_range("__primary_switched", kuw_idle[1]);
	kuw_a64_tramp[0] = kuw_lookup_name("return_to_handler");
	if (kuw_a64_tramp[0])
		kuw_lookup_fn(ftrace_graph_ret_addr);
	kuw_a64_tramp[1] = kuw_lookup_name("__kretprobe_trampoline");
	if (kuw_a64_tramp[1])
		kuw_lookup_fn(kretprobe_find_ret_addr);
	kuw_a64_krp_init();
	kuw_a64_leaves_init();
	return 0;
}

static bool kuw_set(struct kunwind_stack *st, unsigned long low,
		    unsigned long size, u8 type, unsigned long addr,
		    unsigned long *mask)
{
	if (!low || addr < low || addr >= low + size)
		return false;
	if (mask) {
		if (*mask & BIT(type))
			return false;
		*mask |= BIT(type);
	}
	st->begin = low;
	st->end = low + size;
	st->next_sp = 0;
	st->type = type;
	return true;
}

/**
 * kuw_arch_stack_of() - which stack of a task's context holds an address
 * @task: the task
 * @addr: the address
 * @st: set to the stack's bounds and type
 * @mask: stacks entered so far; the new one is added (NULL: just look)
 *
 * The task stack; for the current task also this CPU's IRQ and overflow
 * stacks.
 *
 * Return: true when @addr is on a stack not entered before.
 */
bool kuw_arch_stack_of(struct task_struct *task, unsigned long addr,
		       struct kunwind_stack *st, unsigned long *mask)
{
	unsigned long low;

	if (kuw_set(st, (unsigned long)task_stack_page(task), THREAD_SIZE,
		    KUNWIND_STACK_TASK, addr, mask))
		return true;
	if (task != current)
		return false;
	if (kuw_irq_stack_ptr) {
		low = (unsigned long)*raw_cpu_ptr((unsigned long * __percpu *)
						  kuw_irq_stack_ptr);
		if (kuw_set(st, low, IRQ_STACK_SIZE, KUNWIND_STACK_IRQ, addr,
			    mask))
			return true;
	}
	if (kuw_overflow_stack) {
		low = (unsigned long)raw_cpu_ptr((unsigned long __percpu *)
						 kuw_overflow_stack);
		if (kuw_set(st, low, OVERFLOW_STACK_SIZE,
			    KUNWIND_STACK_EXCEPTION, addr, mask))
			return true;
	}
	return false;
}

/**
 * kuw_arch_regs_from_pt() - every general register of a pt_regs
 * @r: engine registers to fill
 * @p: the pt_regs
 */
void kuw_arch_regs_from_pt(struct kuw_regs *r, const struct pt_regs *p)
{
	int i;

	for (i = 0; i < 31; i++)
		r->r[i] = p->regs[i];
	r->r[KUW_A64_SP] = p->sp;
	r->r[KUW_A64_PC] = p->pc;
	r->valid = GENMASK_ULL(KUW_A64_NREGS - 1, 0);
	r->lazy = 0;
}

/**
 * kuw_arch_task_regs() - where a sleeping task stands
 * @task: a task that is not running
 * @r: filled from the context cpu_switch_to() saved
 * @signal: set when the pc is not a return address
 *
 * Return: 0, or -KUW_E_RUNNING for a task running on a CPU.
 */
int kuw_arch_task_regs(struct task_struct *task, struct kuw_regs *r,
		       bool *signal)
{
	const struct cpu_context *c = &task->thread.cpu_context;
	int i;

	/* acquire: the context it saved before it left its CPU (finish_task()) */
	if (smp_load_acquire(&task->on_cpu))
		return -KUW_E_RUNNING;
	for (i = 0; i < 10; i++)
		r->r[19 + i] = (&c->x19)[i];
	r->r[29] = READ_ONCE(c->fp);
	r->r[KUW_A64_SP] = READ_ONCE(c->sp);
	/* cpu_switch_to() saved its lr: a return address into __schedule */
	r->r[KUW_A64_PC] = kuw_ptrauth_strip(READ_ONCE(c->pc));
	r->r[30] = r->r[KUW_A64_PC];
	r->valid = KUW_A64_CALLEE_SAVED;
	r->lazy = 0;
	/* a task that never ran starts at ret_from_fork, on its pt_regs */
	*signal = r->r[KUW_A64_SP] == (unsigned long)task_pt_regs(task);
	return 0;
}

/**
 * kuw_arch_at_end() - is the current frame the outermost one of its task?
 * @s: the unwind
 *
 * Return: true when sp is the task's top pt_regs (ret_from_fork, or the
 * exception entry from user space).
 */
bool kuw_arch_at_end(const struct kunwind_state *s)
{
	return s->stack.type == KUNWIND_STACK_TASK &&
	       s->regs.r[KUW_REG_SP] == (unsigned long)task_pt_regs(s->task);
}

/**
 * kuw_arch_in_module_area() - is @addr where modules (or vmalloc) live?
 * @addr: an address
 *
 * arm64 modules may be placed anywhere in the vmalloc area (module PLTs):
 * anything that is not in the kernel image counts.  Without the image's
 * bounds (no _text or _end in kallsyms), only a module's own memory counts
 * (is_module_address()), and nothing when that is not found either.
 *
 * Return: true for an address outside the kernel image.
 */
bool kuw_arch_in_module_area(unsigned long addr)
{
	if (kuw_kimage[0] && kuw_kimage[1])
		return !kuw_in(kuw_kimage, addr);
	if (!KUW_FN(is_module_address))
		return false;
	return kuw_call(is_module_address, addr);
}

/**
 * kuw_a64_ret_addr() - the real return address behind a trampoline's
 * @s: the unwind, just stepped to a caller whose pc is a trampoline
 *
 * arm64's tracers key their records by the frame pointer of the frame
 * that returns to the trampoline, which is the caller's x29 now.  A step
 * leaves a saved x29 lazy (the address of its slot): its value is read
 * here, or the key would be a stack address and match no record.
 */
void kuw_a64_ret_addr(struct kunwind_state *s)
{
	u64 pc = s->regs.r[KUW_REG_PC], fp;
	unsigned long real = 0;

	/* x29 may still be the address of its slot (lazy): read it */
	if (kuw_regs_get(&s->regs, KUW_REG_FP, s, &fp)) {
		s->reliable = false;
		return;
	}
	if (pc == kuw_a64_tramp[0] && KUW_FN(ftrace_graph_ret_addr))
		real = kuw_call(ftrace_graph_ret_addr, s->task, &s->ret_idx,
				pc, (unsigned long *)(unsigned long)fp);
	else if (pc == kuw_a64_tramp[1] && KUW_FN(kretprobe_find_ret_addr))
		real = kuw_call(kretprobe_find_ret_addr, s->task,
				(void *)(unsigned long)fp, &s->ret_cur);
	if (real && real != pc)
		s->regs.r[KUW_REG_PC] = kuw_ptrauth_strip(real);
	else
		s->reliable = false;
}

/**
 * kuw_arch_unknown_pc() - may a caller's pc be outside every table's text?
 * @s: the unwind, at the caller's frame
 * @pc: its pc
 *
 * Return: 0 to keep the frame (kernel text without tables: BPF, ftrace
 * trampolines, kprobe slots), -KUW_E_END for an idle task's return into
 * its start code, or -KUW_E_BADRA.
 */
int kuw_arch_unknown_pc(struct kunwind_state *s, u64 pc)
{
	u64 look = s->signal ? pc : pc - 1;

	if (is_idle_task(s->task) &&
	    (kuw_in(kuw_idle[0], look) || kuw_in(kuw_idle[1], look)))
		return -KUW_E_END;
	if (kuw_kernel_text(pc)) {
		s->ahead_ok = false;
		return 0;
	}
	return -KUW_E_BADRA;
}

/*
 * The interrupted registers in the pt_regs at @at (an exception entry's, or
 * a task's top one).  Where the kernel has meta frame records, the record
 * in that pt_regs must say so: PT_REGS for a kernel-mode exception, FINAL
 * for the entry from user space.
 */
static int kuw_regs_step(struct kunwind_state *s, u64 at)
{
	struct pt_regs *regs = &s->work->arch.regs;	/* not the stack */

	if (kuw_read_mem(s, at, regs, sizeof(*regs)))
		return -KUW_E_BADSTACK;
#if KUW_A64_META_RECORDS
	if (regs->stackframe.record.fp || regs->stackframe.record.lr ||
	    regs->stackframe.type != (user_mode(regs) ? FRAME_META_TYPE_FINAL :
				      FRAME_META_TYPE_PT_REGS))
		return -KUW_E_NOINFO;
#endif
	if (user_mode(regs))
		return at == (unsigned long)task_pt_regs(s->task) ?
		       -KUW_E_END : -KUW_E_BADSP;
	kuw_arch_regs_from_pt(&s->regs, regs);
	s->signal = true;
	s->how = KUNWIND_FRAME_PT_REGS;
	/*
	 * An exception or interrupt in the kernel: exact so far; the
	 * interrupted frame must be left by its own row (kuw_step_frame()).
	 * After 6.1 the kretprobe trampoline is a BRK: its handler runs in
	 * an exception whose pc is the trampoline.  Translated, keyed by the
	 * interrupted x29, as the kernel's unwinder does after a pt_regs;
	 * the frame is then the caller's at a return address, not the
	 * interrupted one: not reliable.
	 */
	s->rel_pending = true;
	if (s->regs.r[KUW_REG_PC] == kuw_a64_tramp[0] ||
	    s->regs.r[KUW_REG_PC] == kuw_a64_tramp[1]) {
		s->reliable = false;
		kuw_arch_ret_addr(s);
	}
	return 0;
}

/*
 * A record of two zeros at @fp: the end of the chain at a task's top
 * pt_regs (every release: ret_from_fork's, the idle tasks' and user
 * entry's record), or, with meta records, the PT_REGS record of a
 * kernel-mode exception, crossed to the registers it interrupted as the
 * kernel's own unwinder crosses it (kunwind_next_frame_record_meta()).
 */
static int kuw_meta_step(struct kunwind_state *s, u64 fp)
{
	u64 top = (unsigned long)&task_pt_regs(s->task)->stackframe;
	u64 type = 0;

	if (KUW_A64_META_RECORDS &&
	    kuw_read_mem(s, fp + 16, &type, sizeof(type)))
		return -KUW_E_NOINFO;
	if (fp == top)
		return !KUW_A64_META_RECORDS || type == KUW_A64_META_FINAL ?
		       -KUW_E_END : -KUW_E_NOINFO;
	if (KUW_A64_META_RECORDS && type == KUW_A64_META_PT_REGS)
		return kuw_regs_step(s, fp - offsetof(struct pt_regs,
						      stackframe));
	return -KUW_E_NOINFO;
}

/* Follow the frame record at @fp: sp = fp + 16, pc = lr, x29 = saved. */
static int kuw_record_step(struct kunwind_state *s, u64 sp, u64 fp)
{
	u64 rec[2];

	/*
	 * 8-aligned, as the kernel's unwinder asks: records in a pt_regs
	 * are (7.3's meta record at 296, 6.1's kretprobe trampoline's at
	 * regs[29])
	 */
	if (fp < sp || (fp & 7) || kuw_read_mem(s, fp, rec, sizeof(rec)))
		return -KUW_E_NOINFO;
	if (!rec[0] && !rec[1])
		return kuw_meta_step(s, fp);
	/*
	 * x19-x28 stay as they are, values or slot addresses (lazy): a
	 * slot's address is not the register's value
	 */
	s->regs.valid = BIT_ULL(KUW_REG_SP) | BIT_ULL(KUW_REG_PC) |
			BIT_ULL(KUW_REG_FP) | (s->regs.valid & GENMASK_ULL(28, 19));
	s->regs.lazy &= GENMASK_ULL(28, 19);
	s->regs.r[KUW_REG_FP] = rec[0];
	s->regs.r[KUW_REG_PC] = rec[1];
	s->regs.r[KUW_REG_SP] = fp + 16;
	s->signal = false;
	kuw_arch_ret_addr(s);
	s->how = KUNWIND_FRAME_FP;
	return 0;
}

/*
 * A return address into entry text: the vector called its C handler with
 * "mov x0, sp; bl handler" (sp = the pt_regs kernel_entry built, x29 = the
 * meta record in it where the kernel has them).  With meta records the
 * record decides, as it does for the kernel's unwinder; before them, the
 * bl before the return address and sp do.
 */
static int kuw_entry_step(struct kunwind_state *s, u64 pc, u64 sp, u64 fp,
			  bool fp_ok)
{
	u32 insn;

	if (KUW_A64_META_RECORDS) {
		if (!fp_ok || fp != sp + offsetof(struct pt_regs, stackframe))
			return -KUW_E_NOINFO;
		/* kuw_regs_step() checks the record: zeros, the right type */
		return kuw_meta_step(s, fp);
	}
	if (copy_from_kernel_nofault(&insn, (void *)(unsigned long)(pc - 4), 4) ||
	    (insn & 0xfc000000) != 0x94000000)	/* bl */
		return -KUW_E_NOINFO;
	return kuw_regs_step(s, sp);
}

/*
 * A return address in 6.1's kretprobe trampoline, into which the probed
 * function returned: the pt_regs it saved (x29 = its regs[29], sp = its
 * end, x30 = the trampoline) are the registers of that moment; the pc is
 * the trampoline, translated to the real return address.
 */
static int kuw_krp_step(struct kunwind_state *s, u64 fp)
{
	u64 at = fp - offsetof(struct pt_regs, regs[29]);
	struct pt_regs *regs = &s->work->arch.regs;	/* not the stack */

	if ((fp & 7) || kuw_read_mem(s, at, regs, sizeof(*regs)) ||
	    regs->sp != at + sizeof(*regs) ||
	    kuw_ptrauth_strip(regs->regs[30]) != kuw_a64_tramp[1])
		return -KUW_E_NOINFO;
	kuw_arch_regs_from_pt(&s->regs, regs);
	s->regs.r[KUW_REG_PC] = regs->regs[30];
	s->signal = true;
	s->how = KUNWIND_FRAME_PT_REGS;
	s->reliable = false;
	kuw_arch_ret_addr(s);
	return 0;
}

/**
 * kuw_arch_boundary_step() - step a frame the tables could not step
 * @s: the unwind, at the frame (pc, sp) with the tables' attempt undone
 * @pc: the frame's pc
 * @sp: its sp
 * @fp: its x29, if @fp_ok
 * @fp_ok: @fp is known
 * @signal: @pc is not a return address
 *
 * Return: 0 when stepped, -KUW_E_END at the outermost frame, or another
 * negative enum kuw_err.
 */
int kuw_arch_boundary_step(struct kunwind_state *s, u64 pc, u64 sp, u64 fp,
			   bool fp_ok, bool signal)
{
	u64 look = signal ? pc : pc - 1;
	int ret;

	if (kuw_in(kuw_entry_text, look) && !signal)
		return kuw_entry_step(s, pc, sp, fp, fp_ok);
	if (is_idle_task(s->task) &&
	    (kuw_in(kuw_idle[0], look) || kuw_in(kuw_idle[1], look)))
		return -KUW_E_END;
	/* an interrupted leaf: its return address is still in x30 */
	if (signal && !kuw_leaf_step(s, pc, sp))
		return 0;
	if (!fp_ok)
		return -KUW_E_NOINFO;
	if (kuw_in(kuw_krp_call, look) && !signal)
		return kuw_krp_step(s, fp);
	if (kuw_in(kuw_irq_call, look)) {
		/* the record is on the task stack: leave the IRQ stack */
		ret = kuw_record_step(s, 0, fp);
		if (!ret && s->how == KUNWIND_FRAME_FP)
			s->how = KUNWIND_FRAME_CFI;
		return ret;
	}
	/*
	 * Code without tables that keeps a frame record.  The caller's sp is
	 * not in the record: fp + 16 is only a lower bound (the callee's
	 * locals may lie above its record), so its rows must not use it.
	 */
	ret = kuw_record_step(s, sp, fp);
	if (!ret) {
		s->reliable = false;
		s->sp_guess = s->how == KUNWIND_FRAME_FP;
	}
	return ret;
}

/*
 * What the two patchable-entry slots may hold: the NOPs, ftrace's
 * "mov x9, x30" and "bl <ftrace trampoline>", or a kprobe's BRK.  None
 * changes sp, x29 or x30.
 */
static bool kuw_a64_pad_insn(u32 insn)
{
	return insn == 0xd503201fU ||			/* nop */
	       insn == 0xaa1e03e9U ||			/* mov x9, x30 */
	       (insn & 0xfc000000U) == 0x94000000U ||	/* bl */
	       (insn & 0xffe0001fU) == 0xd4200000U;	/* brk #imm */
}

/**
 * kuw_arch_entry_pad_lookup() - the row of an interrupted pc in entry padding
 * @s: the unwind
 * @e: the object whose text holds @pc
 * @pc: an interrupted pc no row covers (kunwind_rule_for_pc() may name a
 *      byte inside an instruction: that instruction's)
 * @t: the table
 * @r: the rule
 * @row: the row's start
 *
 * With dynamic ftrace GCC puts the function's two patchable entry slots
 * (-fpatchable-function-entry=2) before .cfi_startproc: the FDE starts 4
 * or 8 bytes after @pc, and an exception or kprobe there finds no row.
 * Those slots change nothing the rules speak of, so the FDE's first row
 * (CFA = sp, the return address in x30) holds there too: it is used when
 * a row starts right after them.
 *
 * Return: 0 with the row, or -KUW_E_NOINFO.
 */
int kuw_arch_entry_pad_lookup(struct kunwind_state *s,
			      const struct kuw_entry *e, u64 pc,
			      const struct kuw_table **t,
			      const struct kuw_rule **r, u64 *row)
{
	u32 insn[2];
	u64 pad;

	pc &= ~3ULL;
	if (copy_from_kernel_nofault(insn, (void *)(unsigned long)pc,
				     sizeof(insn)))
		return -KUW_E_NOINFO;
	for (pad = 4; pad <= 8 && kuw_a64_pad_insn(insn[pad / 4 - 1]);
	     pad += 4)
		if (!kuw_entry_lookup(e, pc + pad, s->src, t, r, row) &&
		    *row == pc + pad)
			return 0;
	return -KUW_E_NOINFO;
}

/**
 * kuw_arch_perf_full_regs() - were perf's regs saved by the CPU's entry?
 * @regs: the regs perf_callchain_kernel() was given
 *
 * arm64's exception entry saves its pt_regs on the stack it interrupted
 * (task, IRQ, overflow); perf_fetch_caller_regs() (tracepoints, ftrace's
 * partial regs) fills a per-CPU buffer with pc, sp and x29 only, which
 * kunwind cannot start from.  The kernel's own walker needs only pc and
 * x29, so it makes no such difference.
 *
 * Return: true when @regs lie on a stack of the current context.
 */
bool kuw_arch_perf_full_regs(const struct pt_regs *regs)
{
	struct kunwind_stack st;
	unsigned long r = (unsigned long)regs;

	return kuw_arch_stack_of(current, r, &st, NULL) &&
	       r + sizeof(*regs) <= st.end;
}

/* the walk's path: never kprobed (README, "Stack use") */
NOKPROBE_SYMBOL(kuw_arch_stack_of);
NOKPROBE_SYMBOL(kuw_arch_regs_from_pt);
NOKPROBE_SYMBOL(kuw_arch_task_regs);
NOKPROBE_SYMBOL(kuw_arch_at_end);
NOKPROBE_SYMBOL(kuw_a64_ret_addr);
NOKPROBE_SYMBOL(kuw_record_step);
NOKPROBE_SYMBOL(kuw_arch_unknown_pc);
NOKPROBE_SYMBOL(kuw_arch_boundary_step);
NOKPROBE_SYMBOL(kuw_arch_entry_pad_lookup);
NOKPROBE_SYMBOL(kuw_arch_perf_full_regs);
