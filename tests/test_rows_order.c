// SPDX-License-Identifier: GPL-2.0
/*
 * kuw_table_build() on FDEs that come out of address order, as in vmlinux
 * (each object's .init.text FDEs after its .text ones): the FDE sort's
 * pile merge (a few interleaved ascending sequences), its fallback (more
 * sequences than piles, a shuffle), adjacent FDEs (end markers), and
 * overlap found whatever the order.  The .eh_frame is built byte by byte
 * here from a list of ranges; the truth is that list: FDE i covers
 * [start, start + len), CFA rsp+8 on its first byte, then rsp+16+8*(i%50).
 * Also a table with more than 65535 rules (32-bit rule indexes), from
 * CFI directives assembled by `as`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kt.h"
#include "engine.h"
#include "cfi_fixture.h"

struct ro_fde {
	u64 start;
	u64 len;
	u64 off;	/* offset of its record, filled by ro_build() */
	u32 id;		/* which CFA offset it gets: 16 + 8 * (id % 50) */
};

struct ro_buf {
	u8 *b;
	u32 n, cap;
};

static void ro_put(struct ro_buf *b, const void *p, u32 n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->b = realloc(b->b, b->cap);
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void ro_u8(struct ro_buf *b, u8 v)
{
	ro_put(b, &v, 1);
}

static void ro_u32(struct ro_buf *b, u32 v)
{
	ro_put(b, &v, 4);	/* the host is little-endian, as x86_64 */
}

static void ro_u64(struct ro_buf *b, u64 v)
{
	ro_put(b, &v, 8);
}

static void ro_pad4(struct ro_buf *b, u32 rec)
{
	while ((b->n - rec) % 4)
		ro_u8(b, 0);	/* DW_CFA_nop */
}

/* One CIE ("zR", absolute 8-byte pointers), then one FDE per range. */
static void ro_build(struct ro_buf *b, struct ro_fde *f, u32 n)
{
	u32 rec, i, len;

	b->n = 0;
	rec = b->n;
	ro_u32(b, 0);			/* length, patched */
	ro_u32(b, 0);			/* CIE id */
	ro_u8(b, 1);			/* version */
	ro_put(b, "zR", 3);
	ro_u8(b, 1);			/* code_align */
	ro_u8(b, 0x78);			/* data_align -8 */
	ro_u8(b, 16);			/* return address column */
	ro_u8(b, 1);			/* augmentation data length */
	ro_u8(b, 0x00);			/* DW_EH_PE_absptr */
	ro_u8(b, 0x0c);			/* DW_CFA_def_cfa rsp+8 */
	ro_u8(b, 7);
	ro_u8(b, 8);
	ro_u8(b, 0x90);			/* DW_CFA_offset r16, cfa-8 */
	ro_u8(b, 1);
	ro_pad4(b, rec);
	len = b->n - rec - 4;
	memcpy(b->b + rec, &len, 4);
	for (i = 0; i < n; i++) {
		u32 cfa = 16 + 8 * (f[i].id % 50);

		rec = b->n;
		f[i].off = rec;
		ro_u32(b, 0);
		ro_u32(b, b->n);	/* back to the CIE at offset 0 */
		ro_u64(b, f[i].start);
		ro_u64(b, f[i].len);
		ro_u8(b, 0);		/* augmentation data length */
		ro_u8(b, 0x41);		/* DW_CFA_advance_loc 1 */
		ro_u8(b, 0x0e);		/* DW_CFA_def_cfa_offset, uleb */
		ro_u8(b, 0x80 | (cfa & 0x7f));
		ro_u8(b, cfa >> 7);
		ro_pad4(b, rec);
		len = b->n - rec - 4;
		memcpy(b->b + rec, &len, 4);
	}
}

static const struct kuw_obj ro_obj = {
	.owner = "rows_order",
	.arch = KUW_ARCH_X86_64,
};

static int ro_cmp_start(const void *a, const void *b)
{
	const struct ro_fde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A copy of the @n FDEs of @f sorted by @cmp (free() it). */
static struct ro_fde *ro_sorted(const struct ro_fde *f, u32 n,
				int (*cmp)(const void *, const void *))
{
	struct ro_fde *s = malloc(n * sizeof(*s));

	memcpy(s, f, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp);
	return s;
}

/* kuw_table_build() of the section @b at @addr. */
static int ro_table(const struct ro_buf *b, u64 addr, struct kuw_table **t,
		    struct kuw_diag *d)
{
	struct kuw_sec sec = { b->b, b->n, addr };

	return kuw_table_build(&ro_obj, KUW_SRC_EH_FRAME, &sec, t, d);
}

/*
 * Build the table of @f (no two overlapping, each len >= 2) and check
 * every byte of every FDE and the byte after it against the list.
 */
static void ro_check(struct ro_fde *f, u32 n)
{
	struct kuw_diag d = { 0 };
	struct ro_buf b = { 0 };
	struct kuw_table *t = NULL;
	struct ro_fde *s;
	u32 i, bad = 0, ends = 0;
	u64 pc;

	ro_build(&b, f, n);
	KT_ASSERT_EQ(ro_table(&b, 0x10000000, &t, &d), 0);
	KT_EXPECT_EQ(t->nfde, n);
	s = ro_sorted(f, n, ro_cmp_start);
	KT_EXPECT_EQ(t->start, s[0].start);
	KT_EXPECT_EQ(t->end, s[n - 1].start + s[n - 1].len);
	for (i = 0; i < n; i++) {
		for (pc = s[i].start; pc < s[i].start + s[i].len; pc++) {
			const struct kuw_rule *r = NULL;
			u64 row = 0;
			s32 want = pc == s[i].start ? 8 :
				   16 + 8 * (s[i].id % 50);

			if (kuw_table_lookup(t, pc, &r, &row) ||
			    r->cfa_kind != KUW_CFA_REG || r->cfa_reg != 7 ||
			    r->cfa_off != want ||
			    row != (pc == s[i].start ? pc : s[i].start + 1)) {
				if (!bad++)
					kt_fail(__FILE__, __LINE__,
						"fde %u pc 0x%llx", i, pc);
			}
		}
		/* the byte after: the next FDE's first, or no info */
		if (i + 1 < n && s[i + 1].start == pc) {
			ends++;
			continue;
		}
		{
			const struct kuw_rule *r;

			KT_EXPECT_EQ(kuw_table_lookup(t, pc, &r, NULL),
				     -KUW_E_NOINFO);
		}
	}
	KT_EXPECT_EQ(bad, 0);
	/* rows: 2 per FDE, plus an end marker unless the next one starts */
	KT_EXPECT_EQ(t->nrows, 3 * n - ends);
	kuw_table_free(t);
	free(s);
	free(b.b);
}

/*
 * @nseq ascending sequences interleaved: FDE m of sequence q is the
 * (m * nseq + q)-th record; sequences lie in descending address order,
 * so each one is a pile of its own.  Every third FDE ends where the next
 * of its sequence starts.
 */
static void ro_interleaved(u32 nseq, u32 per)
{
	struct ro_fde *f = calloc(nseq * per, sizeof(*f));
	u32 q, m, i = 0;

	for (m = 0; m < per; m++) {
		for (q = 0; q < nseq; q++, i++) {
			f[i].start = 0xffffffff81000000ULL +
				     (u64)(nseq - 1 - q) * 0x100000 + m * 32;
			f[i].len = m % 3 == 2 ? 32 : 8 + (i % 17);
			f[i].id = i;
		}
	}
	ro_check(f, nseq * per);
	free(f);
}

KT_TEST(rows_order_one_sequence)
{
	ro_interleaved(1, 300);
}

KT_TEST(rows_order_two_sequences)
{
	ro_interleaved(2, 300);
}

KT_TEST(rows_order_ten_sequences)
{
	ro_interleaved(10, 100);
}

KT_TEST(rows_order_32_sequences)
{
	ro_interleaved(32, 20);
}

KT_TEST(rows_order_33_sequences)
{
	ro_interleaved(33, 20);	/* more than the piles: the fallback sort */
}

/* Runs of different lengths, the long one last (as vmlinux's .text). */
KT_TEST(rows_order_uneven_sequences)
{
	static const u32 len[] = { 3, 40, 1, 200, 7, 2, 600 };
	struct ro_fde f[853];
	u32 q, m, i = 0;

	for (q = 0; q < ARRAY_SIZE(len); q++) {
		for (m = 0; m < len[q]; m++, i++) {
			/* sequence q at a lower address than q - 1 */
			f[i].start = 0x400000 + (u64)(7 - q) * 0x10000 +
				     m * 24;
			f[i].len = 24 - (m & 1) * 10;
			f[i].id = i;
		}
	}
	KT_ASSERT_EQ(i, ARRAY_SIZE(f));
	/* interleave the sequences' records: a fixed shuffle */
	for (q = 0; q < i; q++) {
		u32 j = (q * 7919 + 13) % i;
		struct ro_fde x = f[q];

		f[q] = f[j];
		f[j] = x;
	}
	ro_check(f, i);
}

/* A shuffle: many short runs, many piles. */
KT_TEST(rows_order_shuffled)
{
	struct ro_fde f[2000];
	u32 i, j, x = 12345;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		f[i].start = 0x1000 + (u64)i * 40;
		f[i].len = i % 5 ? 20 + i % 13 : 40;
		f[i].id = i;
	}
	for (i = ARRAY_SIZE(f) - 1; i > 0; i--) {
		struct ro_fde t;

		x = x * 1103515245 + 12345;
		j = (x >> 8) % (i + 1);
		t = f[i];
		f[i] = f[j];
		f[j] = t;
	}
	ro_check(f, ARRAY_SIZE(f));
}

/* Reference: the FDE that sorts after another one it overlaps. */
static int ro_cmp_full(const void *a, const void *b)
{
	const struct ro_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void ro_overlap(struct ro_fde *f, u32 n)
{
	struct kuw_diag d = { 0 };
	struct ro_buf b = { 0 };
	struct kuw_table *t = NULL;
	struct ro_fde *s;
	u64 want = ~0ULL;
	u32 i;

	ro_build(&b, f, n);
	s = ro_sorted(f, n, ro_cmp_full);
	for (i = 1; i < n; i++) {
		if (s[i].start < s[i - 1].start + s[i - 1].len) {
			want = s[i].off;
			break;
		}
	}
	KT_ASSERT(want != ~0ULL);
	KT_EXPECT_EQ(ro_table(&b, 0, &t, &d), -KUW_E_OVERLAP);
	KT_EXPECT(!t);
	KT_EXPECT_EQ(d.err, KUW_E_OVERLAP);
	KT_EXPECT_EQ(d.off, want);
	KT_EXPECT_STR(d.section, ".eh_frame");
	free(s);
	free(b.b);
}

/* Overlaps between FDEs of different sequences (piles), in each path. */
KT_TEST(rows_order_overlap_found)
{
	static const u32 nseq[] = { 1, 3, 10, 40 };
	struct ro_fde f[400];
	u32 k, q, m, i, n;

	for (k = 0; k < ARRAY_SIZE(nseq); k++) {
		n = 0;
		for (m = 0; m < 400 / nseq[k]; m++) {
			for (q = 0; q < nseq[k]; q++, n++) {
				f[n].start = 0x10000 + (u64)(nseq[k] - q) *
					     0x8000 + m * 32;
				f[n].len = 16;
				f[n].id = n;
			}
		}
		/* one FDE of the middle, made to reach into the next one */
		i = n / 2;
		f[i].len = 40;
		ro_overlap(f, n);
		/* and one starting inside an FDE of another sequence */
		f[i].len = 16;
		f[n - 1].start = f[0].start + 4;
		ro_overlap(f, n);
	}
}

/*
 * More than 65535 distinct rules: CFA offsets 16, 24, ... one per byte
 * of two functions of 35000 bytes each, assembled by `as`; the table then
 * stores 32-bit rule indexes.
 */
#define RO_WIDE_N	35000

KT_TEST(rows_wide_rule_indexes)
{
	struct kcfi_obj x;
	struct kuw_table *t = NULL;
	struct kuw_diag d = { 0 };
	u32 fn, k, bad = 0;
	size_t cap = 2 * (RO_WIDE_N + 8) * 40, n = 0;
	char *src = malloc(cap), *so;
	u64 pc;

	for (fn = 0; fn < 2; fn++) {
		n += snprintf(src + n, cap - n,
			      ".globl f%u\nf%u:\n.cfi_startproc\n", fn, fn);
		for (k = 0; k < RO_WIDE_N; k++)
			n += snprintf(src + n, cap - n,
				      "nop\n.cfi_def_cfa_offset %u\n",
				      16 + 8 * (fn * RO_WIDE_N + k));
		n += snprintf(src + n, cap - n, "ret\n.cfi_endproc\n");
	}
	so = kcfi_build("rows_wide", src, "");
	free(src);
	KT_ASSERT(so);
	KT_ASSERT(!kcfi_load(&x, so));
	KT_ASSERT_EQ(kuw_table_build(&x.o, KUW_SRC_EH_FRAME, &x.ehf, &t, &d),
		     0);
	KT_EXPECT(t->nrules > 65536);
	KT_EXPECT(t->rule32 && !t->rule16);
	/* f1 follows f0 (nothing aligns it): one range of 2 * (N + 1) */
	KT_EXPECT_EQ(t->end - t->start, 2 * (RO_WIDE_N + 1));
	for (fn = 0; fn < 2; fn++) {
		u64 f = t->start + fn * (RO_WIDE_N + 1);

		for (k = 0; k <= RO_WIDE_N; k++) {
			const struct kuw_rule *r = NULL;
			s32 want = k ? 16 + 8 * (fn * RO_WIDE_N + k - 1) : 8;

			pc = f + k;
			if (kuw_table_lookup(t, pc, &r, NULL) ||
			    r->cfa_reg != 7 || r->cfa_off != want) {
				if (!bad++)
					kt_fail(__FILE__, __LINE__,
						"f%u +%u", fn, k);
			}
		}
	}
	KT_EXPECT_EQ(bad, 0);
	kuw_table_free(t);
	kcfi_unload(&x);
	free(so);
}

/*
 * More rows than the build first makes room for (it guesses one per 4
 * bytes of section), every row different from the one before, in
 * RO_DENSE_F adjacent FDEs of 2 * RO_DENSE_N + 1 bytes: @restore, rows of
 * 2.5 bytes, rbx saved at cfa-16 on odd bytes (DW_CFA_offset) and
 * restored on even ones (DW_CFA_restore); else rows of 3 bytes, the CFA
 * offset 16 on odd bytes and 24 on even ones (DW_CFA_def_cfa_offset).
 */
#define RO_DENSE_F	100
#define RO_DENSE_N	200

static void ro_dense(bool restore)
{
	struct kuw_diag d = { 0 };
	struct ro_buf b = { 0 };
	struct kuw_table *t = NULL;
	struct ro_fde f = { .len = 2 * RO_DENSE_N + 1 };
	u32 i, j, rec, len, bad = 0;
	u64 k;

	ro_build(&b, &f, 0);	/* the CIE only */
	for (j = 0; j < RO_DENSE_F; j++) {
		rec = b.n;
		ro_u32(&b, 0);
		ro_u32(&b, b.n);
		ro_u64(&b, 0x40000 + j * f.len);
		ro_u64(&b, f.len);
		ro_u8(&b, 0);
		for (i = 0; i < RO_DENSE_N; i++) {
			ro_u8(&b, 0x41);	/* advance_loc 1 */
			if (restore) {
				ro_u8(&b, 0x83);	/* offset rbx, cfa-16 */
				ro_u8(&b, 2);
			} else {
				ro_u8(&b, 0x0e);	/* def_cfa_offset 16 */
				ro_u8(&b, 16);
			}
			ro_u8(&b, 0x41);
			if (restore) {
				ro_u8(&b, 0xc3);	/* restore rbx */
			} else {
				ro_u8(&b, 0x0e);	/* def_cfa_offset 24 */
				ro_u8(&b, 24);
			}
		}
		ro_pad4(&b, rec);
		len = b.n - rec - 4;
		memcpy(b.b + rec, &len, 4);
	}
	KT_ASSERT(RO_DENSE_F * f.len > b.n / 4 + 16);
	KT_ASSERT_EQ(ro_table(&b, 0, &t, &d), 0);
	KT_EXPECT_EQ(t->nrows, RO_DENSE_F * f.len + 1);
	for (k = 0; k < RO_DENSE_F * f.len; k++) {
		const struct kuw_rule *r = NULL;
		const struct kuw_reg_rule *rbx;
		u64 row = 0, kf = k % f.len;
		s32 cfa = restore || !kf ? 8 : kf & 1 ? 16 : 24;

		if (kuw_table_lookup(t, 0x40000 + k, &r, &row) ||
		    row != 0x40000 + k || r->cfa_off != cfa) {
			bad++;
			continue;
		}
		rbx = kuw_rule_find(r, 3);
		if ((restore && (kf & 1)) !=
		    (rbx && rbx->kind == KUW_R_OFFSET && rbx->off == -16))
			bad++;
	}
	KT_EXPECT_EQ(bad, 0);
	kuw_table_free(t);
	free(b.b);
}

KT_TEST(rows_dense_rows_grow)
{
	ro_dense(true);
	ro_dense(false);
}

/*
 * A table spans at most 4 GiB: FDEs further apart are TOOBIG, unless two
 * of them overlap, which is found first (the FDEs are still checked).
 */
KT_TEST(rows_span_too_large_after_overlap)
{
	struct ro_fde f[40];
	struct kuw_diag d = { 0 };
	struct ro_buf b = { 0 };
	struct kuw_table *t = NULL;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		/* two sequences, the second 8 GiB above the first */
		f[i].start = (i & 1 ? 0x200000000ULL : 0x10000) + (i / 2) * 64;
		f[i].len = 32;
		f[i].id = i;
	}
	ro_build(&b, f, ARRAY_SIZE(f));
	KT_EXPECT_EQ(ro_table(&b, 0, &t, &d), -KUW_E_TOOBIG);
	KT_EXPECT(!t);
	KT_EXPECT_EQ(d.off, 0);
	free(b.b);
	/* the 30th FDE reaches into the 32nd (the next of its sequence) */
	f[29].len = 80;
	ro_overlap(f, ARRAY_SIZE(f));
}
