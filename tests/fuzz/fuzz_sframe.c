// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: .sframe v1/v2/v3 (walker, compiled table, lookup, one
 * step).
 *
 * Input: mode (1 byte: bit 0 KUW_OBJ_RELOCATED, bit 1 arm64), section
 * address (8), text start (8), text end (8), then the section bytes.
 * Seeds: tests/fuzz/corpus/fuzz_sframe/, made by mkcorpus_sfr.py from
 * objects assembled with `as --gsframe` and linked by ld.
 *
 * Build and run alone (from the repository root):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Iinclude/kunwind -Imodule/engine -Itools -Itests/fuzz -o fuzz_sframe \
 *     tests/fuzz/fuzz_sframe.c tests/fuzz/common.c \
 *     $(sed -n 's/^KUW_ENGINE := //p' engine.mk | tr ' ' '\n' | \
 *       sed 's|.*|module/engine/&.c|')
 * (the engine list of engine.mk)
 *   ./fuzz_sframe -max_total_time=60 tests/fuzz/corpus/fuzz_sframe
 * or: tests/fuzz/run.sh fuzz_sframe
 *
 * Beyond "no crash": an error always names where it is; FDEs never end
 * before they start; rows come in increasing pc inside their FDE (PCINC:
 * inside [start, end); PCMASK: below the block size); the same input
 * walks the same way twice, once with kuw_sink_ext.row_id (the table
 * builder's path, which remembers decoded FREs): same result, error,
 * offset and rows.
 */
#include "common.h"
#include "arch.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

struct sfz {
	u8 arch;
	struct kuw_fde_info f;
	bool have_fde;
	bool have_row;
	u64 last_pc;
	u32 nfde;
	u32 nrow;
	u64 hash;
};

static int sfz_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct sfz *z = ctx;

	if (f->end < f->start || f->src != KUW_SRC_SFRAME)
		__builtin_trap();
	z->f = *f;
	z->have_fde = true;
	z->have_row = false;
	z->nfde++;
	z->hash = z->hash * 31 + f->start + f->end + f->pcmask;
	return 0;
}

static int sfz_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct sfz *z = ctx;
	char buf[512];
	u32 i;

	if (!z->have_fde || r->nregs > KUW_MAX_REGS)
		__builtin_trap();
	if (z->have_row && pc <= z->last_pc)
		__builtin_trap();
	if (z->f.pcmask ? pc >= z->f.pcmask :
	    (pc < z->f.start || pc >= z->f.end))
		__builtin_trap();
	for (i = 1; i < r->nregs; i++)
		if (r->regs[i - 1].reg >= r->regs[i].reg)
			__builtin_trap();
	z->have_row = true;
	z->last_pc = pc;
	z->nrow++;
	kuw_format_row(buf, sizeof(buf), z->arch, pc, r);
	z->hash = z->hash * 31 + pc;
	for (i = 0; buf[i]; i++)
		z->hash = z->hash * 131 + (u8)buf[i];
	return 0;
}

static int sfz_row_id(void *ctx, u64 pc, const struct kuw_rule *r, u32 id)
{
	if (!id)
		__builtin_trap();
	return sfz_row(ctx, pc, r);
}

static int sfz_walk(const struct kuw_obj *o, const struct kuw_sec *s,
		    struct sfz *z, struct kuw_diag *d, bool ids)
{
	struct kuw_sink sink = { sfz_fde, sfz_row, z };
	struct kuw_sink_ext ext = { .row_id = sfz_row_id };
	struct kuw_stats st = { 0 };
	int rc;

	memset(z, 0, sizeof(*z));
	z->arch = o->arch;
	rc = kuw_sfr_walk_ext(o, s, &sink, ids ? &ext : NULL, &st, d);
	if (rc && (!d->err || rc != -d->err || !d->section))
		__builtin_trap();	/* an error must say where */
	if (st.nfde != z->nfde || st.nrows != z->nrow)
		__builtin_trap();
	return rc;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct kuw_diag d = { 0 }, d2 = { 0 };
	struct kuw_obj o;
	struct kuw_sec s;
	struct sfz z1, z2;
	u8 mode = (u8)fz_take(&in, 1);
	int rc;

	fz_obj_sec(&in, mode & 2, mode & 1, &o, &s);

	rc = sfz_walk(&o, &s, &z1, &d, false);
	if (sfz_walk(&o, &s, &z2, &d2, true) != rc || z1.hash != z2.hash ||
	    d.off != d2.off || d.err != d2.err)
		__builtin_trap();	/* deterministic, whichever sink */

	if (fz_build(&o, KUW_SRC_SFRAME, &s, data, size) && rc)
		__builtin_trap();	/* builder accepts what walker refused */
	return 0;
}
