// SPDX-License-Identifier: GPL-2.0
/*
 * Blobs (include/kunwind/blob.h), vmlinux and module: round trip through
 * writer and parser, a real .eh_frame carried through a blob compiles to
 * the same table as the section itself, a module's .debug_frame moved
 * section by section (struct kuw_remap) lands where each section went,
 * every kind of malformed blob is rejected with the right reason and field
 * offset, and the build id is read as readelf reads it.
 */
#include <stdlib.h>

#include "kt.h"
#include "engine.h"
#include "read.h"
#include "blob.h"
#include "elf.h"

static const u8 blob_payload[] = "pretend this is an .eh_frame section";

static const u8 blob_id[20] = {
	0xeb, 0x4f, 0xbc, 0xd0, 0x37, 0xe7, 0x25, 0x37, 0x17, 0x95,
	0x0b, 0xf2, 0xb9, 0x3b, 0xd5, 0x56, 0x6f, 0x47, 0xc5, 0x6f,
};

static const struct kuw_blob_sect blob_map[2] = {
	{ ".text", 0x10000, 0x800 },
	{ ".text.unlikely", 0x10800, 0x100 },
};

static void blob_desc(struct kuw_blob *b)
{
	memset(b, 0, sizeof(*b));
	b->kind = KUW_BLOB_VMLINUX;
	strcpy(b->owner, "vmlinux");
	memcpy(b->build_id, blob_id, sizeof(blob_id));
	b->id_len = sizeof(blob_id);
	b->obj.arch = KUW_ARCH_X86_64;
	b->obj.text_start = 0xffffffff81000000ull;
	b->obj.text_end = 0xffffffff82000000ull;
	b->stext = 0xffffffff81000000ull;
	b->src = KUW_SRC_EH_FRAME;
	b->sec.data = blob_payload;
	b->sec.size = sizeof(blob_payload);
	b->sec.addr = 0xffffffff82400000ull;
}

static void blob_desc_mod(struct kuw_blob *b)
{
	blob_desc(b);
	b->kind = KUW_BLOB_MODULE;
	strcpy(b->owner, "loop");
	b->src = KUW_SRC_DEBUG_FRAME;
	b->stext = 0;
	b->obj.text_start = 0x10000;
	b->obj.text_end = 0x10900;
	b->sec.addr = 0;
	b->nsect = 2;
	b->sect = blob_map;
}

/* A valid blob in a fresh allocation; *len gets its size. */
static u8 *blob_make_kind(u64 *len, bool module)
{
	struct kuw_blob b;
	u8 *buf;

	if (module)
		blob_desc_mod(&b);
	else
		blob_desc(&b);
	*len = kuw_blob_size(b.nsect, b.sec.size);
	buf = malloc(*len);
	if (buf && kuw_blob_write(&b, buf, *len)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static u8 *blob_make(u64 *len)
{
	return blob_make_kind(len, false);
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
	KT_EXPECT_EQ(len, 160 + sizeof(blob_payload));
	/* The layout documented in blob.h, read back independently. */
	KT_EXPECT(!memcmp(buf, "KUWBLOB", 8));
	KT_EXPECT_EQ(kuw_get_le(buf + 8, 2), 2);
	KT_EXPECT_EQ(kuw_get_le(buf + 10, 2), 160);
	KT_EXPECT_EQ(buf[12], KUW_ARCH_X86_64);
	KT_EXPECT_EQ(buf[13], KUW_SRC_EH_FRAME);
	KT_EXPECT_EQ(buf[14], 0);
	KT_EXPECT_EQ(buf[15], 20);
	KT_EXPECT_EQ(kuw_get_le(buf + 16, 8), in.stext);
	KT_EXPECT_EQ(kuw_get_le(buf + 24, 8), in.obj.text_start);
	KT_EXPECT_EQ(kuw_get_le(buf + 32, 8), in.obj.text_end);
	KT_EXPECT_EQ(kuw_get_le(buf + 40, 8), in.sec.addr);
	KT_EXPECT_EQ(kuw_get_le(buf + 48, 4), sizeof(blob_payload));
	KT_EXPECT_EQ(kuw_get_le(buf + 56, 2), 0);
	KT_EXPECT(!memcmp(buf + 64, blob_id, 20));
	KT_EXPECT(!memcmp(buf + 96, "vmlinux", 8));
	KT_EXPECT(!memcmp(buf + 160, blob_payload, sizeof(blob_payload)));

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
	KT_EXPECT_EQ(out.kind, KUW_BLOB_VMLINUX);
	KT_EXPECT_EQ(out.id_len, 20);
	KT_EXPECT(!memcmp(out.build_id, blob_id, 20));
	free(buf);
}

KT_TEST(blob_module_round_trip)
{
	struct kuw_diag d = { 0 };
	struct kuw_blob_sect m;
	struct kuw_blob out;
	u64 len;
	u8 *buf = blob_make_kind(&len, true);

	KT_ASSERT(buf);
	KT_EXPECT_EQ(len, 160 + 2 * 48 + sizeof(blob_payload));
	KT_EXPECT_EQ(buf[14], 1);
	KT_EXPECT_EQ(kuw_get_le(buf + 16, 8), 0);
	KT_EXPECT_EQ(kuw_get_le(buf + 56, 2), 2);
	KT_EXPECT(!memcmp(buf + 96, "loop", 5));
	KT_EXPECT(!memcmp(buf + 160, ".text", 6));
	KT_EXPECT_EQ(kuw_get_le(buf + 160 + 32, 8), 0x10000);
	KT_EXPECT_EQ(kuw_get_le(buf + 160 + 40, 8), 0x800);
	KT_EXPECT(!memcmp(buf + 208, ".text.unlikely", 15));
	KT_EXPECT(!memcmp(buf + 256, blob_payload, sizeof(blob_payload)));
	KT_ASSERT_EQ(kuw_blob_parse(buf, len, &out, &d), 0);
	KT_EXPECT_STR(out.obj.owner, "loop");
	KT_EXPECT_EQ(out.kind, KUW_BLOB_MODULE);
	KT_EXPECT_EQ(out.nsect, 2);
	kuw_blob_sect_at(&out, 1, &m);
	KT_EXPECT_STR(m.name, ".text.unlikely");
	KT_EXPECT_EQ(m.addr, 0x10800);
	KT_EXPECT_EQ(m.size, 0x100);
	KT_EXPECT(out.sec.data == buf + 256);
	free(buf);
}

KT_TEST(blob_writer_refuses_bad_descriptions)
{
	struct kuw_blob b;
	u8 buf[256];

	blob_desc(&b);
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, 160), -KUW_E_INVAL);
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
	blob_desc(&b);
	b.id_len = 0;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc(&b);
	strcpy(b.owner, "loop");	/* a vmlinux blob is vmlinux's */
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc_mod(&b);
	b.src = KUW_SRC_EH_FRAME;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc_mod(&b);
	strcpy(b.owner, "lo op");
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	blob_desc_mod(&b);
	b.nsect = 0;
	KT_EXPECT_EQ(kuw_blob_write(&b, buf, sizeof(buf)), -KUW_E_INVAL);
	KT_EXPECT_EQ(kuw_blob_size(0, 0), 0);
	KT_EXPECT_EQ(kuw_blob_size(0, KUW_BLOB_MAX_SEC + 1ull), 0);
	KT_EXPECT_EQ(kuw_blob_size(KUW_BLOB_MAX_SECT + 1, 1), 0);
}

/* Corrupt one field (resealing the checksum), expect err at off. */
static void blob_expect_kind(bool module, int field, int width, u64 val,
			     bool reseal, int err, u64 off)
{
	struct kuw_diag d = { 0 };
	struct kuw_blob out;
	u64 len;
	u8 *buf = blob_make_kind(&len, module);

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

static void blob_expect(int field, int width, u64 val, bool reseal,
			int err, u64 off)
{
	blob_expect_kind(false, field, width, val, reseal, err, off);
}

static void blob_expect_mod(int field, int width, u64 val, int err, u64 off)
{
	blob_expect_kind(true, field, width, val, true, err, off);
}

KT_TEST(blob_rejects_bad_module_fields)
{
	const u64 m0 = KUW_BLOB_HDR_SIZE, m1 = m0 + KUW_BLOB_SECT_SIZE;

	blob_expect_mod(KUW_BLOB_OFF_SRC, 1, KUW_SRC_EH_FRAME, KUW_E_BADHDR, 13);
	blob_expect_mod(KUW_BLOB_OFF_STEXT, 8, 0x10000, KUW_E_BADRANGE, 16);
	blob_expect_mod(KUW_BLOB_OFF_NSECT, 2, 0, KUW_E_BADHDR, 56);
	blob_expect_mod(KUW_BLOB_OFF_NSECT, 2, KUW_BLOB_MAX_SECT + 1,
			KUW_E_BADHDR, 56);
	/* owner: a bad character, "vmlinux", empty, unterminated */
	blob_expect_mod(KUW_BLOB_OFF_OWNER + 1, 1, '/', KUW_E_BADHDR, 96);
	blob_expect_mod(KUW_BLOB_OFF_OWNER, 8, 0x78756e696c6d76ull,
			KUW_E_BADHDR, 96);
	blob_expect_mod(KUW_BLOB_OFF_OWNER, 1, 0, KUW_E_BADHDR, 96);
	blob_expect_mod(KUW_BLOB_OFF_OWNER + 60, 4, 0x41414141, KUW_E_BADHDR,
			96);
	/* the map: empty name, garbage after the name, size 0, overlap,
	 * outside the text, unsorted
	 */
	blob_expect_mod(m0, 1, 0, KUW_E_BADHDR, m0);
	blob_expect_mod(m0 + 20, 1, 'x', KUW_E_BADHDR, m0);
	/* a section name is a sysfs file name: no '/', not "..", no space */
	blob_expect_mod(m0 + 1, 1, '/', KUW_E_BADHDR, m0);
	blob_expect_mod(m0, 4, 0x2e2e, KUW_E_BADHDR, m0);
	blob_expect_mod(m0, 4, 0x2e, KUW_E_BADHDR, m0);
	blob_expect_mod(m0 + 2, 1, ' ', KUW_E_BADHDR, m0);
	blob_expect_mod(m1 + 40, 8, 0, KUW_E_BADLEN, m1 + 40);
	blob_expect_mod(m1 + 32, 8, 0x107ff, KUW_E_BADRANGE, m1 + 32);
	blob_expect_mod(m1 + 40, 8, 0x101, KUW_E_BADRANGE, m1 + 32);
	blob_expect_mod(m0 + 32, 8, 0xf000, KUW_E_BADRANGE, m0 + 32);
	blob_expect_mod(m1 + 32, 8, 0x100, KUW_E_BADRANGE, m1 + 32);
	blob_expect_mod(m1 + 40, 8, ~0ull, KUW_E_BADLEN, m1 + 40);
}

KT_TEST(blob_rejects_bad_fields)
{
	blob_expect(0, 1, 'X', true, KUW_E_BADMAGIC, 0);
	blob_expect(7, 1, 1, true, KUW_E_BADMAGIC, 0);
	blob_expect(KUW_BLOB_OFF_VERSION, 2, 1, true, KUW_E_BADVER, 8);
	blob_expect(KUW_BLOB_OFF_VERSION, 2, 0, true, KUW_E_BADVER, 8);
	blob_expect(KUW_BLOB_OFF_HDR_SIZE, 2, 64, true, KUW_E_BADHDR, 10);
	blob_expect(KUW_BLOB_OFF_ARCH, 1, 0, true, KUW_E_BADHDR, 12);
	blob_expect(KUW_BLOB_OFF_ARCH, 1, 3, true, KUW_E_BADHDR, 12);
	blob_expect(KUW_BLOB_OFF_SRC, 1, KUW_SRC_SFRAME, true,
		    KUW_E_BADHDR, 13);
	blob_expect(KUW_BLOB_OFF_KIND, 1, 2, true, KUW_E_BADHDR, 14);
	blob_expect(KUW_BLOB_OFF_ID_LEN, 1, 0, true, KUW_E_BADHDR, 15);
	blob_expect(KUW_BLOB_OFF_ID_LEN, 1, 33, true, KUW_E_BADHDR, 15);
	blob_expect(KUW_BLOB_OFF_BUILD_ID + 31, 1, 1, true, KUW_E_BADHDR,
		    64 + 20);
	blob_expect(KUW_BLOB_OFF_RESERVED, 2, 1, true, KUW_E_BADHDR, 58);
	blob_expect(KUW_BLOB_OFF_RESERVED + 5, 1, 1, true, KUW_E_BADHDR, 58);
	blob_expect(KUW_BLOB_OFF_NSECT, 2, 1, true, KUW_E_BADHDR, 56);
	blob_expect(KUW_BLOB_OFF_OWNER, 1, 'V', true, KUW_E_BADHDR, 96);
	blob_expect(KUW_BLOB_OFF_OWNER + 7, 1, 's', true, KUW_E_BADHDR, 96);
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
static void blob_flips(bool module)
{
	struct kuw_diag d;
	struct kuw_blob out;
	u64 len, i;
	int bit, accepted = 0;
	u8 *buf = blob_make_kind(&len, module);

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

KT_TEST(blob_rejects_every_bit_flip)
{
	blob_flips(false);
	blob_flips(true);
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
	blob_desc(&b);
	kuw_elf_obj(&e, "vmlinux", &b.obj);
	kuw_elf_kuw_sec(es, &b.sec);
	b.src = KUW_SRC_EH_FRAME;
	b.stext = stext;
	len = kuw_blob_size(0, b.sec.size);
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

/*
 * A module's .debug_frame, assembled by `as` into an object with two text
 * sections and laid out as the exporter lays it out (tools/elf.c), then
 * built twice: at the layout's addresses, and moved section by section as
 * kunwind.ko moves a module blob (each section to a different place, the
 * second one below the first).  Every pc of each section finds in the moved
 * table the row it had, moved by its own section's delta; a section left
 * out of the map loses its FDEs.
 */
static const char blob_mod_asm[] =
	"\t.cfi_sections .debug_frame\n"
	"\t.text\n"
	"g1:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbp\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbp, -16\n"
	"\tpopq %rbp\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.section .text.unlikely,\"ax\",@progbits\n"
	"g2:\n"
	"\t.cfi_startproc\n"
	"\tsubq $24, %rsp\n"
	"\t.cfi_def_cfa_offset 32\n"
	"\taddq $24, %rsp\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n";

KT_TEST(blob_module_remap_moves_each_section)
{
	char src[512], obj[512], cmd[2048];
	const struct kuw_elf_sec *t1, *t2, *df;
	struct kuw_table *link = NULL, *moved = NULL, *part = NULL;
	struct kuw_diag d = { 0 };
	struct kuw_remap map[2];
	struct kuw_obj o, om;
	struct kuw_sec sec;
	struct kuw_elf e;
	u64 pc, hits = 0;
	FILE *f;
	int i;

	snprintf(src, sizeof(src), "%s/blob_mod.s", kt_builddir);
	snprintf(obj, sizeof(obj), "%s/blob_mod.o", kt_builddir);
	f = fopen(src, "w");
	KT_ASSERT(f);
	fputs(blob_mod_asm, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "as -o %s %s", obj, src);
	KT_ASSERT_EQ(system(cmd), 0);
	KT_ASSERT_EQ(kuw_elf_open(&e, obj), KUW_ELF_OK);
	t1 = kuw_elf_find(&e, ".text");
	t2 = kuw_elf_find(&e, ".text.unlikely");
	df = kuw_elf_find(&e, ".debug_frame");
	KT_ASSERT(t1 && t2 && df && df->data);
	KT_ASSERT(e.nrel > 0);	/* FDE starts came from relocations */
	kuw_elf_obj(&e, "m", &o);
	kuw_elf_kuw_sec(df, &sec);
	KT_ASSERT_EQ(kuw_table_build(&o, KUW_SRC_DEBUG_FRAME, &sec, &link, &d),
		     0);
	KT_EXPECT_EQ(link->nfde, 2);

	/* .text to 0xffffffffc0100000, .text.unlikely to 0xffffffffc0000000 */
	map[0] = (struct kuw_remap){ t1->addr, t1->addr + t1->size,
				     0xffffffffc0100000ull - t1->addr };
	map[1] = (struct kuw_remap){ t2->addr, t2->addr + t2->size,
				     0xffffffffc0000000ull - t2->addr };
	om = o;
	om.text_start = 0xffffffffc0000000ull;
	om.text_end = 0xffffffffc0200000ull;
	om.remap = map;
	om.nremap = 2;
	KT_ASSERT_EQ(kuw_table_build(&om, KUW_SRC_DEBUG_FRAME, &sec, &moved,
				     &d), 0);
	KT_EXPECT_EQ(moved->nfde, 2);
	for (i = 0; i < 2; i++) {
		for (pc = map[i].link_start; pc < map[i].link_end; pc++) {
			const struct kuw_rule *r1, *r2;
			u64 p1, p2;
			int a = kuw_table_lookup(link, pc, &r1, &p1);
			int c = kuw_table_lookup(moved, pc + map[i].delta,
						 &r2, &p2);

			KT_EXPECT_EQ(a, c);
			if (a || c)
				continue;
			hits++;
			KT_EXPECT_EQ(p1 + map[i].delta, p2);
			KT_EXPECT(!memcmp(r1, r2, kuw_rule_size(r1)));
		}
	}
	KT_EXPECT_EQ(hits, t1->size + t2->size);

	/* only .text mapped: g2's FDE is dropped, g1's still moves */
	om.nremap = 1;
	KT_ASSERT_EQ(kuw_table_build(&om, KUW_SRC_DEBUG_FRAME, &sec, &part,
				     &d), 0);
	KT_EXPECT_EQ(part->nfde, 1);
	{
		const struct kuw_rule *r;
		u64 p;

		KT_EXPECT_EQ(kuw_table_lookup(part, 0xffffffffc0100000ull, &r,
					      &p), 0);
		KT_EXPECT_EQ(kuw_table_lookup(part, 0xffffffffc0000000ull, &r,
					      &p), -KUW_E_NOINFO);
	}
	/* a section range that cuts an FDE in two is an error */
	map[0].link_end = map[0].link_start + 1;
	om.nremap = 2;
	kuw_table_free(part);
	part = NULL;
	memset(&d, 0, sizeof(d));
	KT_EXPECT_EQ(kuw_table_build(&om, KUW_SRC_DEBUG_FRAME, &sec, &part,
				     &d), -KUW_E_BADRANGE);
	KT_EXPECT_STR(d.section, ".debug_frame");
	KT_EXPECT(part == NULL);
	kuw_table_free(link);
	kuw_table_free(moved);
	kuw_elf_close(&e);
}

/* The build id as `readelf -n` prints it, from a linked file's notes. */
KT_TEST(blob_build_id_matches_readelf)
{
	char src[512], exe[512], cmd[4096], line[512], hex[80] = "";
	const struct kuw_elf_sec *n;
	struct kuw_elf e;
	const u8 *id;
	u32 len, i;
	FILE *f;

	snprintf(src, sizeof(src), "%s/blob_real.s", kt_builddir);
	snprintf(exe, sizeof(exe), "%s/blob_bid", kt_builddir);
	snprintf(cmd, sizeof(cmd),
		 "as -o %s.o %s && ld --build-id=sha1 -e _stext -o %s %s.o",
		 exe, src, exe, exe);
	KT_ASSERT_EQ(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "readelf -n %s", exe);
	f = popen(cmd, "r");
	KT_ASSERT(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " Build ID: %79s", hex) == 1)
			break;
	pclose(f);
	KT_ASSERT_EQ(strlen(hex), 40);
	KT_ASSERT_EQ(kuw_elf_open(&e, exe), KUW_ELF_OK);
	n = kuw_elf_find(&e, ".note.gnu.build-id");
	KT_ASSERT(n && n->data);
	KT_ASSERT_EQ(kuw_note_build_id(n->data, n->size, &id, &len), 0);
	KT_ASSERT_EQ(len, 20);
	for (i = 0; i < len; i++) {
		char b[3];

		snprintf(b, sizeof(b), "%02x", id[i]);
		KT_EXPECT(!strncmp(hex + 2 * i, b, 2));
	}
	/* every truncation of the note is refused, never read past */
	for (i = 0; i < n->size; i++)
		KT_EXPECT(kuw_note_build_id(n->data, i, &id, &len) != 0);
	kuw_elf_close(&e);
}
