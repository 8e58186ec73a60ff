// SPDX-License-Identifier: GPL-2.0
/*
 * End to end on real compiler output: the test runner unwinds its own stack
 * with the engine, from its own .eh_frame (and .sframe when the runner was
 * assembled with --gsframe), and must find exactly the return addresses the
 * compiler itself reports (__builtin_return_address) in a chain of
 * functions with different frame shapes.
 */
#include <alloca.h>
#include "kt.h"
#include "mem.h"
#include "elf.h"
#include "arch.h"

#define SU_DEPTH	6

struct su_snap {
	struct kuw_regs regs;
	u64 ra[SU_DEPTH];	/* return address seen by each chain level */
	u64 top;		/* highest stack address to copy */
};

static struct su_snap su;
static u8 su_stack[16384];

/* Copy live stack bytes, redzones included: not instrumented by ASan. */
static __attribute__((noinline, no_sanitize_address)) u32 su_copy(u64 from,
								 u64 to)
{
	const volatile u8 *p = (const volatile u8 *)from;
	u32 i, n = to > from ? to - from : 0;

	if (n > sizeof(su_stack))
		n = sizeof(su_stack);
	for (i = 0; i < n; i++)
		su_stack[i] = p[i];
	return n;
}

/* Capture the registers the leaf has at one instruction. */
static __attribute__((noinline)) void su_leaf(void)
{
	u64 pc, sp, bp, bx, r12, r13, r14, r15;

	su.ra[0] = (u64)__builtin_return_address(0);
	asm volatile("lea 0(%%rip), %0\n\t"
		     "mov %%rsp, %1\n\t"
		     "mov %%rbp, %2\n\t"
		     "mov %%rbx, %3\n\t"
		     "mov %%r12, %4\n\t"
		     "mov %%r13, %5\n\t"
		     "mov %%r14, %6\n\t"
		     "mov %%r15, %7\n\t"
		     : "=&r"(pc), "=&r"(sp), "=&r"(bp), "=&r"(bx),
		       "=&r"(r12), "=&r"(r13), "=&r"(r14), "=&r"(r15));
	memset(&su.regs, 0, sizeof(su.regs));
	su.regs.r[KUW_X86_RA] = pc;
	su.regs.r[KUW_X86_RSP] = sp;
	su.regs.r[KUW_X86_RBP] = bp;
	su.regs.r[KUW_X86_RBX] = bx;
	su.regs.r[12] = r12;
	su.regs.r[13] = r13;
	su.regs.r[14] = r14;
	su.regs.r[15] = r15;
	su.regs.valid = 1ULL << KUW_X86_RA | 1ULL << KUW_X86_RSP |
			1ULL << KUW_X86_RBP | 1ULL << KUW_X86_RBX |
			0xfULL << 12;
	/* the stack from here up to the test's frame is what unwinding reads */
	kt_mem_clear();
	kt_mem_add(sp, su_stack, su_copy(sp, su.top));
	asm volatile("" ::: "memory");
}

/* A frame with many callee-saved registers live across the call. */
static __attribute__((noinline)) u64 su_regs(u64 a, u64 b, u64 c)
{
	volatile u64 x = a * 3, y = b * 5, z = c * 7, w = a ^ b;
	u64 p = x + 1, q = y + 2, r = z + 3, s = w + 4, t = a + c;

	su.ra[1] = (u64)__builtin_return_address(0);
	su_leaf();
	return p * q + r * s + t + x + y + z + w;
}

/* A large frame. */
static __attribute__((noinline)) u64 su_big(u64 a)
{
	volatile char buf[3000];

	su.ra[2] = (u64)__builtin_return_address(0);
	buf[a % sizeof(buf)] = (char)a;
	return su_regs(a, buf[a % sizeof(buf)], a + 1) + buf[7];
}

/* alloca: the compiler switches the CFA to the frame pointer. */
static __attribute__((noinline)) u64 su_alloca(u64 n)
{
	volatile char *p = alloca(n + 16);

	su.ra[3] = (u64)__builtin_return_address(0);
	p[n] = 1;
	return su_big(n + p[n]) + 1;
}

static __attribute__((noinline)) u64 su_mid(u64 n)
{
	su.ra[4] = (u64)__builtin_return_address(0);
	return su_alloca(n) * 2 + 1;
}

static __attribute__((noinline)) u64 su_top(u64 n)
{
	volatile u64 anchor = n;

	/*
	 * The real stack, not &anchor: with ASan's detect_stack_use_after_return
	 * (the default of newer libasan, Debian 13's gcc-14) locals live on a
	 * fake stack elsewhere, and su_copy() would read past the stack's top.
	 */
	su.top = (u64)__builtin_frame_address(0) + 512;
	su.ra[5] = (u64)__builtin_return_address(0);
	return su_mid(anchor) + 3;
}

/* Load the runner's own tables, relocated to where it runs. */
static struct kuw_table *su_table(struct kuw_elf *e, int src, s64 *bias)
{
	const struct kuw_elf_sec *s;
	struct kuw_diag d = { 0 };
	struct kuw_table *t = NULL;
	struct kuw_sec ks;
	struct kuw_obj o;
	u64 link;

	if (kuw_elf_symbol(e, "su_top", &link))
		return NULL;
	*bias = (s64)((u64)su_top - link);
	s = kuw_elf_find(e, kuw_src_section(src));
	if (!s)
		return NULL;
	kuw_elf_obj(e, "runner", &o);
	kuw_elf_kuw_sec(s, &ks);
	if (kuw_table_build(&o, src, &ks, &t, &d)) {
		fprintf(stderr, "  %s+0x%llx: %s\n", d.section, d.off,
			kuw_strerror(d.err));
		return NULL;
	}
	kuw_table_relocate(t, *bias);
	return t;
}

/* Walk from the snapshot; every frame's pc must be the recorded RA. */
static void su_walk(struct kuw_table *t)
{
	struct kuw_regs regs = su.regs;
	const struct kuw_rule *rule;
	bool first = true;
	int i, ret;

	for (i = 0; i < SU_DEPTH; i++) {
		u64 pc = regs.r[KUW_X86_RA];

		ret = kuw_table_lookup(t, first ? pc : pc - 1, &rule, NULL);
		KT_ASSERT_EQ(ret, 0);
		ret = kuw_step(KUW_ARCH_X86_64, t->sec, t->sec_size, rule,
			       &regs, NULL);
		KT_ASSERT_EQ(ret, 0);
		KT_EXPECT_EQ(regs.r[KUW_X86_RA], su.ra[i]);
		first = false;
	}
}

static void su_run(int src)
{
	struct kuw_table *t;
	struct kuw_elf e;
	s64 bias;

	KT_ASSERT(kuw_elf_open(&e, "/proc/self/exe") == KUW_ELF_OK);
	/* the Makefile assembles the runner with --gsframe: both must exist */
	t = su_table(&e, src, &bias);
	KT_ASSERT(t);
	KT_ASSERT(su_top(100) != 0);
	su_walk(t);
	kuw_table_free(t);
	kuw_elf_close(&e);
}

KT_TEST(selfunwind_eh_frame)
{
	su_run(KUW_SRC_EH_FRAME);
}

KT_TEST(selfunwind_sframe)
{
	su_run(KUW_SRC_SFRAME);
}
