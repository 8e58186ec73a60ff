// SPDX-License-Identifier: GPL-2.0
/*
 * The CFI interpreter's fast path (interned states, remembered runs of
 * rule ops, module/engine/cfi_fast.c) against its general path (KUW_OBJ_GENERAL) on
 * real objects: this runner, libc, libstdc++ and, when the test bed built
 * it, the test kernel's vmlinux.  Same result and the same rows, FDE by
 * FDE, as text.  readelf checks the rows themselves (tests/difftest.sh);
 * this checks that the two paths cannot drift apart where the fuzzers'
 * small inputs do not reach: thousands of FDEs under several CIEs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kt.h"
#include "engine.h"
#include "cfi_fixture.h"

struct cf_walk {
	u8 arch;
	u32 fdes;
	u32 rows;
	u64 hash;
};

static void cf_mix(struct cf_walk *w, const char *s)
{
	for (; *s; s++)
		w->hash = (w->hash ^ (u8)*s) * 0x100000001b3ULL;
}

static int cf_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct cf_walk *w = ctx;
	char buf[64];

	snprintf(buf, sizeof(buf), "fde %llx-%llx\n",
		 (unsigned long long)f->start, (unsigned long long)f->end);
	cf_mix(w, buf);
	w->fdes++;
	return 0;
}

static int cf_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct cf_walk *w = ctx;
	char buf[512];

	KT_EXPECT(kuw_format_row(buf, sizeof(buf), w->arch, pc, r) > 0);
	cf_mix(w, buf);
	w->rows++;
	return 0;
}

/* Walk .eh_frame of @path both ways; false when it has none. */
static bool cf_compare(const char *path)
{
	struct kuw_sink sink = { cf_fde, cf_row, NULL };
	struct cf_walk fast = { 0 }, gen = { 0 };
	struct kuw_diag d1 = { 0 }, d2 = { 0 };
	struct kuw_stats s1 = { 0 }, s2 = { 0 };
	struct kuw_obj o, g;
	struct kuw_sec ks;
	struct kuw_elf e;
	int r1, r2;

	if (!kcfi_open_sec(&e, path, ".eh_frame", &o, &ks))
		return false;
	g = o;
	g.flags |= KUW_OBJ_GENERAL;
	fast.arch = o.arch;
	gen.arch = o.arch;
	sink.ctx = &fast;
	r1 = kuw_ehf_walk(&o, &ks, false, &sink, &s1, &d1);
	sink.ctx = &gen;
	r2 = kuw_ehf_walk(&g, &ks, false, &sink, &s2, &d2);
	KT_EXPECT_EQ(r1, 0);
	KT_EXPECT_EQ(r1, r2);
	KT_EXPECT_EQ(d1.off, d2.off);
	KT_EXPECT_EQ(fast.fdes, gen.fdes);
	KT_EXPECT_EQ(fast.rows, gen.rows);
	KT_EXPECT_EQ(s1.nrows, s2.nrows);
	KT_EXPECT_EQ(fast.hash, gen.hash);
	KT_EXPECT(fast.rows > fast.fdes);
	printf("  %s: %u FDEs, %u rows alike\n", path, fast.fdes, fast.rows);
	kuw_elf_close(&e);
	return true;
}

KT_TEST(cfi_fast_path_equals_general_path)
{
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	};
	const char *cache = getenv("KUNWIND_CACHE");
	const char *home = getenv("HOME");
	char vmlinux[1024];
	u32 i, n = 0;
	FILE *p;

	KT_EXPECT(cf_compare("/proc/self/exe"));
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		n += cf_compare(libs[i]);
	KT_EXPECT(n >= 1);
	/* the test bed's kernels, if built: the biggest real case */
	snprintf(vmlinux, sizeof(vmlinux),
		 "ls -d %s%s/kbuild/*/vmlinux 2>/dev/null",
		 cache ? cache : home ? home : "/nonexistent",
		 cache ? "" : "/.cache/kunwind");
	p = popen(vmlinux, "r");
	if (!p)
		return;
	while (fgets(vmlinux, sizeof(vmlinux), p)) {
		vmlinux[strcspn(vmlinux, "\n")] = 0;
		cf_compare(vmlinux);
	}
	pclose(p);
}
