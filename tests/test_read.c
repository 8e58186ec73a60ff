// SPDX-License-Identifier: GPL-2.0
/*
 * Byte cursor tests: fixed widths, the little-endian loads and stores,
 * LEB128 (DWARF 5 section 7.6 and its examples), DW_EH_PE_* pointers (LSB,
 * libgcc's read_encoded_value), the names of sources and sections.
 * Expected values come from the specifications' examples and from bytes
 * `as` writes for .uleb128/.sleb128 (checked against readelf below).
 */
#include "engine.h"
#include "read.h"
#include "dwarf.h"
#include "kt.h"

static void cur(struct kuw_cur *c, const u8 *b, u64 n, u64 addr)
{
	kuw_cur_init(c, b, n, addr);
}

KT_TEST(read_fixed_widths)
{
	static const u8 b[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	struct kuw_cur c;
	u8 v8;
	u16 v16;
	u32 v32;
	u64 v64;

	cur(&c, b, sizeof(b), 0);
	KT_EXPECT_EQ(kuw_rd_u8(&c, &v8), 0);
	KT_EXPECT_EQ(v8, 1);
	KT_EXPECT_EQ(kuw_rd_u16(&c, &v16), 0);
	KT_EXPECT_EQ(v16, 0x0302);
	KT_EXPECT_EQ(kuw_rd_u32(&c, &v32), 0);
	KT_EXPECT_EQ(v32, 0x07060504);
	KT_EXPECT_EQ(kuw_rd_u64(&c, &v64), 0);
	KT_EXPECT_EQ(v64, 0x0f0e0d0c0b0a0908ULL);
	KT_EXPECT_EQ(c.pos, 15);
	/* Nothing left: each read fails and the cursor stays. */
	KT_EXPECT_EQ(kuw_rd_u8(&c, &v8), -KUW_E_TRUNC);
	c.pos = 12;
	KT_EXPECT_EQ(kuw_rd_u32(&c, &v32), -KUW_E_TRUNC);
	KT_EXPECT_EQ(c.pos, 12);
	KT_EXPECT_EQ(kuw_rd_u64(&c, &v64), -KUW_E_TRUNC);
	KT_EXPECT_EQ(kuw_rd_u16(&c, &v16), 0);
	KT_EXPECT_EQ(kuw_rd_u16(&c, &v16), -KUW_E_TRUNC);
	KT_EXPECT_EQ(kuw_rd_skip(&c, 2), -KUW_E_TRUNC);
	KT_EXPECT_EQ(kuw_rd_skip(&c, 1), 0);
	KT_EXPECT_EQ(kuw_cur_left(&c), 0);
	/* A cursor whose end is before its position reads nothing. */
	c.pos = 20;
	KT_EXPECT_EQ(kuw_cur_left(&c), 0);
	KT_EXPECT_EQ(kuw_rd_u8(&c, &v8), -KUW_E_TRUNC);
}

/* The little-endian set (read.h) that the engine, tools and tests share. */
KT_TEST(read_le_loads_and_stores)
{
	static const u8 b[] = { 0x01, 0x82, 0x03, 0x84, 0x05, 0x86, 0x07, 0x88,
				0xff };
	u8 out[10];
	u32 n;

	KT_EXPECT_EQ(kuw_get_le16(b), 0x8201);
	KT_EXPECT_EQ(kuw_get_le16(b + 1), 0x0382);
	KT_EXPECT_EQ(kuw_get_le32(b), 0x84038201U);
	KT_EXPECT_EQ(kuw_get_le32(b + 5), 0xff880786U);
	KT_EXPECT_EQ(kuw_get_le64(b), 0x8807860584038201ULL);
	KT_EXPECT_EQ(kuw_get_le64(b + 1), 0xff88078605840382ULL);
	KT_EXPECT_EQ(kuw_get_le(b, 0), 0);
	KT_EXPECT_EQ(kuw_get_le(b, 1), 0x01);
	KT_EXPECT_EQ(kuw_get_le(b, 3), 0x038201);
	KT_EXPECT_EQ(kuw_get_le(b + 1, 8), kuw_get_le64(b + 1));
	for (n = 0; n <= 8; n++) {
		memset(out, 0xee, sizeof(out));
		kuw_put_le(out + 1, 0x8807860584038201ULL, n);
		KT_EXPECT_EQ(out[0], 0xee);
		KT_EXPECT_EQ(out[n + 1], 0xee);
		KT_EXPECT(!memcmp(out + 1, b, n));
		KT_EXPECT_EQ(kuw_get_le(out + 1, n), kuw_get_le(b, n));
	}
}

/* Source and section names: one table (err.c). */
KT_TEST(read_src_names)
{
	KT_EXPECT_STR(kuw_src_section(KUW_SRC_EH_FRAME), ".eh_frame");
	KT_EXPECT_STR(kuw_src_section(KUW_SRC_DEBUG_FRAME), ".debug_frame");
	KT_EXPECT_STR(kuw_src_section(KUW_SRC_SFRAME), ".sframe");
	KT_EXPECT_STR(kuw_src_section(KUW_SRC__COUNT), "?");
	KT_EXPECT_STR(kuw_src_section(-1), "?");
	KT_EXPECT_STR(kuw_src_name(KUW_SRC_EH_FRAME), "eh_frame");
	KT_EXPECT_STR(kuw_src_name(KUW_SRC_DEBUG_FRAME), "debug_frame");
	KT_EXPECT_STR(kuw_src_name(KUW_SRC_SFRAME), "sframe");
	KT_EXPECT_STR(kuw_src_name(KUW_SRC__COUNT), "?");
}

static int uleb(const u8 *b, u64 n, u64 *v, u64 *used)
{
	struct kuw_cur c;
	int ret;

	cur(&c, b, n, 0);
	ret = kuw_rd_uleb(&c, v);
	*used = c.pos;
	return ret;
}

static int sleb(const u8 *b, u64 n, s64 *v, u64 *used)
{
	struct kuw_cur c;
	int ret;

	cur(&c, b, n, 0);
	ret = kuw_rd_sleb(&c, v);
	*used = c.pos;
	return ret;
}

KT_TEST(read_uleb128)
{
	/* DWARF 5 figure 22. */
	static const struct { u8 b[4]; u8 n; u64 v; } ex[] = {
		{ { 2 }, 1, 2 }, { { 127 }, 1, 127 },
		{ { 0x80, 1 }, 2, 128 }, { { 0x81, 1 }, 2, 129 },
		{ { 0x82, 1 }, 2, 130 }, { { 0xb9, 0x64 }, 2, 12857 },
	};
	static const u8 max[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff, 0x01 };
	static const u8 over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				   0xff, 0xff, 0x02 };
	static const u8 pad[] = { 0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				  0x80, 0x80, 0x00 };
	static const u8 toolong[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				      0x80, 0x80, 0x80, 0x80, 0x00 };
	static const u8 trunc[] = { 0x80, 0x80 };
	u64 v, used;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ex); i++) {
		KT_EXPECT_EQ(uleb(ex[i].b, ex[i].n, &v, &used), 0);
		KT_EXPECT_EQ(v, ex[i].v);
		KT_EXPECT_EQ(used, ex[i].n);
	}
	KT_EXPECT_EQ(uleb(max, sizeof(max), &v, &used), 0);
	KT_EXPECT_EQ(v, ~0ULL);
	KT_EXPECT_EQ(used, 10);
	/* Overlong but padded encodings are legal (linkers pad them). */
	KT_EXPECT_EQ(uleb(pad, sizeof(pad), &v, &used), 0);
	KT_EXPECT_EQ(v, 5);
	/* Bits beyond 64. */
	KT_EXPECT_EQ(uleb(over, sizeof(over), &v, &used), -KUW_E_BADLEN);
	/* More than 10 bytes. */
	KT_EXPECT_EQ(uleb(toolong, sizeof(toolong), &v, &used), -KUW_E_BADLEN);
	/* Section ends inside the number; the cursor does not move. */
	KT_EXPECT_EQ(uleb(trunc, sizeof(trunc), &v, &used), -KUW_E_TRUNC);
	KT_EXPECT_EQ(used, 0);
	KT_EXPECT_EQ(uleb(trunc, 0, &v, &used), -KUW_E_TRUNC);
}

KT_TEST(read_sleb128)
{
	/* DWARF 5 figure 23. */
	static const struct { u8 b[4]; u8 n; s64 v; } ex[] = {
		{ { 2 }, 1, 2 }, { { 0x7e }, 1, -2 },
		{ { 0xff, 0 }, 2, 127 }, { { 0x81, 0x7f }, 2, -127 },
		{ { 0x80, 1 }, 2, 128 }, { { 0x80, 0x7f }, 2, -128 },
		{ { 0x81, 1 }, 2, 129 }, { { 0xff, 0x7e }, 2, -129 },
		{ { 0x78 }, 1, -8 }, { { 0x40 }, 1, -64 }, { { 0x3f }, 1, 63 },
	};
	static const u8 min[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				  0x80, 0x80, 0x7f };
	static const u8 maxp[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				   0xff, 0xff, 0x00 };
	static const u8 over[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				   0x80, 0x80, 0x01 };
	static const u8 pad[] = { 0xfe, 0xff, 0x7f };	/* -2, padded */
	static const u8 toolong[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0x7f };
	static const u8 trunc[] = { 0xff };
	u64 used;
	s64 v;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ex); i++) {
		KT_EXPECT_EQ(sleb(ex[i].b, ex[i].n, &v, &used), 0);
		KT_EXPECT_EQ(v, ex[i].v);
		KT_EXPECT_EQ(used, ex[i].n);
	}
	KT_EXPECT_EQ(sleb(min, sizeof(min), &v, &used), 0);
	KT_EXPECT_EQ(v, (s64)(1ULL << 63));
	KT_EXPECT_EQ(sleb(maxp, sizeof(maxp), &v, &used), 0);
	KT_EXPECT_EQ(v, 0x7fffffffffffffffLL);
	KT_EXPECT_EQ(sleb(pad, sizeof(pad), &v, &used), 0);
	KT_EXPECT_EQ(v, -2);
	KT_EXPECT_EQ(sleb(over, sizeof(over), &v, &used), -KUW_E_BADLEN);
	KT_EXPECT_EQ(sleb(toolong, sizeof(toolong), &v, &used),
		     -KUW_E_BADLEN);
	KT_EXPECT_EQ(sleb(trunc, sizeof(trunc), &v, &used), -KUW_E_TRUNC);
	KT_EXPECT_EQ(used, 0);
}

/* Numbers as `as` encodes them: .uleb128/.sleb128 vs .quad. */
KT_TEST(read_leb128_from_as)
{
	static const s64 vals[] = {
		0, 1, 63, 64, 127, 128, -1, -64, -65, -128, 12857,
		0x7fffffff, -0x80000000LL, 0x123456789abcdefLL,
		0x7fffffffffffffffLL, (s64)0x8000000000000000ULL,
	};
	char path[512], cmd[1200];
	u8 buf[1024];
	FILE *f;
	size_t n;
	struct kuw_cur c;
	u32 i;

	snprintf(path, sizeof(path), "%s/read_leb.s", kt_builddir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", kt_builddir);
	KT_ASSERT(!system(cmd));
	f = fopen(path, "w");
	KT_ASSERT(f);
	fprintf(f, "\t.data\n");
	for (i = 0; i < ARRAY_SIZE(vals); i++)
		fprintf(f, "\t.uleb128 %llu\n\t.sleb128 %lld\n",
			(unsigned long long)vals[i], (long long)vals[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && as -o read_leb.o read_leb.s && "
		 "objcopy -O binary -j .data read_leb.o read_leb.bin",
		 kt_builddir);
	KT_ASSERT(!system(cmd));
	snprintf(path, sizeof(path), "%s/read_leb.bin", kt_builddir);
	f = fopen(path, "rb");
	KT_ASSERT(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	cur(&c, buf, n, 0);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		u64 u;
		s64 s;

		KT_EXPECT_EQ(kuw_rd_uleb(&c, &u), 0);
		KT_EXPECT_EQ(u, (u64)vals[i]);
		KT_EXPECT_EQ(kuw_rd_sleb(&c, &s), 0);
		KT_EXPECT_EQ(s, vals[i]);
	}
	KT_EXPECT_EQ(c.pos, n);
}

KT_TEST(read_string)
{
	static const u8 b[] = { 'z', 'R', 0, 'x', 'y' };
	struct kuw_cur c;
	const char *s;
	u64 len;

	cur(&c, b, sizeof(b), 0);
	KT_EXPECT_EQ(kuw_rd_str(&c, &s, &len), 0);
	KT_EXPECT_EQ(len, 2);
	KT_EXPECT(!memcmp(s, "zR", 3));
	KT_EXPECT_EQ(c.pos, 3);
	/* No NUL before the end. */
	KT_EXPECT_EQ(kuw_rd_str(&c, &s, &len), -KUW_E_TRUNC);
	KT_EXPECT_EQ(c.pos, 3);
}

KT_TEST(read_enc_check)
{
	u32 e;
	int ok = 0;

	/* Every valid combination of type and base, with and without
	 * indirect; all others are rejected. */
	for (e = 0; e < 256; e++) {
		u8 type = e & 0x0f, base = e & 0x70;
		bool good = type != 5 && type != 6 && type != 7 && type != 8 &&
			type < 0xd && base <= 0x50;

		if (base == 0x50)
			good = type == 0;
		if (e == 0xff)
			good = true;
		KT_EXPECT_EQ(kuw_enc_check((u8)e), good ? 0 : -KUW_E_BADENC);
		ok += good;
	}
	/* 9 types x 5 bases x 2 + aligned x 2 + omit */
	KT_EXPECT_EQ(ok, 9 * 5 * 2 + 2 + 1);
}

static int ptr(const u8 *b, u64 n, u64 addr, u64 pos, u8 enc,
	       const struct kuw_ptr_base *pb, u64 *v, u64 *end, bool *ind)
{
	struct kuw_cur c;
	int ret;

	cur(&c, b, n, addr);
	c.pos = pos;
	ret = kuw_rd_ptr(&c, enc, pb, false, v, ind);
	*end = c.pos;
	return ret;
}

KT_TEST(read_ptr_types)
{
	/* -2 in every width, then 0x81 0x01 (uleb 129). */
	static const u8 b[] = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0x81, 0x01 };
	struct kuw_ptr_base pb = { .addr_size = 8 };
	u64 v, end;
	bool ind;

	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_absptr, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0xfffffffffffffffeULL);
	KT_EXPECT_EQ(end, 8);
	pb.addr_size = 4;
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_absptr, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0xfffffffe);
	KT_EXPECT_EQ(end, 4);
	pb.addr_size = 8;
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_udata2, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0xfffe);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_sdata2, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, (u64)-2);
	KT_EXPECT_EQ(end, 2);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_udata4, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0xfffffffe);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_sdata4, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, (u64)-2);
	KT_EXPECT_EQ(end, 4);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_udata8, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, (u64)-2);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, KUW_DW_EH_PE_sdata8, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, (u64)-2);
	KT_EXPECT_EQ(end, 8);
	KT_EXPECT_EQ(ptr(b, 10, 0, 8, KUW_DW_EH_PE_uleb128, &pb, &v, &end,
			 &ind), 0);
	KT_EXPECT_EQ(v, 129);
	KT_EXPECT_EQ(end, 10);
	KT_EXPECT_EQ(ptr(b, 10, 0, 7, KUW_DW_EH_PE_sleb128, &pb, &v, &end,
			 &ind), 0);
	KT_EXPECT_EQ(v, 0x7f | 1 << 7 | 1 << 14);	/* ff 81 01 */
	/* Truncated in every width: error, cursor unmoved. */
	KT_EXPECT_EQ(ptr(b, 7, 0, 0, KUW_DW_EH_PE_udata8, &pb, &v, &end, &ind),
		     -KUW_E_TRUNC);
	KT_EXPECT_EQ(end, 0);
	KT_EXPECT_EQ(ptr(b, 3, 0, 0, KUW_DW_EH_PE_sdata4, &pb, &v, &end, &ind),
		     -KUW_E_TRUNC);
	KT_EXPECT_EQ(ptr(b, 1, 0, 0, KUW_DW_EH_PE_udata2, &pb, &v, &end, &ind),
		     -KUW_E_TRUNC);
	KT_EXPECT_EQ(ptr(b, 9, 0, 8, KUW_DW_EH_PE_uleb128, &pb, &v, &end,
			 &ind), -KUW_E_TRUNC);
	/* Bad types. */
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, 0x05, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, 0x0d, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	KT_EXPECT_EQ(ptr(b, 8, 0, 0, 0x60, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	/* Omit reads nothing. */
	KT_EXPECT_EQ(ptr(b, 8, 0, 3, KUW_DW_EH_PE_omit, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0);
	KT_EXPECT_EQ(end, 3);
}

KT_TEST(read_ptr_bases)
{
	/* sdata4 -16 at offset 4 of a section loaded at 0x400000. */
	static const u8 b[] = { 0, 0, 0, 0, 0xf0, 0xff, 0xff, 0xff,
				0x10, 0, 0, 0, 0, 0, 0, 0,
				0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0 };
	struct kuw_ptr_base pb = { .addr_size = 8 };
	u64 v, end;
	bool ind;

	/* pcrel: the field's run-time address + value. */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x1b, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0x400004 - 16);
	/* pcrel udata4 is zero-extended before adding. */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x13, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0x400004 + 0xfffffff0ULL);
	/* textrel/datarel/funcrel need their base. */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x2b, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x3b, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x4b, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	KT_EXPECT_EQ(end, 4);
	pb.text = 0x1000;
	pb.data = 0x2000;
	pb.func = 0x3000;
	pb.have = KUW_PB_TEXT | KUW_PB_DATA | KUW_PB_FUNC;
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x2b, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0x1000 - 16);
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x3b, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0x2000 - 16);
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x4b, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0x3000 - 16);
	/* aligned: from address 0x400001 pad to 0x400008, read 8 bytes. */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 1, 0x50, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(v, 0x10);
	KT_EXPECT_EQ(end, 16);
	/* ... alignment follows the run-time address, not the offset. */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400004, 1, 0x50, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT_EQ(end, 12);
	KT_EXPECT_EQ(v, 0x00000010fffffff0ULL);
	/* aligned with a data type is malformed (libgcc aborts on it). */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 1, 0x53, &pb, &v, &end, &ind),
		     -KUW_E_BADENC);
	/* aligned, padding beyond the end. */
	KT_EXPECT_EQ(ptr(b, 12, 0x400000, 9, 0x50, &pb, &v, &end, &ind),
		     -KUW_E_TRUNC);
	KT_EXPECT_EQ(end, 9);
	/* indirect: the address of the pointer is returned and flagged. */
	KT_EXPECT_EQ(ptr(b, sizeof(b), 0x400000, 4, 0x9b, &pb, &v, &end, &ind),
		     0);
	KT_EXPECT(ind);
	KT_EXPECT_EQ(v, 0x400004 - 16);
	{
		struct kuw_cur c;

		cur(&c, b, sizeof(b), 0x400000);
		c.pos = 4;
		KT_EXPECT_EQ(kuw_rd_ptr(&c, 0x9b, &pb, false, &v, NULL),
			     -KUW_E_BADENC);
		/* A length (type only) ignores base and indirect bits. */
		KT_EXPECT_EQ(kuw_rd_ptr(&c, 0x9b, &pb, true, &v, NULL), 0);
		KT_EXPECT_EQ(v, (u64)-16);
	}
}
