// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame / .debug_frame walker and .eh_frame_hdr tests.
 *
 * Sections are either produced by `as`/`ld` from CFI directives, taken
 * from real binaries of this machine (compared with readelf), or written
 * here byte by byte from the record layouts of the LSB and DWARF 5
 * (section 6.4.1) when no tool emits the form (CIE v3/v4, DWARF64,
 * set_loc, legacy "eh", malformed records).  Hand-built .debug_frame
 * sections are also checked with readelf by adding them to a fixture with
 * objcopy.  Error tests check the error code and the byte offset.
 */
#include <stddef.h>
#include <unistd.h>
#include "engine.h"
#include "arch.h"
#include "dwarf.h"
#include "read.h"
#include "cfi_fixture.h"
#include "kt.h"

/* ---- a byte builder for hand-made sections ---- */

struct bb {
	u8 b[4096];
	u32 n;
};

static void b8(struct bb *b, u8 v)
{
	if (b->n < sizeof(b->b))
		b->b[b->n++] = v;
}

static void bn(struct bb *b, u64 v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		b8(b, (u8)(v >> (8 * i)));
}

static void bul(struct bb *b, u64 v)
{
	do {
		u8 x = v & 0x7f;

		v >>= 7;
		b8(b, x | (v ? 0x80 : 0));
	} while (v);
}

static void bsl(struct bb *b, s64 v)
{
	bool more = true;

	while (more) {
		u8 x = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40)));
		b8(b, x | (more ? 0x80 : 0));
	}
}

static void bbytes(struct bb *b, const void *p, u32 n)
{
	const u8 *q = p;

	while (n--)
		b8(b, *q++);
}

/* Start a record: its length is patched by rec_end. */
static u32 rec_start(struct bb *b, bool dw64)
{
	u32 at = b->n;

	if (dw64) {
		bn(b, 0xffffffff, 4);
		bn(b, 0, 8);
	} else {
		bn(b, 0, 4);
	}
	return at;
}

static void rec_end(struct bb *b, u32 at, bool dw64)
{
	u64 len = b->n - at - (dw64 ? 12 : 4);

	kuw_put_le(b->b + at + (dw64 ? 4 : 0), len, dw64 ? 8 : 4);
}

/* x86_64-like CIE: def_cfa rsp+8, offset ra at cfa-8. */
static const u8 cie_insns[] = { 0x0c, 0x07, 0x08, 0x90, 0x01 };

/*
 * A CIE with augmentation @aug (its data in @augdata), version @ver.
 * .eh_frame id 0; .debug_frame id all-ones.  Returns its offset.
 */
static u32 cie(struct bb *b, bool debug, bool dw64, u8 ver, const char *aug,
	       const u8 *augdata, u32 augn, bool zlen)
{
	u32 at = rec_start(b, dw64);

	if (debug)
		bn(b, ~0ULL, dw64 ? 8 : 4);
	else
		bn(b, 0, 4);
	b8(b, ver);
	bbytes(b, aug, strlen(aug) + 1);
	if (ver == 4) {
		b8(b, 8);	/* address size */
		b8(b, 0);	/* segment selector size */
	}
	bul(b, 1);		/* code align */
	bsl(b, -8);		/* data align */
	if (ver == 1)
		b8(b, 16);
	else
		bul(b, 16);
	if (zlen)
		bul(b, augn);
	bbytes(b, augdata, augn);
	bbytes(b, cie_insns, sizeof(cie_insns));
	rec_end(b, at, dw64);
	return at;
}

/*
 * Start a version 1 .eh_frame CIE: augmentation @aug, code alignment
 * @code_align, data alignment -8, return address column @ra.  Its
 * augmentation data and initial instructions follow; rec_end() closes it.
 */
static u32 cie_open(struct bb *b, const char *aug, u8 code_align, u8 ra)
{
	u32 at = rec_start(b, false);

	bn(b, 0, 4);
	b8(b, 1);
	bbytes(b, aug, strlen(aug) + 1);
	bul(b, code_align);
	bsl(b, -8);
	b8(b, ra);
	return at;
}

/*
 * An FDE for [start, start + len) with an absolute udata8 address (for
 * .eh_frame the CIE must say R = 0x04 or have no R: absptr).
 */
static u32 fde(struct bb *b, bool debug, bool dw64, u32 cie_at, u64 start,
	       u64 len, bool zlen, const u8 *ins, u32 insn)
{
	u32 at = rec_start(b, dw64);
	u32 idpos = b->n;

	if (debug)
		bn(b, cie_at, dw64 ? 8 : 4);
	else
		bn(b, idpos - cie_at, 4);
	bn(b, start, 8);
	bn(b, len, 8);
	if (zlen)
		bul(b, 0);
	bbytes(b, ins, insn);
	rec_end(b, at, dw64);
	return at;
}

static struct kuw_obj obj_x86 = {
	.owner = "test", .arch = KUW_ARCH_X86_64,
	.text_start = 0x1000, .text_end = 0x9000,
};

static int walk_bb(const struct bb *b, bool debug, u64 addr,
		   struct kcfi_col *c, struct kuw_stats *st,
		   struct kuw_diag *d)
{
	struct kuw_sec s = { b->b, b->n, addr };

	memset(d, 0, sizeof(*d));
	return kcfi_walk(&obj_x86, &s, debug, c, st, d);
}

static const u8 prog1[] = {
	0x41, 0x0e, 0x10, 0x83, 0x02,	/* +1: cfa rsp+16, rbx c-16 */
	0x42, 0x0d, 0x06,		/* +2: cfa rbp+16 */
};

#define PROG1_ROWS "0x0 cfa=rsp+8 ra=c-8\n"				\
	"0x1 cfa=rsp+16 rbx=c-16 ra=c-8\n"				\
	"0x3 cfa=rbp+16 rbx=c-16 ra=c-8"

static const u8 zr_abs[] = { KUW_DW_EH_PE_udata8 };

KT_TEST(ehf_cie_versions)
{
	static const u8 vers[] = { 1, 3, 4 };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(vers); i++) {
		struct kcfi_col *c = kcfi_col_new();
		struct kuw_diag d;
		struct kuw_stats st;
		struct bb b = { .n = 0 };
		u32 ci;

		ci = cie(&b, false, false, vers[i], "zR", zr_abs, 1, true);
		fde(&b, false, false, ci, 0x2000, 0x10, true, prog1,
		    sizeof(prog1));
		KT_EXPECT_EQ(walk_bb(&b, false, 0x5000, c, &st, &d), 0);
		KT_EXPECT_EQ(st.ncie, 1);
		KT_EXPECT_EQ(st.nfde, 1);
		KT_EXPECT_EQ(c->fde[0].f.start, 0x2000);
		KT_EXPECT_EQ(c->fde[0].f.end, 0x2010);
		KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64), PROG1_ROWS);
		kcfi_col_free(c);
	}
}

KT_TEST(ehf_cie_bad_version_and_header)
{
	struct kuw_diag d;
	struct bb b = { .n = 0 };
	u32 ci;

	ci = cie(&b, false, false, 2, "zR", zr_abs, 1, true);
	fde(&b, false, false, ci, 0x2000, 0x10, true, prog1, sizeof(prog1));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADVER);
	KT_EXPECT_EQ(d.off, 8);		/* the version byte */
	KT_EXPECT_STR(d.section, ".eh_frame");
	/* v4 address size 3 */
	b.n = 0;
	ci = cie(&b, false, false, 4, "zR", zr_abs, 1, true);
	b.b[12] = 3;	/* after "zR\0" at 9..11 */
	fde(&b, false, false, ci, 0x2000, 0x10, true, prog1, sizeof(prog1));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADHDR);
	KT_EXPECT_EQ(d.off, 12);
}

KT_TEST(ehf_dwarf64_eh_frame)
{
	/* 64-bit length escape; the CIE pointer stays 4 bytes (LSB). */
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d;
	struct kuw_stats st;
	struct bb b = { .n = 0 };
	u32 ci;

	ci = cie(&b, false, true, 1, "zR", zr_abs, 1, true);
	fde(&b, false, true, ci, 0x2000, 0x10, true, prog1, sizeof(prog1));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 0);
	KT_EXPECT_EQ(st.nfde, 1);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64), PROG1_ROWS);
	/* Reserved lengths 0xfffffff0..0xfffffffe. */
	b.b[0] = 0xf0;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADLEN);
	KT_EXPECT_EQ(d.off, 0);
	kcfi_col_free(c);
}

KT_TEST(ehf_terminators)
{
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d;
	struct kuw_stats st;
	struct bb b = { .n = 0 };
	u32 ci, n;

	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	fde(&b, false, false, ci, 0x2000, 0x10, true, prog1, sizeof(prog1));
	/* No terminator (kernel modules): the size bounds the walk. */
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 0);
	KT_EXPECT_EQ(st.nfde, 1);
	/* A zero terminator in the middle, more records after it. */
	bn(&b, 0, 4);
	fde(&b, false, false, ci, 0x3000, 0x10, true, prog1, sizeof(prog1));
	bn(&b, 0, 4);
	n = b.n;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, &st, &d), 0);
	KT_EXPECT_EQ(st.nfde, 2);
	/* 1-3 zero bytes of padding at the end are fine... */
	bn(&b, 0, 3);
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, &st, &d), 0);
	/* ... a non-zero tail is a truncated record. */
	b.b[n + 1] = 5;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, &st, &d), -KUW_E_TRUNC);
	KT_EXPECT_EQ(d.off, n);
	/* An empty section is fine. */
	b.n = 0;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, &st, &d), 0);
	KT_EXPECT_EQ(st.ncie + st.nfde, 0);
	kcfi_col_free(c);
}

KT_TEST(ehf_augmentations)
{
	/*
	 * zPLR: personality indirect|pcrel|sdata4, LSDA pcrel|sdata4 (the
	 * FDE carries it), S, B; an unknown letter after z is skipped by
	 * length.
	 */
	static const u8 pl[] = { 0x9b, 0x10, 0, 0, 0, 0x1b, 0x04 };
	static const u8 aug_s[] = { 0x04 };
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d;
	struct kuw_stats st;
	struct bb b = { .n = 0 };
	u32 ci, at, idpos;

	ci = cie(&b, false, false, 1, "zPLR", pl, sizeof(pl), true);
	/* FDE with a 4-byte LSDA in its augmentation data. */
	at = rec_start(&b, false);
	idpos = b.n;
	bn(&b, idpos - ci, 4);
	bn(&b, 0x2000, 8);
	bn(&b, 0x10, 8);
	bul(&b, 4);
	bn(&b, 0x1234, 4);
	bbytes(&b, prog1, sizeof(prog1));
	rec_end(&b, at, false);
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 0);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64), PROG1_ROWS);
	KT_EXPECT_EQ(c->fde[0].f.signal, 0);
	kcfi_col_free(c);

	/* LSDA longer than the FDE's augmentation data. */
	b.b[at + 4 + 4 + 16] = 2;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADAUG);

	c = kcfi_col_new();
	b.n = 0;
	ci = cie(&b, false, false, 1, "zRSBX", aug_s, 1, true);
	fde(&b, false, false, ci, 0x2000, 0x10, true, prog1, sizeof(prog1));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 0);
	KT_EXPECT_EQ(c->fde[0].f.signal, 1);
	KT_EXPECT_EQ(c->row[0].r.flags, KUW_RF_SIGNAL);
	kcfi_col_free(c);

	/*
	 * Personality DW_EH_PE_aligned: the CIE's augmentation data starts
	 * at offset 17 (0x50 byte), the pointer is at the next multiple of 8
	 * of the run-time address (24), then R.
	 */
	{
		static const u8 al[] = { 0x50, 0, 0, 0, 0, 0, 0,
					 1, 2, 3, 4, 5, 6, 7, 8, 0x04 };

		c = kcfi_col_new();
		b.n = 0;
		ci = cie(&b, false, false, 1, "zPR", al, sizeof(al), true);
		KT_EXPECT_EQ(b.b[17], 0x50);
		fde(&b, false, false, ci, 0x2000, 0x10, true, prog1,
		    sizeof(prog1));
		KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 0);
		KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64),
			      PROG1_ROWS);
		kcfi_col_free(c);
		/* At address 4 the pointer starts at offset 20: R is misread. */
		KT_EXPECT(walk_bb(&b, false, 4, NULL, NULL, &d) != 0);
	}

	/* Unknown letter without z. */
	b.n = 0;
	ci = cie(&b, false, false, 1, "X", NULL, 0, false);
	fde(&b, false, false, ci, 0x2000, 0x10, false, prog1, sizeof(prog1));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADAUG);
	KT_EXPECT_EQ(d.off, 9);

	/* Augmentation data longer than the CIE. */
	b.n = 0;
	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	b.b[15] = 0x70;	/* its length byte: "zR\0" 9..11, 01 78 10 */
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADAUG);
	KT_EXPECT_EQ(d.off, 15);

	/* Legacy "eh": a pointer after the augmentation string. */
	c = kcfi_col_new();
	b.n = 0;
	{
		u32 at2 = rec_start(&b, false);

		bn(&b, 0, 4);
		b8(&b, 1);
		bbytes(&b, "eh", 3);
		bn(&b, 0xdeadbeef, 8);
		bul(&b, 1);
		bsl(&b, -8);
		b8(&b, 16);
		bbytes(&b, cie_insns, sizeof(cie_insns));
		rec_end(&b, at2, false);
		fde(&b, false, false, at2, 0x2000, 0x10, false, prog1,
		    sizeof(prog1));
	}
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 0);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64), PROG1_ROWS);
	kcfi_col_free(c);
}

KT_TEST(ehf_bad_encodings)
{
	static const u8 encs[] = { 0x07, 0x0d, 0x60, 0x9b, 0xff, 0x53 };
	struct kuw_diag d;
	struct bb b;
	u32 i, ci;

	for (i = 0; i < ARRAY_SIZE(encs); i++) {
		b.n = 0;
		ci = cie(&b, false, false, 1, "zR", &encs[i], 1, true);
		fde(&b, false, false, ci, 0x2000, 0x10, true, prog1,
		    sizeof(prog1));
		KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d),
			     -KUW_E_BADENC);
		KT_EXPECT_EQ(d.off, 16);	/* the R byte */
	}
	/* datarel FDE addresses: the data base is unknown in .eh_frame. */
	b.n = 0;
	{
		static const u8 dr[] = { 0x3b };

		ci = cie(&b, false, false, 1, "zR", dr, 1, true);
		fde(&b, false, false, ci, 0x2000, 0x10, true, prog1,
		    sizeof(prog1));
		KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d),
			     -KUW_E_BADENC);
	}
}

KT_TEST(ehf_malformed_records)
{
	struct kuw_diag d;
	struct bb b = { .n = 0 }, g;
	u32 ci, f1;

	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	f1 = fde(&b, false, false, ci, 0x2000, 0x10, true, prog1,
		 sizeof(prog1));
	g = b;

	/* Truncated length field. */
	b.n = 2;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_TRUNC);
	KT_EXPECT_EQ(d.off, 0);
	/* Section cut inside the FDE: its length runs past the end. */
	b = g;
	b.n -= 3;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADLEN);
	KT_EXPECT_EQ(d.off, f1);
	/* Record too short for its CIE id. */
	b = g;
	b.b[f1] = 2;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADLEN);
	KT_EXPECT_EQ(d.off, f1);
	/* FDE too short for its address range. */
	b = g;
	b.b[f1] = 12;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_TRUNC);
	/* CIE pointer before the section start. */
	b = g;
	b.b[f1 + 4] = 0x40;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADCIE);
	KT_EXPECT_EQ(d.off, f1 + 4);
	/* CIE pointer to something that is not a CIE (the FDE itself). */
	b = g;
	b.b[f1 + 4] = 4;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADCIE);
	KT_EXPECT_EQ(d.off, f1 + 4);
	/* code_align 0 */
	b = g;
	b.b[12] = 0;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADALIGN);
	KT_EXPECT_EQ(d.off, 12);
	/* return address column 17 */
	b = g;
	b.b[14] = 17;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADREG);
	KT_EXPECT_EQ(d.off, 14);
	/* FDE outside the text range, and a range that wraps. */
	b = g;
	b.b[f1 + 8 + 1] = 0x90;		/* start 0x9000 */
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADRANGE);
	KT_EXPECT_EQ(d.off, f1);
	b = g;
	memset(b.b + f1 + 16, 0xff, 8);	/* range ~0 */
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADRANGE);
	/* ... no range check when the text range is unknown. */
	{
		struct kuw_obj o = obj_x86;
		struct kuw_sec s = { b.b, b.n, 0 };

		b = g;
		b.b[f1 + 8 + 1] = 0x90;
		o.text_end = 0;
		o.text_start = 0;
		KT_EXPECT_EQ(kuw_ehf_walk(&o, &s, false, NULL, NULL, &d), 0);
	}
	/* advance_loc in a CIE's initial instructions. */
	b.n = 0;
	{
		u32 at = cie_open(&b, "", 1, 16);

		bbytes(&b, cie_insns, sizeof(cie_insns));
		b8(&b, 0x41);
		rec_end(&b, at, false);
		KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d),
			     -KUW_E_BADLOC);
		KT_EXPECT_EQ(d.off, b.n - 1);
	}
}

KT_TEST(ehf_set_loc)
{
	/* set_loc (absolute udata8 here), backwards and past the end. */
	static const u8 p1[] = {
		0x01, 0x08, 0x20, 0, 0, 0, 0, 0, 0, 0x0e, 0x10,
		0x01, 0x0c, 0x20, 0, 0, 0, 0, 0, 0, 0x0e, 0x18,
	};
	u8 p2[sizeof(p1)];
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d;
	struct bb b = { .n = 0 };
	u32 ci, f;

	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	f = fde(&b, false, false, ci, 0x2000, 0x10, true, p1, sizeof(p1));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, NULL, &d), 0);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64),
		      "0x0 cfa=rsp+8 ra=c-8\n0x8 cfa=rsp+16 ra=c-8\n"
		      "0xc cfa=rsp+24 ra=c-8");
	memcpy(p2, p1, sizeof(p1));
	p2[12] = 0x04;		/* second set_loc goes back to 0x2004 */
	b.n = 0;
	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	f = fde(&b, false, false, ci, 0x2000, 0x10, true, p2, sizeof(p2));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADLOC);
	KT_EXPECT_EQ(d.off, f + 4 + 4 + 16 + 1 + 11);
	p2[12] = 0x11;		/* past the end (0x2011) */
	b.n = 0;
	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	fde(&b, false, false, ci, 0x2000, 0x10, true, p2, sizeof(p2));
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_BADLOC);
	kcfi_col_free(c);
}

KT_TEST(ehf_undefined_cfa)
{
	/* A CIE without def_cfa: fine if ra is undefined, else an error. */
	static const u8 ra_undef[] = { 0x07, 0x10 };
	static const u8 nothing[] = { 0x00 };
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d;
	struct bb b = { .n = 0 };
	u32 at, f;

	at = cie_open(&b, "", 1, 16);
	rec_end(&b, at, false);
	fde(&b, false, false, at, 0x2000, 0x10, false, ra_undef, 2);
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, NULL, &d), 0);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_X86_64),
		      "0x0 cfa=rsp+0 ra=u");
	b.n = 0;
	at = cie_open(&b, "", 1, 16);
	rec_end(&b, at, false);
	f = fde(&b, false, false, at, 0x2000, 0x10, false, nothing, 1);
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, NULL, &d), -KUW_E_NOCFA);
	KT_EXPECT_EQ(d.off, b.n);	/* the end of its program */
	(void)f;
	kcfi_col_free(c);
}

KT_TEST(ehf_aarch64_negate_ra_state)
{
	/*
	 * AArch64: 0x2d toggles the RA-signing state, which remember/
	 * restore_state keep.  CIE "zRB": def_cfa sp(31)+0, ra column 30.
	 */
	static const u8 prog[] = {
		0x2d, 0x41, 0x0e, 0x10, 0x9e, 0x02, 0x9d, 0x01,	/* +1 */
		0x0a, 0x41, 0x2d, 0xde, 0xdd, 0x0e, 0x00,	/* +2 */
		0x41, 0x0b,					/* +3 */
	};
	struct kuw_obj o = {
		.owner = "a64", .arch = KUW_ARCH_ARM64,
		.text_start = 0x1000, .text_end = 0x9000,
	};
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d = { 0 };
	struct bb b = { .n = 0 };
	struct kuw_sec s;
	u32 at;

	at = cie_open(&b, "zRB", 4, 30);
	bul(&b, 1);
	b8(&b, KUW_DW_EH_PE_udata8);
	b8(&b, 0x0c);
	b8(&b, 31);
	b8(&b, 0);
	rec_end(&b, at, false);
	fde(&b, false, false, at, 0x2000, 0x10, true, prog, sizeof(prog));
	s.data = b.b;
	s.size = b.n;
	s.addr = 0;
	KT_EXPECT_EQ(kcfi_walk(&o, &s, false, c, NULL, &d), 0);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_ARM64),
		      "0x0 cfa=sp+0 ra_signed=1\n"
		      "0x4 cfa=sp+16 x29=c-8 ra=c-16 ra_signed=1\n"
		      "0x8 cfa=sp+0\n"
		      "0xc cfa=sp+16 x29=c-8 ra=c-16 ra_signed=1");
	KT_ASSERT_EQ(c->nrow, 4);
	KT_EXPECT_EQ(c->row[0].r.flags, KUW_RF_MANGLED_RA);
	KT_EXPECT_EQ(c->row[1].r.flags, KUW_RF_MANGLED_RA);
	KT_EXPECT_EQ(c->row[2].r.flags, 0);
	KT_EXPECT_EQ(c->row[3].r.flags, KUW_RF_MANGLED_RA);
	kcfi_col_free(c);
}

KT_TEST(ehf_aarch64_negate_ra_state_with_pc)
{
	/*
	 * AArch64 PAuth_LR (GCC's -mbranch-protection=pac-ret+pc, gas's
	 * .cfi_negate_ra_state_with_pc): 0x2c toggles the same RA-signing
	 * state as 0x2d, here signed with 0x2c and authenticated with 0x2d.
	 */
	static const u8 prog[] = {
		0x2c, 0x41, 0x0e, 0x10, 0x9e, 0x02, 0x9d, 0x01,	/* +1 */
		0x0a, 0x41, 0x2d, 0xde, 0xdd, 0x0e, 0x00,	/* +2 */
		0x41, 0x0b,					/* +3 */
	};
	struct kuw_obj o = {
		.owner = "a64", .arch = KUW_ARCH_ARM64,
		.text_start = 0x1000, .text_end = 0x9000,
	};
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_diag d = { 0 };
	struct bb b = { .n = 0 };
	struct kuw_sec s;
	u32 at;

	at = cie_open(&b, "zRB", 4, 30);
	bul(&b, 1);
	b8(&b, KUW_DW_EH_PE_udata8);
	b8(&b, 0x0c);
	b8(&b, 31);
	b8(&b, 0);
	rec_end(&b, at, false);
	fde(&b, false, false, at, 0x2000, 0x10, true, prog, sizeof(prog));
	s.data = b.b;
	s.size = b.n;
	s.addr = 0;
	KT_EXPECT_EQ(kcfi_walk(&o, &s, false, c, NULL, &d), 0);
	KT_EXPECT_STR(kcfi_fde_text(c, 0, KUW_ARCH_ARM64),
		      "0x0 cfa=sp+0 ra_signed=1\n"
		      "0x4 cfa=sp+16 x29=c-8 ra=c-16 ra_signed=1\n"
		      "0x8 cfa=sp+0\n"
		      "0xc cfa=sp+16 x29=c-8 ra=c-16 ra_signed=1");
	KT_ASSERT_EQ(c->nrow, 4);
	KT_EXPECT_EQ(c->row[0].r.flags, KUW_RF_MANGLED_RA);
	KT_EXPECT_EQ(c->row[1].r.flags, KUW_RF_MANGLED_RA);
	KT_EXPECT_EQ(c->row[2].r.flags, 0);
	KT_EXPECT_EQ(c->row[3].r.flags, KUW_RF_MANGLED_RA);
	kcfi_col_free(c);
}

KT_TEST(ehf_aarch64_from_llvm_mc)
{
	/*
	 * tests/asm/cfi_a64.s assembled by llvm-mc and linked by ld.lld
	 * (binutils here only targets x86): rows compared with readelf,
	 * RA-signing state from the .cfi_negate_ra_state directives (hint
	 * #27 = paciasp at 0x0, state on from 0x4; hint #31 = autiasp at
	 * 0x14, off from 0x18; restore_state brings it back at 0x1c).
	 */
	static const u8 want_flags[] = { 0, 1, 1, 1, 1, 1, 0, 1 };
	char cmd[2048], so[512];
	struct kcfi_col *c;
	struct kcfi_obj x;
	struct kuw_diag d = { 0 };
	u32 n = 0, i;

	if (system("command -v llvm-mc >/dev/null && "
		   "command -v ld.lld >/dev/null")) {
		printf("  skipped: llvm-mc or ld.lld missing\n");
		return;
	}
	snprintf(so, sizeof(so), "%s/cfi_a64.so", kt_builddir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s' && llvm-mc -triple=aarch64-linux-gnu "
		 "-filetype=obj -o '%s/cfi_a64.o' '%s/asm/cfi_a64.s' && "
		 "ld.lld -shared -o '%s' '%s/cfi_a64.o'", kt_builddir,
		 kt_builddir, kt_srcdir, so, kt_builddir);
	KT_ASSERT(!system(cmd));
	KT_ASSERT(!kcfi_load(&x, so));
	KT_EXPECT_EQ(x.o.arch, KUW_ARCH_ARM64);
	c = kcfi_col_new();
	KT_EXPECT_EQ(kcfi_walk(&x.o, &x.ehf, false, c, NULL, &d), 0);
	KT_EXPECT_EQ(c->bad, 0);
	KT_EXPECT_EQ(kcfi_readelf_compare(so, false, KUW_ARCH_ARM64, c, &n),
		     0);
	KT_EXPECT(n >= 8);
	KT_ASSERT_EQ(c->nrow, ARRAY_SIZE(want_flags));
	for (i = 0; i < c->nrow; i++) {
		KT_EXPECT_EQ(c->row[i].pc - c->fde[0].f.start, 4 * i);
		KT_EXPECT_EQ(c->row[i].r.flags,
			     want_flags[i] ? KUW_RF_MANGLED_RA : 0);
	}
	kcfi_col_free(c);
	kcfi_unload(&x);
}

static int sframe_stop_fde(void *ctx, const struct kuw_fde_info *f)
{
	return 55;
}

KT_TEST(ehf_sink_stops_walk)
{
	struct kcfi_col *c = kcfi_col_new();
	struct kuw_sink s2 = { sframe_stop_fde, NULL, NULL };
	struct kuw_diag d = { 0 };
	struct kuw_stats st;
	struct bb b = { .n = 0 };
	struct kuw_sec s;
	u32 ci;

	ci = cie(&b, false, false, 1, "zR", zr_abs, 1, true);
	fde(&b, false, false, ci, 0x2000, 0x10, true, prog1, sizeof(prog1));
	fde(&b, false, false, ci, 0x3000, 0x10, true, prog1, sizeof(prog1));
	c->stop_at = 2;
	KT_EXPECT_EQ(walk_bb(&b, false, 0, c, &st, &d), 77);
	KT_EXPECT_EQ(c->nrow, 2);
	s.data = b.b;
	s.size = b.n;
	s.addr = 0;
	KT_EXPECT_EQ(kuw_ehf_walk(&obj_x86, &s, false, &s2, &st, &d), 55);
	/* Without a sink: validate and count only. */
	KT_EXPECT_EQ(walk_bb(&b, false, 0, NULL, &st, &d), 0);
	KT_EXPECT_EQ(st.ncie, 1);
	KT_EXPECT_EQ(st.nfde, 2);
	KT_EXPECT_EQ(st.nrows, 6);
	kcfi_col_free(c);
}

/* ---- .debug_frame ---- */

/* Add @b as .debug_frame to a copy of @so and compare with readelf. */
static void debug_frame_vs_readelf(const struct bb *b, const char *so,
				   const char *name, u32 want_fdes)
{
	char bin[512], out[512], cmd[2048];
	struct kcfi_col *c;
	struct kcfi_obj x;
	struct kuw_diag d = { 0 };
	FILE *f;
	u32 n = 0;

	snprintf(bin, sizeof(bin), "%s/%s.bin", kt_builddir, name);
	snprintf(out, sizeof(out), "%s/%s.so", kt_builddir, name);
	f = fopen(bin, "wb");
	KT_ASSERT(f);
	fwrite(b->b, 1, b->n, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --remove-section .debug_frame "
		 "--add-section .debug_frame='%s' '%s' '%s'", bin, so, out);
	KT_ASSERT(!system(cmd));
	KT_ASSERT(!kcfi_load(&x, out));
	KT_ASSERT(x.has_dbg);
	c = kcfi_col_new();
	KT_EXPECT_EQ(kcfi_walk(&x.o, &x.dbg, true, c, NULL, &d), 0);
	KT_EXPECT_EQ(c->nfde, want_fdes);
	KT_EXPECT_EQ(kcfi_readelf_compare(out, true, KUW_ARCH_X86_64, c, &n), 0);
	KT_EXPECT(n >= 3 * want_fdes);
	kcfi_col_free(c);
	kcfi_unload(&x);
}

KT_TEST(ehf_debug_frame_hand_built)
{
	/*
	 * DWARF32 and DWARF64 records mixed, CIE v1/v3/v4, section-offset
	 * CIE pointers (one pointing forward), an FDE of a discarded
	 * section (start 0, skipped), placed over the text of a fixture.
	 */
	char *so = kcfi_build("cfi_many", NULL, NULL);
	struct kcfi_obj x;
	struct bb b = { .n = 0 };
	u64 t;
	u32 c1, c3, c4, fwd_at;

	KT_ASSERT(so);
	KT_ASSERT(!kcfi_load(&x, so));
	t = x.o.text_start;
	kcfi_unload(&x);
	c1 = cie(&b, true, false, 1, "", NULL, 0, false);
	c3 = cie(&b, true, true, 3, "", NULL, 0, false);
	c4 = cie(&b, true, false, 4, "zS", NULL, 0, true);
	fde(&b, true, false, c1, t, 4, false, prog1, sizeof(prog1));
	fde(&b, true, true, c3, t + 4, 4, false, prog1, sizeof(prog1));
	fde(&b, true, false, c4, t + 8, 4, true, prog1, sizeof(prog1));
	fde(&b, true, false, c1, 0, 4, false, prog1, sizeof(prog1));
	debug_frame_vs_readelf(&b, so, "ehf_dbg_hand", 3);

	/*
	 * A forward reference: the CIE comes after its FDE (readelf does not
	 * run such a CIE's initial instructions, so no comparison): the
	 * rows are those of the same program under the same CIE.
	 */
	{
		struct kcfi_col *c = kcfi_col_new();
		struct kuw_diag d;
		char t0[1024];

		b.n = 0;
		c1 = cie(&b, true, false, 1, "", NULL, 0, false);
		fde(&b, true, false, c1, 0x2000, 4, false, prog1,
		    sizeof(prog1));
		fwd_at = fde(&b, true, false, 0, 0x3000, 4, false, prog1,
			     sizeof(prog1));
		c1 = b.n;
		memcpy(b.b + fwd_at + 4, &c1, 4);
		cie(&b, true, false, 1, "", NULL, 0, false);
		KT_EXPECT_EQ(walk_bb(&b, true, 0, c, NULL, &d), 0);
		KT_ASSERT_EQ(c->nfde, 2);
		snprintf(t0, sizeof(t0), "%s",
			 kcfi_fde_text(c, 0, KUW_ARCH_X86_64));
		KT_EXPECT_STR(t0, PROG1_ROWS);
		KT_EXPECT_STR(kcfi_fde_text(c, 1, KUW_ARCH_X86_64), t0);
		kcfi_col_free(c);
	}

	/* 'R' is not allowed in .debug_frame. */
	{
		struct kuw_diag d;

		b.n = 0;
		c1 = cie(&b, true, false, 1, "zR", zr_abs, 1, true);
		fde(&b, true, false, c1, 0x2000, 4, true, prog1,
		    sizeof(prog1));
		KT_EXPECT_EQ(walk_bb(&b, true, 0, NULL, NULL, &d),
			     -KUW_E_BADAUG);
		KT_EXPECT_STR(d.section, ".debug_frame");
		/* CIE pointer beyond the section. */
		b.n = 0;
		c1 = cie(&b, true, false, 1, "", NULL, 0, false);
		fde(&b, true, false, 0x7000, 0x2000, 4, false, prog1,
		    sizeof(prog1));
		KT_EXPECT_EQ(walk_bb(&b, true, 0, NULL, NULL, &d),
			     -KUW_E_BADCIE);
		KT_EXPECT_EQ(d.off, 18 + 4);	/* after an 18-byte CIE */
	}
	free(so);
}

KT_TEST(ehf_debug_frame_and_eh_frame_from_as)
{
	/* `.cfi_sections .eh_frame, .debug_frame`: both give the same rows. */
	static const char src[] =
		"\t.cfi_sections .eh_frame, .debug_frame\n"
		"\t.text\n\t.globl f\nf:\n\t.cfi_startproc\n"
		"\tpush %rbp\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset rbp, -16\n"
		"\tmov %rsp, %rbp\n\t.cfi_def_cfa_register rbp\n"
		"\tpush %rbx\n\t.cfi_offset rbx, -24\n"
		"\tpop %rbx\n\t.cfi_restore rbx\n"
		"\tpop %rbp\n\t.cfi_def_cfa rsp, 8\n\tret\n\t.cfi_endproc\n"
		"\t.globl g\ng:\n\t.cfi_startproc\n\t.cfi_signal_frame\n"
		"\tsub $40, %rsp\n\t.cfi_adjust_cfa_offset 40\n"
		"\tadd $40, %rsp\n\t.cfi_adjust_cfa_offset -40\n\tret\n"
		"\t.cfi_endproc\n";
	struct kcfi_col *ce = kcfi_col_new(), *cd = kcfi_col_new();
	struct kuw_diag d = { 0 };
	struct kuw_stats st;
	struct kcfi_obj x;
	char so[512], te[4096];
	u32 n = 0, i;

	KT_ASSERT_EQ(kcfi_run_asm("ehf_both", src, false, &x, ce, &d), 0);
	KT_EXPECT_EQ(kcfi_walk(&x.o, &x.dbg, true, cd, &st, &d), 0);
	KT_EXPECT_EQ(st.nfde, 2);
	KT_ASSERT_EQ(ce->nfde, 2);
	KT_ASSERT_EQ(cd->nfde, 2);
	for (i = 0; i < 2; i++) {
		snprintf(te, sizeof(te), "%s",
			 kcfi_fde_text(ce, i, KUW_ARCH_X86_64));
		KT_EXPECT_STR(kcfi_fde_text(cd, i, KUW_ARCH_X86_64), te);
		KT_EXPECT_EQ(ce->fde[i].f.start, cd->fde[i].f.start);
		KT_EXPECT_EQ(ce->fde[i].f.signal, cd->fde[i].f.signal);
		KT_EXPECT_EQ(cd->fde[i].f.src, KUW_SRC_DEBUG_FRAME);
	}
	KT_EXPECT_EQ(cd->fde[1].f.signal, 1);
	snprintf(so, sizeof(so), "%s/ehf_both.so", kt_builddir);
	KT_EXPECT_EQ(kcfi_readelf_compare(so, true, KUW_ARCH_X86_64, cd, &n), 0);
	KT_EXPECT_EQ(kcfi_readelf_compare(so, false, KUW_ARCH_X86_64, ce, &n), 0);
	kcfi_unload(&x);
	kcfi_col_free(ce);
	kcfi_col_free(cd);
}

static int count_lines(const char *path, const char *what)
{
	char cmd[1024], line[1024];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		n += strstr(line, what) != NULL;
	pclose(p);
	return n;
}

KT_TEST(ehf_relocatable_object)
{
	/*
	 * A .o as the module loader sees it: no terminator, pcrel fields
	 * (and .debug_frame's absolute ones) relocated by tools/elf.c.  Same
	 * rows as the linked .so, at the same distance from each other.
	 */
	struct kcfi_col *cs = kcfi_col_new(), *co = kcfi_col_new();
	struct kcfi_obj xs, xo;
	struct kuw_diag d = { 0 };
	char obj[512], so[512], ts[8192];
	int dbg;
	u32 i;

	/* ehf_both is built by ehf_debug_frame_and_eh_frame_from_as. */
	snprintf(obj, sizeof(obj), "%s/ehf_both.o", kt_builddir);
	snprintf(so, sizeof(so), "%s/ehf_both.so", kt_builddir);
	KT_ASSERT(!kcfi_load(&xs, so));
	KT_ASSERT(!kcfi_load(&xo, obj));
	KT_EXPECT(xo.o.flags & KUW_OBJ_RELOCATED);
	/* readelf: the .o ends without a zero terminator */
	KT_EXPECT_EQ(count_lines(obj, "ZERO terminator"), 0);
	KT_EXPECT_EQ(count_lines(obj, " FDE cie="), 4);	/* 2 + 2 */
	for (dbg = 0; dbg < 2; dbg++) {
		memset(cs, 0, offsetof(struct kcfi_col, row));
		memset(co, 0, offsetof(struct kcfi_col, row));
		cs->nrow = co->nrow = 0;
		KT_EXPECT_EQ(kcfi_walk(&xs.o, dbg ? &xs.dbg : &xs.ehf, dbg, cs,
				       NULL, &d), 0);
		KT_EXPECT_EQ(kcfi_walk(&xo.o, dbg ? &xo.dbg : &xo.ehf, dbg, co,
				       NULL, &d), 0);
		KT_EXPECT_EQ(cs->nfde, 2);
		KT_EXPECT_EQ(co->nfde, 2);
		for (i = 0; i < cs->nfde && i < co->nfde; i++) {
			snprintf(ts, sizeof(ts), "%s",
				 kcfi_fde_text(cs, i, KUW_ARCH_X86_64));
			KT_EXPECT_STR(kcfi_fde_text(co, i, KUW_ARCH_X86_64),
				      ts);
			KT_EXPECT_EQ(co->fde[i].f.start - co->fde[0].f.start,
				     cs->fde[i].f.start - cs->fde[0].f.start);
			KT_EXPECT(co->fde[i].f.start >= xo.o.text_start);
		}
	}
	kcfi_unload(&xs);
	kcfi_unload(&xo);
	kcfi_col_free(cs);
	kcfi_col_free(co);
}

/* ---- .eh_frame_hdr ---- */

KT_TEST(ehf_hdr_from_ld)
{
	char *so = kcfi_build("cfi_many", NULL, NULL);
	struct kcfi_obj x;
	struct kuw_diag d = { 0 };
	struct kuw_stats st;
	struct kuw_sec h;
	u8 *copy;
	u32 n = 0;

	KT_ASSERT(so);
	KT_ASSERT(!kcfi_load(&x, so));
	KT_ASSERT(x.has_hdr);
	KT_EXPECT_EQ(kuw_ehhdr_check(&x.o, &x.hdr, &x.ehf, &n, &d), 0);
	KT_EXPECT_EQ(kuw_ehf_walk(&x.o, &x.ehf, false, NULL, &st, &d), 0);
	KT_EXPECT_EQ(n, st.nfde);
	KT_EXPECT(n >= 6);

	copy = malloc(x.hdr.size);
	KT_ASSERT(copy);
	h = x.hdr;
	h.data = copy;
#define HDR_CASE(mod, err, where) do {					\
		memcpy(copy, x.hdr.data, x.hdr.size);			\
		mod;							\
		memset(&d, 0, sizeof(d));				\
		KT_EXPECT_EQ(kuw_ehhdr_check(&x.o, &h, &x.ehf, &n, &d), \
			     -(err));					\
		KT_EXPECT_EQ(d.off, where);				\
		KT_EXPECT_STR(d.section, ".eh_frame_hdr");		\
	} while (0)
	/* ld writes: 1, pcrel|sdata4, udata4, datarel|sdata4. */
	KT_EXPECT_EQ(x.hdr.data[1], 0x1b);
	KT_EXPECT_EQ(x.hdr.data[2], 0x03);
	KT_EXPECT_EQ(x.hdr.data[3], 0x3b);
	HDR_CASE(copy[0] = 2, KUW_E_BADVER, 0);
	HDR_CASE(copy[3] = 0x1b, KUW_E_BADENC, 3);
	HDR_CASE(copy[3] = 0xff, KUW_E_BADENC, 3);
	HDR_CASE(copy[2] = 0xff, KUW_E_BADENC, 2);
	HDR_CASE(copy[4] ^= 1, KUW_E_BADHDR, 4);
	HDR_CASE(copy[8] += 1, KUW_E_BADLEN, 8);
	/* swap the first two entries: unsorted */
	HDR_CASE((memcpy(copy + 12, x.hdr.data + 20, 8),
		  memcpy(copy + 20, x.hdr.data + 12, 8)), KUW_E_UNSORTED, 20);
	/* entry 0 points at the CIE (offset 0 of .eh_frame) */
	HDR_CASE(({ s32 v = (s32)(x.ehf.addr - x.hdr.addr);
		    memcpy(copy + 16, &v, 4); }), KUW_E_BADCIE, 16);
	/* entry 0 points outside .eh_frame */
	HDR_CASE(({ s32 v = (s32)(x.ehf.addr + x.ehf.size - x.hdr.addr);
		    memcpy(copy + 16, &v, 4); }), KUW_E_BADHDR, 16);
	/* entry 1's FDE does not cover entry 1's location */
	HDR_CASE(memcpy(copy + 24, x.hdr.data + 16, 4), KUW_E_BADHDR, 20);
	/* truncated header */
	h.size = 3;
	HDR_CASE((void)0, KUW_E_TRUNC, 0);
#undef HDR_CASE
	free(copy);
	kcfi_unload(&x);
	free(so);
}

/* ---- real binaries of this machine ---- */

static u32 readelf_fde_count(const char *path, const char *sec)
{
	char cmd[1024], line[1024];
	bool in = false;
	u32 n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "Contents of the ", 16))
			in = !strncmp(line + 16, sec, strlen(sec)) &&
				line[16 + strlen(sec)] == ' ';
		else if (in && strstr(line, " FDE cie="))
			n++;
	}
	pclose(p);
	return n;
}

KT_TEST(ehf_real_binaries)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/bin/python3",
		"/usr/lib/x86_64-linux-gnu/libffi.so.8",
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		struct kuw_diag d = { 0 };
		struct kuw_stats st = { 0 };
		struct kcfi_obj x;
		u32 n = 0, want;

		if (access(files[i], R_OK) || kcfi_load(&x, files[i]))
			continue;
		want = readelf_fde_count(files[i], ".eh_frame");
		KT_EXPECT_EQ(kuw_ehf_walk(&x.o, &x.ehf, false, NULL, &st, &d),
			     0);
		if (d.err)
			printf("  %s: %s+0x%llx: %s\n", files[i], d.section,
			       d.off, kuw_strerror(d.err));
		KT_EXPECT_EQ(st.nfde, want);
		KT_EXPECT(st.nrows > st.nfde);
		if (x.has_hdr) {
			KT_EXPECT_EQ(kuw_ehhdr_check(&x.o, &x.hdr, &x.ehf, &n,
						     &d), 0);
			KT_EXPECT(n > 0 && n <= st.nfde);
		}
		kcfi_unload(&x);
	}
}

/* A version 1 .debug_frame CIE with data alignment @da and program @ins. */
static u32 cie_da(struct bb *b, s64 da, const u8 *ins, u32 n)
{
	u32 at = rec_start(b, false);

	bn(b, ~0ULL, 4);
	b8(b, 1);
	b8(b, 0);		/* augmentation "" */
	bul(b, 1);		/* code align */
	bsl(b, da);
	b8(b, 16);		/* return address column */
	bbytes(b, ins, n);
	rec_end(b, at, false);
	return at;
}

KT_TEST(ehf_fast_path_per_cie)
{
	/*
	 * The CFI fast path remembers what a run of rule ops does from a
	 * state under one CIE run: the same bytes from the same state under
	 * another CIE mean something else (offsets scale by its data
	 * alignment, restore goes back to its initial rules).  CIEs A and B
	 * differ in both; each program first makes rbx = rsi, which brings
	 * both to one state, then runs bytes whose meaning depends on the
	 * CIE.  Two FDEs under A, then the same two under B; readelf is the
	 * truth.
	 */
	static const u8 ia[] = {
		0x0c, 0x07, 0x08,	/* cfa rsp+8 */
		0x90, 0x01,		/* ra at 1 * -8 */
		0x83, 0x03,		/* rbx at 3 * -8 */
	};
	static const u8 ib[] = {
		0x0c, 0x07, 0x08,	/* cfa rsp+8 */
		0x90, 0x02,		/* ra at 2 * -4 */
	};
	static const u8 p1[] = {
		0x41, 0x09, 0x03, 0x04,		/* +1: rbx = rsi */
		0x41, 0xc3, 0x0e, 0x10,		/* +1: restore rbx, cfa 16 */
	};
	static const u8 p2[] = {
		0x41, 0x09, 0x03, 0x04,		/* +1: rbx = rsi */
		0x41, 0x86, 0x04,		/* +1: rbp at 4 * da */
	};
	char *so = kcfi_build("cfi_many", NULL, NULL);
	struct kcfi_obj x;
	struct bb b = { .n = 0 };
	u32 ca, cb;
	u64 t;

	KT_ASSERT(so);
	KT_ASSERT(!kcfi_load(&x, so));
	t = x.o.text_start;
	kcfi_unload(&x);
	ca = cie_da(&b, -8, ia, sizeof(ia));
	cb = cie_da(&b, -4, ib, sizeof(ib));
	fde(&b, true, false, ca, t, 3, false, p1, sizeof(p1));
	fde(&b, true, false, ca, t + 3, 3, false, p2, sizeof(p2));
	fde(&b, true, false, cb, t + 6, 3, false, p1, sizeof(p1));
	fde(&b, true, false, cb, t + 9, 3, false, p2, sizeof(p2));
	debug_frame_vs_readelf(&b, so, "ehf_fast_cie", 4);
	free(so);
}
