// SPDX-License-Identifier: GPL-2.0
/*
 * tools/elf.c: ET_REL layout and RELA relocation checked against what `ld`
 * computes for the same object, every supported relocation type against
 * its definition, clear errors for unsupported relocations and undefined
 * symbols, a shared object against `readelf -S`, and thousands of corrupted
 * ELF images loaded without a crash (the runner runs under ASan+UBSan).
 */
#include <stdlib.h>

#include "kt.h"
#include "engine.h"
#include "read.h"
#include "elf.h"

/* Write @text to <builddir>/<name>.s and run @cmd (with %s = builddir). */
static int te_build(const char *name, const char *text, const char *cmdfmt)
{
	char path[512], cmd[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.s", kt_builddir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), cmdfmt, kt_builddir, kt_builddir,
		 kt_builddir, kt_builddir);
	return system(cmd);
}

static void te_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", kt_builddir, file);
}

/* Functions in three text sections, with CFI, for .eh_frame and .sframe. */
static const char te_funcs[] =
	"\t.section .text.a,\"ax\",@progbits\n"
	"\t.globl fa\n"
	"\t.type fa,@function\n"
	"fa:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbp\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbp, -16\n"
	"\tpopq %rbp\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size fa, .-fa\n"
	"\t.section .text.b,\"ax\",@progbits\n"
	"\t.p2align 6\n"
	"\t.globl fb\n"
	"\t.type fb,@function\n"
	"\tnop\n"
	"\tnop\n"
	"fb:\n"
	"\t.cfi_startproc\n"
	"\tsubq $24, %rsp\n"
	"\t.cfi_def_cfa_offset 32\n"
	"\taddq $24, %rsp\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size fb, .-fb\n"
	"\t.data\n"
	"\t.quad 1\n"
	"\t.section .text.c,\"ax\",@progbits\n"
	"\t.p2align 4\n"
	"\t.globl fc\n"
	"\t.type fc,@function\n"
	"fc:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbx\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbx, -16\n"
	"\tpopq %rbx\n"
	"\t.cfi_def_cfa_offset 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size fc, .-fc\n";

/*
 * pc_begin of every FDE of a .eh_frame whose CIEs use pcrel|sdata4 (what
 * gas emits): [start, start + range).  Minimal independent decoder.
 */
static int te_fdes(const struct kuw_elf_sec *s, u64 *start, u64 *len, int max)
{
	u64 off = 0;
	int n = 0;

	while (off + 8 <= s->size && n < max) {
		u32 l = (u32)kuw_get_le(s->data + off, 4);
		u32 id;

		if (!l)
			break;
		id = (u32)kuw_get_le(s->data + off + 4, 4);
		if (id) {	/* FDE: pc_begin at +8, pc_range at +12 */
			s32 rel = (s32)kuw_get_le(s->data + off + 8, 4);

			start[n] = s->addr + off + 8 + (s64)rel;
			len[n] = kuw_get_le(s->data + off + 12, 4);
			n++;
		}
		off += 4 + (u64)l;
	}
	return n;
}

/* Function start of SFrame v1/v2 FDE @i: field value and field address. */
static s32 te_sframe_start(const struct kuw_elf_sec *s, int i, u64 *field)
{
	u8 ver = s->data[2];
	u32 hdr = 28 + s->data[7];
	u32 fdeoff = (u32)kuw_get_le(s->data + 20, 4);
	u32 fdesz = ver == 1 ? 17 : 20;
	u64 at = hdr + fdeoff + (u64)i * fdesz;

	*field = s->addr + at;
	return (s32)kuw_get_le(s->data + at, 4);
}

static const char *const te_fn[] = { "fa", "fb", "fc" };

/*
 * Assemble @text (functions fa, fb, fc in three text sections, with CFI)
 * with @as_cmd and link it with @ld_cmd (format strings taking the build
 * directory four times), then check that the .eh_frame and .sframe
 * relocations applied to the object put every FDE at its function, as ld
 * resolves them.
 */
static void te_check_rel(const char *name, const char *text, const char *cmd,
			 u8 arch, bool sframe)
{
	u64 so[3], lo[3], se[3], le[3], sym_o, sym_e, field;
	const struct kuw_elf_sec *eo, *ee, *fo, *fe, *s;
	char obj[512], exe[512], file[128];
	struct kuw_elf o, e;
	struct kuw_obj ko;
	u64 prev_end = 0;
	int i, n, m;
	u32 k;

	KT_ASSERT_EQ(te_build(name, text, cmd), 0);
	snprintf(file, sizeof(file), "%s.o", name);
	te_path(obj, sizeof(obj), file);
	te_path(exe, sizeof(exe), name);
	KT_ASSERT_EQ(kuw_elf_open(&o, obj), KUW_ELF_OK);
	if (kuw_elf_open(&e, exe) != KUW_ELF_OK) {
		KT_EXPECT(0);
		kuw_elf_close(&o);
		return;
	}
	KT_EXPECT_EQ(o.type, 1);
	KT_EXPECT_EQ(e.type, 2);
	KT_EXPECT_EQ(o.arch, arch);
	kuw_elf_obj(&o, "o", &ko);
	KT_EXPECT_EQ(ko.flags, KUW_OBJ_RELOCATED);
	KT_EXPECT_EQ(ko.arch, arch);

	/* Layout: SHF_ALLOC sections in order, aligned, not overlapping. */
	for (k = 1; k < o.nsec; k++) {
		s = &o.sec[k];
		if (!(s->flags & 2))
			continue;
		KT_EXPECT(s->addr >= KUW_ELF_REL_BASE);
		KT_EXPECT(s->addr >= prev_end);
		if (s->align > 1)
			KT_EXPECT_EQ(s->addr & (s->align - 1), 0);
		prev_end = s->addr + s->size;
	}
	s = kuw_elf_find(&o, ".text.b");
	KT_ASSERT(s);
	KT_EXPECT_EQ(s->addr & 63, 0);

	/* .eh_frame: every FDE starts at its function, as ld resolves it. */
	eo = kuw_elf_find(&o, ".eh_frame");
	ee = kuw_elf_find(&e, ".eh_frame");
	KT_ASSERT(eo && ee && eo->data && ee->data);
	KT_EXPECT(o.nrel >= 3);
	n = te_fdes(eo, so, lo, 3);
	m = te_fdes(ee, se, le, 3);
	KT_ASSERT_EQ(n, 3);
	KT_ASSERT_EQ(m, 3);
	for (i = 0; i < 3; i++) {
		KT_ASSERT_EQ(kuw_elf_symbol(&o, te_fn[i], &sym_o), 0);
		KT_ASSERT_EQ(kuw_elf_symbol(&e, te_fn[i], &sym_e), 0);
		KT_EXPECT_EQ(se[i] - sym_e, 0);	/* ld's truth */
		KT_EXPECT_EQ(so[i] - sym_o, se[i] - sym_e);
		KT_EXPECT_EQ(lo[i], le[i]);
		/* and inside the text range the tool reports */
		KT_EXPECT(so[i] >= o.text_start && so[i] + lo[i] <= o.text_end);
	}

	/*
	 * .sframe: in the object the start is relative to the field (a PC32
	 * relocation); ld makes it relative to the section start.
	 */
	fo = kuw_elf_find(&o, ".sframe");
	fe = kuw_elf_find(&e, ".sframe");
	if (!sframe) {
		kuw_elf_close(&o);
		kuw_elf_close(&e);
		return;
	}
	KT_ASSERT(fo && fe && fo->data && fe->data);
	for (i = 0; i < 3; i++) {
		s32 vo = te_sframe_start(fo, i, &field);
		u64 fo_addr = field + (s64)vo;
		s32 ve = te_sframe_start(fe, i, &field);

		KT_ASSERT_EQ(kuw_elf_symbol(&o, te_fn[i], &sym_o), 0);
		KT_ASSERT_EQ(kuw_elf_symbol(&e, te_fn[i], &sym_e), 0);
		KT_EXPECT_EQ(fe->addr + (s64)ve, sym_e);
		KT_EXPECT_EQ(fo_addr, sym_o);
	}
	kuw_elf_close(&o);
	kuw_elf_close(&e);
}

KT_TEST(elf_rel_relocations_match_ld)
{
	te_check_rel("elf_funcs", te_funcs,
		     "as --gsframe -o %s/elf_funcs.o %s/elf_funcs.s && "
		     "ld -e fa -o %s/elf_funcs %s/elf_funcs.o",
		     KUW_ARCH_X86_64, true);
}

/* The same functions for AArch64 (R_AARCH64_PREL32). */
static const char te_funcs_a64[] =
	"\t.section .text.a,\"ax\",%progbits\n"
	"\t.globl fa\n"
	"\t.type fa,%function\n"
	"fa:\n"
	"\t.cfi_startproc\n"
	"\tstp x29, x30, [sp, -16]!\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset 29, -16\n"
	"\t.cfi_offset 30, -8\n"
	"\tldp x29, x30, [sp], 16\n"
	"\t.cfi_def_cfa_offset 0\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size fa, .-fa\n"
	"\t.section .text.b,\"ax\",%progbits\n"
	"\t.p2align 6\n"
	"\tnop\n"
	"\t.globl fb\n"
	"\t.type fb,%function\n"
	"fb:\n"
	"\t.cfi_startproc\n"
	"\tsub sp, sp, 32\n"
	"\t.cfi_def_cfa_offset 32\n"
	"\tadd sp, sp, 32\n"
	"\t.cfi_def_cfa_offset 0\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size fb, .-fb\n"
	"\t.section .text.c,\"ax\",%progbits\n"
	"\t.globl fc\n"
	"\t.type fc,%function\n"
	"fc:\n"
	"\t.cfi_startproc\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	"\t.size fc, .-fc\n";

KT_TEST(elf_rel_relocations_match_ld_arm64)
{
	if (system("command -v aarch64-linux-gnu-as >/dev/null 2>&1 && "
		   "command -v aarch64-linux-gnu-ld >/dev/null 2>&1")) {
		fprintf(stderr, "  (skipped: no aarch64-linux-gnu binutils)\n");
		return;
	}
	te_check_rel("elf_funcs_a64", te_funcs_a64,
		     "aarch64-linux-gnu-as --gsframe -o %s/elf_funcs_a64.o "
		     "%s/elf_funcs_a64.s && aarch64-linux-gnu-ld -e fa -o "
		     "%s/elf_funcs_a64 %s/elf_funcs_a64.o",
		     KUW_ARCH_ARM64, true);
}

/* Each AArch64 type by its definition. */
KT_TEST(elf_rel_every_reloc_type_arm64)
{
	const struct kuw_elf_sec *s;
	char obj[512];
	struct kuw_elf o;
	u64 f, P;

	if (system("command -v aarch64-linux-gnu-as >/dev/null 2>&1")) {
		fprintf(stderr, "  (skipped: no aarch64-linux-gnu-as)\n");
		return;
	}
	KT_ASSERT_EQ(te_build("elf_types_a64",
			      "\t.text\n\tnop\n\t.globl f\nf:\n\tret\n"
			      "\t.section .eh_frame,\"a\",%progbits\n"
			      "\t.word f - . + 3\n"		/* PREL32 */
			      "\t.xword f - . - 5\n"		/* PREL64 */
			      "\t.word f + 7\n"		/* ABS32 */
			      "\t.xword f + 11\n"		/* ABS64 */
			      "\t.reloc ., R_AARCH64_NONE, f\n"
			      "\t.word 0x5a5a5a5a\n"
			      "\t.reloc ., R_AARCH64_ADR_PREL_LO21, f\n"
			      "\t.word 0\n",
			      "aarch64-linux-gnu-as -o %s/elf_types_a64.o "
			      "%s/elf_types_a64.s"), 0);
	te_path(obj, sizeof(obj), "elf_types_a64.o");
	/* the last relocation is not one an unwind section may carry */
	KT_ASSERT_EQ(kuw_elf_open(&o, obj), KUW_ELF_EBAD);
	KT_EXPECT(strstr(o.err, ".rela.eh_frame+0x78: unsupported relocation type 274"));
	kuw_elf_close(&o);
	KT_ASSERT_EQ(te_build("elf_types_a64",
			      "\t.text\n\tnop\n\t.globl f\nf:\n\tret\n"
			      "\t.section .eh_frame,\"a\",%progbits\n"
			      "\t.word f - . + 3\n"
			      "\t.xword f - . - 5\n"
			      "\t.word f + 7\n"
			      "\t.xword f + 11\n"
			      "\t.reloc ., R_AARCH64_NONE, f\n"
			      "\t.word 0x5a5a5a5a\n",
			      "aarch64-linux-gnu-as -o %s/elf_types_a64.o "
			      "%s/elf_types_a64.s"), 0);
	KT_ASSERT_EQ(kuw_elf_open(&o, obj), KUW_ELF_OK);
	KT_EXPECT_EQ(o.arch, KUW_ARCH_ARM64);
	s = kuw_elf_find(&o, ".eh_frame");
	KT_ASSERT(s && s->data && s->size >= 28);
	KT_ASSERT_EQ(kuw_elf_symbol(&o, "f", &f), 0);
	KT_EXPECT_EQ(f, kuw_elf_find(&o, ".text")->addr + 4);
	P = s->addr;
	KT_EXPECT_EQ((u32)kuw_get_le(s->data, 4), (u32)(f + 3 - P));
	KT_EXPECT_EQ(kuw_get_le(s->data + 4, 8), f - 5 - (P + 4));
	KT_EXPECT_EQ(kuw_get_le(s->data + 12, 4), f + 7);
	KT_EXPECT_EQ(kuw_get_le(s->data + 16, 8), f + 11);
	KT_EXPECT_EQ(kuw_get_le(s->data + 24, 4), 0x5a5a5a5a);
	KT_EXPECT_EQ(o.nrel, 4);
	kuw_elf_close(&o);
}

/* .debug_frame of an object: absolute R_X86_64_64 initial locations. */
KT_TEST(elf_rel_debug_frame_abs64)
{
	const struct kuw_elf_sec *df;
	char obj[512];
	struct kuw_elf o;
	u64 off = 0, sym;
	int n = 0;

	KT_ASSERT_EQ(te_build("elf_dbg",
			      "\t.cfi_sections .debug_frame\n"
			      "\t.text\n\tnop\n\t.globl g1\ng1:\n"
			      "\t.cfi_startproc\n\tret\n\t.cfi_endproc\n"
			      "\t.section .text.z,\"ax\",@progbits\n"
			      "\t.globl g2\ng2:\n\t.cfi_startproc\n\tret\n"
			      "\t.cfi_endproc\n",
			      "as -o %s/elf_dbg.o %s/elf_dbg.s"), 0);
	te_path(obj, sizeof(obj), "elf_dbg.o");
	KT_ASSERT_EQ(kuw_elf_open(&o, obj), KUW_ELF_OK);
	df = kuw_elf_find(&o, ".debug_frame");
	KT_ASSERT(df && df->data);
	while (off + 16 <= df->size && n < 2) {
		u32 l = (u32)kuw_get_le(df->data + off, 4);

		if (kuw_get_le(df->data + off + 4, 4) != 0xffffffffu) {
			KT_ASSERT_EQ(kuw_elf_symbol(&o, n ? "g2" : "g1", &sym),
				     0);
			KT_EXPECT_EQ(kuw_get_le(df->data + off + 8, 8), sym);
			n++;
		}
		off += 4 + (u64)l;
	}
	KT_EXPECT_EQ(n, 2);
	kuw_elf_close(&o);
}

/* Each supported type, in a section named .eh_frame, by its definition. */
KT_TEST(elf_rel_every_reloc_type)
{
	const struct kuw_elf_sec *s;
	char obj[512];
	struct kuw_elf o;
	u64 f, P;

	KT_ASSERT_EQ(te_build("elf_types",
			      "\t.text\n\tnop\n\t.globl f\nf:\n\tret\n"
			      "\t.section .eh_frame,\"a\",@progbits\n"
			      "\t.long f - . + 3\n"		/* PC32 */
			      "\t.quad f - . - 5\n"		/* PC64 */
			      "\t.long f + 7\n"			/* 32 */
			      "\t.reloc ., R_X86_64_32S, f + 9\n"
			      "\t.long 0\n"
			      "\t.quad f + 11\n"		/* 64 */
			      "\t.reloc ., R_X86_64_NONE, f\n"
			      "\t.long 0x5a5a5a5a\n",
			      "as -o %s/elf_types.o %s/elf_types.s"), 0);
	te_path(obj, sizeof(obj), "elf_types.o");
	KT_ASSERT_EQ(kuw_elf_open(&o, obj), KUW_ELF_OK);
	s = kuw_elf_find(&o, ".eh_frame");
	KT_ASSERT(s && s->data && s->size >= 32);
	KT_ASSERT_EQ(kuw_elf_symbol(&o, "f", &f), 0);
	KT_EXPECT_EQ(f, kuw_elf_find(&o, ".text")->addr + 1);
	P = s->addr;
	KT_EXPECT_EQ((u32)kuw_get_le(s->data, 4), (u32)(f + 3 - P));
	KT_EXPECT_EQ(kuw_get_le(s->data + 4, 8), f - 5 - (P + 4));
	KT_EXPECT_EQ(kuw_get_le(s->data + 12, 4), f + 7);
	KT_EXPECT_EQ(kuw_get_le(s->data + 16, 4), f + 9);
	KT_EXPECT_EQ(kuw_get_le(s->data + 20, 8), f + 11);
	KT_EXPECT_EQ(kuw_get_le(s->data + 28, 4), 0x5a5a5a5a);
	KT_EXPECT_EQ(o.nrel, 5);
	kuw_elf_close(&o);
}

KT_TEST(elf_rel_errors)
{
	char obj[512];
	struct kuw_elf o;

	/* unsupported relocation type */
	KT_ASSERT_EQ(te_build("elf_badtype",
			      "\t.text\nf:\n\tret\n"
			      "\t.section .eh_frame,\"a\",@progbits\n"
			      "\t.long 0\n"
			      "\t.reloc ., R_X86_64_GOTPCREL, f\n"
			      "\t.long 0\n",
			      "as -o %s/elf_badtype.o %s/elf_badtype.s"), 0);
	te_path(obj, sizeof(obj), "elf_badtype.o");
	KT_EXPECT_EQ(kuw_elf_open(&o, obj), KUW_ELF_EBAD);
	KT_EXPECT(strstr(o.err, ".rela.eh_frame+0x0: unsupported relocation type 9"));
	kuw_elf_close(&o);

	/* undefined symbol in .sframe's relocations */
	KT_ASSERT_EQ(te_build("elf_undef",
			      "\t.section .sframe,\"a\",@progbits\n"
			      "\t.long ext - .\n",
			      "as -o %s/elf_undef.o %s/elf_undef.s"), 0);
	te_path(obj, sizeof(obj), "elf_undef.o");
	KT_EXPECT_EQ(kuw_elf_open(&o, obj), KUW_ELF_EBAD);
	KT_EXPECT(strstr(o.err, ".rela.sframe+0x0: relocation against undefined symbol"));
	kuw_elf_close(&o);

	/* relocations of other sections are not our business */
	KT_ASSERT_EQ(te_build("elf_other",
			      "\t.text\n\tcall ext\n\t.long ext2\n",
			      "as -o %s/elf_other.o %s/elf_other.s"), 0);
	te_path(obj, sizeof(obj), "elf_other.o");
	KT_EXPECT_EQ(kuw_elf_open(&o, obj), KUW_ELF_OK);
	kuw_elf_close(&o);

	te_path(obj, sizeof(obj), "no-such-file");
	KT_EXPECT_EQ(kuw_elf_open(&o, obj), KUW_ELF_EIO);
	kuw_elf_close(&o);
}

/* A shared object: link-time addresses and text range as readelf says. */
KT_TEST(elf_shared_object)
{
	u64 want_eh = 0, tmin = ~0ull, tmax = 0, sym;
	const struct kuw_elf_sec *s;
	char so[512], cmd[1024], line[512];
	struct kuw_elf e;
	FILE *p;

	KT_ASSERT_EQ(te_build("elf_so",
			      "\t.text\n\t.globl sf\n\t.type sf,@function\n"
			      "sf:\n\t.cfi_startproc\n\tpushq %rbx\n"
			      "\t.cfi_def_cfa_offset 16\n\tpopq %rbx\n"
			      "\t.cfi_def_cfa_offset 8\n\tret\n"
			      "\t.cfi_endproc\n",
			      "as -o %s/elf_so.o %s/elf_so.s && "
			      "ld -shared -o %s/elf_so.so %s/elf_so.o"), 0);
	te_path(so, sizeof(so), "elf_so.so");
	snprintf(cmd, sizeof(cmd), "readelf -SW %s", so);
	p = popen(cmd, "r");
	KT_ASSERT(p);
	while (fgets(line, sizeof(line), p)) {
		char name[128], type[64], flags[16];
		unsigned long long addr, off, size, es;

		/* "  [ 5] .text  PROGBITS  addr off size es flags ..." */
		char *q = strchr(line, ']');

		if (!q || sscanf(q + 1, "%127s %63s %llx %llx %llx %llx %15s",
				 name, type, &addr, &off, &size, &es,
				 flags) != 7)
			continue;
		if (!strcmp(name, ".eh_frame"))
			want_eh = addr;
		if (strchr(flags, 'A') && strchr(flags, 'X') && size) {
			if (addr < tmin)
				tmin = addr;
			if (addr + size > tmax)
				tmax = addr + size;
		}
	}
	pclose(p);
	KT_ASSERT(want_eh);
	KT_ASSERT_EQ(kuw_elf_open(&e, so), KUW_ELF_OK);
	KT_EXPECT_EQ(e.type, 3);
	s = kuw_elf_find(&e, ".eh_frame");
	KT_ASSERT(s);
	KT_EXPECT_EQ(s->addr, want_eh);
	KT_EXPECT_EQ(e.text_start, tmin);
	KT_EXPECT_EQ(e.text_end, tmax);
	KT_EXPECT_EQ(e.nrel, 0);
	KT_EXPECT_EQ(kuw_elf_symbol(&e, "sf", &sym), 0);
	KT_EXPECT(sym >= tmin && sym < tmax);
	KT_EXPECT_EQ(kuw_elf_symbol(&e, "no_such_symbol", &sym), -1);
	kuw_elf_close(&e);
}

static u64 te_rng = 0x9e3779b97f4a7c15ull;

static u64 te_rand(void)
{
	te_rng ^= te_rng << 13;
	te_rng ^= te_rng >> 7;
	te_rng ^= te_rng << 17;
	return te_rng;
}

/*
 * Corrupt the headers of a real object (ELF header, section headers,
 * relocation and symbol entries) and truncate it: every load either
 * succeeds or fails with a message; ASan/UBSan watch for the rest.
 */
KT_TEST(elf_corrupt_images)
{
	u64 size, shoff, i, j;
	int bad = 0, good = 0;
	char obj[512];
	u8 *img, *m;
	FILE *f;

	te_path(obj, sizeof(obj), "elf_funcs.o");
	f = fopen(obj, "rb");
	if (!f) {
		KT_ASSERT_EQ(te_build("elf_funcs", te_funcs,
				      "as --gsframe -o %s/elf_funcs.o %s/elf_funcs.s"),
			     0);
		f = fopen(obj, "rb");
	}
	KT_ASSERT(f);
	fseek(f, 0, SEEK_END);
	size = (u64)ftell(f);
	fseek(f, 0, SEEK_SET);
	img = malloc(size);
	m = malloc(size);
	KT_ASSERT(img && m);
	KT_ASSERT_EQ(fread(img, 1, size, f), size);
	fclose(f);
	shoff = kuw_get_le(img + 40, 8);
	for (i = 0; i < 6000; i++) {
		struct kuw_elf e;
		u64 n = 1 + te_rand() % 4, len = size;
		int ret;

		memcpy(m, img, size);
		for (j = 0; j < n; j++) {
			u64 pos, r = te_rand();

			switch (r % 3) {
			case 0:		/* ELF header */
				pos = (r >> 8) % 64;
				break;
			case 1:		/* section headers */
				pos = shoff + (r >> 8) % (size - shoff);
				break;
			default:	/* anywhere (symbols, relocations) */
				pos = (r >> 8) % size;
				break;
			}
			if ((r >> 40) & 1)
				m[pos] ^= 1u << ((r >> 41) & 7);
			else
				m[pos] = (u8)(r >> 44);
		}
		if (i % 10 == 0)
			len = te_rand() % size;
		ret = kuw_elf_load(&e, m, len);
		if (ret) {
			bad++;
			KT_EXPECT(e.err[0]);
		} else {
			good++;
		}
		kuw_elf_close(&e);
	}
	KT_EXPECT(bad > 0 && good > 0);
	free(img);
	free(m);
}
