// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the DW_CFA interpreter alone (module/engine/cfi.c and
 * cfi_fast.c: kuw_cfi_run_cie, kuw_cfi_run_fde, kuw_cfi_to_rule), fed the
 * parameters a parsed CIE would give it straight from the input, so that
 * every byte after a short header is CFA program text.
 *
 * Input: flags (1 byte: bit 0 AArch64, bit 1 .debug_frame (set_loc reads
 * an absolute address), bit 2 signal frame, bit 3 4-byte addresses), code
 * alignment factor (1, 0 taken as 1), data alignment factor (4, signed),
 * return address column (1, modulo the arch's columns), FDE pointer
 * encoding (1, absptr when the CIE parser would refuse it), FDE address
 * range (2), length of the CIE's initial instructions (2), then those
 * instructions and the FDE's instructions.  The section is the whole
 * input at FCFI_SEC; the FDE covers [FCFI_START, FCFI_START + range].
 * These are exactly the preconditions the .eh_frame/.debug_frame walker
 * guarantees (ehframe.c), so anything found here is reachable from a
 * section.
 *
 * Checks beyond "no crash or hang": a failure names a reason and an offset
 * inside the section; rows come in non-decreasing pc inside the FDE's
 * range; each row's rules are sorted by column, within the arch's columns,
 * and an expression rule points inside the section.  Differential: the
 * FDE runs on the general path alone, then twice with the fast path's
 * caches (kuw_cfi_caches(); the second run finds its segments
 * remembered), and all three must give the same result, error and
 * offset, and the same rows.
 *
 * Seeds: tests/fuzz/corpus/fuzz_cfi/, the CIE and FDE programs of real
 * objects (mkcorpus_cfi.py).  Run alone: tests/fuzz/run.sh fuzz_cfi
 */
#include <stdlib.h>
#include "common.h"
#include "cfi.h"
#include "dwarf.h"
#include "arch.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#define FCFI_HDR	14
#define FCFI_SEC	0x10000ULL
#define FCFI_START	0x400000ULL

struct fcfi_ctx {
	u64 start, end, last;
	u64 sec_size;
	u8 arch;
	u8 nregs;
	u32 rows;
	u64 sum;	/* of the rows' text */
};

static int fcfi_row(void *p, u64 pc, const struct kuw_rule *r)
{
	struct fcfi_ctx *c = p;
	char buf[512];
	int i;

	if (pc < c->start || pc >= c->end || (c->rows && pc < c->last))
		__builtin_trap();	/* rows in order, inside the FDE */
	if (r->nregs > c->nregs || r->cfa_kind > KUW_CFA_EXPR)
		__builtin_trap();
	if (r->cfa_kind == KUW_CFA_EXPR &&
	    (r->cfa_off < 0 || (u64)r->cfa_off >= c->sec_size))
		__builtin_trap();
	for (i = 0; i < r->nregs; i++) {
		const struct kuw_reg_rule *g = &r->regs[i];

		/* same_value is a rule of its own (src and off 0) */
		if (g->reg >= c->nregs || (i && g->reg <= r->regs[i - 1].reg) ||
		    g->kind > KUW_R_VAL_EXPR ||
		    (g->kind == KUW_R_SAME && (g->src || g->off)))
			__builtin_trap();
		if ((g->kind == KUW_R_EXPR || g->kind == KUW_R_VAL_EXPR) &&
		    (g->off < 0 || (u64)g->off >= c->sec_size))
			__builtin_trap();
		if (g->kind == KUW_R_REG && g->src >= c->nregs)
			__builtin_trap();
	}
	kuw_format_row(buf, sizeof(buf), c->arch, pc, r);
	for (i = 0; buf[i]; i++)
		c->sum = (c->sum ^ (u8)buf[i]) * 0x100000001b3ULL;
	c->sum = (c->sum ^ c->rows) * 0x100000001b3ULL;
	c->last = pc;
	c->rows++;
	return 0;
}

static int fcfi_fde(void *p, const struct kuw_fde_info *f)
{
	return 0;
}

/* What one run gives. */
struct fcfi_res {
	int ret;
	struct kuw_diag d;
	u32 nrows;
	u32 rows;
	u64 sum;
};

/* Run the input's CIE then FDE @runs times; the fast path if @fast. */
static void fcfi_run(const u8 *data, size_t size, bool fast, int runs,
		     struct fcfi_res *res)
{
	struct fz_in in = { data, size };
	struct fcfi_ctx c = { 0 };
	struct kuw_sink sink = { fcfi_fde, fcfi_row, &c };
	struct kuw_diag d = { 0 };
	struct kuw_sec s;
	struct kuw_cfi *x;
	u8 flags, enc;
	u32 range, cie_len, nrows = 0;
	int ret = 0, k;

	flags = (u8)fz_take(&in, 1);
	x = calloc(1, sizeof(*x));
	if (!x)
		__builtin_trap();
	x->arch = flags & 1 ? KUW_ARCH_ARM64 : KUW_ARCH_X86_64;
	x->nregs = kuw_arch(x->arch)->nregs;
	x->secname = ".fuzz_frame";
	x->cie.debug = !!(flags & 2);
	x->cie.signal = !!(flags & 4);
	x->cie.addr_size = flags & 8 ? 4 : 8;
	x->cie.code_align = fz_take(&in, 1);
	if (!x->cie.code_align)
		x->cie.code_align = 1;
	x->cie.data_align = (s32)fz_take(&in, 4);
	x->cie.ra = (u8)(fz_take(&in, 1) % x->nregs);
	enc = (u8)fz_take(&in, 1);
	/* what ehframe.c's CIE parser lets through */
	if (x->cie.debug || enc == KUW_DW_EH_PE_omit ||
	    (enc & KUW_DW_EH_PE_indirect) || kuw_enc_check(enc))
		enc = KUW_DW_EH_PE_absptr;
	x->cie.fde_enc = enc;
	range = (u32)fz_take(&in, 2) + 1;
	cie_len = (u32)fz_take(&in, 2);
	if (cie_len > size - FCFI_HDR)
		cie_len = size - FCFI_HDR;

	s.data = data;
	s.size = size;
	s.addr = FCFI_SEC;
	x->sec = &s;
	x->pb.have = KUW_PB_TEXT;
	x->pb.text = FCFI_START;
	x->pb.addr_size = x->cie.addr_size;
	if (fast)
		kuw_cfi_caches(x, size);

	c.start = FCFI_START;
	c.end = FCFI_START + range;
	c.sec_size = size;
	c.arch = x->arch;
	c.nregs = x->nregs;

	ret = kuw_cfi_run_cie(x, FCFI_HDR, FCFI_HDR + cie_len, &d);
	for (k = 0; k < runs && !ret; k++) {
		c.rows = 0;
		c.sum = 0;
		nrows = 0;
		ret = kuw_cfi_run_fde(x, FCFI_HDR + cie_len, size, c.start,
				      c.end, &sink, &nrows, &d);
	}
	if (ret) {
		/* a failure says why and where */
		if (ret >= 0 || -ret >= KUW_E__COUNT || !d.err ||
		    d.err >= KUW_E__COUNT || d.off > size || !d.section)
			__builtin_trap();
	} else if (nrows != c.rows || !nrows) {
		__builtin_trap();	/* the count matches what was reported */
	}
	kuw_cfi_caches_free(x);
	free(x);
	res->ret = ret;
	res->d = d;
	res->nrows = nrows;
	res->rows = c.rows;
	res->sum = c.sum;
}

static bool fcfi_same(const struct fcfi_res *a, const struct fcfi_res *b)
{
	return a->ret == b->ret && a->d.err == b->d.err &&
	       a->d.off == b->d.off && a->nrows == b->nrows &&
	       a->rows == b->rows && a->sum == b->sum;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fcfi_res slow, fast;

	if (size < FCFI_HDR)
		return 0;
	fcfi_run(data, size, false, 1, &slow);
	fcfi_run(data, size, true, 2, &fast);
	if (!fcfi_same(&slow, &fast))
		__builtin_trap();	/* the fast path is the general one */
	return 0;
}
