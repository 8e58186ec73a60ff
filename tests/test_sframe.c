// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame walker tests.
 *
 * Independent truth: sections assembled by `as --gsframe` from CFI
 * directives (tests/asm/sfr_*.s) and decoded by `objdump --sframe`, whose
 * table (binutils 2.40's and 2.44's notation) is parsed here; each test
 * compares with the objdump of the binutils that assembled it; the function
 * starts of a relocatable object come from its RELA relocations; version 2
 * sections with either kind of start are made from the real ones (v1 of
 * binutils 2.40, v2 of 2.41+) by a mechanical rewrite; hand-built sections (AArch64, PCMASK,
 * 4-byte offsets, errors) are written byte by byte from the specification.
 */
#include <stdarg.h>
#include <sys/stat.h>
#include "engine.h"
#include "arch.h"
#include "sframe.h"
#include "read.h"
#include "kt.h"
#include "mem.h"

/* ---- collecting what the walker reports ---- */

#define COL_MAX_FDES	256
#define COL_MAX_ROWS	4096

struct col_row {
	u64 pc;
	struct kuw_rule r;
};

struct col_fde {
	struct kuw_fde_info f;
	u32 first;
	u32 n;
};

struct col {
	struct col_fde fde[COL_MAX_FDES];
	u32 nfde;
	struct col_row *row;
	u32 nrow;
	int bad;		/* sink misuse seen (row before any FDE) */
	int stop_at_row;	/* return 99 from the n-th row (1-based) */
};

static int col_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct col *c = ctx;

	if (c->nfde >= COL_MAX_FDES)
		return 98;
	c->fde[c->nfde].f = *f;
	c->fde[c->nfde].first = c->nrow;
	c->fde[c->nfde].n = 0;
	c->nfde++;
	return 0;
}

static int col_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct col *c = ctx;

	if (!c->nfde) {
		c->bad = 1;
		return 97;
	}
	if (c->nrow >= COL_MAX_ROWS)
		return 98;
	c->row[c->nrow].pc = pc;
	c->row[c->nrow].r = *r;
	c->nrow++;
	c->fde[c->nfde - 1].n++;
	if (c->stop_at_row && (int)c->nrow == c->stop_at_row)
		return 99;
	return 0;
}

static struct col *col_new(void)
{
	struct col *c = calloc(1, sizeof(*c));

	c->row = calloc(COL_MAX_ROWS, sizeof(*c->row));
	return c;
}

static void col_free(struct col *c)
{
	if (c)
		free(c->row);
	free(c);
}

static int walk(const struct kuw_obj *o, const u8 *data, u64 size, u64 addr,
		struct col *c, struct kuw_stats *st, struct kuw_diag *d)
{
	struct kuw_sec s = { data, size, addr };
	struct kuw_sink sink = { col_fde, col_row, c };

	return kuw_sfr_walk(o, &s, c ? &sink : NULL, st, d);
}

/* ---- building fixtures and reading ELF files ---- */

/*
 * The ELF64 structures this file reads (tools/elf.h shadows <elf.h> on the
 * include path, so they are spelled out here).
 */
typedef struct {
	u8 e_ident[16];
	u16 e_type, e_machine;
	u32 e_version;
	u64 e_entry, e_phoff, e_shoff;
	u32 e_flags;
	u16 e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf64_Ehdr;

typedef struct {
	u32 sh_name, sh_type;
	u64 sh_flags, sh_addr, sh_offset, sh_size;
	u32 sh_link, sh_info;
	u64 sh_addralign, sh_entsize;
} Elf64_Shdr;

typedef struct {
	u32 st_name;
	u8 st_info, st_other;
	u16 st_shndx;
	u64 st_value, st_size;
} Elf64_Sym;

typedef struct {
	u64 r_offset, r_info;
	s64 r_addend;
} Elf64_Rela;

#define ELFMAG		"\177ELF"
#define SELFMAG		4
#define ET_REL		1
#define SHF_ALLOC	0x2
#define SHF_EXECINSTR	0x4
#define R_X86_64_PC32	2
#define R_AARCH64_PREL32 261
#define ELF64_R_SYM(i)	((u32)((i) >> 32))
#define ELF64_R_TYPE(i)	((u32)(i))

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static const char *bpath(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", kt_builddir, name);
	return buf[k];
}

/* as --gsframe tests/asm/NAME.s -> build/NAME.o; 0 on success. */
static int assemble(const char *name)
{
	sh("mkdir -p %s", kt_builddir);
	return sh("as --gsframe -o %s/%s.o %s/asm/%s.s", kt_builddir, name,
		  kt_srcdir, name);
}

struct elf {
	u8 *buf;
	size_t size;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	const char *shstr;
};

static int elf_load(struct elf *e, const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat stt;

	memset(e, 0, sizeof(*e));
	if (!f)
		return -1;
	if (fstat(fileno(f), &stt) || stt.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		fclose(f);
		return -1;
	}
	e->size = stt.st_size;
	e->buf = malloc(e->size);
	if (!e->buf || fread(e->buf, 1, e->size, f) != e->size) {
		fclose(f);
		free(e->buf);
		e->buf = NULL;
		return -1;
	}
	fclose(f);
	e->eh = (Elf64_Ehdr *)e->buf;
	if (memcmp(e->eh->e_ident, ELFMAG, SELFMAG) ||
	    e->eh->e_shoff + (u64)e->eh->e_shnum * sizeof(Elf64_Shdr) > e->size) {
		free(e->buf);
		e->buf = NULL;
		return -1;
	}
	e->sh = (Elf64_Shdr *)(e->buf + e->eh->e_shoff);
	e->shstr = (const char *)e->buf + e->sh[e->eh->e_shstrndx].sh_offset;
	return 0;
}

static void elf_free(struct elf *e)
{
	free(e->buf);
	e->buf = NULL;
}

static int elf_sec(const struct elf *e, const char *name)
{
	int i;

	for (i = 0; i < e->eh->e_shnum; i++)
		if (!strcmp(e->shstr + e->sh[i].sh_name, name))
			return i;
	return -1;
}

/* Text range of a linked file: union of executable allocated sections. */
static void elf_text(const struct elf *e, const u64 *addr, u64 *lo, u64 *hi)
{
	int i;

	*lo = ~0ULL;
	*hi = 0;
	for (i = 0; i < e->eh->e_shnum; i++) {
		const Elf64_Shdr *s = &e->sh[i];
		u64 a = addr ? addr[i] : s->sh_addr;

		if (!(s->sh_flags & SHF_EXECINSTR) || !(s->sh_flags & SHF_ALLOC))
			continue;
		if (a < *lo)
			*lo = a;
		if (a + s->sh_size > *hi)
			*hi = a + s->sh_size;
	}
}

/* ---- objdump --sframe, the independent decoder ---- */

struct od_row {
	u64 pc;
	int cfa_fp;
	s32 cfa_off;
	int fp_set;
	s32 fp_off;
	int ra_set;
	s32 ra_off;
	int mangled;
};

struct od_fde {
	u64 pc;
	u64 size;
	int pcmask;
	u32 first;
	u32 n;
};

struct od {
	int version;
	int fixed_ra;		/* "CFA fixed RA offset" (2.44+), else 0 */
	u32 nfde_hdr;
	u32 nfre_hdr;
	struct od_fde fde[COL_MAX_FDES];
	u32 nfde;
	struct od_row row[COL_MAX_ROWS];
	u32 nrow;
};

/*
 * "u", "c-16", "c+8", with an optional "[s]" (signed RA).  In the RA
 * column (@mangled given), binutils 2.44+ prints "f" for the header's fixed
 * RA offset (AMD64) and "U" for a flexible FDE's padding (the fixed offset
 * too): not tracked per FRE, like 2.40's "u".
 */
static int od_loc(const char *t, int *set, s32 *off, int *mangled)
{
	*set = 0;
	*off = 0;
	if (mangled)
		*mangled = strstr(t, "[s]") != NULL;
	if (t[0] == 'u' || (mangled && (t[0] == 'f' || t[0] == 'U')))
		return 0;
	if (t[0] != 'c')
		return -1;
	*set = 1;
	*off = (s32)strtol(t + 1, NULL, 10);
	return 0;
}

static int od_parse(struct od *od, const char *objdump, const char *path)
{
	char cmd[600], line[512];
	FILE *p;
	int rc, bad = 0;

	memset(od, 0, sizeof(*od));
	snprintf(cmd, sizeof(cmd), "%s --sframe %s", objdump, path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, b;
		char t1[64], t2[64], t3[64];
		unsigned int idx;

		if (sscanf(line, " Version: SFRAME_VERSION_%d", &od->version) == 1)
			continue;
		if (sscanf(line, " CFA fixed RA offset: %d", &od->fixed_ra) == 1)
			continue;
		if (sscanf(line, " Num FDEs: %u", &od->nfde_hdr) == 1)
			continue;
		if (sscanf(line, " Num FREs: %u", &od->nfre_hdr) == 1)
			continue;
		if (sscanf(line, " func idx [%u]: pc = %llx, size = %llu",
			   &idx, &a, &b) == 3) {
			struct od_fde *f = &od->fde[od->nfde++];

			f->pc = a;
			f->size = b;
			f->first = od->nrow;
			continue;
		}
		if (strstr(line, "STARTPC")) {
			if (od->nfde && strstr(line, "STARTPC[m]"))
				od->fde[od->nfde - 1].pcmask = 1;
			continue;
		}
		if (od->nfde &&
		    sscanf(line, " %llx %63s %63s %63s", &a, t1, t2, t3) == 4) {
			struct od_row *r = &od->row[od->nrow++];

			r->pc = a;
			if (!strncmp(t1, "sp", 2))
				r->cfa_fp = 0;
			else if (!strncmp(t1, "fp", 2))
				r->cfa_fp = 1;
			else
				bad = 1;
			r->cfa_off = (s32)strtol(t1 + 2, NULL, 10);
			if (od_loc(t2, &r->fp_set, &r->fp_off, NULL) ||
			    od_loc(t3, &r->ra_set, &r->ra_off, &r->mangled))
				bad = 1;
			od->fde[od->nfde - 1].n++;
			if (od->nrow >= COL_MAX_ROWS || od->nfde >= COL_MAX_FDES)
				bad = 1;
			if (bad) {
				fprintf(stderr, "  %s: unexpected line: %s", cmd,
					line);
				break;
			}
		}
	}
	rc = pclose(p);
	return rc || bad ? -1 : 0;
}

/*
 * Compare the walker's report with objdump's.  @start[i] is the expected
 * run-time start of FDE i (NULL: objdump's pc, a linked file).  Rows of a
 * PCINC FDE are compared as offsets from the function start.
 */
static void compare(const struct col *c, const struct od *od, const u64 *start,
		    u8 arch, const char *what)
{
	const struct kuw_arch_info *ai = kuw_arch(arch);
	u32 i, j;

	KT_EXPECT_EQ(c->nfde, od->nfde);
	KT_EXPECT_EQ(od->nfde, od->nfde_hdr);
	if (c->nfde != od->nfde)
		return;
	for (i = 0; i < c->nfde; i++) {
		const struct col_fde *cf = &c->fde[i];
		const struct od_fde *of = &od->fde[i];
		u64 want = start ? start[i] : of->pc;

		KT_EXPECT_EQ(cf->f.start, want);
		KT_EXPECT_EQ(cf->f.end - cf->f.start, of->size);
		KT_EXPECT_EQ(cf->f.src, KUW_SRC_SFRAME);
		KT_EXPECT_EQ(!!cf->f.pcmask, of->pcmask);
		if (of->pcmask && arch == KUW_ARCH_X86_64)
			KT_EXPECT_EQ(cf->f.pcmask, 16);
		/* A zero-size function covers nothing: no rows reported. */
		KT_EXPECT_EQ(cf->n, of->size ? of->n : 0);
		if (cf->n != (of->size ? of->n : 0)) {
			fprintf(stderr, "  %s: fde %u rows differ\n", what, i);
			continue;
		}
		for (j = 0; j < cf->n; j++) {
			const struct col_row *cr = &c->row[cf->first + j];
			const struct od_row *orow = &od->row[of->first + j];
			const struct kuw_reg_rule *fp, *ra;
			u64 got_off, want_off;

			if (of->pcmask) {
				got_off = cr->pc;
				want_off = orow->pc;
			} else {
				got_off = cr->pc - cf->f.start;
				want_off = orow->pc - of->pc;
			}
			KT_EXPECT_EQ(got_off, want_off);
			KT_EXPECT_EQ(cr->r.cfa_kind, KUW_CFA_REG);
			KT_EXPECT_EQ(cr->r.cfa_reg,
				     orow->cfa_fp ? ai->fp : ai->sp);
			KT_EXPECT_EQ(cr->r.cfa_off, orow->cfa_off);
			fp = kuw_rule_find(&cr->r, ai->fp);
			KT_EXPECT_EQ(fp != NULL, orow->fp_set);
			if (fp && orow->fp_set) {
				KT_EXPECT_EQ(fp->kind, KUW_R_OFFSET);
				KT_EXPECT_EQ(fp->off, orow->fp_off);
			}
			ra = kuw_rule_find(&cr->r, ai->ra);
			if (arch == KUW_ARCH_X86_64) {
				/* psABI: the RA is at CFA-8, always. */
				KT_EXPECT(ra != NULL);
				if (od->fixed_ra)
					KT_EXPECT_EQ(od->fixed_ra, -8);
				if (ra) {
					KT_EXPECT_EQ(ra->kind, KUW_R_OFFSET);
					KT_EXPECT_EQ(ra->off, -8);
				}
				KT_EXPECT_EQ(cr->r.flags, 0);
			} else {
				/* AArch64: RA tracked per FRE, or in x30. */
				KT_EXPECT_EQ(ra != NULL, orow->ra_set);
				if (ra && orow->ra_set) {
					KT_EXPECT_EQ(ra->kind, KUW_R_OFFSET);
					KT_EXPECT_EQ(ra->off, orow->ra_off);
				}
				KT_EXPECT_EQ(cr->r.flags, orow->mangled ?
					     KUW_RF_MANGLED_RA : 0);
			}
			/* Registers sorted by number, only what is known. */
			KT_EXPECT_EQ(cr->r.nregs,
				     (fp != NULL) + (ra != NULL));
			if (cr->r.nregs == 2)
				KT_EXPECT(cr->r.regs[0].reg <
					  cr->r.regs[1].reg);
			if (got_off != want_off)
				return;
		}
	}
}

/* ---- version 1 or 2 -> version 2 rewrite ---- */

/* The version of the section as assembled: 1 (binutils 2.40), 2 (2.41+). */
static int sf_version(const u8 *sf)
{
	return sf[KUW_SFH_VERSION];
}

/*
 * Rewrite a v1 or v2 section as v2 (FDEs 17 or 20 -> 20 bytes, FREs
 * unchanged).  Starts are read as field-relative when @src_field or the
 * input has the PCREL flag, written field-relative when @dst_field, and
 * the PCREL flag is set when @pcrel.  PCMASK FDEs of a v1 input get
 * rep_size 16 (the x86-64 PLT entry); a v2 input keeps its own.  Returns
 * the new size.
 */
static u64 sf_to_v2(const u8 *in, u64 size, u8 *out, bool src_field,
		    bool dst_field, bool pcrel)
{
	u32 nfde, fdeoff, freoff, fre_len, i;
	u64 hdr = KUW_SFH_SIZE + in[KUW_SFH_AUXHDR_LEN];
	bool v1 = sf_version(in) == 1;
	u32 insize = v1 ? KUW_SFDE_V1_SIZE : KUW_SFDE_V2_SIZE;

	nfde = kuw_get_le32(in + KUW_SFH_NUM_FDES);
	fre_len = kuw_get_le32(in + KUW_SFH_FRE_LEN);
	fdeoff = kuw_get_le32(in + KUW_SFH_FDEOFF);
	freoff = kuw_get_le32(in + KUW_SFH_FREOFF);
	if (!v1 && (in[KUW_SFH_FLAGS] & KUW_SFRAME_F_FDE_FUNC_START_PCREL))
		src_field = true;
	memcpy(out, in, hdr);
	out[KUW_SFH_VERSION] = 2;
	out[KUW_SFH_FLAGS] &= ~KUW_SFRAME_F_FDE_FUNC_START_PCREL;
	if (pcrel)
		out[KUW_SFH_FLAGS] |= KUW_SFRAME_F_FDE_FUNC_START_PCREL;
	freoff = fdeoff + nfde * KUW_SFDE_V2_SIZE;
	memcpy(out + KUW_SFH_FREOFF, &freoff, 4);
	for (i = 0; i < nfde; i++) {
		const u8 *f1 = in + hdr + fdeoff + i * insize;
		u8 *f2 = out + hdr + fdeoff + i * KUW_SFDE_V2_SIZE;
		s32 v;
		s64 secrel;

		memcpy(&v, f1, 4);
		secrel = v + (src_field ? (s64)(f1 - in) : 0);
		v = (s32)(secrel - (dst_field ? (s64)(f2 - out) : 0));
		memcpy(f2, &v, 4);
		memcpy(f2 + 4, f1 + 4, 13);
		if (v1)
			f2[KUW_SFDE_REP_SIZE] =
				KUW_SFDE_INFO_FDE_TYPE(f1[16]) ? 16 : 0;
		else
			f2[KUW_SFDE_REP_SIZE] = f1[KUW_SFDE_REP_SIZE];
		f2[KUW_SFDE_PAD] = 0;
		f2[KUW_SFDE_PAD + 1] = 0;
	}
	memcpy(out + hdr + freoff,
	       in + hdr + fdeoff + nfde * insize, fre_len);
	(void)size;
	return hdr + freoff + fre_len;
}

/* ---- linked files: section-relative starts ---- */

struct linked {
	struct elf e;
	struct od od;
	const u8 *sf;
	u64 sf_size;
	u64 sf_addr;
	struct kuw_obj o;
};

static int linked_load_arch(struct linked *l, const char *file, u8 arch,
			    const char *objdump)
{
	int si;

	if (elf_load(&l->e, file))
		return -1;
	si = elf_sec(&l->e, ".sframe");
	if (si < 0 || l->e.sh[si].sh_size < KUW_SFH_SIZE) {
		elf_free(&l->e);
		return -1;
	}
	l->sf = l->e.buf + l->e.sh[si].sh_offset;
	l->sf_size = l->e.sh[si].sh_size;
	l->sf_addr = l->e.sh[si].sh_addr;
	memset(&l->o, 0, sizeof(l->o));
	l->o.owner = file;
	l->o.arch = arch;
	elf_text(&l->e, NULL, &l->o.text_start, &l->o.text_end);
	if (od_parse(&l->od, objdump, file) ||
	    l->od.version != sf_version(l->sf)) {
		elf_free(&l->e);
		return -1;
	}
	return 0;
}

/*
 * A _v1 test needs a v1 section from the host's assembler: binutils 2.41+
 * emit v2 (2.46+ v3), and the engine's v1 path is then covered by the
 * hand-made sections and the fuzz corpus.
 */
#define V1_SKIP_WHY "as --gsframe emits SFrame v%d, not v1 (the v1 " \
	"path is covered by the hand-made and fuzz inputs)"

static int linked_load(struct linked *l, const char *file)
{
	return linked_load_arch(l, file, KUW_ARCH_X86_64, "objdump");
}

/*
 * Walk the section @data (@n bytes at @addr) and compare its rows with
 * objdump's @od (see compare()).
 */
static void walk_compare(const struct kuw_obj *o, const u8 *data, u64 n,
			 u64 addr, const struct od *od, const u64 *start,
			 u8 arch, const char *what)
{
	struct col *c = col_new();

	KT_EXPECT_EQ(walk(o, data, n, addr, c, NULL, NULL), 0);
	compare(c, od, start, arch, what);
	col_free(c);
}

/*
 * The section as the host's as and ld made it (any version) against the
 * objdump of the same binutils.
 */
static void linked_native(struct linked *l)
{
	struct kuw_stats st = { 0 };
	struct kuw_diag d = { 0 };
	struct col *c = col_new();
	u64 text_end = l->o.text_end;
	char what[32];

	snprintf(what, sizeof(what), "linked v%d", l->od.version);
	KT_EXPECT_EQ(walk(&l->o, l->sf, l->sf_size, l->sf_addr, c, &st, &d),
		     0);
	KT_EXPECT_EQ(d.err, 0);
	compare(c, &l->od, NULL, KUW_ARCH_X86_64, what);
	KT_EXPECT_EQ(st.nfde, l->od.nfde_hdr);
	/* One zero-size FDE: its single FRE is not reported. */
	KT_EXPECT_EQ(st.nrows, l->od.nfre_hdr - 1);
	KT_EXPECT(c->nfde >= 7);
	KT_EXPECT(!c->bad);

	/* Without the text range check and with one that excludes a byte. */
	l->o.text_end = l->o.text_start + 100;
	memset(&d, 0, sizeof(d));
	KT_EXPECT_EQ(walk(&l->o, l->sf, l->sf_size, l->sf_addr, NULL, NULL,
			  &d), -KUW_E_BADRANGE);
	KT_EXPECT_STR(d.section, ".sframe");
	l->o.text_end = l->o.text_start;
	KT_EXPECT_EQ(walk(&l->o, l->sf, l->sf_size, l->sf_addr, NULL, NULL,
			  NULL), 0);

	/* The section is bounded by its header: trailing padding is fine. */
	{
		u8 *pad = calloc(1, l->sf_size + 64);

		memcpy(pad, l->sf, l->sf_size);
		KT_EXPECT_EQ(walk(&l->o, pad, l->sf_size + 64, l->sf_addr,
				  NULL, NULL, NULL), 0);
		free(pad);
	}
	l->o.text_end = text_end;
	col_free(c);
}

KT_TEST(sframe_as_linked_v1)
{
	struct linked l;
	const char *elf = bpath("sfr_x86.elf");
	int ver;

	KT_ASSERT(assemble("sfr_x86") == 0);
	KT_ASSERT(sh("ld -o %s -e 0 -Ttext=0x401000 %s", elf,
		     bpath("sfr_x86.o")) == 0);
	KT_ASSERT(linked_load(&l, elf) == 0);
	ver = l.od.version;
	if (ver != 1) {
		elf_free(&l.e);
		KT_SKIP(V1_SKIP_WHY, ver);
	}
	linked_native(&l);
	elf_free(&l.e);
}

KT_TEST(sframe_as_linked_v2)
{
	struct linked l;
	const char *elf = bpath("sfr_x86.elf");
	u8 *v2;
	u64 n;
	int pcrel;

	KT_ASSERT(assemble("sfr_x86") == 0);
	KT_ASSERT(sh("ld -o %s -e 0 -Ttext=0x401000 %s", elf,
		     bpath("sfr_x86.o")) == 0);
	KT_ASSERT(linked_load(&l, elf) == 0);
	/* As assembled, when not v1 (that is sframe_as_linked_v1's). */
	if (l.od.version != 1)
		linked_native(&l);
	if (l.od.version > 2) {
		elf_free(&l.e);
		return;
	}
	v2 = calloc(1, l.sf_size * 2);
	/*
	 * Rewritten: section-relative (no flag) and field-relative (PCREL)
	 * starts, whichever the input has.
	 */
	for (pcrel = 0; pcrel < 2; pcrel++) {
		n = sf_to_v2(l.sf, l.sf_size, v2, false, pcrel, pcrel);
		KT_EXPECT_EQ(v2[KUW_SFH_VERSION], 2);
		walk_compare(&l.o, v2, n, l.sf_addr, &l.od, NULL,
			     KUW_ARCH_X86_64,
			     pcrel ? "linked v2 pcrel" : "linked v2");
	}
	/* The PCREL flag does not exist in version 1. */
	if (l.od.version == 1) {
		memcpy(v2, l.sf, l.sf_size);
		v2[KUW_SFH_FLAGS] |= KUW_SFRAME_F_FDE_FUNC_START_PCREL;
		KT_EXPECT_EQ(walk(&l.o, v2, l.sf_size, l.sf_addr, NULL, NULL,
				  NULL), -KUW_E_BADHDR);
	}
	free(v2);
	elf_free(&l.e);
}

/* ---- the PLT: PCMASK FDEs made by ld ---- */

KT_TEST(sframe_as_plt_pcmask)
{
	struct linked l;
	struct col *c = col_new();
	const char *so = bpath("sfr_plt.so");
	u32 i, npcmask = 0;
	u8 *v2;
	u64 n;

	KT_ASSERT(assemble("sfr_plt") == 0);
	KT_ASSERT(sh("ld -shared -o %s %s", so, bpath("sfr_plt.o")) == 0);
	KT_ASSERT(linked_load(&l, so) == 0);
	KT_EXPECT_EQ(walk(&l.o, l.sf, l.sf_size, l.sf_addr, c, NULL, NULL), 0);
	compare(c, &l.od, NULL, KUW_ARCH_X86_64, "plt as linked");
	for (i = 0; i < l.od.nfde; i++)
		npcmask += l.od.fde[i].pcmask;
	KT_EXPECT_EQ(npcmask, 1);
	col_free(c);
	if (l.od.version > 2) {
		elf_free(&l.e);
		return;
	}

	/* Same as version 2 with rep_size 16, then another block size. */
	c = col_new();
	v2 = calloc(1, l.sf_size * 2);
	n = sf_to_v2(l.sf, l.sf_size, v2, false, true, true);
	KT_EXPECT_EQ(walk(&l.o, v2, n, l.sf_addr, c, NULL, NULL), 0);
	compare(c, &l.od, NULL, KUW_ARCH_X86_64, "plt v2");
	for (i = 0; i < c->nfde; i++) {
		u8 *f = v2 + KUW_SFH_SIZE + i * KUW_SFDE_V2_SIZE;

		if (KUW_SFDE_INFO_FDE_TYPE(f[KUW_SFDE_INFO]))
			f[KUW_SFDE_REP_SIZE] = 32;
	}
	col_free(c);
	c = col_new();
	KT_EXPECT_EQ(walk(&l.o, v2, n, l.sf_addr, c, NULL, NULL), 0);
	for (i = 0; i < c->nfde; i++)
		if (c->fde[i].f.pcmask)
			KT_EXPECT_EQ(c->fde[i].f.pcmask, 32);
	/* rep_size 0 in a PCMASK FDE is invalid; a row past it too. */
	for (i = 0; i < c->nfde; i++) {
		u8 *f = v2 + KUW_SFH_SIZE + i * KUW_SFDE_V2_SIZE;

		if (KUW_SFDE_INFO_FDE_TYPE(f[KUW_SFDE_INFO])) {
			f[KUW_SFDE_REP_SIZE] = 0;
			KT_EXPECT_EQ(walk(&l.o, v2, n, l.sf_addr, NULL, NULL,
					  NULL), -KUW_E_BADTYPE);
			f[KUW_SFDE_REP_SIZE] = 8;	/* row at 0xb */
			KT_EXPECT_EQ(walk(&l.o, v2, n, l.sf_addr, NULL, NULL,
					  NULL), -KUW_E_BADLOC);
			f[KUW_SFDE_REP_SIZE] = 16;
		}
	}
	free(v2);
	col_free(c);
	elf_free(&l.e);
}

/* ---- a relocatable object laid out by hand: field-relative starts ---- */

struct relocd {
	struct elf e;
	struct od od;
	u64 addr[256];		/* our address of each section */
	u8 *sf;			/* relocated copy of .sframe */
	u64 sf_size;
	u64 sf_addr;
	u64 start[COL_MAX_FDES];	/* expected start of FDE i */
	u32 nstart;
	struct kuw_obj o;
};

/*
 * Lay out every allocated section 1 MiB apart from 0x7000000, apply
 * .rela.sframe (R_X86_64_PC32: S + A - P), and record, for each FDE, the
 * start its relocation designates (S + A).
 */
static int relocd_load_arch(struct relocd *r, const char *obj, u8 arch,
			    const char *objdump)
{
	int fde_size;
	u32 pc32 = arch == KUW_ARCH_ARM64 ? R_AARCH64_PREL32 : R_X86_64_PC32;
	int si, ri, symi, i;
	const Elf64_Rela *rel;
	const Elf64_Sym *sym;
	u32 nrel;

	memset(r, 0, sizeof(*r));
	if (elf_load(&r->e, obj))
		return -1;
	if (r->e.eh->e_type != ET_REL || r->e.eh->e_shnum > 256)
		goto bad;
	for (i = 0; i < r->e.eh->e_shnum; i++)
		if (r->e.sh[i].sh_flags & SHF_ALLOC)
			r->addr[i] = 0x7000000ULL + (u64)i * 0x100000;
	si = elf_sec(&r->e, ".sframe");
	ri = elf_sec(&r->e, ".rela.sframe");
	if (si < 0 || ri < 0 || r->e.sh[si].sh_size < KUW_SFH_SIZE)
		goto bad;
	/* v1 and v2 (32-bit starts); v3's are 64-bit (PC64): not here. */
	switch (sf_version(r->e.buf + r->e.sh[si].sh_offset)) {
	case 1:
		fde_size = KUW_SFDE_V1_SIZE;
		break;
	case 2:
		fde_size = KUW_SFDE_V2_SIZE;
		break;
	default:
		goto bad;
	}
	r->sf_size = r->e.sh[si].sh_size;
	r->sf_addr = r->addr[si];
	r->sf = malloc(r->sf_size);
	memcpy(r->sf, r->e.buf + r->e.sh[si].sh_offset, r->sf_size);
	symi = r->e.sh[ri].sh_link;
	sym = (const Elf64_Sym *)(r->e.buf + r->e.sh[symi].sh_offset);
	rel = (const Elf64_Rela *)(r->e.buf + r->e.sh[ri].sh_offset);
	nrel = r->e.sh[ri].sh_size / sizeof(*rel);
	for (i = 0; i < (int)nrel; i++) {
		const Elf64_Sym *s = &sym[ELF64_R_SYM(rel[i].r_info)];
		u64 S = r->addr[s->st_shndx] + s->st_value;
		u64 P = r->sf_addr + rel[i].r_offset;
		s32 v = (s32)(S + rel[i].r_addend - P);
		u64 fde;

		if (ELF64_R_TYPE(rel[i].r_info) != pc32 ||
		    rel[i].r_offset + 4 > r->sf_size ||
		    (rel[i].r_offset - KUW_SFH_SIZE) % fde_size)
			goto bad;
		memcpy(r->sf + rel[i].r_offset, &v, 4);
		fde = (rel[i].r_offset - KUW_SFH_SIZE) / fde_size;
		if (fde >= COL_MAX_FDES)
			goto bad;
		r->start[fde] = S + rel[i].r_addend;
		if (fde + 1 > r->nstart)
			r->nstart = fde + 1;
	}
	r->o.owner = obj;
	r->o.arch = arch;
	r->o.flags = KUW_OBJ_RELOCATED;
	elf_text(&r->e, r->addr, &r->o.text_start, &r->o.text_end);
	if (!od_parse(&r->od, objdump, obj) &&
	    r->od.version == sf_version(r->sf))
		return 0;
bad:
	free(r->sf);
	r->sf = NULL;
	elf_free(&r->e);
	return -1;
}

static int relocd_load(struct relocd *r, const char *obj)
{
	return relocd_load_arch(r, obj, KUW_ARCH_X86_64, "objdump");
}

static void relocd_free(struct relocd *r)
{
	free(r->sf);
	elf_free(&r->e);
}

/* The object as the host's as made it (v1 or v2) against its objdump. */
static void relocd_native(struct relocd *r)
{
	struct col *c = col_new();
	struct kuw_diag d = { 0 };
	u32 flags = r->o.flags;
	char what[32];

	snprintf(what, sizeof(what), "relocated v%d", r->od.version);
	KT_EXPECT_EQ(r->nstart, r->od.nfde);
	KT_EXPECT_EQ(walk(&r->o, r->sf, r->sf_size, r->sf_addr, c, NULL, &d),
		     0);
	KT_EXPECT_EQ(d.err, 0);
	compare(c, &r->od, r->start, KUW_ARCH_X86_64, what);
	/* Two text sections far apart: starts landed in both. */
	KT_EXPECT(c->nfde == r->od.nfde &&
		  c->fde[c->nfde - 1].f.start - c->fde[0].f.start >= 0x100000);

	/* Read as a linked image instead, the starts leave the text. */
	r->o.flags = 0;
	KT_EXPECT_EQ(walk(&r->o, r->sf, r->sf_size, r->sf_addr, NULL, NULL,
			  NULL), -KUW_E_BADRANGE);
	r->o.flags = flags;
	col_free(c);
}

KT_TEST(sframe_as_relocated_v1)
{
	struct relocd r;
	int ver;

	KT_ASSERT(assemble("sfr_x86") == 0);
	KT_ASSERT(relocd_load(&r, bpath("sfr_x86.o")) == 0);
	ver = r.od.version;
	if (ver != 1) {
		relocd_free(&r);
		KT_SKIP(V1_SKIP_WHY, ver);
	}
	relocd_native(&r);
	relocd_free(&r);
}

KT_TEST(sframe_as_relocated_v2)
{
	struct relocd r;
	u8 *v2;
	u64 n;
	int pcrel;

	KT_ASSERT(assemble("sfr_x86") == 0);
	KT_ASSERT(relocd_load(&r, bpath("sfr_x86.o")) == 0);
	/* As assembled, when not v1 (that is sframe_as_relocated_v1's). */
	if (r.od.version != 1)
		relocd_native(&r);
	v2 = calloc(1, r.sf_size * 2);
	for (pcrel = 0; pcrel < 2; pcrel++) {
		/* Field-relative starts, with or without the flag. */
		n = sf_to_v2(r.sf, r.sf_size, v2, true, true, pcrel);
		walk_compare(&r.o, v2, n, r.sf_addr, &r.od, r.start,
			     KUW_ARCH_X86_64,
			     pcrel ? "relocated v2 pcrel" : "relocated v2");
	}
	/* A linked image with the PCREL flag: field-relative too. */
	r.o.flags = 0;
	n = sf_to_v2(r.sf, r.sf_size, v2, true, true, true);
	walk_compare(&r.o, v2, n, r.sf_addr, &r.od, r.start,
		     KUW_ARCH_X86_64, "v2 pcrel linked");
	free(v2);
	relocd_free(&r);
}

/* ---- hand-built sections ---- */

#define SP	KUW_SFRAME_BASE_REG_SP
#define FP	KUW_SFRAME_BASE_REG_FP

struct bb {
	u8 b[1024];
	u32 n;
};

static void put8(struct bb *b, u8 v)
{
	b->b[b->n++] = v;
}

static void put16(struct bb *b, u16 v)
{
	put8(b, v & 0xff);
	put8(b, v >> 8);
}

static void put32(struct bb *b, u32 v)
{
	put16(b, v & 0xffff);
	put16(b, v >> 16);
}

static void set32(struct bb *b, u32 at, u32 v)
{
	kuw_put_le(b->b + at, v, 4);
}

static void hdr(struct bb *b, u8 ver, u8 flags, u8 abi, s8 ffp, s8 fra,
		u8 aux, u32 nfde, u32 nfre)
{
	u32 i;

	b->n = 0;
	put16(b, KUW_SFRAME_MAGIC);
	put8(b, ver);
	put8(b, flags);
	put8(b, abi);
	put8(b, (u8)ffp);
	put8(b, (u8)fra);
	put8(b, aux);
	put32(b, nfde);
	put32(b, nfre);
	put32(b, 0);		/* fre_len, set by fin() */
	put32(b, 0);		/* fdeoff */
	put32(b, 0);		/* freoff, set by fin() */
	for (i = 0; i < aux; i++)
		put8(b, 0xa5);
}

static void fde(struct bb *b, u8 ver, s32 start, u32 size, u32 fre_off,
		u32 nfre, u8 info, u8 rep)
{
	put32(b, (u32)start);
	put32(b, size);
	put32(b, fre_off);
	put32(b, nfre);
	put8(b, info);
	if (ver == 2) {
		put8(b, rep);
		put16(b, 0);
	}
}

/* Mark the end of the FDE array; FREs follow. */
static u32 fre_begin(struct bb *b)
{
	u32 hdr_end = KUW_SFH_SIZE + b->b[KUW_SFH_AUXHDR_LEN];

	set32(b, KUW_SFH_FREOFF, b->n - hdr_end);
	return b->n;
}

static void fin(struct bb *b, u32 fre_start)
{
	set32(b, KUW_SFH_FRE_LEN, b->n - fre_start);
}

static void offs(struct bb *b, u32 size, u32 count, const s32 *v)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (size == 1)
			put8(b, (u8)v[i]);
		else if (size == 2)
			put16(b, (u16)v[i]);
		else
			put32(b, (u32)v[i]);
	}
}

/*
 * One FRE: its start in @ssize bytes (1, 2 or 4), its info byte (CFA from
 * @base, @count offsets of @osize bytes (1, 2 or 4), @mangled RA), then
 * the offsets @v.
 */
static void fre(struct bb *b, u32 ssize, u32 start, u8 base, u32 count,
		u32 osize, u8 mangled, const s32 *v)
{
	u8 code = osize == 1 ? KUW_SFRAME_FRE_OFFSET_1B :
		  osize == 2 ? KUW_SFRAME_FRE_OFFSET_2B :
		  KUW_SFRAME_FRE_OFFSET_4B;

	if (ssize == 1)
		put8(b, (u8)start);
	else if (ssize == 2)
		put16(b, (u16)start);
	else
		put32(b, start);
	put8(b, KUW_SFRE_MKINFO(base, count, code, mangled));
	offs(b, osize, count, v);
}

/*
 * AArch64 v2, PCREL, 4-byte aux header, section at 0x20000, text at
 * 0x10000.  FDE0: PCINC, addr1 FREs, 1- and 2-byte offsets, FP base,
 * signed RA.  FDE1: PCMASK rep 16, addr2 FREs, 4-byte offsets.
 */
#define A64_SEC		0x20000ULL
#define A64_F0		0x10100ULL
#define A64_F1		0x10200ULL

static u32 a64_fre0;

static void mk_a64(struct bb *b)
{
	u32 fres, f0;
	s32 o1[] = { 0 };
	s32 o3[] = { 32, -8, -16 };
	s32 o3b[] = { 300, -8, -16 };
	s32 o4a[] = { 0x12345 };
	s32 o4b[] = { -0x10000, -0x20000 };
	u32 fde0 = KUW_SFH_SIZE + 4, fde1 = fde0 + KUW_SFDE_V2_SIZE;

	hdr(b, 2, KUW_SFRAME_F_FDE_FUNC_START_PCREL | KUW_SFRAME_F_FDE_SORTED,
	    KUW_SFRAME_ABI_AARCH64_LE, 0, 0, 4, 2, 5);
	fde(b, 2, (s32)(A64_F0 - (A64_SEC + fde0)), 0x40, 0, 3,
	    KUW_SFDE_MKINFO(KUW_SFRAME_FDE_TYPE_PCINC,
			    KUW_SFRAME_FRE_TYPE_ADDR1), 0);
	fde(b, 2, (s32)(A64_F1 - (A64_SEC + fde1)), 0x100, 0, 2,
	    KUW_SFDE_MKINFO(KUW_SFRAME_FDE_TYPE_PCMASK,
			    KUW_SFRAME_FRE_TYPE_ADDR2), 16);
	fres = fre_begin(b);
	a64_fre0 = fres;
	/* FDE0 */
	fre(b, 1, 0, SP, 1, 1, 0, o1);
	fre(b, 1, 4, SP, 3, 1, 1, o3);
	fre(b, 1, 8, FP, 3, 2, 1, o3b);
	/* FDE1 */
	f0 = b->n - fres;
	set32(b, fde1 + KUW_SFDE_FRE_OFF, f0);
	fre(b, 2, 0, SP, 1, 4, 0, o4a);
	fre(b, 2, 8, SP, 2, 4, 0, o4b);
	fin(b, fres);
}

static struct kuw_obj a64_obj = {
	.owner = "a64", .arch = KUW_ARCH_ARM64,
	.text_start = 0x10100, .text_end = 0x10300,
};

static void expect_rule(const struct kuw_rule *r, u8 cfa_reg, s32 cfa_off,
			int fp_set, s32 fp_off, int ra_set, s32 ra_off,
			u8 flags, u8 fpreg, u8 rareg)
{
	const struct kuw_reg_rule *fp = kuw_rule_find(r, fpreg);
	const struct kuw_reg_rule *ra = kuw_rule_find(r, rareg);

	KT_EXPECT_EQ(r->cfa_kind, KUW_CFA_REG);
	KT_EXPECT_EQ(r->cfa_reg, cfa_reg);
	KT_EXPECT_EQ(r->cfa_off, cfa_off);
	KT_EXPECT_EQ(r->flags, flags);
	KT_EXPECT_EQ(r->nregs, fp_set + ra_set);
	KT_EXPECT_EQ(fp != NULL, fp_set);
	KT_EXPECT_EQ(ra != NULL, ra_set);
	if (fp && fp_set) {
		KT_EXPECT_EQ(fp->kind, KUW_R_OFFSET);
		KT_EXPECT_EQ(fp->off, fp_off);
	}
	if (ra && ra_set) {
		KT_EXPECT_EQ(ra->kind, KUW_R_OFFSET);
		KT_EXPECT_EQ(ra->off, ra_off);
	}
	if (r->nregs == 2)
		KT_EXPECT(r->regs[0].reg < r->regs[1].reg);
}

KT_TEST(sframe_hand_aarch64_v2)
{
	struct bb b;
	struct col *c = col_new();
	struct kuw_stats st = { 0 };

	mk_a64(&b);
	KT_ASSERT_EQ(walk(&a64_obj, b.b, b.n, A64_SEC, c, &st, NULL), 0);
	KT_ASSERT_EQ(c->nfde, 2);
	KT_EXPECT_EQ(st.nfde, 2);
	KT_EXPECT_EQ(st.nrows, 5);
	KT_EXPECT_EQ(c->fde[0].f.start, A64_F0);
	KT_EXPECT_EQ(c->fde[0].f.end, A64_F0 + 0x40);
	KT_EXPECT_EQ(c->fde[0].f.pcmask, 0);
	KT_EXPECT_EQ(c->fde[0].f.off, KUW_SFH_SIZE + 4);
	KT_EXPECT_EQ(c->fde[1].f.start, A64_F1);
	KT_EXPECT_EQ(c->fde[1].f.pcmask, 16);
	KT_ASSERT_EQ(c->fde[0].n, 3);
	KT_ASSERT_EQ(c->fde[1].n, 2);
	/* CFA = sp + 0, RA still in x30 (leaf entry). */
	KT_EXPECT_EQ(c->row[0].pc, A64_F0);
	expect_rule(&c->row[0].r, KUW_A64_SP, 0, 0, 0, 0, 0, 0,
		    KUW_A64_X29, KUW_A64_X30);
	KT_EXPECT_EQ(c->row[1].pc, A64_F0 + 4);
	expect_rule(&c->row[1].r, KUW_A64_SP, 32, 1, -16, 1, -8,
		    KUW_RF_MANGLED_RA, KUW_A64_X29, KUW_A64_X30);
	KT_EXPECT_EQ(c->row[2].pc, A64_F0 + 8);
	expect_rule(&c->row[2].r, KUW_A64_X29, 300, 1, -16, 1, -8,
		    KUW_RF_MANGLED_RA, KUW_A64_X29, KUW_A64_X30);
	/* PCMASK rows: offsets inside the 16-byte block. */
	KT_EXPECT_EQ(c->row[3].pc, 0);
	expect_rule(&c->row[3].r, KUW_A64_SP, 0x12345, 0, 0, 0, 0, 0,
		    KUW_A64_X29, KUW_A64_X30);
	KT_EXPECT_EQ(c->row[4].pc, 8);
	expect_rule(&c->row[4].r, KUW_A64_SP, -0x10000, 0, 0, 1, -0x20000, 0,
		    KUW_A64_X29, KUW_A64_X30);

	/* Without the flag the starts are section-relative. */
	b.b[KUW_SFH_FLAGS] &= ~KUW_SFRAME_F_FDE_FUNC_START_PCREL;
	KT_EXPECT_EQ(walk(&a64_obj, b.b, b.n, A64_SEC, NULL, NULL, NULL),
		     -KUW_E_BADRANGE);
	set32(&b, KUW_SFH_SIZE + 4, (u32)(A64_F0 - A64_SEC));
	set32(&b, KUW_SFH_SIZE + 4 + 20, (u32)(A64_F1 - A64_SEC));
	col_free(c);
	c = col_new();
	KT_EXPECT_EQ(walk(&a64_obj, b.b, b.n, A64_SEC, c, NULL, NULL), 0);
	KT_EXPECT_EQ(c->fde[0].f.start, A64_F0);
	KT_EXPECT_EQ(c->fde[1].f.start, A64_F1);
	/* ... unless the object is relocated: then field-relative. */
	a64_obj.flags = KUW_OBJ_RELOCATED;
	KT_EXPECT_EQ(walk(&a64_obj, b.b, b.n, A64_SEC, NULL, NULL, NULL),
		     -KUW_E_BADRANGE);
	a64_obj.flags = 0;

	/* An AArch64 section is refused for an x86_64 object. */
	a64_obj.arch = KUW_ARCH_X86_64;
	KT_EXPECT_EQ(walk(&a64_obj, b.b, b.n, A64_SEC, NULL, NULL, NULL),
		     -KUW_E_BADHDR);
	a64_obj.arch = KUW_ARCH_ARM64;
	col_free(c);
}

KT_TEST(sframe_hand_aarch64_fixed_offsets)
{
	struct bb b;
	struct col *c = col_new();
	u32 fres;
	s32 off[] = { 16 };

	/* Header-fixed FP and RA offsets apply when the FRE has none. */
	struct kuw_obj o = { .owner = "a64", .arch = KUW_ARCH_ARM64 };

	hdr(&b, 2, 0, KUW_SFRAME_ABI_AARCH64_LE, -16, -8, 0, 1, 2);
	fde(&b, 2, 0x100 - 0x1000, 16, 0, 2,
	    KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR4) | 0x20, 0);
	fres = fre_begin(&b);
	fre(&b, 4, 0, SP, 1, 1, 0, off);
	fre(&b, 4, 12, SP, 0, 1, 0, NULL);
	fin(&b, fres);
	KT_ASSERT_EQ(walk(&o, b.b, b.n, 0x1000, c, NULL, NULL), 0);
	KT_ASSERT_EQ(c->nrow, 2);
	KT_EXPECT_EQ(c->fde[0].f.start, 0x100);
	expect_rule(&c->row[0].r, KUW_A64_SP, 16, 1, -16, 1, -8, 0,
		    KUW_A64_X29, KUW_A64_X30);
	/* No offsets at all: the return address is undefined (outermost). */
	KT_EXPECT_EQ(c->row[1].pc, 0x10c);
	KT_EXPECT_EQ(c->row[1].r.nregs, 1);
	KT_EXPECT_EQ(c->row[1].r.regs[0].reg, KUW_A64_X30);
	KT_EXPECT_EQ(c->row[1].r.regs[0].kind, KUW_R_UNDEF);
	col_free(c);
}

static struct kuw_obj x86_obj = {
	.owner = "x86", .arch = KUW_ARCH_X86_64,
	.text_start = 0x1000, .text_end = 0x9000,
};

/*
 * AMD64 v2, section at 0x10000, no PCREL: starts section-relative.
 * FDE0 at 0x1000 size 0x40: FREs addr1 {0: sp+8}, {1: sp+16 fp c-16},
 * {4: fp+16 fp c-16}.  Returns the offset of the FRE sub-section.
 */
static u32 mk_x86(struct bb *b)
{
	u32 fres;
	s32 a[] = { 8 }, bb2[] = { 16, -16 };

	hdr(b, 2, 0, KUW_SFRAME_ABI_AMD64_LE, 0, -8, 0, 1, 3);
	fde(b, 2, (s32)(0x1000 - 0x10000), 0x40, 0, 3,
	    KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1), 0);
	fres = fre_begin(b);
	fre(b, 1, 0, SP, 1, 1, 0, a);
	fre(b, 1, 1, SP, 2, 1, 0, bb2);
	fre(b, 1, 4, FP, 2, 1, 0, bb2);
	fin(b, fres);
	return fres;
}

KT_TEST(sframe_hand_amd64_v2)
{
	struct bb b;
	struct col *c = col_new();

	mk_x86(&b);
	KT_ASSERT_EQ(walk(&x86_obj, b.b, b.n, 0x10000, c, NULL, NULL), 0);
	KT_ASSERT_EQ(c->nrow, 3);
	KT_EXPECT_EQ(c->fde[0].f.start, 0x1000);
	KT_EXPECT_EQ(c->row[0].pc, 0x1000);
	expect_rule(&c->row[0].r, KUW_X86_RSP, 8, 0, 0, 1, -8, 0,
		    KUW_X86_RBP, KUW_X86_RA);
	KT_EXPECT_EQ(c->row[1].pc, 0x1001);
	expect_rule(&c->row[1].r, KUW_X86_RSP, 16, 1, -16, 1, -8, 0,
		    KUW_X86_RBP, KUW_X86_RA);
	KT_EXPECT_EQ(c->row[2].pc, 0x1004);
	expect_rule(&c->row[2].r, KUW_X86_RBP, 16, 1, -16, 1, -8, 0,
		    KUW_X86_RBP, KUW_X86_RA);
	col_free(c);

	/* A sink's non-zero return stops the walk and is returned. */
	c = col_new();
	c->stop_at_row = 2;
	KT_EXPECT_EQ(walk(&x86_obj, b.b, b.n, 0x10000, c, NULL, NULL), 99);
	KT_EXPECT_EQ(c->nrow, 2);
	col_free(c);
}

/* One malformed variant of a good section and the error it must give. */
static void expect_bad(const struct kuw_obj *o, struct bb *b, u64 addr,
		       int err, u64 off, const char *what)
{
	struct kuw_diag d = { 0 };
	struct col *c = col_new();
	int rc = walk(o, b->b, b->n, addr, c, NULL, &d);

	if (rc != -err || d.err != err || d.off != off)
		fprintf(stderr, "  %s: rc %d (%s) at +0x%llx\n", what, rc,
			kuw_strerror(rc), (unsigned long long)d.off);
	KT_EXPECT_EQ(rc, -err);
	KT_EXPECT_EQ(d.err, err);
	KT_EXPECT_EQ(d.off, off);
	KT_EXPECT_STR(d.section, ".sframe");
	KT_EXPECT(!c->bad);
	col_free(c);
}

/* @g with byte @at set to @v: rejected on AMD64 with @err at @off. */
static void expect_bad8(const struct bb *g, u32 at, u8 v, int err, u64 off,
			const char *what)
{
	struct bb b = *g;

	b.b[at] = v;
	expect_bad(&x86_obj, &b, 0x10000, err, off, what);
}

/* @g with the u32 at @at set to @v: rejected on AMD64 with @err at @off. */
static void expect_bad32(const struct bb *g, u32 at, u32 v, int err, u64 off,
			 const char *what)
{
	struct bb b = *g;

	set32(&b, at, v);
	expect_bad(&x86_obj, &b, 0x10000, err, off, what);
}

KT_TEST(sframe_malformed_header)
{
	struct bb b, g;
	u32 fres;

	fres = mk_x86(&g);
	expect_bad8(&g, 0, 0xe3, KUW_E_BADMAGIC, 0, "magic");
	b = g;
	b.b[0] = 0xde;			/* byte-swapped: big endian */
	b.b[1] = 0xe2;
	expect_bad(&x86_obj, &b, 0x10000, KUW_E_BADMAGIC, 0, "swapped magic");
	expect_bad8(&g, 2, 4, KUW_E_BADVER, 2, "version 4");
	expect_bad8(&g, 2, 0, KUW_E_BADVER, 2, "version 0");
	expect_bad8(&g, 3, 0x8, KUW_E_BADHDR, 3, "unknown flag");
	expect_bad8(&g, 4, KUW_SFRAME_ABI_AARCH64_BE, KUW_E_BADHDR, 4,
		    "aarch64 BE");
	expect_bad8(&g, 4, KUW_SFRAME_ABI_S390X_BE, KUW_E_BADHDR, 4, "s390x");
	expect_bad8(&g, 4, 0, KUW_E_BADHDR, 4, "abi 0");
	expect_bad8(&g, 6, 0, KUW_E_BADHDR, 6, "amd64 no fixed RA");
	/* Truncated header, every length below 28. */
	for (b = g; b.n > 0; ) {
		b.n--;
		if (b.n < KUW_SFH_SIZE)
			expect_bad(&x86_obj, &b, 0x10000, KUW_E_TRUNC, b.n,
				   "short header");
	}
	KT_EXPECT_EQ(kuw_sfr_walk(&x86_obj, &(struct kuw_sec){ NULL, 0, 0 },
				  NULL, NULL, NULL), -KUW_E_TRUNC);
	/* Aux header longer than the section. */
	expect_bad8(&g, 7, 255, KUW_E_TRUNC, 7, "auxhdr");
	/* FDE array beyond the section (num_fdes, fdeoff). */
	expect_bad32(&g, KUW_SFH_NUM_FDES, 0x10000000, KUW_E_TRUNC, 8,
		     "num_fdes");
	expect_bad32(&g, KUW_SFH_FDEOFF, 0xfffffff0, KUW_E_TRUNC, 8, "fdeoff");
	/* FRE sub-section beyond the section. */
	expect_bad32(&g, KUW_SFH_FRE_LEN, g.n - fres + 1, KUW_E_TRUNC, 16,
		     "fre_len");
	expect_bad32(&g, KUW_SFH_FREOFF, 0xffffffff, KUW_E_TRUNC, 16, "freoff");
	/* FRE sub-section overlapping the FDEs. */
	b = g;
	set32(&b, KUW_SFH_FREOFF, 4);
	set32(&b, KUW_SFH_FRE_LEN, 8);
	expect_bad(&x86_obj, &b, 0x10000, KUW_E_BADHDR, 24, "overlap");
	/* More FREs than fre_len could hold, or than the FDEs use. */
	expect_bad32(&g, KUW_SFH_NUM_FRES, 1000, KUW_E_BADLEN, 12,
		     "num_fres big");
	expect_bad32(&g, KUW_SFH_NUM_FRES, 4, KUW_E_BADLEN, 12,
		     "num_fres > sum");
	expect_bad32(&g, KUW_SFH_NUM_FRES, 2, KUW_E_BADLEN,
		     KUW_SFH_SIZE + KUW_SFDE_NUM_FRES, "num_fres < sum");
}

KT_TEST(sframe_malformed_fde_fre)
{
	struct bb b, g;
	u32 fres, f = KUW_SFH_SIZE;

	fres = mk_x86(&g);
	/* FDE info: FRE type 3, unused bits, PAuth key on AMD64. */
	expect_bad8(&g, f + 16, 3, KUW_E_BADTYPE, f + 16, "fre type");
	expect_bad8(&g, f + 16, 0x40, KUW_E_BADTYPE, f + 16, "unused");
	expect_bad8(&g, f + 16, 0x20, KUW_E_BADTYPE, f + 16, "pauth");
	/* Function outside the text, and wrapping around. */
	expect_bad32(&g, f, (u32)(0x9000 - 0x10000), KUW_E_BADRANGE, f,
		     "past text");
	expect_bad32(&g, f + 4, 0x8001, KUW_E_BADRANGE, f, "size");
	{
		struct kuw_obj any = { .owner = "x", .arch = KUW_ARCH_X86_64 };

		b = g;
		set32(&b, f, 0);
		set32(&b, f + 4, 0x1000);
		expect_bad(&any, &b, ~0ULL - 0x100, KUW_E_BADRANGE, f + 4,
			   "wraps");
	}
	/* FRE range starting outside the FRE sub-section. */
	expect_bad32(&g, f + 8, g.n - fres, KUW_E_BADLEN, f + 8, "fre_off");
	/* FREs running off the end of the sub-section. */
	expect_bad32(&g, f + 8, 7,	/* 3rd FRE first: 3 FREs won't fit */
		     KUW_E_TRUNC, fres + 11, "fre run");
	expect_bad32(&g, KUW_SFH_FRE_LEN, g.n - fres - 1, /* last offset cut */
		     KUW_E_TRUNC, fres + 7, "fre cut");
	/* Unsorted and equal FRE starts: 2nd start 1 -> 0, 3rd 4 -> 0. */
	expect_bad8(&g, fres + 3, 0, KUW_E_UNSORTED, fres + 3, "equal");
	expect_bad8(&g, fres + 7, 0, KUW_E_UNSORTED, fres + 7, "back");
	/* FRE past the function's end. */
	expect_bad8(&g, fres + 7, 0x40, KUW_E_BADLOC, fres + 7, "past end");
	/* FRE info: offset size 3, too many offsets, signed RA on AMD64. */
	expect_bad8(&g, fres + 1, KUW_SFRE_MKINFO(SP, 1, 3, 0), KUW_E_BADTYPE,
		    fres + 1, "osize");
	expect_bad8(&g, fres + 1, KUW_SFRE_MKINFO(SP, 3, 0, 0), KUW_E_BADTYPE,
		    fres + 1, "count 3");
	expect_bad8(&g, fres + 1, KUW_SFRE_MKINFO(SP, 15, 0, 0), KUW_E_BADTYPE,
		    fres + 1, "count15");
	expect_bad8(&g, fres + 1, KUW_SFRE_MKINFO(SP, 1, 0, 1), KUW_E_BADTYPE,
		    fres + 1, "mangled");
	/* A zero-size function may have one FRE at 0 only. */
	expect_bad32(&g, f + 4, 0, KUW_E_BADLOC, fres + 3, "empty fn");
}

KT_TEST(sframe_malformed_aarch64)
{
	struct bb b, g;

	mk_a64(&g);
	/* Four offsets is one too many for AArch64. */
	b = g;
	b.b[a64_fre0 + 1] = KUW_SFRE_MKINFO(SP, 4, 0, 0);
	expect_bad(&a64_obj, &b, A64_SEC, KUW_E_BADTYPE, a64_fre0 + 1,
		   "a64 count 4");
	/* PCMASK FRE beyond the 16-byte block. */
	b = g;
	b.b[b.n - 11] = 16;		/* last FRE: u16 start, info, 8 bytes */
	expect_bad(&a64_obj, &b, A64_SEC, KUW_E_BADLOC, b.n - 11,
		   "pcmask past block");
	/* Version 1 has no rep_size: an AArch64 v1 PCMASK FDE is refused. */
	{
		struct bb v;
		u32 fres;
		s32 o[] = { 0 };

		hdr(&v, 1, 0, KUW_SFRAME_ABI_AARCH64_LE, 0, 0, 0, 1, 1);
		fde(&v, 1, (s32)(A64_F1 - A64_SEC), 16, 0, 1,
		    KUW_SFDE_MKINFO(1, 0), 0);
		fres = fre_begin(&v);
		fre(&v, 1, 0, SP, 1, 1, 0, o);
		fin(&v, fres);
		expect_bad(&a64_obj, &v, A64_SEC, KUW_E_BADTYPE,
			   KUW_SFH_SIZE + 16, "a64 v1 pcmask");
		/* The same FDE as PCINC is fine. */
		v.b[KUW_SFH_SIZE + 16] = 0;
		KT_EXPECT_EQ(walk(&a64_obj, v.b, v.n, A64_SEC, NULL, NULL,
				  NULL), 0);
	}
}

/* Every truncation and every single-byte corruption: no crash, no hang. */
KT_TEST(sframe_mutations)
{
	struct bb g, b;
	u32 i, n, bit;
	struct col *c = col_new();
	int ok = 0, bad = 0;

	mk_a64(&g);
	for (n = 0; n <= g.n; n++) {
		b = g;
		b.n = n;
		c->nfde = c->nrow = 0;
		if (walk(&a64_obj, b.b, b.n, A64_SEC, c, NULL, NULL))
			bad++;
		else
			ok++;
	}
	/* Only the full section parses (its last FRE ends it). */
	KT_EXPECT_EQ(ok, 1);
	for (i = 0; i < g.n; i++) {
		for (bit = 0; bit < 8; bit++) {
			int rc;

			b = g;
			b.b[i] ^= 1u << bit;
			c->nfde = c->nrow = 0;
			rc = walk(&a64_obj, b.b, b.n, A64_SEC, c, NULL, NULL);
			KT_EXPECT(rc <= 0 && rc > -KUW_E__COUNT);
			KT_EXPECT(c->nrow <= 5);
		}
	}
	(void)bad;
	col_free(c);
}

/*
 * FDEs out of order (a module's .sframe): reported in array order, each
 * with its rows in increasing pc; the compiled table sorts them.
 */
KT_TEST(sframe_unsorted_fdes)
{
	struct bb b;
	struct col *c = col_new();
	struct kuw_table *t = NULL;
	struct kuw_diag d = { 0 };
	struct kuw_sec s;
	const struct kuw_rule *r;
	u64 row_pc;
	u32 fres, fde1 = KUW_SFH_SIZE + KUW_SFDE_V2_SIZE;
	s32 o8[] = { 8 }, o16[] = { 16 }, o24[] = { 24 };

	hdr(&b, 2, KUW_SFRAME_F_FDE_FUNC_START_PCREL, KUW_SFRAME_ABI_AMD64_LE,
	    0, -8, 0, 2, 4);
	/* FDE0 at 0x2000, FDE1 at 0x1000 (field-relative starts). */
	fde(&b, 2, (s32)(0x2000 - (0x10000 + KUW_SFH_SIZE)), 0x10, 0, 2,
	    KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1), 0);
	fde(&b, 2, (s32)(0x1000 - (0x10000 + fde1)), 0x20, 0, 2,
	    KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1), 0);
	fres = fre_begin(&b);
	fre(&b, 1, 0, SP, 1, 1, 0, o8);
	fre(&b, 1, 4, SP, 1, 1, 0, o16);
	set32(&b, fde1 + KUW_SFDE_FRE_OFF, b.n - fres);
	fre(&b, 1, 0, SP, 1, 1, 0, o8);
	fre(&b, 1, 0x10, SP, 1, 1, 0, o24);
	fin(&b, fres);

	KT_ASSERT_EQ(walk(&x86_obj, b.b, b.n, 0x10000, c, NULL, NULL), 0);
	KT_ASSERT_EQ(c->nfde, 2);
	KT_EXPECT_EQ(c->fde[0].f.start, 0x2000);
	KT_EXPECT_EQ(c->fde[1].f.start, 0x1000);
	KT_ASSERT_EQ(c->nrow, 4);
	KT_EXPECT_EQ(c->row[0].pc, 0x2000);
	KT_EXPECT_EQ(c->row[1].pc, 0x2004);
	KT_EXPECT_EQ(c->row[2].pc, 0x1000);
	KT_EXPECT_EQ(c->row[3].pc, 0x1010);
	col_free(c);

	s.data = b.b;
	s.size = b.n;
	s.addr = 0x10000;
	KT_ASSERT_EQ(kuw_table_build(&x86_obj, KUW_SRC_SFRAME, &s, &t, &d), 0);
	KT_EXPECT_EQ(kuw_table_lookup(t, 0x1017, &r, &row_pc), 0);
	KT_EXPECT_EQ(row_pc, 0x1010);
	KT_EXPECT_EQ(r->cfa_off, 24);
	KT_EXPECT_EQ(kuw_table_lookup(t, 0x2003, &r, &row_pc), 0);
	KT_EXPECT_EQ(row_pc, 0x2000);
	KT_EXPECT_EQ(r->cfa_off, 8);
	KT_EXPECT_EQ(kuw_table_lookup(t, 0x1800, &r, &row_pc), -KUW_E_NOINFO);
	kuw_table_free(t);
}

/*
 * AArch64 from the cross assembler (binutils-aarch64-linux-gnu): linked
 * and relocated, as assembled (v1 or v2) and rewritten as v2, against the
 * cross objdump.  Skipped, saying
 * so, when the cross binutils are not installed.
 */
KT_TEST(sframe_as_aarch64)
{
	struct linked l;
	struct relocd r;
	const char *elf = bpath("sfr_a64.elf");
	const char *obj = bpath("sfr_a64.o");
	u32 i, nmangled = 0, nfp = 0;
	u8 *v2;
	u64 n;

	if (sh("command -v aarch64-linux-gnu-as >/dev/null 2>&1 && "
	       "command -v aarch64-linux-gnu-objdump >/dev/null 2>&1")) {
		printf("# sframe_as_aarch64: skipped, aarch64-linux-gnu "
		       "binutils not installed\n");
		return;
	}
	sh("mkdir -p %s", kt_builddir);
	KT_ASSERT(sh("aarch64-linux-gnu-as --gsframe -o %s %s/asm/sfr_a64.s",
		     obj, kt_srcdir) == 0);
	KT_ASSERT(sh("aarch64-linux-gnu-ld -o %s -e 0 -Ttext=0x400000 %s", elf,
		     obj) == 0);

	/* Linked: section-relative starts; then as v2 with PCREL. */
	KT_ASSERT(linked_load_arch(&l, elf, KUW_ARCH_ARM64,
				   "aarch64-linux-gnu-objdump") == 0);
	for (i = 0; i < l.od.nrow; i++) {
		nmangled += l.od.row[i].mangled;
		nfp += l.od.row[i].cfa_fp;
	}
	KT_EXPECT(nmangled >= 3);
	KT_EXPECT(nfp >= 1);
	walk_compare(&l.o, l.sf, l.sf_size, l.sf_addr, &l.od, NULL,
		     KUW_ARCH_ARM64, "a64 linked as assembled");
	if (l.od.version <= 2) {
		v2 = calloc(1, l.sf_size * 2);
		n = sf_to_v2(l.sf, l.sf_size, v2, false, true, true);
		walk_compare(&l.o, v2, n, l.sf_addr, &l.od, NULL,
			     KUW_ARCH_ARM64, "a64 linked v2 pcrel");
		free(v2);
	}
	/* An x86_64 object must not take it. */
	l.o.arch = KUW_ARCH_X86_64;
	KT_EXPECT_EQ(walk(&l.o, l.sf, l.sf_size, l.sf_addr, NULL, NULL, NULL),
		     -KUW_E_BADHDR);
	elf_free(&l.e);

	/* Relocated by hand (R_AARCH64_PREL32): field-relative starts. */
	KT_ASSERT(relocd_load_arch(&r, obj, KUW_ARCH_ARM64,
				   "aarch64-linux-gnu-objdump") == 0);
	KT_EXPECT_EQ(r.nstart, r.od.nfde);
	walk_compare(&r.o, r.sf, r.sf_size, r.sf_addr, &r.od, r.start,
		     KUW_ARCH_ARM64, "a64 relocated as assembled");
	v2 = calloc(1, r.sf_size * 2);
	n = sf_to_v2(r.sf, r.sf_size, v2, true, true, false);
	walk_compare(&r.o, v2, n, r.sf_addr, &r.od, r.start,
		     KUW_ARCH_ARM64, "a64 relocated v2");
	free(v2);
	relocd_free(&r);
}

/* ---- version 3 (binutils 2.46+) ---- */

static void put64(struct bb *b, u64 v)
{
	put32(b, (u32)v);
	put32(b, (u32)(v >> 32));
}

/* A v3 FDE index entry: start (from the field, PCREL), size, FRE offset. */
static void fde3(struct bb *b, u64 sec, u64 start, u32 size)
{
	put64(b, start - (sec + b->n));
	put32(b, size);
	put32(b, 0);		/* set by attr3() */
}

/* The attribute record of the FDE whose index entry is at @fde_at. */
static void attr3(struct bb *b, u32 fres, u32 fde_at, u16 nfre, u8 info,
		  u8 info2, u8 rep)
{
	set32(b, fde_at + KUW_SFDE3_FRE_OFF, b->n - fres);
	put16(b, nfre);
	put8(b, info);
	put8(b, info2);
	put8(b, rep);
}

#define V3_SEC		0x20000ULL
#define CTL(reg, deref, reg_p) KUW_SFLEX_MKCTRL(reg, deref, reg_p)

/*
 * AMD64 v3, laid out as gas 2.46+ lays it out: FDE0 flexible (the DRAP
 * pattern of GCC's stack realignment, a register-held FP, RA at register
 * plus offset, an outermost FRE), FDE1 a signal frame, FDE2 PCMASK.
 * Returns the offset of the FRE sub-section; *fde0 gets FDE0's offset.
 */
static u32 mk_v3(struct bb *b, u32 *fde0)
{
	u32 f0 = KUW_SFH_SIZE, f1 = f0 + 16, f2 = f1 + 16, fres;
	s32 w0[] = { CTL(7, 0, 1), 8 };
	s32 w1[] = { CTL(10, 0, 1), 0 };
	s32 w2[] = { CTL(10, 0, 1), 0, 0, CTL(6, 1, 1), 0 };
	s32 w3[] = { CTL(6, 1, 1), -8, 0, CTL(6, 1, 1), 0 };
	s32 w4[] = { CTL(7, 0, 1), 16, 0, CTL(0, 1, 0), -16 };
	s32 w5[] = { CTL(7, 0, 1), 16, 0, CTL(3, 0, 1), 0 };
	s32 w6[] = { CTL(7, 0, 1), 300, CTL(3, 0, 1), 8, 0 };
	s32 w7[] = { CTL(7, 0, 1), 16, CTL(3, 1, 1), -8,
		     CTL(15, 1, 1), 0x12345 };
	s32 d8[] = { 8 }, d16[] = { 16 };

	hdr(b, 3, KUW_SFRAME_F_FDE_FUNC_START_PCREL, KUW_SFRAME_ABI_AMD64_LE,
	    0, -8, 0, 3, 13);
	fde3(b, V3_SEC, 0x1000, 0x40);
	fde3(b, V3_SEC, 0x1040, 0x10);
	fde3(b, V3_SEC, 0x1050, 0x20);
	fres = fre_begin(b);
	attr3(b, fres, f0, 9, KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1),
	      KUW_SFRAME_FDE3_TYPE_FLEX, 0);
	fre(b, 1, 0x00, FP, 2, 1, 0, w0);
	fre(b, 1, 0x05, FP, 2, 1, 0, w1);
	fre(b, 1, 0x1c, FP, 5, 1, 0, w2);
	fre(b, 1, 0x1e, FP, 5, 1, 0, w3);
	fre(b, 1, 0x20, FP, 5, 1, 0, w4);
	fre(b, 1, 0x22, FP, 5, 1, 0, w5);
	fre(b, 1, 0x24, FP, 5, 2, 0, w6);
	fre(b, 1, 0x26, FP, 6, 4, 0, w7);
	fre(b, 1, 0x30, FP, 0, 1, 0, NULL);
	attr3(b, fres, f1, 1,
	      0x80 | KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1), 0, 0);
	fre(b, 1, 0, SP, 1, 1, 0, d8);
	attr3(b, fres, f2, 3,
	      KUW_SFDE_MKINFO(KUW_SFRAME_FDE_TYPE_PCMASK,
			      KUW_SFRAME_FRE_TYPE_ADDR2), 0, 16);
	fre(b, 2, 0, SP, 1, 1, 0, d8);
	fre(b, 2, 6, SP, 1, 1, 0, d16);
	fre(b, 2, 11, SP, 1, 1, 0, d8);
	fin(b, fres);
	*fde0 = f0;
	return fres;
}

static void expect_reg(const struct kuw_rule *r, u8 reg, u8 kind, u8 src,
		       s32 off)
{
	const struct kuw_reg_rule *rr = kuw_rule_find(r, reg);

	KT_ASSERT(rr != NULL);
	KT_EXPECT_EQ(rr->kind, kind);
	KT_EXPECT_EQ(rr->src, src);
	KT_EXPECT_EQ(rr->off, off);
}

KT_TEST(sframe_hand_amd64_v3)
{
	struct kuw_stats st = { 0 };
	struct col *c = col_new();
	const struct kuw_rule *r;
	struct bb b;
	u32 fde0;

	mk_v3(&b, &fde0);
	KT_ASSERT_EQ(walk(&x86_obj, b.b, b.n, V3_SEC, c, &st, NULL), 0);
	KT_EXPECT_EQ(st.nfde, 3);
	KT_ASSERT_EQ(c->nfde, 3);
	KT_ASSERT_EQ(c->nrow, 13);
	KT_EXPECT_EQ(c->fde[0].f.start, 0x1000);
	KT_EXPECT_EQ(c->fde[0].f.end, 0x1040);
	KT_EXPECT_EQ(c->fde[0].f.signal, 0);
	KT_EXPECT_EQ(c->fde[1].f.start, 0x1040);
	KT_EXPECT_EQ(c->fde[1].f.signal, 1);
	KT_EXPECT_EQ(c->fde[2].f.pcmask, 16);

	/* CFA rsp+8, RA at the fixed CFA-8, FP not saved */
	r = &c->row[0].r;
	KT_EXPECT_EQ(c->row[0].pc, 0x1000);
	expect_rule(r, KUW_X86_RSP, 8, 0, 0, 1, -8, 0, KUW_X86_RBP,
		    KUW_X86_RA);
	/* CFA from r10: not SP/FP based */
	expect_rule(&c->row[1].r, 10, 0, 0, 0, 1, -8, 0, KUW_X86_RBP,
		    KUW_X86_RA);
	/* RA padding: fixed offset; FP saved at rbp + 0 */
	r = &c->row[2].r;
	KT_EXPECT_EQ(r->cfa_kind, KUW_CFA_REG);
	KT_EXPECT_EQ(r->nregs, 2);
	expect_reg(r, KUW_X86_RBP, KUW_R_AT_REG, KUW_X86_RBP, 0);
	expect_reg(r, KUW_X86_RA, KUW_R_OFFSET, 0, -8);
	/* CFA loaded from rbp - 8 (DRAP) */
	r = &c->row[3].r;
	KT_EXPECT_EQ(r->cfa_kind, KUW_CFA_DEREF);
	KT_EXPECT_EQ(r->cfa_reg, KUW_X86_RBP);
	KT_EXPECT_EQ(r->cfa_off, -8);
	/* FP saved at CFA - 16 (CFA-based, loaded) */
	expect_reg(&c->row[4].r, KUW_X86_RBP, KUW_R_OFFSET, 0, -16);
	/* FP held in rbx */
	expect_reg(&c->row[5].r, KUW_X86_RBP, KUW_R_REG, KUW_X86_RBX, 0);
	/* 2-byte words: CFA rsp+300, RA = rbx + 8, FP padding */
	r = &c->row[6].r;
	KT_EXPECT_EQ(r->cfa_off, 300);
	KT_EXPECT_EQ(r->nregs, 1);
	expect_reg(r, KUW_X86_RA, KUW_R_VAL_REG, KUW_X86_RBX, 8);
	/* 4-byte words: RA at rbx - 8, FP at r15 + 0x12345 */
	r = &c->row[7].r;
	expect_reg(r, KUW_X86_RA, KUW_R_AT_REG, KUW_X86_RBX, -8);
	expect_reg(r, KUW_X86_RBP, KUW_R_AT_REG, 15, 0x12345);
	/* no data word: outermost */
	r = &c->row[8].r;
	KT_EXPECT_EQ(r->nregs, 1);
	expect_reg(r, KUW_X86_RA, KUW_R_UNDEF, 0, 0);
	/* the signal frame's rows say so */
	KT_EXPECT_EQ(c->row[9].r.flags, KUW_RF_SIGNAL);
	KT_EXPECT_EQ(c->row[9].pc, 0x1040);
	/* PCMASK: offsets in the 16-byte block */
	KT_EXPECT_EQ(c->row[11].pc, 6);
	KT_EXPECT_EQ(c->row[11].r.cfa_off, 16);
	col_free(c);
}

/* The rows text of the flexible rules (kuw_format_row). */
KT_TEST(sframe_v3_row_text)
{
	struct col *c = col_new();
	char buf[128];
	struct bb b;
	u32 fde0;

	mk_v3(&b, &fde0);
	KT_ASSERT_EQ(walk(&x86_obj, b.b, b.n, V3_SEC, c, NULL, NULL), 0);
	kuw_format_row(buf, sizeof(buf), KUW_ARCH_X86_64, 1, &c->row[3].r);
	KT_EXPECT_STR(buf, "0x1 cfa=(rbp-8) rbp=(rbp+0) ra=c-8");
	kuw_format_row(buf, sizeof(buf), KUW_ARCH_X86_64, 1, &c->row[6].r);
	KT_EXPECT_STR(buf, "0x1 cfa=rsp+300 ra=rbx+8");
	kuw_format_row(buf, sizeof(buf), KUW_ARCH_X86_64, 1, &c->row[7].r);
	KT_EXPECT_STR(buf, "0x1 cfa=rsp+16 rbp=(r15+74565) ra=(rbx-8)");
	col_free(c);
}

/* The rules unwind: registers and memory in, the caller's registers out. */
KT_TEST(sframe_v3_step)
{
	void *mem = NULL;
	struct col *c = col_new();
	struct kuw_regs regs;
	struct bb b;
	u32 fde0;

	mk_v3(&b, &fde0);
	KT_ASSERT_EQ(walk(&x86_obj, b.b, b.n, V3_SEC, c, NULL, NULL), 0);

	/* cfa=(rbp-8) rbp=(rbp+0) ra=c-8 */
	memset(&regs, 0, sizeof(regs));
	regs.r[KUW_X86_RBP] = 0x7000;
	regs.r[KUW_X86_RSP] = 0x6000;
	regs.valid = 1ULL << KUW_X86_RBP | 1ULL << KUW_X86_RSP;
	kt_mem_clear();
	kt_mem_put64(0x7000 - 8, 0x9000);	/* DRAP slot: the CFA */
	kt_mem_put64(0x7000, 0x7777);		/* caller's rbp */
	kt_mem_put64(0x9000 - 8, 0x1234);	/* return address */
	kt_mem_put64(0x5000 - 8, 0x4321);	/* RA at rbx - 8 */
	KT_ASSERT_EQ(kuw_step(KUW_ARCH_X86_64, b.b, b.n, &c->row[3].r, &regs,
			      mem), 0);
	KT_EXPECT_EQ(regs.r[KUW_X86_RSP], 0x9000);
	KT_EXPECT_EQ(regs.r[KUW_X86_RA], 0x1234);
	KT_EXPECT_EQ(kuw_regs_get(&regs, KUW_X86_RBP, mem, &regs.r[0]), 0);
	KT_EXPECT_EQ(regs.r[0], 0x7777);

	/* cfa=rsp+300 ra=rbx+8: a value, no memory */
	memset(&regs, 0, sizeof(regs));
	regs.r[KUW_X86_RSP] = 0x6000;
	regs.r[KUW_X86_RBX] = 0x5000;
	regs.valid = 1ULL << KUW_X86_RSP | 1ULL << KUW_X86_RBX;
	KT_ASSERT_EQ(kuw_step(KUW_ARCH_X86_64, b.b, b.n, &c->row[6].r, &regs,
			      mem), 0);
	KT_EXPECT_EQ(regs.r[KUW_X86_RA], 0x5008);
	KT_EXPECT_EQ(regs.r[KUW_X86_RSP], 0x6000 + 300);

	/* rbp=(r15+74565) ra=(rbx-8); without r15, no rule for rbp */
	memset(&regs, 0, sizeof(regs));
	regs.r[KUW_X86_RSP] = 0x6000;
	regs.r[KUW_X86_RBX] = 0x5000;
	regs.valid = 1ULL << KUW_X86_RSP | 1ULL << KUW_X86_RBX;
	KT_EXPECT_EQ(kuw_step(KUW_ARCH_X86_64, b.b, b.n, &c->row[7].r, &regs,
			      mem), -KUW_E_BADREG);
	regs.r[15] = 0x100;
	regs.valid |= 1ULL << 15;
	KT_ASSERT_EQ(kuw_step(KUW_ARCH_X86_64, b.b, b.n, &c->row[7].r, &regs,
			      mem), 0);
	KT_EXPECT_EQ(regs.r[KUW_X86_RA], 0x4321);
	/* rbp's slot, read when asked for */
	KT_EXPECT_EQ(kuw_regs_get(&regs, KUW_X86_RBP, mem, &regs.r[0]),
		     -KUW_E_FAULT);
	kt_mem_clear();
	col_free(c);
}

/* Malformed v3: each variant of the good section and the error it gives. */
KT_TEST(sframe_malformed_v3)
{
	struct bb g, b;
	u32 fres, fde0, a0, f0;

	fres = mk_v3(&g, &fde0);
	a0 = fres;			/* FDE0's attribute record */
	f0 = a0 + KUW_SFDA3_SIZE;	/* its first FRE */
#define BAD8(at, v, err, off, what) do {				\
		b = g;							\
		b.b[at] = (v);						\
		expect_bad(&x86_obj, &b, V3_SEC, err, off, what);	\
	} while (0)
	BAD8(3, KUW_SFRAME_F_FRAME_POINTER, KUW_E_BADHDR, 3,
	     "v3 has no FRAME_POINTER flag");
	BAD8(2, 5, KUW_E_BADVER, 2, "version 5");
	BAD8(a0 + KUW_SFDA3_INFO, 0x40, KUW_E_BADTYPE, a0 + KUW_SFDA3_INFO,
	     "unused info bit");
	BAD8(a0 + KUW_SFDA3_INFO, 0x20, KUW_E_BADTYPE, a0 + KUW_SFDA3_INFO,
	     "PAuth key on AMD64");
	BAD8(a0 + KUW_SFDA3_INFO, 3, KUW_E_BADTYPE, a0 + KUW_SFDA3_INFO,
	     "FRE type 3");
	BAD8(a0 + KUW_SFDA3_INFO2, 2, KUW_E_BADTYPE, a0 + KUW_SFDA3_INFO2,
	     "FDE type 2");
	BAD8(a0 + KUW_SFDA3_INFO2, 0x21, KUW_E_BADTYPE, a0 + KUW_SFDA3_INFO2,
	     "unused info2 bit");
	BAD8(a0 + KUW_SFDA3_INFO, KUW_SFDE_MKINFO(1, 0), KUW_E_BADTYPE,
	     a0 + KUW_SFDA3_REP_SIZE, "PCMASK with rep size 0");
	BAD8(a0, 8, KUW_E_BADLEN, KUW_SFH_NUM_FRES, "FRE counts disagree");
	/* the FRE offset leaves no room for the attribute record */
	b = g;
	set32(&b, fde0 + KUW_SFDE3_FRE_OFF, b.n - fres - 4);
	expect_bad(&x86_obj, &b, V3_SEC, KUW_E_BADLEN,
		   fde0 + KUW_SFDE3_FRE_OFF, "attribute record past the end");
	/* flexible FREs: the first is "00 04 <ctl> <off>" */
	BAD8(f0 + 2, CTL(7, 1, 0), KUW_E_BADTYPE, f0 + 1,
	     "CFA not register-based");
	BAD8(f0 + 2, CTL(7, 0, 1) | 4, KUW_E_BADTYPE, f0 + 1,
	     "reserved control bit");
	BAD8(f0 + 2, CTL(17, 0, 1), KUW_E_BADTYPE, f0 + 1,
	     "CFA register out of range");
	BAD8(f0 + 1, KUW_SFRE_MKINFO(0, 1, 0, 0), KUW_E_BADTYPE, f0 + 1,
	     "one data word");
	BAD8(f0 + 1, KUW_SFRE_MKINFO(0, 7, 0, 0), KUW_E_BADTYPE, f0 + 1,
	     "seven data words");
	/* "00 04 39 08": with 3 words, an RA control word and no offset */
	b = g;
	b.b[f0 + 1] = KUW_SFRE_MKINFO(0, 3, 0, 0);
	b.b[f0 + 4] = CTL(3, 0, 1);
	expect_bad(&x86_obj, &b, V3_SEC, KUW_E_BADTYPE, f0 + 1,
		   "RA control word without its offset");
	/* an RA rule CFA-based but not loaded, or with a register number */
	b = g;
	b.b[f0 + 1] = KUW_SFRE_MKINFO(0, 3, 0, 0);
	b.b[f0 + 4] = CTL(3, 1, 0);
	expect_bad(&x86_obj, &b, V3_SEC, KUW_E_BADTYPE, f0 + 1,
		   "CFA-based rule with a register number");
#undef BAD8
}

/*
 * AArch64 v3: a default FDE with the B key and a signed RA (x29/x30 saved,
 * 2-byte offsets), and a flexible one (RA kept in x30: a register rule).
 */
KT_TEST(sframe_hand_aarch64_v3)
{
	u32 f0 = KUW_SFH_SIZE, f1 = f0 + 16, fres, fre2;
	s32 d1[] = { 0 }, d3[] = { 32, -8, -16 };
	s32 w[] = { CTL(31, 0, 1), 16, CTL(30, 0, 1), 0, CTL(0, 1, 0), -16 };
	struct col *c = col_new();
	const struct kuw_rule *r;
	struct bb b, g;

	hdr(&b, 3, KUW_SFRAME_F_FDE_FUNC_START_PCREL,
	    KUW_SFRAME_ABI_AARCH64_LE, 0, 0, 0, 2, 3);
	fde3(&b, A64_SEC, A64_F0, 0x40);
	fde3(&b, A64_SEC, A64_F1, 0x20);
	fres = fre_begin(&b);
	attr3(&b, fres, f0, 2,
	      0x20 | KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1), 0, 0);
	fre(&b, 1, 0, SP, 1, 1, 0, d1);
	fre(&b, 1, 4, SP, 3, 2, 1, d3);
	attr3(&b, fres, f1, 1, KUW_SFDE_MKINFO(0, KUW_SFRAME_FRE_TYPE_ADDR1),
	      KUW_SFRAME_FDE3_TYPE_FLEX, 0);
	fre2 = b.n;
	fre(&b, 1, 0, SP, 6, 1, 0, w);
	fin(&b, fres);
	g = b;

	KT_ASSERT_EQ(walk(&a64_obj, b.b, b.n, A64_SEC, c, NULL, NULL), 0);
	KT_ASSERT_EQ(c->nrow, 3);
	KT_EXPECT_EQ(c->fde[0].f.start, A64_F0);
	KT_EXPECT_EQ(c->fde[1].f.start, A64_F1);
	expect_rule(&c->row[0].r, KUW_A64_SP, 0, 0, 0, 0, 0, 0, KUW_A64_X29,
		    KUW_A64_X30);
	expect_rule(&c->row[1].r, KUW_A64_SP, 32, 1, -16, 1, -8,
		    KUW_RF_MANGLED_RA, KUW_A64_X29, KUW_A64_X30);
	r = &c->row[2].r;
	KT_EXPECT_EQ(r->cfa_reg, KUW_A64_SP);
	KT_EXPECT_EQ(r->cfa_off, 16);
	expect_reg(r, KUW_A64_X30, KUW_R_REG, KUW_A64_X30, 0);
	expect_reg(r, KUW_A64_X29, KUW_R_OFFSET, 0, -16);
	col_free(c);

	/* the reserved control bit, in the RA's word */
	b = g;
	b.b[fre2 + 4] = CTL(30, 0, 1) | 4;
	expect_bad(&a64_obj, &b, A64_SEC, KUW_E_BADTYPE, fre2 + 1,
		   "reserved bit in RA control word");
	/* the B key bit stays AArch64's: on AMD64 it is refused */
	b = g;
	b.b[4] = KUW_SFRAME_ABI_AMD64_LE;
	b.b[6] = (u8)-8;
	expect_bad(&x86_obj, &b, A64_SEC, KUW_E_BADTYPE,
		   fres + KUW_SFDA3_INFO, "PAuth key bit on AMD64");
	/* an AMD64 object refuses an AArch64 section */
	expect_bad(&x86_obj, &g, A64_SEC, KUW_E_BADHDR, KUW_SFH_ABI_ARCH,
		   "AArch64 section, AMD64 object");
}
