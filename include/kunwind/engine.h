/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunwind engine API: parse and validate unwind sections once, compile them
 * into sorted rows, look rows up and step one frame.  Plain C: the same code
 * builds into kunwind.ko and into the host tool and tests.  The environment
 * (types, allocation, logging, fault-safe reads) comes from module/engine/env.h.
 */
#ifndef KUNWIND_ENGINE_H
#define KUNWIND_ENGINE_H

#include "env.h"

/*
 * Every error and stop reason has one name (module/engine/err.c), printed the same
 * way by the CLI, the kernel log and debugfs.  New codes go at the end.
 */
enum kuw_err {
	KUW_E_OK,
	KUW_E_TRUNC,
	KUW_E_BADLEN,
	KUW_E_BADVER,
	KUW_E_BADAUG,
	KUW_E_BADENC,
	KUW_E_BADCIE,
	KUW_E_BADID,
	KUW_E_BADALIGN,
	KUW_E_BADRANGE,
	KUW_E_OVERLAP,
	KUW_E_BADOP,
	KUW_E_BADREG,
	KUW_E_REMEMBER,
	KUW_E_RESTORE,
	KUW_E_BADLOC,
	KUW_E_BADHDR,
	KUW_E_BADMAGIC,
	KUW_E_UNSORTED,
	KUW_E_BADTYPE,
	KUW_E_EXPR_STACK,
	KUW_E_EXPR_DIV0,
	KUW_E_EXPR_BRANCH,
	KUW_E_EXPR_BUDGET,
	KUW_E_EXPR_OP,
	KUW_E_TOOBIG,
	KUW_E_NOMEM,
	KUW_E_FAULT,
	KUW_E_NOINFO,
	KUW_E_END,
	KUW_E_BADSP,
	KUW_E_BADSTACK,
	KUW_E_LIMIT,
	KUW_E_BADRA,
	KUW_E_INVAL,
	KUW_E_BADSUM,
	KUW_E_NOCFA,
	KUW_E_BADOFF,
	KUW_E_RUNNING,
	KUW_E_BUILDID,
	KUW_E_EXISTS,
	KUW_E_NOOWNER,
	KUW_E_NESTED,
	KUW_E__COUNT
};

/* Engine functions return 0 or a negative enum kuw_err. */
const char *kuw_strerror(int err);

/* Where a load-time error was found: section name, byte offset, reason. */
struct kuw_diag {
	const char *section;
	u64 off;
	int err;
};

static inline int kuw_fail(struct kuw_diag *d, const char *sec, u64 off,
			   int err)
{
	if (d && !d->err) {
		d->section = sec;
		d->off = off;
		d->err = err;
	}
	return -err;
}

enum kuw_arch {
	KUW_ARCH_X86_64 = 1,
	KUW_ARCH_ARM64 = 2,
};

/* Register columns: enough for x86_64 (17) and AArch64 x0-x30, sp, pc. */
#define KUW_MAX_REGS		33

/* Bounds: documented limits, each one error when exceeded. */
#define KUW_REMEMBER_DEPTH	8	/* DW_CFA_remember_state depth */
#define KUW_EXPR_STACK		16	/* DW_OP stack entries (README: Stack use) */
#define KUW_EXPR_BUDGET		1024	/* DW_OP operations per evaluation */
#define KUW_CFI_MAX_ROWS	65536	/* rows emitted by one FDE */

/* One loaded section: its bytes and the address they are loaded at. */
struct kuw_sec {
	const u8 *data;
	u64 size;
	u64 addr;
};

/* What the caller knows about the object the sections belong to. */
#define KUW_OBJ_RELOCATED	0x1	/* .ko / ET_REL: SFrame starts are field-relative */
/*
 * Run every CFI program on the interpreter's general path, without the
 * table build's fast path: for tests, which compare the two.
 */
#define KUW_OBJ_GENERAL		0x2

/*
 * Where one section of an object was placed at link (export) time, and how
 * far it moved when loaded: a .debug_frame of a module blob is written for
 * one placement and built for another (see include/kunwind/blob.h).
 */
struct kuw_remap {
	u64 link_start;		/* [link_start, link_end) */
	u64 link_end;
	u64 delta;		/* run-time address - link address (mod 2^64) */
};

struct kuw_obj {
	const char *owner;	/* "vmlinux", module name, file name */
	u8 arch;		/* enum kuw_arch */
	u32 flags;		/* KUW_OBJ_* */
	u64 text_start;		/* every FDE must lie in [text_start, text_end) */
	u64 text_end;
	/*
	 * With @nremap, every FDE start is a link address: it is
	 * moved by the delta of the range that holds it (the whole FDE must
	 * fit in it) before the text check; an FDE in no range is dropped.
	 */
	const struct kuw_remap *remap;
	u32 nremap;
};

enum kuw_src {
	KUW_SRC_EH_FRAME = 0,
	KUW_SRC_DEBUG_FRAME = 1,
	KUW_SRC_SFRAME = 2,
	KUW_SRC__COUNT
};

const char *kuw_src_name(int src);	/* "eh_frame", "debug_frame", "sframe" */
const char *kuw_src_section(int src);	/* ".eh_frame", ... */

/* Rule kinds of one register column (readelf frames-interp letters). */
enum kuw_rule_kind {
	KUW_R_SAME = 0,		/* s: DW_CFA_same_value (no rule: no entry) */
	KUW_R_UNDEF,		/* u */
	KUW_R_OFFSET,		/* c+N: saved at CFA+N */
	KUW_R_VAL_OFFSET,	/* v+N: value is CFA+N */
	KUW_R_REG,		/* value of register src */
	KUW_R_EXPR,		/* exp: saved at address computed by expr */
	KUW_R_VAL_EXPR,		/* vexp: value computed by expr */
	KUW_R_AT_REG,		/* (src+N): saved at register src + N */
	KUW_R_VAL_REG,		/* src+N: value is register src + N */
};

#define KUW_R__MAX		KUW_R_VAL_REG

/* CFA kinds. */
enum kuw_cfa_kind {
	KUW_CFA_REG = 0,	/* value of reg + off */
	KUW_CFA_EXPR,		/* DW_OP expression */
	KUW_CFA_DEREF,		/* loaded from reg + off (SFrame v3 flexible) */
};

#define KUW_CFA__MAX		KUW_CFA_DEREF

/* Rule flags. */
#define KUW_RF_SIGNAL		0x1	/* CIE 'S': the frame is a signal frame */
#define KUW_RF_MANGLED_RA	0x2	/* AArch64: RA is signed (PAC) */
/*
 * Set by kuw_table_build() only, never by a walker: CFA = register +
 * offset, every register rule is "saved at CFA + N", the last one is the
 * return address's and none is the stack pointer's: kuw_step() then takes
 * its one-pass path without checking the rule again.
 */
#define KUW_RF_FAST		0x80

/*
 * One register rule.  For KUW_R_OFFSET/VAL_OFFSET @off is the byte offset
 * from the CFA; for KUW_R_REG @src is the source register, for
 * KUW_R_AT_REG/VAL_REG the source register and @off the byte offset from
 * its value (SFrame v3 flexible FDEs); for EXPR/VAL_EXPR
 * @off is the offset in the source section of the expression block (its
 * ULEB128 length followed by the DW_OP bytes).
 */
struct kuw_reg_rule {
	u8 reg;
	u8 kind;
	u8 src;
	u8 pad;
	s32 off;
};

/*
 * A row's rules: the CFA and the registers that have a rule (same_value
 * included, which kuw_step() treats as no rule), sorted by register
 * number.  In a compiled table rules are stored deduplicated in this
 * layout with only @nregs entries in @regs.
 */
struct kuw_rule {
	u8 cfa_kind;
	u8 cfa_reg;
	u8 flags;
	u8 nregs;
	s32 cfa_off;		/* or section offset of the CFA expression */
	struct kuw_reg_rule regs[KUW_MAX_REGS];
};

static inline u32 kuw_rule_size(const struct kuw_rule *r)
{
	return 8 + 8 * (u32)r->nregs;
}

/* A rule whose RA column is undefined marks the outermost frame. */
const struct kuw_reg_rule *kuw_rule_find(const struct kuw_rule *r, u8 reg);

/* One FDE as the section walkers report it. */
struct kuw_fde_info {
	u64 start;		/* run-time address */
	u64 end;
	u64 off;		/* offset of the FDE in its section */
	u8 src;			/* enum kuw_src */
	u8 signal;		/* CIE 'S' */
	u32 pcmask;		/* SFrame PCMASK rep_size, 0 otherwise */
};

/*
 * Section walkers call @fde once per FDE and then @row for each row of it
 * (rows in increasing pc; for a PCMASK FDE pc is the offset in the block).
 * A callback returning non-zero stops the walk with that value.
 */
struct kuw_sink {
	int (*fde)(void *ctx, const struct kuw_fde_info *f);
	int (*row)(void *ctx, u64 pc, const struct kuw_rule *r);
	void *ctx;
};

struct kuw_stats {
	u32 ncie;
	u32 nfde;
	u32 nrows;
};

/*
 * Parse and validate .eh_frame (debug = false) or .debug_frame (debug = true)
 * and run every FDE's program, reporting rows to @sink (may be NULL to only
 * validate).  Rejects the section whole on the first error, filling @d.
 */
int kuw_ehf_walk(const struct kuw_obj *o, const struct kuw_sec *s, bool debug,
		 const struct kuw_sink *sink, struct kuw_stats *st,
		 struct kuw_diag *d);

/* One row handed over with others (kuw_sink_ext.rows). */
struct kuw_row_ref {
	u64 pc;
	const struct kuw_rule *rule;
	u32 id;			/* as kuw_sink_ext.row_id's */
};

/*
 * kuw_ehf_walk() for a sink that also takes @row_id: when set, it is called
 * instead of sink->row, with an @id that is non-zero and equal for two rows
 * only when their rules are equal (within one walk; equal rules may still
 * get different ids), so the sink can reuse what it made of @r before.
 * @rows (optional, with @row_id) takes @n >= 1 consecutive rows of one FDE
 * at once, exactly as that many @row_id calls would; on a non-zero return
 * *@done is the number of rows taken before the one that failed.
 */
struct kuw_sink_ext {
	int (*row_id)(void *ctx, u64 pc, const struct kuw_rule *r, u32 id);
	int (*rows)(void *ctx, const struct kuw_row_ref *r, u32 n, u32 *done);
};

int kuw_ehf_walk_ext(const struct kuw_obj *o, const struct kuw_sec *s,
		     bool debug, const struct kuw_sink *sink,
		     const struct kuw_sink_ext *ext, struct kuw_stats *st,
		     struct kuw_diag *d);

/*
 * Check .eh_frame_hdr against .eh_frame: version 1, table_enc
 * datarel|sdata4, sorted, every entry pointing at an FDE covering its start.
 * Returns 0 when the table can be used for lookup.
 */
int kuw_ehhdr_check(const struct kuw_obj *o, const struct kuw_sec *hdr,
		    const struct kuw_sec *ehf, u32 *nent, struct kuw_diag *d);

/* Parse and validate .sframe v1, v2 or v3; report rows like kuw_ehf_walk. */
int kuw_sfr_walk(const struct kuw_obj *o, const struct kuw_sec *s,
		 const struct kuw_sink *sink, struct kuw_stats *st,
		 struct kuw_diag *d);

/* kuw_sfr_walk() with @ext->row_id, as kuw_ehf_walk_ext(). */
int kuw_sfr_walk_ext(const struct kuw_obj *o, const struct kuw_sec *s,
		     const struct kuw_sink *sink,
		     const struct kuw_sink_ext *ext, struct kuw_stats *st,
		     struct kuw_diag *d);

/*
 * DW_OP interpreter.  Evaluates @len bytes at @ops with @initial pushed first
 * when @push_initial (the CFA for register rules).  Register values come
 * from @regs (only those with bit set in @valid); memory through
 * kuw_read_mem(@mem_ctx, ...).  @cfa serves DW_OP_call_frame_cfa.
 */
struct kuw_regs;
int kuw_dwop_eval(const u8 *ops, u32 len, const struct kuw_regs *regs,
		  u64 cfa, bool have_cfa, u64 initial, bool push_initial,
		  void *mem_ctx, u64 *result);
/*
 * A bounded byte cursor (module/engine/read.h): @data is the start of the
 * section, @pos the offset of the next byte, @end one past the last offset
 * this cursor may read (a record end, or the section size), @addr the
 * run-time address of @data[0] (for pcrel).
 */
struct kuw_cur {
	const u8 *data;
	u64 pos;
	u64 end;
	u64 addr;
};

/* The operands of one DW_OP operation, as the evaluator decodes them. */
struct kuw_dwop_args {
	u32 size;	/* fixed-size operand: its bytes */
	u32 to;		/* branch: the target */
	u64 u;		/* fixed-size, ULEB128; branch: the raw s16 */
	s64 sv;		/* SLEB128, bregx's offset */
	u64 reg;	/* bregx's register */
};

/*
 * What an evaluation reads besides the expression, and all of its memory
 * (the cursor, an operation's operands, the stack), in one struct that
 * kuw_dwop_eval_in() takes by pointer: the kernel's walk keeps it off the
 * stack and passes no argument on the stack (README, "Stack use").  The
 * caller sets @regs, @mem_ctx, @cfa and @have_cfa; the rest is the
 * evaluator's.
 */
struct kuw_dwop_ctx {
	const struct kuw_regs *regs;
	void *mem_ctx;
	u64 cfa;
	bool have_cfa;
	struct kuw_cur cur;
	struct kuw_dwop_args a;
	u64 st[KUW_EXPR_STACK];
};

/* kuw_dwop_eval() with the inputs and the stack in @x. */
int kuw_dwop_eval_in(const u8 *ops, u32 len, u64 initial, bool push_initial,
		     struct kuw_dwop_ctx *x, u64 *result);

/* Structural check of an expression at load time (opcodes, branches). */
int kuw_dwop_check(const u8 *ops, u32 len);

/*
 * Compiled table of one object and one source section.  One allocation;
 * free with kuw_table_free().  Lookup allocates nothing.
 */
struct kuw_table {
	const char *owner;
	u8 src;			/* enum kuw_src */
	u8 arch;
	u8 block_shift;		/* lookup block = 1 << block_shift bytes */
	u8 untrusted;		/* set by the owner: never a reliable step */
	u64 base;		/* row pcs are offsets from base */
	u64 start;		/* lowest covered pc */
	u64 end;		/* one past the highest covered pc */
	u32 nrows;
	u32 nrules;
	u32 nblocks;
	u32 nfde;
	u32 ncie;
	const u32 *pc;		/* [nrows] row start - base, sorted */
	const u16 *rule16;	/* [nrows] rule index, or NULL */
	const u32 *rule32;	/* [nrows] rule index when nrules > 65535 */
	const u32 *rule_off;	/* [nrules] offset of each rule in pool */
	const u8 *pool;		/* deduplicated struct kuw_rule, 4-aligned */
	const u32 *block;	/* first row of each block, see @page */
	const u8 *sec;		/* source section (expressions live there) */
	u64 sec_size;
	u64 bytes;		/* memory used by this table */
	/*
	 * Two-level lookup index (so that gaps in the covered text, e.g.
	 * between .text and .init.text, cost no blocks): page p covers
	 * [base + (p << page_shift), ...); its blocks are
	 * block[page[p]] .. block[page[p + 1] - 1], none when the page has
	 * no FDE.  block[] then has page[npages] + 1 entries.
	 */
	u8 page_shift;
	u32 npages;
	const u32 *page;	/* [npages + 1] */
};

/* Rule index 0 of every table: no unwind info (gap between FDEs). */
#define KUW_RULE_NONE	0

/* Build the table for @o from one section; on error @d says where. */
int kuw_table_build(const struct kuw_obj *o, int src, const struct kuw_sec *s,
		    struct kuw_table **out, struct kuw_diag *d);
void kuw_table_free(struct kuw_table *t);

/* Move a table built at link-time addresses by @delta (KASLR offset). */
void kuw_table_relocate(struct kuw_table *t, s64 delta);

/*
 * Find the rule in force at @pc.  Returns 0 and sets @rule (and @row_pc, the
 * row's start) or -KUW_E_NOINFO.
 */
int kuw_table_lookup(const struct kuw_table *t, u64 pc,
		     const struct kuw_rule **rule, u64 *row_pc);

/* Row text format of SPEC-NOTES: "0x<pc> cfa=... <reg>=... ra=...". */
int kuw_format_row(char *buf, u32 len, u8 arch, u64 pc,
		   const struct kuw_rule *r);
const char *kuw_reg_name(u8 arch, u8 reg);

/*
 * Register set of one frame.  A register saved on the stack is recovered
 * lazily: kuw_step records the slot's address and sets its @lazy bit; the
 * value is read only when a later rule needs it (kuw_regs_get()), so a
 * frame whose CFA is SP-based costs one read, for the return address.
 */
struct kuw_regs {
	u64 r[KUW_MAX_REGS];
	u64 valid;		/* bit n: r[n] is known (value or slot) */
	u64 lazy;		/* bit n: r[n] is the address of the value */
};

/* Value of register @reg, reading a lazily recovered one now. */
int kuw_regs_get(struct kuw_regs *regs, u8 reg, void *mem_ctx, u64 *val);

/*
 * One unwind step: from @regs of the callee (whose pc is in @regs at the
 * arch's RA column, see arch.h) and its @rule, compute the caller's
 * registers in place.  Memory goes through kuw_read_mem(@mem_ctx, ...).
 * Returns 0, -KUW_E_END for the outermost frame, or another error.
 */
int kuw_step(u8 arch, const u8 *sec, u64 sec_size, const struct kuw_rule *rule,
	     struct kuw_regs *regs, void *mem_ctx);

/*
 * A step's memory beyond the registers: the table's section (for
 * expressions), the new values of a generic step (any rule that is not
 * "saved at CFA + N") and the DW_OP evaluation's.
 * kuw_step() keeps it on its stack; kuw_step_in() takes the caller's (the
 * kernel's walk keeps one per CPU and context: README, "Stack use").
 */
struct kuw_step_work {
	u64 val[KUW_MAX_REGS];
	struct kuw_dwop_ctx expr;
	const u8 *sec;
	u64 sec_size;
};

/* kuw_step() with @w's memory and section (@w->sec, @w->sec_size). */
int kuw_step_in(u8 arch, const struct kuw_rule *rule, struct kuw_regs *regs,
		void *mem_ctx, struct kuw_step_work *w);

/*
 * Fault-safe memory read, provided by the home (kernel glue or host).
 * Returns 0 or -KUW_E_FAULT / -KUW_E_BADSTACK.
 */
int kuw_read_mem(void *mem_ctx, u64 addr, void *dst, u32 len);

#endif /* KUNWIND_ENGINE_H */
