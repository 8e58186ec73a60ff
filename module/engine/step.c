// SPDX-License-Identifier: GPL-2.0
/*
 * One unwind step: from a frame's registers and the rule in force at its
 * pc, compute the caller's registers.  Every memory access goes through
 * kuw_read_mem(), which the home makes fault-safe and bounds-checked.
 */
#include "engine.h"
#include "arch.h"
#include "read.h"
#include "fast.h"

/**
 * kuw_regs_get() - value of a register, reading a lazily recovered one
 * @regs: the register set; a lazy register is replaced by its value
 * @reg: DWARF register number
 * @mem_ctx: passed to kuw_read_mem()
 * @val: the value
 *
 * Return: 0, -KUW_E_BADREG for an unknown register, or the read's error.
 */
int kuw_regs_get(struct kuw_regs *regs, u8 reg, void *mem_ctx, u64 *val)
{
	u64 bit, v;
	int ret;

	if (reg >= KUW_MAX_REGS)
		return -KUW_E_BADREG;
	bit = 1ULL << reg;
	if (!(regs->valid & bit))
		return -KUW_E_BADREG;
	if (regs->lazy & bit) {
		ret = kuw_read_mem(mem_ctx, regs->r[reg], &v, sizeof(v));
		if (ret)
			return ret;
		regs->r[reg] = v;
		regs->lazy &= ~bit;
	}
	*val = regs->r[reg];
	return 0;
}

/* Before an expression reads registers: resolve every lazy one it could. */
static void step_resolve_all(struct kuw_regs *regs, void *mem_ctx)
{
	u64 v;
	u32 i;

	for (i = 0; i < KUW_MAX_REGS && regs->lazy; i++) {
		if (!(regs->lazy & (1ULL << i)))
			continue;
		if (kuw_regs_get(regs, i, mem_ctx, &v)) {
			regs->valid &= ~(1ULL << i);
			regs->lazy &= ~(1ULL << i);
		}
	}
}

/*
 * An expression block in the step's section (@w->sec): ULEB128 length,
 * then DW_OP bytes.  The CFA, when known (@w->expr.have_cfa), is pushed
 * first and is DW_OP_call_frame_cfa's value.
 */
static int step_expr(struct kuw_step_work *w, s32 off, u64 *out)
{
	struct kuw_cur *c = &w->expr.cur;	/* the evaluation's, unused yet */
	u64 len;
	int ret;

	if (!w->sec || off < 0 || (u64)off >= w->sec_size)
		return -KUW_E_INVAL;
	/* checked at load; decoded again with the same bounds */
	kuw_cur_init(c, w->sec, w->sec_size, 0);
	c->pos = off;
	ret = kuw_rd_uleb(c, &len);
	if (ret)
		return ret;
	if (len > kuw_cur_left(c))
		return -KUW_E_TRUNC;
	return kuw_dwop_eval_in(w->sec + c->pos, len, w->expr.cfa,
				w->expr.have_cfa, &w->expr, out);
}

/*
 * The common rule, nearly every row of compiled code: the CFA is a register
 * plus an offset and every register rule, the return address's included,
 * is "saved at CFA + N" (pushes and moves into the frame).  Such a rule
 * reads no register but the CFA's, so the caller's registers are written
 * in place in one pass, after the one read (the return address) that can
 * fail (an AArch64 signed return address gets its top bits back).  Tables
 * mark such rules (KUW_RF_FAST) when they are built; other
 * rules are checked here.  Returns 1 when the rule is not of this kind
 * (nothing changed).  Out of line, so that its frame is not under
 * step_generic()'s (README, "Stack use").
 */
static kuw_noinline int step_fast(const struct kuw_arch_info *ai, u8 arch,
				  const struct kuw_rule *rule,
				  struct kuw_regs *regs, void *mem_ctx)
{
	u64 cfa, ra, ra_slot, bit, known = regs->valid & ~regs->lazy;
	s32 ra_off = 0;
	u32 i, n = rule->nregs;
	bool have_ra = false;
	int ret;

	if (rule->cfa_kind != KUW_CFA_REG || rule->cfa_reg >= ai->nregs ||
	    n > KUW_MAX_REGS || !n)
		return 1;
	if (rule->flags & KUW_RF_FAST) {
		/* checked when the table was built: the RA's rule is last */
		n--;
	} else {
		for (i = 0; i < n; i++) {
			const struct kuw_reg_rule *rr = &rule->regs[i];

			if (rr->kind != KUW_R_OFFSET || rr->reg >= ai->nregs ||
			    rr->reg == ai->sp)
				return 1;
			if (rr->reg == ai->ra) {
				ra_off = rr->off;
				have_ra = true;
			}
		}
		if (!have_ra)
			return 1;
	}
	bit = 1ULL << rule->cfa_reg;
	if (known & bit) {
		cfa = regs->r[rule->cfa_reg];
	} else {
		ret = kuw_regs_get(regs, rule->cfa_reg, mem_ctx, &cfa);
		if (ret)
			return ret;
	}
	if (rule->flags & KUW_RF_FAST) {
		ra_slot = kuw_fast_ra_slot(rule, cfa, &cfa);
	} else {
		cfa += (s64)rule->cfa_off;
		ra_slot = cfa + (s64)ra_off;
	}
	ret = kuw_read_mem(mem_ctx, ra_slot, &ra, sizeof(ra));
	if (ret)
		return ret;
	kuw_fast_commit(arch, rule, n, regs, cfa, kuw_fast_ra(arch, rule, ra));
	return 0;
}

static int step_generic(const struct kuw_arch_info *ai, u8 arch,
			const struct kuw_rule *rule, struct kuw_regs *regs,
			struct kuw_step_work *w);

/**
 * kuw_step() - compute the caller's registers from a frame's rule
 * @arch: enum kuw_arch
 * @sec: the table's source section (for expressions), may be NULL
 * @sec_size: its size
 * @rule: the rule in force at the frame's pc
 * @regs: the frame's registers in, the caller's registers out
 * @mem_ctx: passed to kuw_read_mem()
 *
 * The caller's pc is the value of the return-address column; its stack
 * pointer is the CFA unless a rule says otherwise.  Registers without a
 * rule keep their value.  Registers saved in memory are recovered lazily
 * (their slot address is kept, see struct kuw_regs), except the return
 * address and the stack pointer, which are read now.  On error @regs keeps
 * the callee's values (lazy registers may have been resolved).
 * Return: 0, -KUW_E_END for the outermost frame, or another error.
 */
int kuw_step(u8 arch, const u8 *sec, u64 sec_size, const struct kuw_rule *rule,
	     struct kuw_regs *regs, void *mem_ctx)
{
	struct kuw_step_work w;

	w.sec = sec;
	w.sec_size = sec_size;
	return kuw_step_in(arch, rule, regs, mem_ctx, &w);
}
EXPORT_SYMBOL_GPL(kuw_step);

/**
 * kuw_step_in() - kuw_step() with the caller's work memory
 * @arch: enum kuw_arch
 * @rule: the rule in force at the frame's pc
 * @regs: the frame's registers in, the caller's registers out
 * @mem_ctx: passed to kuw_read_mem()
 * @w: the table's source section (for expressions, may be NULL) and its
 *     size, set by the caller in @w->sec and @w->sec_size; the rest is the
 *     step's: a generic step's new values, the DW_OP evaluation's inputs
 *     and memory.  The kernel's walk keeps it off the stack and passes
 *     no argument on the stack (README, "Stack use").
 *
 * Return: as kuw_step().
 */
int kuw_step_in(u8 arch, const struct kuw_rule *rule, struct kuw_regs *regs,
		void *mem_ctx, struct kuw_step_work *w)
{
	const struct kuw_arch_info *ai = kuw_arch(arch);
	int ret;

	ret = step_fast(ai, arch, rule, regs, mem_ctx);
	if (ret <= 0)
		return ret;
	w->expr.regs = regs;
	w->expr.mem_ctx = mem_ctx;
	return step_generic(ai, arch, rule, regs, w);
}

kuw_nokprobe(kuw_step_in);

/*
 * The CFA of @rule: a register plus an offset, the word stored there
 * (SFrame v3 flexible FDEs), or an expression.
 */
static int step_cfa(const struct kuw_arch_info *ai,
		    const struct kuw_rule *rule, struct kuw_regs *regs,
		    struct kuw_step_work *w, u64 *cfa)
{
	void *mem_ctx = w->expr.mem_ctx;
	int ret;

	if (rule->cfa_kind == KUW_CFA_EXPR) {
		step_resolve_all(regs, mem_ctx);
		w->expr.cfa = 0;
		w->expr.have_cfa = false;
		return step_expr(w, rule->cfa_off, cfa);
	}
	if (rule->cfa_kind > KUW_CFA__MAX || rule->cfa_reg >= ai->nregs)
		return -KUW_E_BADREG;
	ret = kuw_regs_get(regs, rule->cfa_reg, mem_ctx, cfa);
	if (ret)
		return ret;
	*cfa += (s64)rule->cfa_off;
	if (rule->cfa_kind == KUW_CFA_DEREF)
		ret = kuw_read_mem(mem_ctx, *cfa, cfa, sizeof(*cfa));
	return ret;
}

/*
 * step_value(): a same_value entry (kept so that the row can say "s" as
 * readelf does).  It unwinds as no rule at all: same_value leaves the
 * register as it is, as no rule does (libgcc: REG_UNSAVED for both), and
 * the stack pointer is still the CFA.  step_generic() passes it over and
 * step_commit() leaves its register alone.
 */
#define STEP_SAME	1

/*
 * The caller's value of register rule @rr's register from the callee's
 * registers, or the address of its slot (then its bit in *@lazy is set).
 * STEP_SAME for a same_value entry.
 */
static kuw_always_inline int step_value(const struct kuw_arch_info *ai,
					const struct kuw_reg_rule *rr,
					struct kuw_regs *regs, u64 cfa,
					struct kuw_step_work *w, u64 *v,
					u64 *lazy)
{
	void *mem_ctx = w->expr.mem_ctx;
	u64 bit = 1ULL << rr->reg;
	int ret;

	*v = 0;
	switch (rr->kind) {
	case KUW_R_UNDEF:
		return rr->reg == ai->ra ? -KUW_E_END : 0;
	case KUW_R_SAME:
		return STEP_SAME;
	case KUW_R_OFFSET:
		*lazy |= bit;
		fallthrough;
	case KUW_R_VAL_OFFSET:
		*v = cfa + (s64)rr->off;
		return 0;
	case KUW_R_REG:
		if (rr->src >= ai->nregs || !(regs->valid & (1ULL << rr->src)))
			return -KUW_E_BADREG;
		*v = regs->r[rr->src];
		if (regs->lazy & (1ULL << rr->src))
			*lazy |= bit;
		return 0;
	case KUW_R_AT_REG:
		*lazy |= bit;
		fallthrough;
	case KUW_R_VAL_REG:
		if (rr->src >= ai->nregs)
			return -KUW_E_BADREG;
		ret = kuw_regs_get(regs, rr->src, mem_ctx, v);
		*v += (s64)rr->off;
		return ret;
	case KUW_R_EXPR:
		*lazy |= bit;
		fallthrough;
	case KUW_R_VAL_EXPR:
		step_resolve_all(regs, mem_ctx);
		w->expr.cfa = cfa;
		w->expr.have_cfa = true;
		return step_expr(w, rr->off, v);
	}
	return -KUW_E_BADOP;
}

/* Write the caller's registers: the rules' new values @val, SP, PC. */
static void step_commit(const struct kuw_arch_info *ai,
			const struct kuw_rule *rule, const u64 *val, u64 lazy,
			u64 cfa, u64 ra, bool have_sp, struct kuw_regs *regs)
{
	u32 i;

	for (i = 0; i < rule->nregs; i++) {
		const struct kuw_reg_rule *rr = &rule->regs[i];
		u64 bit = 1ULL << rr->reg;

		if (rr->kind == KUW_R_SAME)	/* no rule: as it is */
			continue;
		regs->lazy = (regs->lazy & ~bit) | (lazy & bit);
		if (rr->kind == KUW_R_UNDEF) {
			regs->valid &= ~bit;
			regs->r[rr->reg] = 0;
		} else {
			regs->r[rr->reg] = val[i];
			regs->valid |= bit;
		}
	}
	if (!have_sp) {
		regs->r[ai->sp] = cfa;
		regs->valid |= 1ULL << ai->sp;
		regs->lazy &= ~(1ULL << ai->sp);
	}
	regs->r[ai->pc] = ra;
	regs->valid |= 1ULL << ai->pc;
	regs->lazy &= ~(1ULL << ai->pc);
}

/*
 * Any rule.  The new values go to @w->val (not the stack: README, "Stack
 * use"), written for each rule before they are read.
 */
static int step_generic(const struct kuw_arch_info *ai, u8 arch,
			const struct kuw_rule *rule, struct kuw_regs *regs,
			struct kuw_step_work *w)
{
	void *mem_ctx = w->expr.mem_ctx;
	u64 *val = w->val, lazy = 0;
	u64 cfa, ra = 0, v, bit;
	bool have_ra = false, have_sp = false;
	u32 i;
	int ret;

	if (rule->nregs > KUW_MAX_REGS)
		return -KUW_E_BADREG;
	ret = step_cfa(ai, rule, regs, w, &cfa);
	if (ret)
		return ret;
	/* compute every new value (or slot) from the old registers first */
	for (i = 0; i < rule->nregs; i++) {
		const struct kuw_reg_rule *rr = &rule->regs[i];

		if (rr->reg >= ai->nregs)
			return -KUW_E_BADREG;
		bit = 1ULL << rr->reg;
		ret = step_value(ai, rr, regs, cfa, w, &v, &lazy);
		if (ret == STEP_SAME)	/* as if it had no rule */
			continue;
		if (ret)
			return ret;
		/* the return address and the stack pointer are read now */
		if ((rr->reg == ai->ra || rr->reg == ai->sp) && (lazy & bit)) {
			ret = kuw_read_mem(mem_ctx, v, &v, sizeof(v));
			if (ret)
				return ret;
			lazy &= ~bit;
		}
		val[i] = v;
		if (rr->reg == ai->ra) {
			ra = v;
			have_ra = true;
		}
		if (rr->reg == ai->sp)
			have_sp = true;
	}
	/* no rule for the return address: it stays, which cannot progress */
	if (!have_ra) {
		ret = kuw_regs_get(regs, ai->ra, mem_ctx, &ra);
		if (ret)
			return ret;
	}
	if (arch == KUW_ARCH_ARM64 && (rule->flags & KUW_RF_MANGLED_RA))
		ra |= ~((1ULL << KUW_A64_VA_BITS) - 1);
	step_commit(ai, rule, val, lazy, cfa, ra, have_sp, regs);
	return 0;
}

kuw_nokprobe(step_expr);
kuw_nokprobe(step_fast);
kuw_nokprobe(step_generic);
kuw_nokprobe(kuw_regs_get);
kuw_nokprobe(step_resolve_all);
