// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind-dump sframe FILE: the .sframe section in the notation of
 * `objdump --sframe` (binutils 2.44+ for v2, 2.46+ for v3), from what the
 * engine's walker reports (kuw_sfr_walk()), so that a plain text diff
 * against objdump checks the walker whole: header, every FDE, every FRE.
 *
 * The header fields and the per-FDE bits the rules do not carry (PAuth
 * key, flexible FDE) are read here from the section bytes, after the walk
 * has validated them.  Columns, as objdump prints them:
 *   CFA  sp+N, fp+N, rN+N (flexible: any register), (reg+N) (loaded)
 *   FP   u (not saved), c+N (saved at CFA+N), (reg+N), reg+N
 *   RA   f (AMD64: the header's fixed offset), U (a flexible FDE's
 *        padding: the fixed offset too), u (AArch64: in the link
 *        register), c+N, (reg+N), reg+N; "[s]" when signed
 * and "RA undefined" for an outermost frame.  A flexible FRE's RA is
 * printed U when the FRE also has an FP rule (its RA word is then padding
 * in what binutils writes), f otherwise.
 */
#include <stdio.h>
#include <string.h>
#include "dump.h"
#include "arch.h"
#include "elf.h"
#include "read.h"
#include "sframe.h"

struct sfd {
	const u8 *p;		/* the section */
	u64 size;
	u8 arch;
	u8 version;
	s8 fixed_ra;
	u64 fre_base;		/* section offset of the FRE sub-section */
	u32 idx;		/* FDEs printed */
	bool flex;		/* the current FDE's */
	int err;		/* a field out of the section: -KUW_E_TRUNC */
};

/* @reg in SFrame's notation: sp, fp or r<N>. */
static const char *sfd_reg(const struct sfd *z, u8 reg, char *buf, u32 len)
{
	const struct kuw_arch_info *ai = kuw_arch(z->arch);

	if (reg == ai->sp)
		return "sp";
	if (reg == ai->fp)
		return "fp";
	snprintf(buf, len, "r%u", reg);
	return buf;
}

/* One register's rule in the FP or RA column. */
static void sfd_col(const struct sfd *z, const struct kuw_reg_rule *rr,
		    char *out, u32 len)
{
	char nb[8];

	switch (rr->kind) {
	case KUW_R_OFFSET:
		snprintf(out, len, "c%+d", rr->off);
		break;
	case KUW_R_AT_REG:
		snprintf(out, len, "(%s%+d)",
			 sfd_reg(z, rr->src, nb, sizeof(nb)), rr->off);
		break;
	case KUW_R_REG:
		snprintf(out, len, "%s+0", sfd_reg(z, rr->src, nb, sizeof(nb)));
		break;
	case KUW_R_VAL_REG:
		snprintf(out, len, "%s%+d",
			 sfd_reg(z, rr->src, nb, sizeof(nb)), rr->off);
		break;
	default:	/* never from the SFrame walker */
		snprintf(out, len, "?");
		break;
	}
}

static int sfd_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct sfd *z = ctx;
	u8 info = 0, info2 = 0;
	u64 at;

	if (z->version == KUW_SFRAME_VERSION_3) {
		if (f->off + KUW_SFDE_V3_SIZE > z->size)
			return -KUW_E_TRUNC;
		at = z->fre_base + kuw_get_le32(z->p + f->off +
						KUW_SFDE3_FRE_OFF);
		if (at + KUW_SFDA3_SIZE > z->size)
			return -KUW_E_TRUNC;
		info = z->p[at + KUW_SFDA3_INFO];
		info2 = z->p[at + KUW_SFDA3_INFO2];
	} else {
		if (f->off + KUW_SFDE_INFO + 1 > z->size)
			return -KUW_E_TRUNC;
		info = z->p[f->off + KUW_SFDE_INFO];
	}
	z->flex = z->version == KUW_SFRAME_VERSION_3 &&
		  KUW_SFDE3_INFO2_FDE_TYPE(info2) == KUW_SFRAME_FDE3_TYPE_FLEX;
	if (z->idx)
		printf("\n");	/* ends the previous FDE's last line */
	printf("\n    func idx [%u]: pc = 0x%llx, size = %llu bytes", z->idx++,
	       (unsigned long long)f->start,
	       (unsigned long long)(f->end - f->start));
	if (f->signal || z->flex)
		printf(", attr = \"%s%s\"", f->signal ? "S" : "",
		       z->flex ? "F" : "");
	if (z->arch == KUW_ARCH_ARM64 && KUW_SFDE_INFO_PAUTH_KEY(info))
		printf(", pauth = B key");
	printf("\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC",
	       f->pcmask ? "[m]" : "   ", "CFA", "FP", "RA");
	return 0;
}

static int sfd_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct sfd *z = ctx;
	const struct kuw_arch_info *ai = kuw_arch(z->arch);
	const struct kuw_reg_rule *fp = kuw_rule_find(r, ai->fp);
	const struct kuw_reg_rule *ra = kuw_rule_find(r, ai->ra);
	char cfa[48], fps[48], ras[48], nb[8];

	printf("\n    %016llx", (unsigned long long)pc);
	if (ra && ra->kind == KUW_R_UNDEF) {
		printf("  RA undefined");
		return 0;
	}
	if (r->cfa_kind == KUW_CFA_DEREF)
		snprintf(cfa, sizeof(cfa), "(%s%+d)",
			 sfd_reg(z, r->cfa_reg, nb, sizeof(nb)), r->cfa_off);
	else
		snprintf(cfa, sizeof(cfa), "%s%+d",
			 sfd_reg(z, r->cfa_reg, nb, sizeof(nb)), r->cfa_off);
	if (fp)
		sfd_col(z, fp, fps, sizeof(fps));
	else
		snprintf(fps, sizeof(fps), "u");
	if (z->fixed_ra && ra && ra->kind == KUW_R_OFFSET &&
	    ra->off == z->fixed_ra)
		snprintf(ras, sizeof(ras), z->flex && fp ? "U" : "f");
	else if (ra)
		sfd_col(z, ra, ras, sizeof(ras));
	else
		snprintf(ras, sizeof(ras), "u");
	strcat(ras, r->flags & KUW_RF_MANGLED_RA ? "[s]" : "   ");
	printf("  %-10s%-10s%-13s", cfa, fps, ras);
	return 0;
}

static void sfd_header(const struct sfd *z)
{
	static const char *const names[] = {
		"NULL", "SFRAME_VERSION_1", "SFRAME_VERSION_2",
		"SFRAME_VERSION_3",
	};
	static const struct {
		u8 bit;
		const char *name;
	} flags[] = {
		{ KUW_SFRAME_F_FDE_SORTED, "SFRAME_F_FDE_SORTED" },
		{ KUW_SFRAME_F_FRAME_POINTER, "SFRAME_F_FRAME_POINTER" },
		{ KUW_SFRAME_F_FDE_FUNC_START_PCREL,
		  "SFRAME_F_FDE_FUNC_START_PCREL" },
	};
	u8 left = z->p[KUW_SFH_FLAGS];
	const char *prefix = "Flags: ";
	u32 i;

	printf("Contents of the SFrame section .sframe:\n");
	printf("  Header :\n\n    Version: %s\n", names[z->version]);
	if (!left)
		printf("%11sNONE\n", prefix);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		if (!(left & flags[i].bit))
			continue;
		left &= ~flags[i].bit;
		printf("%11s%s%s\n", prefix, flags[i].name, left ? "," : "");
		prefix = " ";
	}
	if ((s8)z->p[KUW_SFH_CFA_FIXED_FP])
		printf("    CFA fixed FP offset: %d\n",
		       (s8)z->p[KUW_SFH_CFA_FIXED_FP]);
	if (z->fixed_ra)
		printf("    CFA fixed RA offset: %d\n", z->fixed_ra);
	printf("    Num FDEs: %u\n", kuw_get_le32(z->p + KUW_SFH_NUM_FDES));
	printf("    Num FREs: %u\n", kuw_get_le32(z->p + KUW_SFH_NUM_FRES));
	printf("\n  Function Index :\n");
}

/**
 * kuw_cmd_sframe() - kunwind-dump sframe FILE
 * @argc: argument count (2)
 * @argv: "sframe", FILE
 *
 * Return: EXIT_OK, EXIT_BAD (malformed section, message on stderr) or
 * EXIT_USAGE.
 */
int kuw_cmd_sframe(int argc, char **argv)
{
	struct kuw_sink sink = { sfd_fde, sfd_row, NULL };
	const struct kuw_elf_sec *es;
	struct kuw_diag d = { 0 };
	struct sfd z = { 0 };
	struct kuw_elf e;
	struct kuw_obj o;
	struct kuw_sec s;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "kunwind-dump: sframe: expected one FILE\n");
		return EXIT_USAGE;
	}
	ret = kuw_elf_open(&e, argv[1]);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[1], e.err);
		kuw_elf_close(&e);
		return ret == KUW_ELF_EIO ? EXIT_USAGE : EXIT_BAD;
	}
	kuw_elf_obj(&e, argv[1], &o);
	es = kuw_elf_find(&e, ".sframe");
	if (!es || !es->data || !es->size) {
		fprintf(stderr, "%s: no .sframe section\n", argv[1]);
		kuw_elf_close(&e);
		return EXIT_BAD;
	}
	kuw_elf_kuw_sec(es, &s);
	/* validated whole first: nothing is printed of a bad section */
	ret = kuw_sfr_walk(&o, &s, NULL, NULL, &d);
	if (ret) {
		fprintf(stderr, "%s: %s+0x%llx: %s\n", argv[1], d.section,
			(unsigned long long)d.off, kuw_strerror(d.err));
		kuw_elf_close(&e);
		return EXIT_BAD;
	}
	z.p = s.data;
	z.size = s.size;
	z.arch = o.arch;
	z.version = z.p[KUW_SFH_VERSION];
	z.fixed_ra = (s8)z.p[KUW_SFH_CFA_FIXED_RA];
	z.fre_base = KUW_SFH_SIZE + z.p[KUW_SFH_AUXHDR_LEN] +
		     (u64)kuw_get_le32(z.p + KUW_SFH_FREOFF);
	sfd_header(&z);
	sink.ctx = &z;
	ret = kuw_sfr_walk(&o, &s, &sink, NULL, &d);
	if (z.idx)
		printf("\n");
	kuw_elf_close(&e);
	if (ret) {
		fprintf(stderr, "%s: .sframe: %s\n", argv[1],
			kuw_strerror(ret));
		return EXIT_BAD;
	}
	return EXIT_OK;
}
