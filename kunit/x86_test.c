// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite, x86_64 only (kunit/Kbuild builds every *_test.c for x86):
 * what kunwind does for x86 kernels of other releases than the test bed's
 * CPU can show.  kunwind alone (KUNWIND_NO_ORC) in every case.
 *
 *   x86t_call        kuw_call() on an unexported function, as kunwind.ko
 *                    calls them: the kprobe-found kallsyms_lookup_name()
 *                    (past the ENDBR on an IBT kernel) gives kallsyms'
 *                    own answers through its static call; another one's
 *                    static call is a direct CALL to the function (or to
 *                    its trampoline, a direct JMP to it), counted once per
 *                    call.  Direct branches need no ENDBR64: IBT never
 *                    sees them (QEMU's TCG has no IBT to show it).
 *   x86t_fred_*      a FRED event frame (Linux 6.9+, CONFIG_X86_FRED),
 *                    laid out as <asm/fred.h> defines it: a struct
 *                    fred_frame whose 64-byte hardware part is 64-byte
 *                    aligned, the return address of asm_fred_entrypoint_*'s
 *                    "call fred_entry_from_*" right below its pt_regs, and
 *                    a function stopped at its first instruction below
 *                    that.  Decoded from the kernel's own code, not taken
 *                    from kunwind.  A kernel-mode frame: the walk goes on
 *                    from the interrupted registers (this case's own), then
 *                    matches the kernel's unwinder from them to the end,
 *                    reliable (the interrupted frame has rows).  A
 *                    user-mode frame: the clean end, reliable.  The
 *                    CPU never delivers a FRED event here (TCG has no
 *                    FRED): the frame is built by hand.  Skipped on
 *                    kernels without CONFIG_X86_FRED.
 *   x86t_func_start  a kprobe on x86t_callee; from its pt_regs with the pc
 *                    moved to each place of the function's start an
 *                    interrupt can stop at: the call padding before it
 *                    (CONFIG_CALL_PADDING: its first NOP, the call-depth
 *                    thunk's place, the last NOP; no FDE covers them), its
 *                    first instruction (ENDBR64 on an IBT kernel) and the
 *                    one after the ENDBR, where a kprobe lands: each must
 *                    unwind as at the entry, to x86t_caller, by the
 *                    function's first row (not by the leaf guess, which
 *                    would find the caller too).
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#if IS_ENABLED(CONFIG_X86_FRED)
#include <asm/fred.h>
#endif
#include "kunwind.h"
#include "kt_arch.h"
#include "kt_lookup.h"

#define X86T_MAX	64

struct x86t_trace {
	unsigned long pc[X86T_MAX];
	u8 how[X86T_MAX];
	unsigned int n;
	int err;
	bool reliable;
};

static void x86t_walk(struct x86t_trace *t, struct pt_regs *regs)
{
	struct kunwind_state st;

	t->n = 0;
	for (__kunwind_start(&st, current, regs, NULL,
			     KUNWIND_SRC_ANY | KUNWIND_NO_ORC);
	     !kunwind_done(&st); kunwind_next_frame(&st))
		if (t->n < X86T_MAX) {
			t->how[t->n] = st.how;
			t->pc[t->n++] = kunwind_get_return_address(&st);
		}
	t->err = kunwind_stop_reason(&st);
	t->reliable = kunwind_reliable(&st);
}

static void x86t_dump(struct kunit *test, const struct x86t_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		kunit_info(test, "kunwind %2u %pS how %u\n", i,
			   (void *)t->pc[i], t->how[i]);
	kunit_info(test, "kunwind stop: %s, %s\n", kunwind_strerror(t->err),
		   t->reliable ? "reliable" : "unreliable");
}

static bool x86t_is(unsigned long pc, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(name);

	sprint_symbol_no_offset(sym, pc);
	return !strncmp(sym, name, n) &&
	       (sym[n] == 0 || sym[n] == ' ' || sym[n] == '.');
}

/* ---- kuw_call() ---- */

KUW_INTERNAL(kallsyms_lookup_size_offset);

/* one kuw_call() site, whose code x86t_call() reads */
static noinline __attribute__((__noipa__)) int
x86t_size_offset(unsigned long addr, unsigned long *size, unsigned long *off)
{
	return kuw_call(kallsyms_lookup_size_offset, addr, size, off);
}

/* the target of the first direct CALL (e8 rel32) to @a or @b in @fn, or 0 */
static unsigned long x86t_direct_call(unsigned long fn, unsigned long a,
				      unsigned long b)
{
	unsigned long i, to;
	u8 code[96];
	s32 rel;

	/* no fn + offset folded into a relocation (objtool: !ENDBR) */
	OPTIMIZER_HIDE_VAR(fn);
	if (copy_from_kernel_nofault(code, (void *)fn, sizeof(code)))
		return 0;
	for (i = 0; i + 5 <= sizeof(code); i++) {
		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, code + i + 1, 4);
		to = fn + i + 5 + rel;
		if (to == a || to == b)
			return to;
	}
	return 0;
}

/* ENDBR64, and the two 4-byte NOPs sealing has written over one */
static const u8 x86t_endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
static const u8 x86t_seal_7[4] = { 0x0f, 0x1f, 0x40, 0xd6 };	/* nopl -42(%rax) */
static const u8 x86t_seal_6[4] = { 0x66, 0x0f, 0x1f, 0x00 };	/* osp nopl (%rax) */

/*
 * @fn starts with an ENDBR64, or with what sealing leaves of one: the
 * kernel overwrites the ENDBR64 of a function whose address is never taken
 * with a 4-byte NOP found nowhere else (nopl -42(%rax) on 7.3, osp nopl
 * (%rax) on 6.12), and kprobes still treat it as the ENDBR it was.
 */
static bool x86t_endbr(unsigned long fn)
{
	u8 b[4];

	if (copy_from_kernel_nofault(b, (void *)fn, 4))
		return false;
	return !memcmp(b, x86t_endbr64, 4) || !memcmp(b, x86t_seal_7, 4) ||
	       !memcmp(b, x86t_seal_6, 4);
}

static void x86t_call(struct kunit *test)
{
	const struct kuw_internal *in =
		KUW_INTERNAL_OF(kallsyms_lookup_size_offset);
	unsigned long self = kt_lookup_name("kallsyms_lookup_name");
	unsigned long probe = KUW_FN(kallsyms_lookup_name);
	unsigned long addr = (unsigned long)kunwind_start + 1, size, off;
	unsigned long fn, tramp, to, calls;
	u8 jmp[5];
	s32 rel;

	KUNIT_ASSERT_NE(test, self, 0UL);
	/* the kprobe's address: the function, or past its ENDBR64 */
	if (x86t_endbr(self))
		KUNIT_EXPECT_TRUE(test, probe == self || probe == self + 4);
	else
		KUNIT_EXPECT_EQ(test, probe, self);
	kunit_info(test, "kallsyms_lookup_name %pS, kprobe %pS, %s\n",
		   (void *)self, (void *)probe,
		   cpu_feature_enabled(X86_FEATURE_IBT) ? "IBT on" : "no IBT");

	/* an unexported function with another signature, typed from its header */
	fn = kt_lookup_fn(kallsyms_lookup_size_offset);
	KUNIT_ASSERT_NE(test, fn, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, static_call_query(kuw_sc_kallsyms_lookup_size_offset),
			    (void *)fn);
	calls = kuw_internal_calls(in);
	KUNIT_ASSERT_TRUE(test, x86t_size_offset(addr, &size, &off));
	KUNIT_EXPECT_EQ(test, kuw_internal_calls(in), calls + 1);
	KUNIT_EXPECT_EQ(test, off, 1UL);
	KUNIT_EXPECT_EQ(test, addr - off,
			kt_lookup_name("kunwind_start"));
	KUNIT_EXPECT_GT(test, size, 1UL);

	/*
	 * Direct branches all the way, which need no ENDBR64 at the target:
	 * the trampoline is a JMP rel32 to the function, the call site a
	 * CALL rel32 to the function (HAVE_STATIC_CALL_INLINE: objtool
	 * listed the site, the kernel patched it) or to the trampoline.
	 */
	tramp = (unsigned long)STATIC_CALL_TRAMP_ADDR(kuw_sc_kallsyms_lookup_size_offset);
	/* no tramp + 5 folded into a relocation (objtool: !ENDBR) */
	OPTIMIZER_HIDE_VAR(tramp);
	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(jmp, (void *)tramp, 5), 0);
	memcpy(&rel, jmp + 1, 4);
	KUNIT_EXPECT_EQ(test, jmp[0], 0xe9);
	KUNIT_EXPECT_EQ(test, tramp + 5 + rel, fn);
	to = x86t_direct_call((unsigned long)x86t_size_offset, fn, tramp);
	KUNIT_EXPECT_NE(test, to, 0UL);
	if (IS_ENABLED(CONFIG_HAVE_STATIC_CALL_INLINE))
		KUNIT_EXPECT_EQ(test, to, fn);
	kunit_info(test, "call site: CALL %pS, trampoline: JMP %pS; %pS %s\n",
		   (void *)to, (void *)(tramp + 5 + rel), (void *)fn,
		   !x86t_endbr(fn) ? "has no ENDBR64 (built without IBT)" :
		   memcmp((void *)fn, x86t_endbr64, 4) ? "has its ENDBR64 sealed" :
		   "starts with ENDBR64");
}

/* ---- FRED event frames ---- */

#if IS_ENABLED(CONFIG_X86_FRED)
/* the function a FRED event's handler is stopped at, first instruction */
static noinline __used __attribute__((__noipa__)) int x86t_victim(int x)
{
	return x + 1;
}

/*
 * The return address of @stub's "call @handler": decoded from the code
 * (e8 rel32 to the handler, or to its call-depth thunk right before it).
 */
static unsigned long x86t_stub_ret(const char *stub, const char *handler)
{
	unsigned long s = kt_lookup_name(stub), h = kt_lookup_name(handler);
	unsigned long i, to;
	u8 code[256];
	s32 rel;

	if (!s || !h || copy_from_kernel_nofault(code, (void *)s, sizeof(code)))
		return 0;
	for (i = 0; i + 5 <= sizeof(code); i++) {
		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, code + i + 1, 4);
		to = s + i + 5 + rel;
		if (to + 16 >= h && to <= h)
			return s + i + 5;
	}
	return 0;
}

/*
 * Below the case's frame: a FRED frame whose pt_regs are @outer, the
 * stub's return address under it, and x86t_victim() entered below that.
 */
static noinline void x86t_fred_walk(struct x86t_trace *t,
				    const struct pt_regs *outer,
				    unsigned long ret)
{
	unsigned long buf[64] __aligned(64);
	struct fred_frame *ff;
	struct pt_regs start;
	unsigned long *ra;

	memset(buf, 0, sizeof(buf));
	/* FRED's 64-byte part (error code .. reserved) is 64-byte aligned */
	ff = (void *)&buf[40] - offsetof(struct pt_regs, orig_ax);
	BUILD_BUG_ON(sizeof(struct fred_frame) -
		     offsetof(struct pt_regs, orig_ax) != 64);
	ff->regs = *outer;
	ff->info.edata = 0;
	ra = (unsigned long *)&ff->regs - 1;	/* call fred_entry_from_* */
	*ra = ret;
	kt_set_regs(&start, (unsigned long)x86t_victim, (unsigned long)ra, 0);
	x86t_walk(t, &start);
	barrier_data(buf);
}
#endif

static void x86t_fred(struct kunit *test, bool user)
{
#if IS_ENABLED(CONFIG_X86_FRED)
	struct x86t_trace *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned long *kpc = kunit_kcalloc(test, X86T_MAX, sizeof(*kpc),
					   GFP_KERNEL);
	unsigned long ret;
	struct pt_regs outer;
	unsigned int kn, i, same = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, kpc);
	ret = user ? x86t_stub_ret("asm_fred_entrypoint_user",
				   "fred_entry_from_user") :
		     x86t_stub_ret("asm_fred_entrypoint_kernel",
				   "fred_entry_from_kernel");
	KUNIT_ASSERT_NE_MSG(test, ret, 0UL, "no call in the FRED stub");
	memset(&outer, 0, sizeof(outer));
	KT_CAPTURE_REGS(&outer);
	if (user) {
		outer.cs = __USER_CS;
		outer.ss = __USER_DS;
		outer.ip = 0x400000;
		outer.sp = 0x7ffffff000;
	}
	x86t_fred_walk(t, &outer, ret);
	kn = user ? 0 : kt_ref_walk(current, &outer, kpc, X86T_MAX);

	KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "stopped: %s",
			    kunwind_strerror(t->err));
	KUNIT_ASSERT_GE(test, t->n, 2U);
	KUNIT_EXPECT_EQ(test, t->pc[0], (unsigned long)x86t_victim);
	KUNIT_EXPECT_EQ(test, t->pc[1], ret);
	/*
	 * Reliable to a user-mode end; across a kernel-mode event too: its
	 * pt_regs is crossed exactly and the interrupted frame (this
	 * function's, captured above) is left by its own row.
	 */
	KUNIT_EXPECT_TRUE(test, t->reliable);
	if (user) {
		/* a user-mode event: the FRED frame is the last */
		KUNIT_EXPECT_EQ(test, t->n, 2U);
	} else {
		KUNIT_ASSERT_GE(test, t->n, 3U);
		KUNIT_EXPECT_EQ(test, t->pc[2], outer.ip);
		KUNIT_EXPECT_EQ(test, t->how[2], KUNWIND_FRAME_PT_REGS);
		/* from there on, the kernel's unwinder from the same regs */
		KUNIT_EXPECT_EQ(test, t->n - 3, kn);
		for (i = 0; i < kn && i + 3 < t->n; i++)
			if (t->pc[i + 3] == kpc[i])
				same++;
		KUNIT_EXPECT_EQ(test, same, kn);
		for (i = 0; same != kn && i < kn; i++)
			kunit_info(test, "kernel  %2u %pS\n", i, (void *)kpc[i]);
	}
	if (t->err != -KUW_E_END || t->n < 3 - user)
		x86t_dump(test, t);
	kunit_info(test, "FRED %s frame at %pS: kunwind %u frames, kernel %u\n",
		   user ? "user" : "kernel", (void *)ret, t->n, kn);
#else
	kunit_skip(test, "no CONFIG_X86_FRED");
#endif
}

static void x86t_fred_kernel(struct kunit *test)
{
	x86t_fred(test, false);
}

static void x86t_fred_user(struct kunit *test)
{
	x86t_fred(test, true);
}

/* ---- function starts: call padding, ENDBR, kprobes ---- */

#ifdef CONFIG_CALL_PADDING
#define X86T_PAD	CONFIG_FUNCTION_PADDING_BYTES
#else
#define X86T_PAD	0
#endif

static noinline __used __attribute__((__noipa__)) int x86t_callee(int x)
{
	return x * 3;
}

static noinline __used __attribute__((__noipa__)) int x86t_caller(int x)
{
	return x86t_callee(x) + 1;
}

/* pc offsets from x86t_callee: padding, entry, after an ENDBR */
static const int x86t_offs[] = { -X86T_PAD, -10, -1, 0, 4 };

struct x86t_probe {
	struct kprobe kp;
	struct x86t_trace t[ARRAY_SIZE(x86t_offs)];
	bool tried[ARRAY_SIZE(x86t_offs)];
	unsigned long kpc[X86T_MAX];	/* the kernel's, from the probe */
	unsigned int kn;
	int hits;
};

static struct x86t_probe *x86t_probe_cur;

static int x86t_probe_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct x86t_probe *k = READ_ONCE(x86t_probe_cur);
	unsigned long fn = (unsigned long)x86t_callee;
	struct pt_regs r;
	unsigned int i;
	int off;

	if (!k || k->hits++)
		return 0;
	for (i = 0; i < ARRAY_SIZE(x86t_offs); i++) {
		off = x86t_offs[i];
		if (off < -X86T_PAD || (off == 4 && !x86t_endbr(fn)) ||
		    (off == -10 && X86T_PAD < 10) || (!i && !X86T_PAD))
			continue;
		r = *regs;
		r.ip = fn + off;
		k->tried[i] = true;
		x86t_walk(&k->t[i], &r);
	}
	k->kn = kt_ref_walk(current, regs, k->kpc, X86T_MAX);
	return 0;
}

/* A post handler keeps the probe from being optimized into a jump. */
static void x86t_probe_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
}

static void x86t_func_start(struct kunit *test)
{
	struct x86t_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned long fn = (unsigned long)x86t_callee;
	struct kunwind_rule_info *info;
	const struct x86t_trace *t;
	unsigned int i, done = 0;

	KUNIT_ASSERT_NOT_NULL(test, k);
	OPTIMIZER_HIDE_VAR(fn);	/* no relocation to fn - 1 (objtool, IBT) */
	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	/*
	 * The padding has no row of its own: kunwind_rule_for_pc() gives
	 * there at most the function's first row (the padding rule,
	 * kuw_arch_entry_pad_lookup()), or none.
	 */
	if (X86T_PAD &&
	    !kunwind_rule_for_pc(fn - 1, KUNWIND_SRC_ANY, info))
		KUNIT_EXPECT_EQ(test, info->row_pc, (u64)fn);
	KUNIT_ASSERT_EQ(test, kunwind_rule_for_pc(fn, KUNWIND_SRC_ANY, info),
			0);
	KUNIT_EXPECT_EQ(test, info->row_pc, (u64)fn);

	k->kp.addr = (kprobe_opcode_t *)x86t_callee;
	k->kp.pre_handler = x86t_probe_pre;
	k->kp.post_handler = x86t_probe_post;
	WRITE_ONCE(x86t_probe_cur, k);
	KUNIT_ASSERT_EQ(test, register_kprobe(&k->kp), 0);
	/* on an IBT kernel the probe lands after the ENDBR64 */
	KUNIT_EXPECT_EQ(test, (unsigned long)k->kp.addr,
			fn + (x86t_endbr(fn) ? 4 : 0));
	KUNIT_EXPECT_EQ(test, x86t_caller(2), 7);
	unregister_kprobe(&k->kp);
	WRITE_ONCE(x86t_probe_cur, NULL);
	KUNIT_ASSERT_GE(test, k->hits, 1);

	for (i = 0; i < ARRAY_SIZE(x86t_offs); i++) {
		if (!k->tried[i])
			continue;
		t = &k->t[i];
		done++;
		KUNIT_EXPECT_GE_MSG(test, t->n, 3U, "pc %+d", x86t_offs[i]);
		KUNIT_EXPECT_EQ(test, t->pc[0], fn + x86t_offs[i]);
		KUNIT_EXPECT_TRUE_MSG(test, t->n > 1 &&
				      x86t_is(t->pc[1], "x86t_caller"),
				      "pc %+d: caller %pS", x86t_offs[i],
				      (void *)(t->n > 1 ? t->pc[1] : 0));
		/* by the function's row, not by the leaf guess (how FP) */
		KUNIT_EXPECT_EQ_MSG(test, t->n > 1 ? t->how[1] : 0,
				    KUNWIND_FRAME_CFI, "pc %+d: stepped how",
				    x86t_offs[i]);
		KUNIT_EXPECT_EQ_MSG(test, t->err, -KUW_E_END, "pc %+d: %s",
				    x86t_offs[i], kunwind_strerror(t->err));
		if (t->n < 3 || !x86t_is(t->pc[1], "x86t_caller") ||
		    t->how[1] != KUNWIND_FRAME_CFI)
			x86t_dump(test, t);
	}
	/*
	 * From the entry on, the kernel's unwinder from the probe's regs
	 * (not a frame-pointer one: it misses the caller of a function at
	 * its entry, see context_test.c).
	 */
	t = &k->t[3];
	if (!KT_REF_FRAME_RECORDS && k->tried[3]) {
		KUNIT_EXPECT_EQ(test, t->n - 1, k->kn);
		for (i = 0; i < k->kn && i + 1 < t->n; i++)
			KUNIT_EXPECT_EQ_MSG(test, t->pc[i + 1], k->kpc[i],
					    "frame %u", i + 1);
	}
	kunit_info(test, "%u pcs at the start of x86t_callee (padding %d, %s)\n",
		   done, X86T_PAD, x86t_endbr(fn) ? "ENDBR" : "no ENDBR");
}

static struct kunit_case kunwind_x86_cases[] = {
	KUNIT_CASE(x86t_call),
	KUNIT_CASE(x86t_fred_kernel),
	KUNIT_CASE(x86t_fred_user),
	KUNIT_CASE(x86t_func_start),
	{}
};

static struct kunit_suite kunwind_x86_suite = {
	.name = "kunwind_x86",
	.test_cases = kunwind_x86_cases,
};

kunit_test_suite(kunwind_x86_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kunwind on x86 kernels: kuw_call(), FRED frames, function starts");
