// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: .eh_frame and .debug_frame (walker, CFI interpreter,
 * compiled table, lookup, one step).
 *
 * Input: mode (1 byte: bit 0 .debug_frame, bit 1 KUW_OBJ_RELOCATED,
 * bit 2 arm64), section address (8), text start (8), text end (8), then
 * the section bytes.
 *
 * Differential: the section is walked with the CFI interpreter's fast
 * path (interned states, remembered runs across FDEs and CIEs) and with
 * its general path alone (KUW_OBJ_GENERAL): same result, error, offset,
 * counts and rows (hashed by their text).
 */
#include "common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

struct fe_walk {
	u8 arch;
	u64 hash;
	u32 rows;
};

static int fe_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct fe_walk *w = ctx;

	w->hash = (w->hash ^ f->start ^ f->end << 7) * 0x100000001b3ULL;
	return 0;
}

static int fe_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct fe_walk *w = ctx;
	char buf[512];
	int i;

	kuw_format_row(buf, sizeof(buf), w->arch, pc, r);
	for (i = 0; buf[i]; i++)
		w->hash = (w->hash ^ (u8)buf[i]) * 0x100000001b3ULL;
	w->rows++;
	return 0;
}

/* Walk @s as @o says; the result, and in @w what the rows were. */
static int fe_walk(const struct kuw_obj *o, const struct kuw_sec *s,
		   bool debug, struct fe_walk *w, struct kuw_stats *st,
		   struct kuw_diag *d)
{
	struct kuw_sink sink = { fe_fde, fe_row, w };

	memset(w, 0, sizeof(*w));
	memset(st, 0, sizeof(*st));
	memset(d, 0, sizeof(*d));
	w->arch = o->arch;
	return kuw_ehf_walk(o, s, debug, &sink, st, d);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct kuw_diag d = { 0 };
	struct kuw_stats st = { 0 };
	struct kuw_obj o;
	struct kuw_sec s;
	u8 mode = (u8)fz_take(&in, 1);
#ifdef FZ_FORCE_DEBUG_FRAME
	bool debug = true;
#else
	bool debug = mode & 1;
#endif
	u8 arch;

	fz_obj_sec(&in, mode & 4, mode & 2, &o, &s);
	arch = o.arch;

	{
		struct kuw_sink sink = fz_format_sink;
		struct kuw_obj g = o;
		struct kuw_stats st2;
		struct kuw_diag d2;
		struct fe_walk w1, w2;
		int r1, r2;

		sink.ctx = &arch;
		if (kuw_ehf_walk(&o, &s, debug, &sink, &st, &d) && !d.err)
			__builtin_trap();	/* an error must say where */
		g.flags |= KUW_OBJ_GENERAL;
		r1 = fe_walk(&o, &s, debug, &w1, &st, &d);
		r2 = fe_walk(&g, &s, debug, &w2, &st2, &d2);
		if (r1 != r2 || d.err != d2.err || d.off != d2.off ||
		    w1.hash != w2.hash || w1.rows != w2.rows ||
		    st.nrows != st2.nrows || st.nfde != st2.nfde)
			__builtin_trap();	/* fast path == general path */
	}
	fz_build(&o, debug ? KUW_SRC_DEBUG_FRAME : KUW_SRC_EH_FRAME, &s, data,
		 size);
	return 0;
}
