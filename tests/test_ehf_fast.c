// SPDX-License-Identifier: GPL-2.0
/*
 * The .eh_frame walker reads the usual FDE (32-bit length, its CIE the one
 * parsed last, pcrel|sdata4 pointers, 'z' without LSDA) in one go and
 * leaves every other record to the general parser.  Both must agree on
 * every input: the same FDEs and rows, or the same error at the same
 * offset.  The general parser is the reference here: two identical CIEs
 * C1 and C2, then an FDE pointing at C2 (parsed last: the short path) or
 * at C1 (re-parsed: the general path), the sections otherwise byte for
 * byte the same; then every byte of that FDE but its CIE pointer is
 * mutated, and the section cut at every length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kt.h"
#include "engine.h"
#include "cfi_fixture.h"

#define EF_ADDR		0x1000ULL	/* where the section is loaded */

struct ef_buf {
	u8 b[512];
	u32 n;
};

static void ef_put(struct ef_buf *b, const void *p, u32 n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void ef_u8(struct ef_buf *b, u8 v)
{
	ef_put(b, &v, 1);
}

static void ef_u32(struct ef_buf *b, u32 v)
{
	ef_put(b, &v, 4);	/* little-endian host, as the target */
}

static void ef_end(struct ef_buf *b, u32 rec)
{
	u32 len;

	while ((b->n - rec) % 4)
		ef_u8(b, 0);	/* DW_CFA_nop */
	len = b->n - rec - 4;
	memcpy(b->b + rec, &len, 4);
}

static u32 ef_cie(struct ef_buf *b)
{
	u32 rec = b->n;

	ef_u32(b, 0);
	ef_u32(b, 0);			/* CIE id */
	ef_u8(b, 1);			/* version */
	ef_put(b, "zR", 3);
	ef_u8(b, 1);			/* code_align */
	ef_u8(b, 0x78);			/* data_align -8 */
	ef_u8(b, 16);			/* RA column */
	ef_u8(b, 1);
	ef_u8(b, 0x1b);			/* pcrel | sdata4 */
	ef_u8(b, 0x0c);			/* def_cfa rsp+8 */
	ef_u8(b, 7);
	ef_u8(b, 8);
	ef_u8(b, 0x90);			/* offset r16 at cfa-8 */
	ef_u8(b, 1);
	ef_end(b, rec);
	return rec;
}

/* An FDE of CIE @cie covering [@start, @start + @len). */
static u32 ef_fde(struct ef_buf *b, u32 cie, u64 start, u32 len, u8 cfa)
{
	u32 rec = b->n;

	ef_u32(b, 0);
	ef_u32(b, b->n - cie);
	ef_u32(b, (u32)(start - (EF_ADDR + b->n)));
	ef_u32(b, len);
	ef_u8(b, 0);			/* augmentation data length */
	ef_u8(b, 0x41);			/* advance_loc 1 */
	ef_u8(b, 0x0e);			/* def_cfa_offset */
	ef_u8(b, cfa);
	ef_u8(b, 0x42);			/* advance_loc 2 */
	ef_u8(b, 0x0e);
	ef_u8(b, cfa + 8);
	ef_end(b, rec);
	return rec;
}

struct ef_res {
	int ret;
	struct kuw_diag d;
	struct kuw_stats st;
	struct kcfi_col *c;
};

static void ef_walk(const struct kuw_obj *o, const struct ef_buf *b, u32 n,
		    struct ef_res *r)
{
	struct kuw_sec s = { b->b, n, EF_ADDR };

	memset(&r->d, 0, sizeof(r->d));
	memset(&r->st, 0, sizeof(r->st));
	r->c = kcfi_col_new();
	r->ret = kcfi_walk(o, &s, false, r->c, &r->st, &r->d);
}

/* Same outcome: error and place, or the same FDEs and rows. */
static bool ef_same(const struct ef_res *a, const struct ef_res *b)
{
	u32 i;

	if (a->ret != b->ret || a->d.err != b->d.err || a->d.off != b->d.off)
		return false;
	if (a->ret)
		return true;
	if (a->st.nfde != b->st.nfde || a->st.nrows != b->st.nrows ||
	    a->c->nfde != b->c->nfde || a->c->nrow != b->c->nrow)
		return false;
	for (i = 0; i < a->c->nfde; i++) {
		if (a->c->fde[i].f.start != b->c->fde[i].f.start ||
		    a->c->fde[i].f.end != b->c->fde[i].f.end ||
		    a->c->fde[i].f.off != b->c->fde[i].f.off ||
		    a->c->fde[i].n != b->c->fde[i].n)
			return false;
	}
	for (i = 0; i < a->c->nrow; i++) {
		if (a->c->row[i].pc != b->c->row[i].pc ||
		    a->c->row[i].r.cfa_off != b->c->row[i].r.cfa_off ||
		    a->c->row[i].r.cfa_reg != b->c->row[i].r.cfa_reg ||
		    a->c->row[i].r.nregs != b->c->row[i].r.nregs)
			return false;
	}
	return true;
}

/*
 * @fast: the first FDE of C2 (parsed last), else of C1.  Returns its
 * offset.
 */
static u32 ef_build(struct ef_buf *b, bool fast)
{
	u32 c1, c2, f1;

	b->n = 0;
	c1 = ef_cie(b);
	c2 = ef_cie(b);
	f1 = ef_fde(b, fast ? c2 : c1, 0x2000, 0x10, 16);
	/* the same bytes in both: only the first FDE's CIE pointer differs */
	ef_fde(b, c2, 0x2010, 0x20, 32);
	ef_fde(b, c2, 0x2100, 0x8, 48);
	return f1;
}

static const u8 ef_vals[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0c, 0x0d, 0x0e, 0x10, 0x11,
	0x18, 0x1c, 0x20, 0x40, 0x7f, 0x80, 0x81, 0xf0, 0xfe, 0xff,
};

static void ef_run(const struct kuw_obj *o, const char *what)
{
	struct ef_buf fb, sb;
	struct ef_res fr, sr;
	u32 f1, pos, v, n, bad = 0, tried = 0;

	f1 = ef_build(&fb, true);
	KT_ASSERT_EQ(ef_build(&sb, false), f1);
	KT_ASSERT_EQ(fb.n, sb.n);
	/* unmutated: both walk, the same FDEs */
	ef_walk(o, &fb, fb.n, &fr);
	ef_walk(o, &sb, sb.n, &sr);
	KT_EXPECT_EQ(fr.ret, 0);
	KT_EXPECT_EQ(fr.c->nfde, 3);
	KT_EXPECT(ef_same(&fr, &sr));
	kcfi_col_free(fr.c);
	kcfi_col_free(sr.c);
	/* every byte of the first FDE but its CIE pointer, many values */
	for (pos = f1; pos < f1 + 28; pos++) {
		if (pos >= f1 + 4 && pos < f1 + 8)
			continue;
		for (v = 0; v < ARRAY_SIZE(ef_vals); v++) {
			struct ef_buf fm = fb, sm = sb;

			fm.b[pos] = ef_vals[v];
			sm.b[pos] = ef_vals[v];
			ef_walk(o, &fm, fm.n, &fr);
			ef_walk(o, &sm, sm.n, &sr);
			tried++;
			if (!ef_same(&fr, &sr) && !bad++)
				kt_fail(__FILE__, __LINE__,
					"%s: byte %u = 0x%x: %d@%llu vs %d@%llu",
					what, pos - f1, ef_vals[v], fr.ret,
					fr.d.off, sr.ret, sr.d.off);
			kcfi_col_free(fr.c);
			kcfi_col_free(sr.c);
		}
	}
	/* the section cut anywhere */
	for (n = 0; n <= fb.n; n++) {
		ef_walk(o, &fb, n, &fr);
		ef_walk(o, &sb, n, &sr);
		tried++;
		if (!ef_same(&fr, &sr) && !bad++)
			kt_fail(__FILE__, __LINE__, "%s: cut at %u", what, n);
		kcfi_col_free(fr.c);
		kcfi_col_free(sr.c);
	}
	KT_EXPECT_EQ(bad, 0);
	KT_EXPECT(tried > 500);
}

KT_TEST(ehf_fast_fde_agrees_with_general_parser)
{
	struct kuw_obj o = {
		.owner = "ehf_fast",
		.arch = KUW_ARCH_X86_64,
		.text_start = 0x2000,
		.text_end = 0x2200,
	};

	ef_run(&o, "text range");
	o.text_start = 0;
	o.text_end = 0;
	ef_run(&o, "no text range");
}
