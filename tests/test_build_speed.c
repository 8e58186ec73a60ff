// SPDX-License-Identifier: GPL-2.0
/*
 * The table build's shortcuts give the same table as the plain walk.
 * kuw_table_build() takes the rules of .eh_frame rows by the interpreter's
 * rule ids (kuw_sink_ext.row_id: a state met again is not converted,
 * hashed and compared again); the plain kuw_ehf_walk() hands its row
 * callback each row's rule.  On real objects (this runner, libc,
 * libstdc++): every row the plain walk reports, looked up in the table at
 * its start and at the last byte before the next row, gives that row's
 * rule; and one id never stands for two different rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kt.h"
#include "engine.h"
#include "cfi_fixture.h"

struct bs_row {
	u64 pc;
	u64 end;	/* next row's pc, or the FDE's end */
	char txt[224];
};

struct bs_walk {
	u8 arch;
	struct bs_row *rows;
	u32 n, cap;
	u64 fde_end;
	u32 fde_first;
	/* row_id: formatted rule of each id seen */
	char (*id_txt)[224];
	u32 id_cap;
	u32 id_bad;
	u32 nids;
};

static void bs_close_fde(struct bs_walk *w)
{
	u32 i;

	for (i = w->fde_first; i < w->n; i++)
		w->rows[i].end = i + 1 < w->n ? w->rows[i + 1].pc : w->fde_end;
}

static int bs_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct bs_walk *w = ctx;

	bs_close_fde(w);
	w->fde_first = w->n;
	w->fde_end = f->end;
	return 0;
}

static void bs_fmt(u8 arch, u64 pc, const struct kuw_rule *r, char *buf,
		   u32 len)
{
	int n = kuw_format_row(buf, len, arch, pc, r);

	if (n >= 0 && (u32)n + 8 < len)
		snprintf(buf + n, len - n, " f=%x", r->flags & ~KUW_RF_FAST);
}

static int bs_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct bs_walk *w = ctx;
	struct bs_row *x;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 4096;
		w->rows = realloc(w->rows, w->cap * sizeof(*w->rows));
		if (!w->rows)
			return 90;
	}
	x = &w->rows[w->n++];
	x->pc = pc;
	bs_fmt(w->arch, 0, r, x->txt, sizeof(x->txt));
	return 0;
}

static int bs_row_id(void *ctx, u64 pc, const struct kuw_rule *r, u32 id)
{
	struct bs_walk *w = ctx;
	char t[224];

	if (!id)
		return 91;
	if (id >= w->id_cap) {
		u32 old = w->id_cap;

		w->id_cap = id * 2 + 64;
		w->id_txt = realloc(w->id_txt, w->id_cap * sizeof(*w->id_txt));
		if (!w->id_txt)
			return 90;
		memset(w->id_txt + old, 0, (w->id_cap - old) * sizeof(*w->id_txt));
	}
	bs_fmt(w->arch, 0, r, t, sizeof(t));
	if (!w->id_txt[id][0]) {
		strcpy(w->id_txt[id], t);
		w->nids++;
	} else if (strcmp(w->id_txt[id], t)) {
		w->id_bad++;
	}
	return 0;
}

/* Check one object; returns the rows compared (0 when it has none). */
static u32 bs_check(const char *path)
{
	struct kuw_sink sink = { bs_fde, bs_row, NULL };
	struct kuw_sink_ext ext = { .row_id = bs_row_id };
	struct bs_walk w = { 0 }, wi = { 0 };
	struct kuw_table *t = NULL;
	struct kuw_diag d = { 0 };
	struct kuw_stats st;
	struct kuw_elf e;
	struct kuw_obj o;
	struct kuw_sec s;
	u32 i, bad = 0, checked = 0;

	if (!kcfi_open_sec(&e, path, ".eh_frame", &o, &s))
		return 0;
	w.arch = o.arch;
	wi.arch = o.arch;
	sink.ctx = &w;
	KT_EXPECT_EQ(kuw_ehf_walk(&o, &s, false, &sink, &st, &d), 0);
	bs_close_fde(&w);
	sink.ctx = &wi;
	KT_EXPECT_EQ(kuw_ehf_walk_ext(&o, &s, false, &sink, &ext, NULL, &d),
		     0);
	KT_EXPECT_EQ(wi.id_bad, 0);
	KT_EXPECT(wi.nids > 0);
	KT_EXPECT_EQ(kuw_table_build(&o, KUW_SRC_EH_FRAME, &s, &t, &d), 0);
	for (i = 0; t && i < w.n; i++) {
		const struct bs_row *x = &w.rows[i];
		u64 at[2] = { x->pc, x->end - 1 };
		int k;

		if (x->end <= x->pc)
			continue;
		for (k = 0; k < 2; k++) {
			const struct kuw_rule *r;
			char buf[224];

			checked++;
			if (kuw_table_lookup(t, at[k], &r, NULL)) {
				if (!bad++)
					kt_fail(__FILE__, __LINE__,
						"%s: no rule at 0x%llx", path,
						(unsigned long long)at[k]);
				continue;
			}
			bs_fmt(o.arch, 0, r, buf, sizeof(buf));
			if (strcmp(buf, x->txt) && !bad++)
				kt_fail(__FILE__, __LINE__,
					"%s at 0x%llx: table \"%s\", walk \"%s\"",
					path, (unsigned long long)at[k], buf,
					x->txt);
		}
	}
	KT_EXPECT_EQ(bad, 0);
	kuw_table_free(t);
	free(w.rows);
	free(wi.rows);
	free(wi.id_txt);
	kuw_elf_close(&e);
	return checked;
}

KT_TEST(build_rule_ids_match_plain_walk)
{
	static const char *const objs[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	};
	u32 i;

	/* this runner always exists and has thousands of FDEs */
	KT_EXPECT(bs_check("/proc/self/exe") > 1000);
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
		bs_check(objs[i]);
}
