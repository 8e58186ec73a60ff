// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: blobs (debugfs kunwind/load), then the table the
 * module builds from an accepted blob: a vmlinux one relocated like KASLR,
 * a module one moved section by section.
 *
 * Input: mode (1 byte: bit 0 = fix the checksum up so mutations reach the
 * checks behind it), KASLR delta (4, in 2 MiB units), then the blob.
 */
#include "common.h"
#include "blob.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct kuw_table *t = NULL;
	struct kuw_diag d = { 0 };
	struct kuw_remap map[KUW_BLOB_MAX_SECT];
	struct kuw_blob b;
	u8 mode = (u8)fz_take(&in, 1);
	s64 delta = (s64)(s32)fz_take(&in, 4) * (1ll << 21);
	u8 *buf;
	int ret;

	buf = malloc(in.n ? in.n : 1);
	if (!buf)
		return 0;
	memcpy(buf, in.p, in.n);
	if ((mode & 1) && in.n >= KUW_BLOB_HDR_SIZE) {
		u32 h;

		memset(buf + KUW_BLOB_OFF_CHECKSUM, 0, 4);
		h = kuw_blob_fnv1a(2166136261u, buf, in.n);
		buf[KUW_BLOB_OFF_CHECKSUM] = (u8)h;
		buf[KUW_BLOB_OFF_CHECKSUM + 1] = (u8)(h >> 8);
		buf[KUW_BLOB_OFF_CHECKSUM + 2] = (u8)(h >> 16);
		buf[KUW_BLOB_OFF_CHECKSUM + 3] = (u8)(h >> 24);
	}
	ret = kuw_blob_parse(buf, in.n, &b, &d);
	if (ret) {
		if (!d.err)
			__builtin_trap();
		free(buf);
		return 0;
	}
	if (b.sec.data + b.sec.size != buf + in.n ||
	    kuw_blob_size(b.nsect, b.sec.size) != in.n ||
	    b.obj.text_start >= b.obj.text_end)
		__builtin_trap();
	if (b.kind == KUW_BLOB_MODULE) {
		/* each section moved by its own multiple of the delta */
		struct kuw_blob_sect m;
		u32 i;

		for (i = 0; i < b.nsect; i++) {
			kuw_blob_sect_at(&b, i, &m);
			map[i].link_start = m.addr;
			map[i].link_end = m.addr + m.size;
			map[i].delta = (u64)delta * (i + 1);
		}
		b.obj.remap = map;
		b.obj.nremap = b.nsect;
		b.obj.text_start = 0;
		b.obj.text_end = ~0ULL;
	}
	if (!kuw_table_build(&b.obj, b.src, &b.sec, &t, &d)) {
		struct fz_in none = { NULL, 0 };

		if (b.kind == KUW_BLOB_VMLINUX)
			kuw_table_relocate(t, delta);
		fz_use_table(t, &none);
		kuw_table_free(t);
	}
	free(buf);
	return 0;
}
