// SPDX-License-Identifier: GPL-2.0
/*
 * The vmlinux blob (include/kunwind/blob.h): round trip through writer and
 * parser, a real .eh_frame carried through a blob compiles to the same
 * table as the section itself, and every kind of malformed blob is rejected
 * with the right reason and field offset.
 */
#include <stdlib.h>

#include "kt.h"
#include "engine.h"
#include "read.h"
#include "blob.h"
#include "elf.h"

static const u8 blob_payload[] = "pretend this is an .eh_frame section";

static void blob_desc(struct kuw_blob *b)
{
	memset(b, 0, sizeof(*b));
	b->obj.arch = KUW_ARCH_X86_64;
	b->obj.text_start = 0xffffffff81000000ull;
	b->obj.text_end = 0xffffffff82000000ull;
	b->stext = 0xffffffff81000000ull;
	b->src = KUW_SRC_EH_FRAME;
	b->sec.data = blob_payload;
	b->sec.size = sizeof(blob_payload);
	b->sec.addr = 0xffffffff82400000ull;
}

/* A valid blob in a fresh allocation; *len gets its size. */
static u8 *blob_make(u64 *len)
{
	struct kuw_blob b;
	u8 *buf;

	blob_desc(&b);
	*len = kuw_blob_size(b.sec.size);
	buf = malloc(*len);
	if (buf && kuw_blob_write(&b, buf, *len)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Recompute the checksum after a deliberate header change. */
static void blob_reseal(u8 *buf, u64 len)
{
	u32 h = 2166136261u;

	kuw_put_le(buf + KUW_BLOB_OFF_CHECKSUM, 0, 4);
	h = kuw_blob_fnv1a(h, buf, len);
	kuw_put_le(buf + KUW_BLOB_OFF_CHECKSUM, h, 4);
}

KT_TEST(blob_round_trip)
{
	struct kuw_diag d = { 0 };
	struct kuw_blob in, out;
	u64 len;
	u8 *buf = blob_make(&len);

	KT_ASSERT(buf);
	blob_desc(&in);
	KT_EXPECT_EQ(len, KUW_BLOB_HDR_SIZE + sizeof(blob_payload));
	/* The layout documented in blob.h, read back independently. */
	KT_EXPECT(!memcmp(buf, "KUWBLOB", 8));
	KT_EXPECT_EQ(kuw_get_le(buf + 8, 2), 1);
	KT_EXPECT_EQ(kuw_get_le(buf + 10, 2), 64);
	KT_EXPECT_EQ(buf[12], KUW_ARCH_X86_64);
	KT_EXPECT_EQ(buf[13], KUW_SRC_EH_FRAME);
	KT_EXPECT_EQ(kuw_get_le(buf + 16, 8), in.stext);
	KT_EXPECT_EQ(kuw_get_le(buf + 24, 8), in.obj.text_start);
	KT_EXPECT_EQ(kuw_get_le(buf + 32, 8), in.obj.text_end);
	KT_EXPECT_EQ(kuw_get_le(buf + 40, 8), in.sec.addr);
	KT_EXPECT_EQ(kuw_get_le(buf + 48, 4), sizeof(blob_payload));
	KT_EXPECT(!memcmp(buf + 64, blob_payload, sizeof(blob_payload)));

	KT_ASSERT_EQ(kuw_blob_parse(buf, len, &out, &d), 0);
	KT_EXPECT_EQ(d.err, 0);
	KT_EXPECT_STR(out.obj.owner, "vmlinux");
	KT_EXPECT_EQ(out.obj.arch, in.obj.arch);
	KT_EXPECT_EQ(out.obj.flags, 0);
	KT_EXPECT_EQ(out.obj.text_start, in.obj.text_start);
	KT_EXPECT_EQ(out.obj.text_end, in.obj.text_end);
	KT_EXPECT_EQ(out.stext, in.stext);
	KT_EXPECT_EQ(out.src, in.src);
	KT_EXPECT_EQ(out.sec.addr, in.sec.addr);
	KT_EXPECT_EQ(out.sec.size, in.sec.size);
	KT_EXPECT(out.sec.data == buf + KUW_BLOB_HDR_SIZE);
	free(buf);
}

KT_TEST(blob_writer_refuses_bad_descriptions)
{
	struct kuw_blob b;
	u8 buf[256];

	blob_desc(&b);
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, 64), -KUW_E_INVAL);
	b.src = KUW_SRC_SFRAME;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc(&b);
	b.stext = b.obj.text_end;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc(&b);
	b.obj.arch = 7;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc(&b);
	b.sec.size = 0;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	KT_EXPECT_EQ(kuw_blob_size(0), 0);
	KT_EXPECT_EQ(kuw_blob_size(KUW_BLOB_MAX_SEC + 1ull), 0);
}

/* Corrupt one field (resealing the checksum), expect err at off. */
static void blob_expect(int field, int width, u64 val, bool reseal,
			int err, u64 off)
{
	struct kuw_diag d = { 0 };
	struct kuw_blob out;
	u64 len;
	u8 *buf = blob_make(&len);

	if (!buf) {
		KT_EXPECT(buf);
		return;
	}
	kuw_put_le(buf + field, val, width);
	if (reseal)
		blob_reseal(buf, len);
	KT_EXPECT_EQ(kuw_blob_parse(buf, len, &out, &d), -err);
	KT_EXPECT_EQ(d.err, err);
	KT_EXPECT_EQ(d.off, off);
	KT_EXPECT_STR(d.section, "blob");
	free(buf);
}

KT_TEST(blob_rejects_bad_fields)
{
	blob_expect(0, 1, 'X', true, KUW_E_BADMAGIC, 0);
	blob_expect(7, 1, 1, true, KUW_E_BADMAGIC, 0);
	blob_expect(KUW_BLOB_OFF_VERSION, 2, 2, true, KUW_E_BADVER, 8);
	blob_expect(KUW_BLOB_OFF_VERSION, 2, 0, true, KUW_E_BADVER, 8);
	blob_expect(KUW_BLOB_OFF_HDR_SIZE, 2, 72, true, KUW_E_BADHDR, 10);
	blob_expect(KUW_BLOB_OFF_ARCH, 1, 0, true, KUW_E_BADHDR, 12);
	blob_expect(KUW_BLOB_OFF_ARCH, 1, 3, true, KUW_E_BADHDR, 12);
	blob_expect(KUW_BLOB_OFF_SRC, 1, KUW_SRC_SFRAME, true,
		    KUW_E_BADHDR, 13);
	blob_expect(KUW_BLOB_OFF_FLAGS, 2, 1, true, KUW_E_BADHDR, 14);
	blob_expect(KUW_BLOB_OFF_RESERVED, 8, 1ull << 63, true,
		    KUW_E_BADHDR, 56);
	/* empty and inverted text range, _stext outside it */
	blob_expect(KUW_BLOB_OFF_TEXT_END, 8, 0xffffffff81000000ull, true,
		    KUW_E_BADRANGE, 32);
	blob_expect(KUW_BLOB_OFF_TEXT_START, 8, ~0ull, true,
		    KUW_E_BADRANGE, 32);
	blob_expect(KUW_BLOB_OFF_STEXT, 8, 0xffffffff80ffffffull, true,
		    KUW_E_BADRANGE, 16);
	blob_expect(KUW_BLOB_OFF_STEXT, 8, 0xffffffff82000000ull, true,
		    KUW_E_BADRANGE, 16);
	/* section address range wraps */
	blob_expect(KUW_BLOB_OFF_SEC_ADDR, 8, ~0ull - 4, true,
		    KUW_E_BADRANGE, 40);
	/* section size: zero, too big, more than the blob, less */
	blob_expect(KUW_BLOB_OFF_SEC_SIZE, 4, 0, true, KUW_E_BADLEN, 48);
	blob_expect(KUW_BLOB_OFF_SEC_SIZE, 4, KUW_BLOB_MAX_SEC + 1u, true,
		    KUW_E_TOOBIG, 48);
	blob_expect(KUW_BLOB_OFF_SEC_SIZE, 4, sizeof(blob_payload) + 1, true,
		    KUW_E_TRUNC, KUW_BLOB_HDR_SIZE + sizeof(blob_payload));
	blob_expect(KUW_BLOB_OFF_SEC_SIZE, 4, sizeof(blob_payload) - 1, true,
		    KUW_E_BADLEN, KUW_BLOB_HDR_SIZE + sizeof(blob_payload) - 1);
	/* a changed field without a new checksum */
	blob_expect(KUW_BLOB_OFF_SEC_ADDR, 8, 0x1000, false, KUW_E_BADSUM, 52);
	blob_expect(KUW_BLOB_OFF_CHECKSUM, 4, 0, false, KUW_E_BADSUM, 52);
}

KT_TEST(blob_rejects_bad_lengths)
{
	struct kuw_diag d = { 0 };
	struct kuw_blob out;
	u64 len, n;
	u8 *buf = blob_make(&len), *big;

	KT_ASSERT(buf);
	/* every truncation */
	for (n = 0; n < len; n++) {
		memset(&d, 0, sizeof(d));
		KT_EXPECT_EQ(kuw_blob_parse(buf, n, &out, &d), -KUW_E_TRUNC);
	}
	/* a trailing byte */
	big = calloc(1, len + 1);
	KT_ASSERT(big);
	memcpy(big, buf, len);
	memset(&d, 0, sizeof(d));
	KT_EXPECT_EQ(kuw_blob_parse(big, len + 1, &out, &d), -KUW_E_BADLEN);
	KT_EXPECT_EQ(d.off, len);
	KT_EXPECT_EQ(kuw_blob_parse(NULL, len, &out, &d), -KUW_E_INVAL);
	free(big);
	free(buf);
}

/* FNV-1a steps are bijective: no change confined to one byte survives. */
KT_TEST(blob_rejects_every_bit_flip)
{
	struct kuw_diag d;
	struct kuw_blob out;
	u64 len, i;
	int bit, accepted = 0;
	u8 *buf = blob_make(&len);

	KT_ASSERT(buf);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			buf[i] ^= 1u << bit;
			memset(&d, 0, sizeof(d));
			if (!kuw_blob_parse(buf, len, &out, &d))
				accepted++;
			else if (!d.err)
				accepted += 1000;	/* error without diag */
			buf[i] ^= 1u << bit;
		}
	}
	KT_EXPECT_EQ(accepted, 0);
	memset(&d, 0, sizeof(d));
	KT_EXPECT_EQ(kuw_blob_parse(buf, len, &out, &d), 0);
	free(buf);
}

/*
 * A real .eh_frame assembled by `as` from CFI directives: the table built
 * from the blob equals the one built from the section, and relocating it
 * by a KASLR-like delta moves every lookup by that delta.
 */
static const char blob_asm[] =
	"\t.text\n"
	"\t.globl _stext\n"
	"_stext:\n"
	"f1:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbp\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbp, -16\n"
	"\tmovq %rsp, %rbp\n"
	"\t.cfi_def_cfa_register %rbp\n"
	"\tnop\n"
	"\tleave\n"
	"\t.cfi_def_cfa %rsp, 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"f2:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbx\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbx, -16\n"
	"\tpopq %rbx\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n";

KT_TEST(blob_carries_a_real_eh_frame)
{
	char src[512], obj[512], exe[512], cmd[4096];
	struct kuw_table *t1 = NULL, *t2 = NULL;
	const struct kuw_elf_sec *es;
	struct kuw_diag d = { 0 };
	struct kuw_blob b, out;
	struct kuw_elf e;
	const s64 delta = 0x3a00000;
	u64 len, pc, stext;
	u8 *buf;
	FILE *f;

	snprintf(src, sizeof(src), "%s/blob_real.s", kt_builddir);
	snprintf(obj, sizeof(obj), "%s/blob_real.o", kt_builddir);
	snprintf(exe, sizeof(exe), "%s/blob_real", kt_builddir);
	f = fopen(src, "w");
	KT_ASSERT(f);
	fputs(blob_asm, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "as -o %s %s && ld -e _stext -o %s %s", obj, src, exe, obj);
	KT_ASSERT_EQ(system(cmd), 0);
	KT_ASSERT_EQ(kuw_elf_open(&e, exe), KUW_ELF_OK);
	es = kuw_elf_find(&e, ".eh_frame");
	KT_ASSERT(es && es->data);
	KT_ASSERT_EQ(kuw_elf_symbol(&e, "_stext", &stext), 0);
	kuw_elf_obj(&e, "vmlinux", &b.obj);
	kuw_elf_kuw_sec(es, &b.sec);
	b.src = KUW_SRC_EH_FRAME;
	b.stext = stext;
	len = kuw_blob_size(b.sec.size);
	buf = malloc(len);
	KT_ASSERT(buf);
	KT_ASSERT_EQ(kuw_blob_write(&b, buf, len), 0);
	KT_ASSERT_EQ(kuw_blob_parse(buf, len, &out, &d), 0);
	KT_EXPECT_EQ(out.stext, stext);
	KT_EXPECT_EQ(kuw_table_build(&b.obj, KUW_SRC_EH_FRAME, &b.sec, &t1,
				     &d), 0);
	KT_EXPECT_EQ(kuw_table_build(&out.obj, out.src, &out.sec, &t2, &d), 0);
	if (t1 && t2) {
		KT_EXPECT_EQ(t1->nrows, t2->nrows);
		KT_EXPECT_EQ(t1->nfde, 2);
		kuw_table_relocate(t2, delta);
		for (pc = e.text_start; pc < e.text_end; pc++) {
			const struct kuw_rule *r1, *r2;
			u64 p1, p2;
			int a = kuw_table_lookup(t1, pc, &r1, &p1);
			int c = kuw_table_lookup(t2, pc + delta, &r2, &p2);

			KT_EXPECT_EQ(a, c);
			if (a || c)
				continue;
			KT_EXPECT_EQ(p1 + delta, p2);
			KT_EXPECT(!memcmp(r1, r2, kuw_rule_size(r1)));
		}
	}
	kuw_table_free(t1);
	kuw_table_free(t2);
	free(buf);
	kuw_elf_close(&e);
}
