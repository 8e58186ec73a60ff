/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): a cursor over the
 * fuzzer's input for the few parameters a target takes before the section
 * bytes (addresses, text range, mode bits), and the engine's home on the
 * fuzzing host (tests/fuzz/common.c: kuw_read_mem() that fails every read,
 * logging off).  Seed inputs are laid out by tests/fuzz/mkcorpus.py.
 */
#ifndef KUNWIND_FUZZ_COMMON_H
#define KUNWIND_FUZZ_COMMON_H

#include "engine.h"

struct fz_in {
	const u8 *p;
	size_t n;
};

/* Take @len bytes as a little-endian integer; missing bytes read as 0. */
static inline u64 fz_take(struct fz_in *in, int len)
{
	u64 v = 0;
	int i;

	for (i = 0; i < len; i++) {
		if (in->n) {
			v |= (u64)in->p[0] << (8 * i);
			in->p++;
			in->n--;
		}
	}
	return v;
}

/*
 * Exercise a built table: look up a few pcs around its start, middle and
 * end, and the pcs @in still supplies, and format every rule found.
 */
void fz_use_table(const struct kuw_table *t, struct fz_in *in);

/*
 * The object and section of the walker targets, from @in after its mode
 * byte: the section's address, the text range (8 bytes each), then the
 * section's bytes.  Arch and flags come from the mode byte.
 */
void fz_obj_sec(struct fz_in *in, bool arm64, bool relocated,
		struct kuw_obj *o, struct kuw_sec *s);

/*
 * kuw_table_build() of @src from @s: an error must say where; a table is
 * exercised with fz_use_table() on up to 32 bytes of @data after its
 * first.  Returns whether the table was built.
 */
bool fz_build(const struct kuw_obj *o, int src, const struct kuw_sec *s,
	      const u8 *data, size_t size);

/* A sink that formats every row (exercises kuw_format_row). */
extern const struct kuw_sink fz_format_sink;

#endif /* KUNWIND_FUZZ_COMMON_H */
