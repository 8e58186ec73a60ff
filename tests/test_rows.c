// SPDX-License-Identifier: GPL-2.0
/*
 * The compiled table against the walker it was compiled from: on real
 * objects of this machine, every row the section walker reports must be
 * what kuw_table_lookup() returns at the row's first and last byte, and
 * every pc outside all FDEs must have no info.  The walker itself is
 * checked against readelf and objdump by tests/difftest.sh.
 */
#include "kt.h"
#include "cfi_fixture.h"

struct tr_fde {
	u64 start, end;
	u32 first, n;
	u32 pcmask;
};

struct tr_row {
	u64 pc;
	char text[256];
};

struct tr_walk {
	u8 arch;
	struct tr_fde *fde;
	u32 nfde, cap_fde;
	struct tr_row *row;
	u32 nrow, cap_row;
};

static int tr_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct tr_walk *w = ctx;

	if (w->nfde == w->cap_fde) {
		w->cap_fde = w->cap_fde ? 2 * w->cap_fde : 1024;
		w->fde = realloc(w->fde, w->cap_fde * sizeof(*w->fde));
	}
	w->fde[w->nfde].start = f->start;
	w->fde[w->nfde].end = f->end;
	w->fde[w->nfde].first = w->nrow;
	w->fde[w->nfde].n = 0;
	w->fde[w->nfde].pcmask = f->pcmask;
	w->nfde++;
	return 0;
}

/* Rows are kept as text with the pc left out: equal text, equal rule. */
static int tr_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct tr_walk *w = ctx;
	char *sp;

	if (w->nrow == w->cap_row) {
		w->cap_row = w->cap_row ? 2 * w->cap_row : 4096;
		w->row = realloc(w->row, w->cap_row * sizeof(*w->row));
	}
	w->row[w->nrow].pc = pc;
	kuw_format_row(w->row[w->nrow].text, sizeof(w->row[0].text), w->arch,
		       0, r);
	sp = strchr(w->row[w->nrow].text, ' ');
	memmove(w->row[w->nrow].text, sp ? sp + 1 : "",
		strlen(sp ? sp + 1 : "") + 1);
	w->nrow++;
	w->fde[w->nfde - 1].n++;
	return 0;
}

static int tr_text_at(const struct kuw_table *t, u64 pc, char *buf, u32 len)
{
	const struct kuw_rule *r;
	char *sp;
	int ret;

	ret = kuw_table_lookup(t, pc, &r, NULL);
	if (ret)
		return ret;
	kuw_format_row(buf, len, t->arch, 0, r);
	sp = strchr(buf, ' ');
	memmove(buf, sp ? sp + 1 : "", strlen(sp ? sp + 1 : "") + 1);
	return 0;
}

static int tr_cmp_fde(const void *a, const void *b)
{
	const struct tr_fde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Check one section of one file; returns the rows checked. */
static u32 tr_check(const char *path, int src)
{
	struct kuw_sink sink = { tr_fde, tr_row, NULL };
	struct kuw_diag d = { 0 };
	struct tr_walk w = { 0 };
	struct kuw_table *t = NULL;
	struct kuw_stats st = { 0 };
	struct kuw_sec ks;
	struct kuw_obj o;
	struct kuw_elf e;
	char buf[256];
	u32 i, j, checked = 0;
	int ret;

	if (!kcfi_open_sec(&e, path, kuw_src_section(src), &o, &ks))
		return 0;
	w.arch = o.arch;
	sink.ctx = &w;
	if (src == KUW_SRC_SFRAME)
		ret = kuw_sfr_walk(&o, &ks, &sink, &st, &d);
	else
		ret = kuw_ehf_walk(&o, &ks, src == KUW_SRC_DEBUG_FRAME, &sink,
				   &st, &d);
	KT_EXPECT_EQ(ret, 0);
	ret = kuw_table_build(&o, src, &ks, &t, &d);
	KT_EXPECT_EQ(ret, 0);
	if (ret || !t)
		goto out;
	KT_EXPECT(t->bytes > 0);

	/* rows: the row's rule from its first byte up to the next row */
	for (i = 0; i < w.nfde; i++) {
		const struct tr_fde *f = &w.fde[i];

		for (j = 0; j < f->n; j++) {
			const struct tr_row *r = &w.row[f->first + j];
			u64 pc = r->pc, next = j + 1 < f->n ? r[1].pc : f->end;

			if (f->pcmask) {
				/* offsets in the block: check the last block */
				u64 blk = f->start + (f->end - f->start - 1) /
					  f->pcmask * f->pcmask;

				if (j + 1 >= f->n || next > f->pcmask)
					next = f->pcmask;
				pc += blk;
				next += blk;
				if (next > f->end)
					next = f->end;
			}
			if (pc >= f->end || next <= pc)
				continue;	/* covers nothing */
			ret = tr_text_at(t, pc, buf, sizeof(buf));
			KT_EXPECT_EQ(ret, 0);
			if (!ret && strcmp(buf, r->text)) {
				kt_fail(__FILE__, __LINE__,
					"%s 0x%llx: table \"%s\" walker \"%s\"",
					path, pc, buf, r->text);
				goto out;
			}
			ret = tr_text_at(t, next - 1, buf, sizeof(buf));
			KT_EXPECT(!ret && !strcmp(buf, r->text));
			checked++;
		}
	}
	/* a pc is reported under a row that starts inside its own FDE */
	for (i = 0; i < w.nfde; i++) {
		const struct kuw_rule *r;
		u64 row_pc = 0;

		if (w.fde[i].start == w.fde[i].end || !w.fde[i].n)
			continue;
		KT_EXPECT_EQ(kuw_table_lookup(t, w.fde[i].start, &r, &row_pc), 0);
		if (row_pc != w.fde[i].start) {
			kt_fail(__FILE__, __LINE__,
				"%s: FDE at 0x%llx reported under row 0x%llx",
				path, w.fde[i].start, row_pc);
			break;
		}
	}
	/* gaps between FDEs (and before the first, after the last): no info */
	qsort(w.fde, w.nfde, sizeof(*w.fde), tr_cmp_fde);
	for (i = 0; i + 1 < w.nfde; i++) {
		u64 gap = w.fde[i].end;

		if (w.fde[i].start == w.fde[i].end)
			continue;
		if (gap < w.fde[i + 1].start) {
			const struct kuw_rule *r;

			KT_EXPECT_EQ(kuw_table_lookup(t, gap, &r, NULL),
				     -KUW_E_NOINFO);
			KT_EXPECT_EQ(kuw_table_lookup(t, w.fde[i + 1].start - 1,
						      &r, NULL),
				     -KUW_E_NOINFO);
		}
	}
	if (w.nfde) {
		const struct kuw_rule *r;

		KT_EXPECT_EQ(kuw_table_lookup(t, t->start - 1, &r, NULL),
			     -KUW_E_NOINFO);
		KT_EXPECT_EQ(kuw_table_lookup(t, t->end, &r, NULL),
			     -KUW_E_NOINFO);
	}
out:
	if (d.err)
		kt_fail(__FILE__, __LINE__, "%s: %s+0x%llx: %s", path,
			d.section, d.off, kuw_strerror(d.err));
	kuw_table_free(t);
	free(w.fde);
	free(w.row);
	kuw_elf_close(&e);
	return checked;
}

KT_TEST(rows_table_matches_walker_libc)
{
	KT_EXPECT(tr_check("/usr/lib/x86_64-linux-gnu/libc.so.6",
			   KUW_SRC_EH_FRAME) > 10000);
}

KT_TEST(rows_table_matches_walker_libstdcxx)
{
	KT_EXPECT(tr_check("/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
			   KUW_SRC_EH_FRAME) > 10000);
}

KT_TEST(rows_table_matches_walker_self_sframe)
{
	KT_EXPECT(tr_check("/proc/self/exe", KUW_SRC_SFRAME) > 100);
	KT_EXPECT(tr_check("/proc/self/exe", KUW_SRC_EH_FRAME) > 100);
}

/* Tables are small: ORC spends 10 bytes per entry, we aim at <= 8 per row. */
KT_TEST(rows_table_size_per_row)
{
	struct kuw_diag d = { 0 };
	const struct kuw_elf_sec *s;
	struct kuw_table *t = NULL;
	struct kuw_sec ks;
	struct kuw_obj o;
	struct kuw_elf e;

	KT_ASSERT(kuw_elf_open(&e, "/usr/lib/x86_64-linux-gnu/libc.so.6") ==
		  KUW_ELF_OK);
	s = kuw_elf_find(&e, ".eh_frame");
	KT_ASSERT(s);
	kuw_elf_obj(&e, "libc", &o);
	kuw_elf_kuw_sec(s, &ks);
	KT_ASSERT_EQ(kuw_table_build(&o, KUW_SRC_EH_FRAME, &ks, &t, &d), 0);
	printf("# libc .eh_frame: %u rows, %u rules, %llu bytes, %.2f B/row\n",
	       t->nrows, t->nrules, t->bytes, (double)t->bytes / t->nrows);
	KT_EXPECT(t->bytes <= 8ULL * t->nrows + 4096);
	kuw_table_free(t);
	kuw_elf_close(&e);
}
