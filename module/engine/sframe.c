// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame v1/v2/v3 parsing and validation.  One pass over the section checks
 * every structure against the header's counts and lengths (never against
 * the section size alone: a module's .sframe has trailing zero padding) and
 * reports each FDE and each FRE, as a row in the shared rule form, to a
 * sink.  The FDE array may be unsorted (relocatable objects, modules): the
 * table builder sorts rows, this walker only guarantees increasing pcs
 * within one FDE.
 */
#include "engine.h"
#include "arch.h"
#include "sframe.h"
#include "read.h"

#define SFR_SEC kuw_src_section(KUW_SRC_SFRAME)	/* for diagnostics */

/* Everything the FDE and FRE decoders need from the header. */
struct sfr_hdr {
	u8 version;
	u8 flags;
	u8 arch;		/* enum kuw_arch */
	s8 fixed_fp;
	s8 fixed_ra;
	u8 max_offsets;
	u32 fde_size;
	u32 num_fdes;
	u32 num_fres;
	u64 fde_base;		/* section offset of the FDE array */
	u64 fre_base;		/* section offset of the FRE sub-section */
	u64 fre_len;
};

static int sfr_read_hdr(const struct kuw_obj *o, const struct kuw_sec *s,
			struct sfr_hdr *h, struct kuw_diag *d)
{
	const u8 *p = s->data;
	u64 hdr_end, fde_end, fre_end, fdeoff, freoff;
	u8 abi, flags;

	if (s->size < KUW_SFH_SIZE)
		return kuw_fail(d, SFR_SEC, s->size, KUW_E_TRUNC);
	if (kuw_get_le16(p + KUW_SFH_MAGIC) != KUW_SFRAME_MAGIC)
		return kuw_fail(d, SFR_SEC, KUW_SFH_MAGIC, KUW_E_BADMAGIC);
	h->version = p[KUW_SFH_VERSION];
	if (h->version == KUW_SFRAME_VERSION_1) {
		h->fde_size = KUW_SFDE_V1_SIZE;
		flags = KUW_SFRAME_V1_FLAGS;
	} else if (h->version == KUW_SFRAME_VERSION_2) {
		h->fde_size = KUW_SFDE_V2_SIZE;
		flags = KUW_SFRAME_V2_FLAGS;
	} else if (h->version == KUW_SFRAME_VERSION_3) {
		h->fde_size = KUW_SFDE_V3_SIZE;
		flags = KUW_SFRAME_V3_FLAGS;
	} else {
		return kuw_fail(d, SFR_SEC, KUW_SFH_VERSION, KUW_E_BADVER);
	}
	h->flags = p[KUW_SFH_FLAGS];
	if (h->flags & ~flags)
		return kuw_fail(d, SFR_SEC, KUW_SFH_FLAGS, KUW_E_BADHDR);

	/* Big-endian ABIs are refused: kunwind reads little endian only. */
	abi = p[KUW_SFH_ABI_ARCH];
	if (abi == KUW_SFRAME_ABI_AMD64_LE) {
		h->arch = KUW_ARCH_X86_64;
		h->max_offsets = KUW_SFRAME_AMD64_MAX_OFFSETS;
	} else if (abi == KUW_SFRAME_ABI_AARCH64_LE) {
		h->arch = KUW_ARCH_ARM64;
		h->max_offsets = KUW_SFRAME_AARCH64_MAX_OFFSETS;
	} else {
		return kuw_fail(d, SFR_SEC, KUW_SFH_ABI_ARCH, KUW_E_BADHDR);
	}
	if (o->arch && o->arch != h->arch)
		return kuw_fail(d, SFR_SEC, KUW_SFH_ABI_ARCH, KUW_E_BADHDR);
	h->fixed_fp = (s8)p[KUW_SFH_CFA_FIXED_FP];
	h->fixed_ra = (s8)p[KUW_SFH_CFA_FIXED_RA];
	/* AMD64 never tracks the RA per FRE: the fixed offset is required. */
	if (h->arch == KUW_ARCH_X86_64 &&
	    h->fixed_ra == KUW_SFRAME_CFA_FIXED_INVALID)
		return kuw_fail(d, SFR_SEC, KUW_SFH_CFA_FIXED_RA, KUW_E_BADHDR);

	hdr_end = KUW_SFH_SIZE + (u64)p[KUW_SFH_AUXHDR_LEN];
	if (hdr_end > s->size)
		return kuw_fail(d, SFR_SEC, KUW_SFH_AUXHDR_LEN, KUW_E_TRUNC);
	h->num_fdes = kuw_get_le32(p + KUW_SFH_NUM_FDES);
	h->num_fres = kuw_get_le32(p + KUW_SFH_NUM_FRES);
	h->fre_len = kuw_get_le32(p + KUW_SFH_FRE_LEN);
	fdeoff = kuw_get_le32(p + KUW_SFH_FDEOFF);
	freoff = kuw_get_le32(p + KUW_SFH_FREOFF);

	/* All sums in u64: no field can overflow them. */
	h->fde_base = hdr_end + fdeoff;
	fde_end = h->fde_base + (u64)h->num_fdes * h->fde_size;
	if (fde_end > s->size)
		return kuw_fail(d, SFR_SEC, KUW_SFH_NUM_FDES, KUW_E_TRUNC);
	h->fre_base = hdr_end + freoff;
	fre_end = h->fre_base + h->fre_len;
	if (fre_end > s->size)
		return kuw_fail(d, SFR_SEC, KUW_SFH_FRE_LEN, KUW_E_TRUNC);
	/* The sub-sections tile the section: FDEs first, no overlap. */
	if (fde_end > h->fre_base)
		return kuw_fail(d, SFR_SEC, KUW_SFH_FREOFF, KUW_E_BADHDR);
	/*
	 * The smallest FRE is 2 bytes (1-byte start and the info byte); in
	 * v3 each FDE's attribute record takes 5 more.
	 */
	if ((u64)h->num_fres * 2 + (h->version == KUW_SFRAME_VERSION_3 ?
				    (u64)h->num_fdes * KUW_SFDA3_SIZE : 0) >
	    h->fre_len)
		return kuw_fail(d, SFR_SEC, KUW_SFH_NUM_FRES, KUW_E_BADLEN);
	/* An FDE with no FRE is pointless but legal; one needs no bytes. */
	return 0;
}

/* Decoded FDE. */
struct sfr_fde {
	u64 off;		/* section offset of the FDE */
	u64 start;
	u64 fres;		/* section offset of its first FRE */
	u32 size;
	u32 fre_off;
	u32 num_fres;
	u8 fre_type;
	u8 addr_size;
	u8 flex;		/* v3 flexible FDE */
	u8 signal;		/* v3 signal frame */
	u32 pcmask;		/* rep_size of a PCMASK FDE, else 0 */
};

/*
 * The v3 parts of FDE @f at @p: its index entry, then its attribute record
 * at the start of its FREs.  Fills @f but the start; *@rel gets the start
 * field, *@info the info word.
 */
static int sfr_read_fde3(const struct kuw_sec *s, const struct sfr_hdr *h,
			 const u8 *p, struct sfr_fde *f, s64 *rel, u8 *info,
			 struct kuw_diag *d)
{
	const u8 *a;
	u64 at;
	u8 info2;

	*rel = (s64)kuw_get_le64(p + KUW_SFDE3_START);
	f->size = kuw_get_le32(p + KUW_SFDE3_SIZE);
	f->fre_off = kuw_get_le32(p + KUW_SFDE3_FRE_OFF);
	/* the attribute record lies whole inside the FRE sub-section */
	if ((u64)f->fre_off + KUW_SFDA3_SIZE > h->fre_len)
		return kuw_fail(d, SFR_SEC, f->off + KUW_SFDE3_FRE_OFF,
				KUW_E_BADLEN);
	at = h->fre_base + f->fre_off;
	a = s->data + at;
	f->num_fres = kuw_get_le16(a + KUW_SFDA3_NUM_FRES);
	*info = a[KUW_SFDA3_INFO];
	info2 = a[KUW_SFDA3_INFO2];
	if (*info & KUW_SFDE3_INFO_UNUSED)
		return kuw_fail(d, SFR_SEC, at + KUW_SFDA3_INFO, KUW_E_BADTYPE);
	if ((info2 & KUW_SFDE3_INFO2_UNUSED) ||
	    KUW_SFDE3_INFO2_FDE_TYPE(info2) > KUW_SFRAME_FDE3_TYPE_FLEX)
		return kuw_fail(d, SFR_SEC, at + KUW_SFDA3_INFO2,
				KUW_E_BADTYPE);
	f->flex = KUW_SFDE3_INFO2_FDE_TYPE(info2) == KUW_SFRAME_FDE3_TYPE_FLEX;
	f->signal = KUW_SFDE_INFO_SIGNAL(*info);
	f->pcmask = 0;
	if (KUW_SFDE_INFO_FDE_TYPE(*info) == KUW_SFRAME_FDE_TYPE_PCMASK) {
		f->pcmask = a[KUW_SFDA3_REP_SIZE];
		if (!f->pcmask)
			return kuw_fail(d, SFR_SEC, at + KUW_SFDA3_REP_SIZE,
					KUW_E_BADTYPE);
	}
	f->fres = at + KUW_SFDA3_SIZE;
	return 0;
}

static int sfr_read_fde(const struct kuw_obj *o, const struct kuw_sec *s,
			const struct sfr_hdr *h, u32 idx, struct sfr_fde *f,
			struct kuw_diag *d)
{
	const u8 *p;
	u64 field, end, info_at;
	s64 rel;
	u8 info;
	int err;

	f->off = h->fde_base + (u64)idx * h->fde_size;
	p = s->data + f->off;
	if (h->version == KUW_SFRAME_VERSION_3) {
		err = sfr_read_fde3(s, h, p, f, &rel, &info, d);
		if (err)
			return err;
		info_at = h->fre_base + f->fre_off + KUW_SFDA3_INFO;
	} else {
		rel = (s32)kuw_get_le32(p + KUW_SFDE_START);
		f->size = kuw_get_le32(p + KUW_SFDE_SIZE);
		f->fre_off = kuw_get_le32(p + KUW_SFDE_FRE_OFF);
		f->num_fres = kuw_get_le32(p + KUW_SFDE_NUM_FRES);
		f->fres = h->fre_base + f->fre_off;
		f->flex = 0;
		f->signal = 0;
		info = p[KUW_SFDE_INFO];
		info_at = f->off + KUW_SFDE_INFO;
		if (info & KUW_SFDE_INFO_UNUSED)
			return kuw_fail(d, SFR_SEC, info_at, KUW_E_BADTYPE);
	}
	if (KUW_SFDE_INFO_PAUTH_KEY(info) && h->arch != KUW_ARCH_ARM64)
		return kuw_fail(d, SFR_SEC, info_at, KUW_E_BADTYPE);
	f->fre_type = KUW_SFDE_INFO_FRE_TYPE(info);
	switch (f->fre_type) {
	case KUW_SFRAME_FRE_TYPE_ADDR1:
		f->addr_size = 1;
		break;
	case KUW_SFRAME_FRE_TYPE_ADDR2:
		f->addr_size = 2;
		break;
	case KUW_SFRAME_FRE_TYPE_ADDR4:
		f->addr_size = 4;
		break;
	default:
		return kuw_fail(d, SFR_SEC, info_at, KUW_E_BADTYPE);
	}
	/* v3: pc type and rep size come from sfr_read_fde3() */
	if (h->version != KUW_SFRAME_VERSION_3) {
		f->pcmask = 0;
		if (KUW_SFDE_INFO_FDE_TYPE(info) ==
		    KUW_SFRAME_FDE_TYPE_PCMASK) {
			if (h->version == KUW_SFRAME_VERSION_2)
				f->pcmask = p[KUW_SFDE_REP_SIZE];
			else if (h->arch == KUW_ARCH_X86_64)
				f->pcmask = KUW_SFRAME_V1_AMD64_REP_SIZE;
			if (!f->pcmask)
				return kuw_fail(d, SFR_SEC, info_at,
						KUW_E_BADTYPE);
		}
	}

	/*
	 * Function start: relative to the field itself with the PCREL flag,
	 * and also in a relocated object (the assembler emits a PC-relative
	 * relocation there); relative to the section start otherwise.
	 */
	field = s->addr + f->off + KUW_SFDE_START;
	if ((h->flags & KUW_SFRAME_F_FDE_FUNC_START_PCREL) ||
	    (o->flags & KUW_OBJ_RELOCATED))
		f->start = field + (u64)rel;
	else
		f->start = s->addr + (u64)rel;
	end = f->start + f->size;
	if (end < f->start)
		return kuw_fail(d, SFR_SEC, f->off + KUW_SFDE_SIZE,
				KUW_E_BADRANGE);
	if (o->text_end > o->text_start &&
	    (f->start < o->text_start || end > o->text_end))
		return kuw_fail(d, SFR_SEC, f->off + KUW_SFDE_START,
				KUW_E_BADRANGE);

	/* The FRE range must start inside the FRE sub-section. */
	if (f->num_fres && f->fres >= h->fre_base + h->fre_len)
		return kuw_fail(d, SFR_SEC, f->off +
				(h->version == KUW_SFRAME_VERSION_3 ?
				 KUW_SFDE3_FRE_OFF : KUW_SFDE_FRE_OFF),
				KUW_E_BADLEN);
	return 0;
}

/* Sizes of an offset by KUW_SFRE_INFO_OFF_SIZE(), 0: invalid. */
static const u8 sfr_osize[4] = { 1, 2, 4, 0 };

/* An FRE's start address: @size (1, 2 or 4) bytes at @p. */
static kuw_always_inline u32 sfr_fre_start(const u8 *p, u32 size)
{
	if (size == 1)
		return p[0];
	if (size == 2)
		return kuw_get_le16(p);
	return kuw_get_le32(p);
}

/* A signed offset of @size (1, 2 or 4) bytes at @p. */
static kuw_always_inline s32 sfr_off(const u8 *p, u32 size)
{
	if (size == 1)
		return (s8)p[0];
	if (size == 2)
		return (s16)kuw_get_le16(p);
	return (s32)kuw_get_le32(p);
}

/* Append "@reg is saved at CFA + @off" to @r. */
static void sfr_rule_saved(struct kuw_rule *r, u8 reg, s32 off)
{
	struct kuw_reg_rule *rr = &r->regs[r->nregs++];

	rr->reg = reg;
	rr->kind = KUW_R_OFFSET;
	rr->src = 0;
	rr->pad = 0;
	rr->off = off;
}

/*
 * The rule of an FRE with info byte @info and @count (at least one)
 * offsets @off: the CFA from SP or FP, then FP and RA where the offsets
 * or the header's fixed ones say they are saved.
 */
static void sfr_fre_rule(const struct sfr_hdr *h, u8 info, const s32 *off,
			 u32 count, struct kuw_rule *r)
{
	const struct kuw_arch_info *ai = kuw_arch(h->arch);
	bool have_fp = false, have_ra = false;
	s32 fp_off = 0, ra_off = 0;

	r->cfa_reg = KUW_SFRE_INFO_BASE_REG(info) == KUW_SFRAME_BASE_REG_FP ?
		     ai->fp : ai->sp;
	r->cfa_off = off[0];
	if (h->arch == KUW_ARCH_X86_64) {
		have_ra = true;
		ra_off = h->fixed_ra;
		if (count > 1) {
			have_fp = true;
			fp_off = off[1];
		}
	} else {
		if (count > 1) {
			have_ra = true;
			ra_off = off[1];
		} else if (h->fixed_ra != KUW_SFRAME_CFA_FIXED_INVALID) {
			have_ra = true;
			ra_off = h->fixed_ra;
		}
		if (count > 2) {
			have_fp = true;
			fp_off = off[2];
		}
	}
	if (!have_fp && h->fixed_fp != KUW_SFRAME_CFA_FIXED_INVALID) {
		have_fp = true;
		fp_off = h->fixed_fp;
	}
	/* Registers sorted by number: FP (6 / x29) before RA (16 / x30). */
	if (have_fp)
		sfr_rule_saved(r, ai->fp, fp_off);
	if (have_ra)
		sfr_rule_saved(r, ai->ra, ra_off);
}

/*
 * One register's rule in a flexible FRE: control word @c and offset @off.
 * Based on the CFA or on a register; the value itself or loaded from there.
 */
static bool sfr_flex_reg(const struct kuw_arch_info *ai, u32 c, s32 off,
			 u8 reg, struct kuw_rule *r)
{
	struct kuw_reg_rule *rr = &r->regs[r->nregs];

	if (KUW_SFLEX_RESERVED(c))
		return false;
	rr->reg = reg;
	rr->pad = 0;
	rr->off = off;
	rr->src = 0;
	if (!KUW_SFLEX_REG_P(c)) {
		/*
		 * Saved at CFA + off.  "Value is CFA + off" would be a control
		 * word of 0, which is padding: no register number either.
		 */
		if (c != KUW_SFLEX_MKCTRL(0, 1, 0))
			return false;
		rr->kind = KUW_R_OFFSET;
	} else {
		if (KUW_SFLEX_REGNUM(c) >= ai->nregs)
			return false;
		rr->src = KUW_SFLEX_REGNUM(c);
		if (KUW_SFLEX_DEREF(c))
			rr->kind = KUW_R_AT_REG;
		else if (off)
			rr->kind = KUW_R_VAL_REG;
		else
			rr->kind = KUW_R_REG;
	}
	r->nregs++;
	return true;
}

/*
 * The rule of a flexible FRE with @count (at least one) data words @w
 * (raw, @osize bytes each): CFA control word and offset, then for RA and
 * for FP either nothing more, a padding control word (0), or a control
 * word and an offset.  Without a rule of its own, RA and FP get the
 * header's fixed offsets, if any.  False when the words do not parse.
 */
static bool sfr_flex_rule(const struct sfr_hdr *h, const u32 *w, u32 osize,
			  u32 count, struct kuw_rule *r)
{
	const struct kuw_arch_info *ai = kuw_arch(h->arch);
	u32 i, k, c[2] = { 0, 0 };
	s32 off[2] = { 0, 0 };
	u32 shift = 32 - 8 * osize;

	if (count < 2)
		return false;
	/* the CFA: a register, plus the offset, maybe loaded from there */
	if (!KUW_SFLEX_REG_P(w[0]) || KUW_SFLEX_RESERVED(w[0]) ||
	    KUW_SFLEX_REGNUM(w[0]) >= ai->nregs)
		return false;
	r->cfa_kind = KUW_SFLEX_DEREF(w[0]) ? KUW_CFA_DEREF : KUW_CFA_REG;
	r->cfa_reg = KUW_SFLEX_REGNUM(w[0]);
	r->cfa_off = (s32)(w[1] << shift) >> shift;
	/* RA (k = 0), then FP (k = 1) */
	for (i = 2, k = 0; k < 2 && i < count; k++) {
		c[k] = w[i++];
		if (!c[k])
			continue;	/* padding */
		if (i == count)
			return false;
		off[k] = (s32)(w[i++] << shift) >> shift;
	}
	if (i != count)
		return false;
	/* sorted by number: FP (6 / x29) before RA (16 / x30) */
	if (c[1]) {
		if (!sfr_flex_reg(ai, c[1], off[1], ai->fp, r))
			return false;
	} else if (h->fixed_fp != KUW_SFRAME_CFA_FIXED_INVALID) {
		sfr_rule_saved(r, ai->fp, h->fixed_fp);
	}
	if (c[0])
		return sfr_flex_reg(ai, c[0], off[0], ai->ra, r);
	if (h->fixed_ra != KUW_SFRAME_CFA_FIXED_INVALID)
		sfr_rule_saved(r, ai->ra, h->fixed_ra);
	return true;
}

/*
 * Decode one FRE at section offset *pos (inside the FRE sub-section that
 * ends at @lim) into @r, advancing *pos.  *fre_start gets its start offset.
 */
static int sfr_read_fre(const struct kuw_sec *s, const struct sfr_hdr *h,
			const struct sfr_fde *f, u64 *pos, u64 lim,
			u32 *fre_start, struct kuw_rule *r, struct kuw_diag *d)
{
	const u8 *p = s->data + *pos;
	s32 off[KUW_SFRAME_FLEX_MAX_WORDS];
	u32 count, osize, i, n;
	u8 info;

	if (lim - *pos < (u64)f->addr_size + 1)
		return kuw_fail(d, SFR_SEC, *pos, KUW_E_TRUNC);
	*fre_start = sfr_fre_start(p, f->addr_size);
	info = p[f->addr_size];
	count = KUW_SFRE_INFO_COUNT(info);
	osize = sfr_osize[KUW_SFRE_INFO_OFF_SIZE(info)];
	if (!osize ||
	    count > (f->flex ? KUW_SFRAME_FLEX_MAX_WORDS : h->max_offsets) ||
	    (KUW_SFRE_INFO_MANGLED_RA(info) && h->arch != KUW_ARCH_ARM64))
		return kuw_fail(d, SFR_SEC, *pos + f->addr_size,
				KUW_E_BADTYPE);
	n = f->addr_size + 1 + count * osize;
	if (lim - *pos < n)
		return kuw_fail(d, SFR_SEC, *pos, KUW_E_TRUNC);
	p += f->addr_size + 1;
	for (i = 0; i < count; i++, p += osize)
		off[i] = sfr_off(p, osize);
	r->cfa_kind = KUW_CFA_REG;
	r->flags = KUW_SFRE_INFO_MANGLED_RA(info) ? KUW_RF_MANGLED_RA : 0;
	if (f->signal)
		r->flags |= KUW_RF_SIGNAL;
	r->nregs = 0;
	if (count && f->flex) {
		/* control words are unsigned: the raw bits */
		for (i = 0; i < count; i++)
			off[i] = (s32)((u32)off[i] &
				       (0xffffffffU >> (32 - 8 * osize)));
		if (!sfr_flex_rule(h, (const u32 *)off, osize, count, r))
			return kuw_fail(d, SFR_SEC, *pos + f->addr_size,
					KUW_E_BADTYPE);
		*pos += n;
		return 0;
	}
	*pos += n;
	if (count) {
		sfr_fre_rule(h, info, off, count, r);
		return 0;
	}
	/* No offsets: the return address is undefined, outermost. */
	r->cfa_reg = kuw_arch(h->arch)->sp;
	r->cfa_off = 0;
	r->regs[0].reg = kuw_arch(h->arch)->ra;
	r->regs[0].kind = KUW_R_UNDEF;
	r->regs[0].src = 0;
	r->regs[0].pad = 0;
	r->regs[0].off = 0;
	r->nregs = 1;
	return 0;
}

/*
 * FREs decoded lately (kuw_sink_ext.row_id).  What follows an FRE's start
 * address, its info byte and offsets, decides its rule and every check
 * sfr_read_fre() makes but the length one, whatever the FRE's place (the
 * rest comes from the header and, in v3, from its FDE's type and signal
 * bit, which are part of the key).  So an FRE whose info and offsets equal a
 * remembered one's is checked for room and reported under that rule and
 * id without decoding.  One id per entry filled: an id stands for one rule.
 */
#define SFR_MEMO	256	/* most entries; a power of two */
#define SFR_MEMO_MAX	16	/* info byte and offsets remembered, bytes */

struct sfr_memo {
	u32 id;			/* 0: empty */
	u16 len;
	u16 kind;		/* flex | signal << 1 of the FDE */
	u64 w[2];		/* info byte and offsets, zero-padded */
	union {
		struct kuw_rule r;	/* kuw_rule_size() bytes used */
		u64 raw[4];
	} rule;
};

struct sfr_ids {
	u32 last_id;
	u32 mask;		/* entries - 1 */
	struct sfr_memo spare;	/* an FRE not remembered */
	struct sfr_memo e[];
};

/*
 * One entry per 256 bytes of section, 16 to SFR_MEMO: a small module's
 * memo stays a small allocation (the test kernel's .sframe has 215 rules).
 */
static struct sfr_ids *sfr_ids_alloc(u64 size)
{
	struct sfr_ids *ids;
	u32 n = 16;

	while (n < SFR_MEMO && n < size / 256)
		n *= 2;
	ids = kuw_alloc(sizeof(*ids) + n * sizeof(ids->e[0]));
	if (ids)
		ids->mask = n - 1;
	return ids;
}

/*
 * sfr_read_fre() for the row_id path: the memo entry of the FRE at *pos,
 * decoded and remembered if it was not.
 */
static int sfr_read_fre_memo(const struct kuw_sec *s, const struct sfr_hdr *h,
			     const struct sfr_fde *f, u64 *pos, u64 lim,
			     u32 *fre_start, struct sfr_ids *ids,
			     struct sfr_memo **out, struct kuw_diag *d)
{
	const u8 *p = s->data + *pos;
	u32 a = f->addr_size, len = 0, osz, hash, kind;
	u64 w[2] = { 0, 0 };
	struct sfr_memo *e = &ids->spare;
	int err;

	if (lim - *pos >= (u64)a + 1) {
		osz = sfr_osize[KUW_SFRE_INFO_OFF_SIZE(p[a])];
		len = 1 + KUW_SFRE_INFO_COUNT(p[a]) * osz;
		if (!osz || len > SFR_MEMO_MAX || lim - *pos < (u64)a + len ||
		    p + a + sizeof(w) > s->data + s->size)
			len = 0;	/* decoded, not remembered */
	}
	kind = f->flex | f->signal << 1;
	if (len) {
		memcpy(w, p + a, sizeof(w));
		if (len < 8) {
			w[0] &= (1ULL << 8 * len) - 1;
			w[1] = 0;
		} else if (len < 16) {
			w[1] &= (1ULL << 8 * (len - 8)) - 1;
		}
		hash = (u32)((w[0] * 0x9e3779b97f4a7c15ULL ^
			      w[1] * 0xc4ceb9fe1a85ec53ULL) >> 40) + kind;
		e = &ids->e[hash & ids->mask];
		if (e->id && e->len == len && e->kind == kind &&
		    e->w[0] == w[0] && e->w[1] == w[1]) {
			*fre_start = sfr_fre_start(p, a);
			*pos += a + len;
			*out = e;
			return 0;
		}
	}
	err = sfr_read_fre(s, h, f, pos, lim, fre_start, &e->rule.r, d);
	if (err)
		return err;
	if (kuw_rule_size(&e->rule.r) > sizeof(e->rule))
		return -KUW_E_TOOBIG;	/* never: FP and RA at most */
	if (ids->last_id == 0xffffffffU)
		return -KUW_E_TOOBIG;	/* ids must stay unique */
	e->id = ++ids->last_id;
	e->len = len;
	e->kind = kind;
	e->w[0] = w[0];
	e->w[1] = w[1];
	*out = e;
	return 0;
}

/*
 * One walk: what its FRE loop needs, never passed out of this file, so
 * that its fields stay in registers.
 */
struct sfr_walk {
	const struct kuw_sec *s;
	const struct sfr_hdr *h;
	u64 lim;			/* the FRE sub-section's end */
	struct sfr_ids *ids;		/* the row_id path's memo, or NULL */
	const struct kuw_sink *sink;
	const struct kuw_sink_ext *ext;
	struct kuw_stats *st;
	struct kuw_rule *rule;		/* an FRE's rule off the memo */
	struct kuw_diag *d;
};

/* Report FDE @f to the sink. */
static int sfr_report_fde(const struct kuw_sink *sink, const struct sfr_fde *f)
{
	struct kuw_fde_info fi;

	fi.start = f->start;
	fi.end = f->start + f->size;
	fi.off = f->off;
	fi.src = KUW_SRC_SFRAME;
	fi.signal = f->signal;
	fi.pcmask = f->pcmask;
	return sink->fde(sink->ctx, &fi);
}

/*
 * The FREs of FDE @f: each decoded (or found in the memo) and checked,
 * in increasing order, inside the function (or the repeated block of a
 * PCMASK FDE), and reported as a row.
 */
static kuw_always_inline int sfr_walk_fres(struct sfr_walk *w,
					   const struct sfr_fde *f)
{
	u64 pos = f->fres, at, pc;
	struct sfr_memo *e = NULL;
	u32 j, fre_start, prev = 0;
	int err;

	for (j = 0; j < f->num_fres; j++) {
		at = pos;
		if (w->ids)
			err = sfr_read_fre_memo(w->s, w->h, f, &pos, w->lim,
						&fre_start, w->ids, &e, w->d);
		else
			err = sfr_read_fre(w->s, w->h, f, &pos, w->lim,
					   &fre_start, w->rule, w->d);
		if (err)
			return err;
		if (j && fre_start <= prev)
			return kuw_fail(w->d, SFR_SEC, at, KUW_E_UNSORTED);
		prev = fre_start;
		/* A zero-size function may carry one FRE at 0. */
		if (f->pcmask ? fre_start >= f->pcmask :
		    (fre_start >= f->size && (f->size || fre_start)))
			return kuw_fail(w->d, SFR_SEC, at, KUW_E_BADLOC);
		if (!f->size)
			continue;
		pc = f->pcmask ? fre_start : f->start + fre_start;
		if (w->ids)
			err = w->ext->row_id(w->sink->ctx, pc, &e->rule.r,
					     e->id);
		else if (w->sink && w->sink->row)
			err = w->sink->row(w->sink->ctx, pc, w->rule);
		if (err)
			return err;
		if (w->st)
			w->st->nrows++;
	}
	return 0;
}

/**
 * kuw_sfr_walk() - parse and validate one .sframe section
 * @o: the object (arch, flags, text range)
 * @s: the section bytes and load address
 * @sink: receives each FDE and its rows (NULL: validate only)
 * @st: FDE and row counts are added to it (may be NULL)
 * @d: where the first error was found (may be NULL)
 *
 * Versions 1, 2 and 3 (default and flexible FDEs), AMD64 and AArch64
 * little endian.  Rows of a PCINC FDE
 * are at run-time addresses; rows of a PCMASK FDE at offsets inside the
 * repeated block (kuw_fde_info.pcmask = its size).  The FREs of an FDE
 * whose function size is zero are checked but not reported: they cover no
 * address.
 *
 * Return: 0, a negative enum kuw_err, or the first non-zero sink result.
 */
int kuw_sfr_walk(const struct kuw_obj *o, const struct kuw_sec *s,
		 const struct kuw_sink *sink, struct kuw_stats *st,
		 struct kuw_diag *d)
{
	return kuw_sfr_walk_ext(o, s, sink, NULL, st, d);
}

/**
 * kuw_sfr_walk_ext() - kuw_sfr_walk() with extra sink callbacks
 * @o: the object (arch, flags)
 * @s: the section
 * @sink: receives each FDE and its rows, or NULL to only check
 * @ext: NULL, or @ext->row_id replaces @sink->row (see engine.h)
 * @st: counts of FDEs and rows (may be NULL)
 * @d: where the first error was found (may be NULL)
 *
 * Return: as kuw_sfr_walk().
 */
int kuw_sfr_walk_ext(const struct kuw_obj *o, const struct kuw_sec *s,
		     const struct kuw_sink *sink,
		     const struct kuw_sink_ext *ext, struct kuw_stats *st,
		     struct kuw_diag *d)
{
	struct kuw_rule r;
	struct sfr_hdr h;
	struct sfr_walk w = {
		.s = s, .h = &h, .sink = sink, .ext = ext, .st = st,
		.rule = &r, .d = d,
	};
	struct sfr_fde f = { 0 };
	u64 total = 0;
	u32 i;
	int err;

	if (!o || !s || (!s->data && s->size))
		return kuw_fail(d, SFR_SEC, 0, KUW_E_INVAL);
	err = sfr_read_hdr(o, s, &h, d);
	if (err)
		return err;
	w.lim = h.fre_base + h.fre_len;
	if (sink && ext && ext->row_id) {
		w.ids = sfr_ids_alloc(s->size);
		if (!w.ids)
			return kuw_fail(d, SFR_SEC, 0, KUW_E_NOMEM);
	}
	for (i = 0; i < h.num_fdes; i++) {
		err = sfr_read_fde(o, s, &h, i, &f, d);
		if (err)
			goto out;
		total += f.num_fres;
		if (total > h.num_fres) {
			err = kuw_fail(d, SFR_SEC, h.version == KUW_SFRAME_VERSION_3 ?
				       h.fre_base + f.fre_off :
				       f.off + KUW_SFDE_NUM_FRES,
				       KUW_E_BADLEN);
			goto out;
		}
		if (sink && sink->fde) {
			err = sfr_report_fde(sink, &f);
			if (err)
				goto out;
		}
		if (st)
			st->nfde++;
		err = sfr_walk_fres(&w, &f);
		if (err)
			goto out;
	}
	if (total != h.num_fres)
		err = kuw_fail(d, SFR_SEC, KUW_SFH_NUM_FRES, KUW_E_BADLEN);
out:
	kuw_free(w.ids);
	return err;
}
