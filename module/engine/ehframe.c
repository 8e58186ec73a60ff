// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame and .debug_frame: walk every record once, check it, and run
 * each FDE's program through the DW_CFA interpreter (cfi.c).
 *
 * Record layout (LSB for .eh_frame, DWARF 5 section 6.4.1 for .debug_frame):
 *   length     u32; 0xffffffff: a u64 length follows (DWARF64);
 *              0xfffffff0..0xfffffffe reserved; 0: a terminator
 *   id         .eh_frame: u32, 0 = CIE, else the distance from this field
 *              back to the FDE's CIE (4 bytes even in DWARF64, as LSB,
 *              libunwind and gimli read it).  .debug_frame: u32 or, in
 *              DWARF64, u64; all-ones = CIE, else the CIE's section offset.
 *   CIE        version (1, 3, 4), augmentation string, [v4: address size,
 *              segment selector size], code_align (uleb), data_align
 *              (sleb), return column (v1: u8, else uleb), augmentation
 *              data, initial instructions.
 *   FDE        initial location, address range, [augmentation data],
 *              instructions.
 *
 * Decisions:
 *  - A zero length is a terminator word: it is skipped and the walk goes on
 *    (as readelf; libgcc stops, but its .eh_frame_hdr lookup still finds
 *    FDEs behind it).  The section size always bounds the walk, so kernel
 *    modules (no terminator) need nothing special; 1-3 trailing zero bytes
 *    are accepted as padding.
 *  - A CIE pointer must land inside the section on a record that parses as
 *    a CIE; the CIE is checked whole, its initial instructions run.
 *  - Augmentation: optional legacy "eh" (one pointer skipped), then 'z'
 *    (data length), then R, P, L, S, B, G.  With 'z' the first unknown
 *    letter ends parsing and the rest of the data is skipped by length;
 *    without 'z' an unknown letter is an error.  .debug_frame addresses
 *    are absolute (address size bytes): 'R' is an error there.
 *  - Pointers: see read.h.  textrel is relative to obj->text_start (when
 *    the text range is known); datarel (the GOT on x86_64) is unknown here
 *    and an error for addresses; the personality pointer and the LSDA are
 *    only skipped, so any encoding is accepted for them.
 *  - Every FDE range must lie inside [text_start, text_end) when
 *    text_end > text_start.  In .debug_frame an FDE whose start is 0 (or
 *    the linker tombstones -1/-2) lies in a section the linker discarded:
 *    it is checked but not reported.  Empty ranges are checked and not
 *    reported either.
 *  - Overlapping FDEs are not detected here: kuw_table_build() sorts the
 *    rows and rejects overlaps (KUW_E_OVERLAP).
 */
#include "ehframe.h"
#include "cfi.h"
#include "read.h"
#include "dwarf.h"
#include "arch.h"

struct ehf_cie {
	u64 off;		/* record offset, ~0 when none */
	u64 insn;		/* initial instructions [insn, end) */
	u64 end;
	struct kuw_cfi_cie c;
	u8 lsda_enc;
	bool z;			/* FDEs have an augmentation data length */
	bool fast;		/* its FDEs may take ehf_fde_fast() */
};

struct ehf_rec {
	u64 off;		/* record start */
	u64 id_off;		/* offset of the id / CIE pointer field */
	u64 body;		/* first byte after the id */
	u64 end;		/* one past the record */
	u64 cie_off;		/* FDE: offset of its CIE */
	bool cie;
	bool term;		/* zero length */
};

struct ehf_walk {
	const struct kuw_obj *o;
	const struct kuw_sec *s;
	bool debug;
	int src;			/* enum kuw_src, named in errors */
	struct kuw_diag *d;
	struct kuw_ptr_base pb;		/* text base for textrel */
	struct ehf_cie cie;		/* last CIE parsed */
};

/* enum kuw_src of the section walked. */
static int ehf_src(bool debug)
{
	return debug ? KUW_SRC_DEBUG_FRAME : KUW_SRC_EH_FRAME;
}

/* Name the first error (cold: out of line). */
static kuw_noinline int ehf_err(struct ehf_walk *w, u64 off, int ret)
{
	if (ret < 0)
		ret = -ret;
	return kuw_fail(w->d, kuw_src_section(w->src), off, ret);
}

/* Read the record header at @off (off < size). */
static int ehf_rec(struct ehf_walk *w, u64 off, struct ehf_rec *r)
{
	struct kuw_cur c;
	u32 len32, id32;
	u64 len, id;
	bool dw64 = false;

	kuw_cur_init(&c, w->s->data, w->s->size, w->s->addr);
	c.pos = off;
	r->off = off;
	r->term = false;
	r->cie = false;
	if (kuw_rd_u32(&c, &len32))
		return ehf_err(w, off, KUW_E_TRUNC);
	if (!len32) {
		r->term = true;
		r->end = c.pos;
		return 0;
	}
	len = len32;
	if (len32 == KUW_DWARF64_ESCAPE) {
		if (kuw_rd_u64(&c, &len))
			return ehf_err(w, off, KUW_E_TRUNC);
		dw64 = true;
	} else if (len32 >= 0xfffffff0U) {
		return ehf_err(w, off, KUW_E_BADLEN);
	}
	if (len > kuw_cur_left(&c))
		return ehf_err(w, off, KUW_E_BADLEN);
	r->end = c.pos + len;
	c.end = r->end;
	r->id_off = c.pos;
	if (w->debug && dw64) {
		if (kuw_rd_u64(&c, &id))
			return ehf_err(w, off, KUW_E_BADLEN);
		r->cie = id == KUW_CIE_ID_DEBUG64;
	} else {
		if (kuw_rd_u32(&c, &id32))
			return ehf_err(w, off, KUW_E_BADLEN);
		id = id32;
		r->cie = w->debug ? id32 == KUW_CIE_ID_DEBUG32 :
			id32 == KUW_CIE_ID_EH;
	}
	r->body = c.pos;
	if (r->cie)
		return 0;
	if (w->debug) {
		r->cie_off = id;
	} else {
		if (id > r->id_off)
			return ehf_err(w, r->id_off, KUW_E_BADCIE);
		r->cie_off = r->id_off - id;
	}
	if (r->cie_off >= w->s->size)
		return ehf_err(w, r->id_off, KUW_E_BADCIE);
	return 0;
}

/* Skip a pointer whose value kunwind never uses (personality, LSDA). */
static int ehf_skip_ptr(struct kuw_cur *c, u8 enc, u8 addr_size)
{
	struct kuw_ptr_base any = {
		.have = KUW_PB_TEXT | KUW_PB_DATA | KUW_PB_FUNC,
		.addr_size = addr_size,
	};
	bool ind;
	u64 v;

	return kuw_rd_ptr(c, enc, &any, false, &v, &ind);
}

/* The augmentation string of a CIE, and the next letter to parse. */
struct ehf_aug {
	const char *s;
	u64 len;
	u64 i;
};

/*
 * A CIE's fields up to its augmentation data: version, augmentation
 * string, [v4: address and segment selector sizes], legacy "eh" data,
 * code and data alignment, return address column.
 */
static int ehf_cie_head(struct ehf_walk *w, struct kuw_cur *c,
			struct ehf_aug *a)
{
	struct ehf_cie *cie = &w->cie;
	u64 u, f;
	u8 ver, b;
	int ret;

	if (kuw_rd_u8(c, &ver))
		return ehf_err(w, c->pos, KUW_E_TRUNC);
	if (ver != 1 && ver != 3 && ver != 4)
		return ehf_err(w, c->pos - 1, KUW_E_BADVER);
	f = c->pos;
	ret = kuw_rd_str(c, &a->s, &a->len);
	if (ret)
		return ehf_err(w, f, ret);
	if (ver == 4) {
		f = c->pos;
		if (kuw_rd_u8(c, &cie->c.addr_size) || kuw_rd_u8(c, &b))
			return ehf_err(w, f, KUW_E_TRUNC);
		if ((cie->c.addr_size != 4 && cie->c.addr_size != 8) || b)
			return ehf_err(w, f, KUW_E_BADHDR);
	}
	if (a->len >= 2 && a->s[0] == 'e' && a->s[1] == 'h') {
		/* Legacy GCC: the address of the EH data follows. */
		f = c->pos;
		ret = kuw_rd_skip(c, cie->c.addr_size);
		if (ret)
			return ehf_err(w, f, ret);
		a->i = 2;
	}
	f = c->pos;
	ret = kuw_rd_uleb(c, &cie->c.code_align);
	if (ret)
		return ehf_err(w, f, ret);
	if (!cie->c.code_align)
		return ehf_err(w, f, KUW_E_BADALIGN);
	f = c->pos;
	ret = kuw_rd_sleb(c, &cie->c.data_align);
	if (ret)
		return ehf_err(w, f, ret);
	f = c->pos;
	if (ver == 1) {
		ret = kuw_rd_u8(c, &b);
		u = b;
	} else {
		ret = kuw_rd_uleb(c, &u);
	}
	if (ret)
		return ehf_err(w, f, ret);
	if (u >= kuw_arch(w->o->arch)->nregs)
		return ehf_err(w, f, KUW_E_BADREG);
	cie->c.ra = (u8)u;
	return 0;
}

/*
 * One augmentation letter's data at the cursor (@body: the CIE's body,
 * named for a letter that is wrong where it is).  Return: 0, 1 when the
 * letters after this one are skipped by length, or the error.
 */
static int ehf_cie_letter(struct ehf_walk *w, struct kuw_cur *c, u64 body,
			  char letter)
{
	struct ehf_cie *cie = &w->cie;
	u64 f = c->pos;
	int ret;
	u8 b;

	switch (letter) {
	case 'R':
		if (w->debug)
			return ehf_err(w, body + 1, KUW_E_BADAUG);
		if (kuw_rd_u8(c, &cie->c.fde_enc))
			return ehf_err(w, f, KUW_E_BADAUG);
		if (cie->c.fde_enc == KUW_DW_EH_PE_omit ||
		    (cie->c.fde_enc & KUW_DW_EH_PE_indirect) ||
		    kuw_enc_check(cie->c.fde_enc))
			return ehf_err(w, f, KUW_E_BADENC);
		return 0;
	case 'P':
		if (kuw_rd_u8(c, &b))
			return ehf_err(w, f, KUW_E_BADAUG);
		if (b == KUW_DW_EH_PE_omit || kuw_enc_check(b))
			return ehf_err(w, f, KUW_E_BADENC);
		ret = ehf_skip_ptr(c, b, cie->c.addr_size);
		if (ret)
			return ehf_err(w, c->pos, ret == -KUW_E_TRUNC ?
				       KUW_E_BADAUG : ret);
		return 0;
	case 'L':
		if (kuw_rd_u8(c, &cie->lsda_enc))
			return ehf_err(w, f, KUW_E_BADAUG);
		if (kuw_enc_check(cie->lsda_enc))
			return ehf_err(w, f, KUW_E_BADENC);
		return 0;
	case 'S':
		cie->c.signal = 1;
		return 0;
	case 'B':	/* AArch64 pointer authentication with the B key */
	case 'G':	/* AArch64 MTE tagged frame */
		return 0;
	}
	if (!cie->z)
		return ehf_err(w, body + 1, KUW_E_BADAUG);
	return 1;	/* the rest is skipped by length */
}

/*
 * The length of a 'z' augmentation data block at the cursor, which must
 * fit the record: *@end is the block's end.
 */
static kuw_always_inline int ehf_aug_len(struct ehf_walk *w,
					 struct kuw_cur *c, u64 *end)
{
	u64 f = c->pos, alen;
	int ret = kuw_rd_uleb(c, &alen);

	if (ret)
		return ehf_err(w, f, ret);
	if (alen > kuw_cur_left(c))
		return ehf_err(w, f, KUW_E_BADAUG);
	*end = c->pos + alen;
	return 0;
}

/* Parse and check the CIE record @r into w->cie. */
static int ehf_cie_parse(struct ehf_walk *w, const struct ehf_rec *r)
{
	struct ehf_cie *cie = &w->cie;
	struct ehf_aug a = { NULL, 0, 0 };
	u64 aend = 0;
	struct kuw_cur c;
	int ret;

	kuw_cur_init(&c, w->s->data, r->end, w->s->addr);
	c.pos = r->body;
	cie->off = ~0ULL;
	cie->z = false;
	cie->fast = false;
	cie->lsda_enc = KUW_DW_EH_PE_omit;
	cie->c.fde_enc = KUW_DW_EH_PE_absptr;
	cie->c.signal = 0;
	cie->c.debug = w->debug;
	cie->c.addr_size = 8;
	ret = ehf_cie_head(w, &c, &a);
	if (ret)
		return ret;
	if (a.i < a.len && a.s[a.i] == 'z') {
		cie->z = true;
		a.i++;
		ret = ehf_aug_len(w, &c, &aend);
		if (ret)
			return ret;
		c.end = aend;	/* the letters' data must fit inside */
	}
	for (; a.i < a.len; a.i++) {
		ret = ehf_cie_letter(w, &c, r->body, a.s[a.i]);
		if (ret < 0)
			return ret;
		if (ret)
			break;
	}
	if (cie->z) {
		c.pos = aend;
		c.end = r->end;
	}
	cie->insn = c.pos;
	cie->end = r->end;
	cie->off = r->off;
	cie->fast = !w->debug && cie->z &&
		    cie->lsda_enc == KUW_DW_EH_PE_omit &&
		    cie->c.fde_enc == (KUW_DW_EH_PE_pcrel | KUW_DW_EH_PE_sdata4);
	return 0;
}

/* Make w->cie the CIE at @off (checked), w->cie.off == @off after. */
static int ehf_cie_get(struct ehf_walk *w, u64 off, u64 ref)
{
	struct ehf_rec r;
	int ret;

	if (w->cie.off == off)
		return 0;
	ret = ehf_rec(w, off, &r);
	if (ret)
		return ret;
	if (r.term || !r.cie)
		return ehf_err(w, ref, KUW_E_BADCIE);
	return ehf_cie_parse(w, &r);
}

struct ehf_fde {
	u64 start;
	u64 end;
	u64 insn;
	u64 insn_end;
	bool skip;		/* discarded by the linker: not reported */
};

/*
 * Move an FDE placed at link time (obj->remap): by the delta of the range
 * holding its start; the whole FDE must lie in that range.  An FDE in no
 * range is skipped (a section the object does not keep loaded).
 */
static int ehf_remap(const struct kuw_obj *o, struct ehf_fde *f)
{
	const struct kuw_remap *m;
	u32 i;

	for (i = 0; i < o->nremap; i++) {
		m = &o->remap[i];
		if (f->start < m->link_start || f->start >= m->link_end)
			continue;
		if (f->end > m->link_end)
			return KUW_E_BADRANGE;
		f->start += m->delta;
		f->end += m->delta;
		if (f->end < f->start)
			return KUW_E_BADRANGE;
		return 0;
	}
	f->skip = true;
	return 0;
}

/* Parse the FDE record @r (its CIE becomes w->cie). */
static int ehf_fde_parse(struct ehf_walk *w, const struct ehf_rec *r,
			 struct ehf_fde *f)
{
	const struct kuw_obj *o = w->o;
	struct ehf_cie *cie;
	struct kuw_ptr_base pb;
	struct kuw_cur c;
	u64 range, p = 0;
	int ret;

	ret = ehf_cie_get(w, r->cie_off, r->id_off);
	if (ret)
		return ret;
	cie = &w->cie;
	pb = w->pb;
	pb.addr_size = cie->c.addr_size;
	kuw_cur_init(&c, w->s->data, r->end, w->s->addr);
	c.pos = r->body;
	f->skip = false;

	if (w->debug) {
		ret = kuw_rd_ptr(&c, KUW_DW_EH_PE_absptr, &pb, false,
				 &f->start, NULL);
		if (!ret)
			ret = kuw_rd_ptr(&c, KUW_DW_EH_PE_absptr, &pb, true,
					 &range, NULL);
	} else {
		ret = kuw_rd_ptr(&c, cie->c.fde_enc, &pb, false,
				 &f->start, NULL);
		if (!ret)
			ret = kuw_rd_ptr(&c, cie->c.fde_enc, &pb, true,
					 &range, NULL);
	}
	if (ret)
		return ehf_err(w, c.pos, ret);
	if (__builtin_add_overflow(f->start, range, &f->end))
		return ehf_err(w, r->off, KUW_E_BADRANGE);

	if (cie->z) {
		ret = ehf_aug_len(w, &c, &p);
		if (ret)
			return ret;
		if (cie->lsda_enc != KUW_DW_EH_PE_omit) {
			struct kuw_cur a = c;

			a.end = p;
			ret = ehf_skip_ptr(&a, cie->lsda_enc,
					   cie->c.addr_size);
			if (ret)
				return ehf_err(w, a.pos, KUW_E_BADAUG);
		}
		c.pos = p;
	} else if (cie->lsda_enc != KUW_DW_EH_PE_omit) {
		p = c.pos;
		ret = ehf_skip_ptr(&c, cie->lsda_enc, cie->c.addr_size);
		if (ret)
			return ehf_err(w, p, ret);
	}
	f->insn = c.pos;
	f->insn_end = r->end;

	if (w->debug && o->text_start &&
	    (f->start == 0 || f->start >= ~1ULL)) {
		f->skip = true;
		return 0;
	}
	if (o->nremap) {
		ret = ehf_remap(o, f);
		if (ret)
			return ehf_err(w, r->off, ret);
		if (f->skip)
			return 0;
	}
	if (o->text_end > o->text_start &&
	    (f->start < o->text_start || f->end > o->text_end))
		return ehf_err(w, r->off, KUW_E_BADRANGE);
	return 0;
}

/* FDE record: length, CIE pointer, start, range, augmentation length. */
#define EHF_FAST_MIN	13

/*
 * The usual .eh_frame FDE, read in one go: a 32-bit length, its CIE the
 * one parsed last (w->cie) with pcrel|sdata4 pointers, 'z' and no LSDA, a
 * one-byte augmentation data length, a range in the text.  Anything else,
 * or anything wrong, is left to ehf_rec() and ehf_fde_parse(), which make
 * every check and name the error: false then.  @off + 4 <= size.
 */
static kuw_always_inline bool ehf_fde_fast(const struct ehf_walk *w, u64 off,
					   struct ehf_rec *r,
					   struct ehf_fde *f)
{
	const struct kuw_obj *o = w->o;
	const u8 *p = w->s->data + off;
	u32 len = kuw_get_le32(p), id;
	u64 start, end;
	u8 alen;

	if (!w->cie.fast || o->nremap || len < EHF_FAST_MIN ||
	    len >= 0xfffffff0U ||
	    len > w->s->size - off - 4)
		return false;
	id = kuw_get_le32(p + 4);
	if (!id || id > off + 4 || off + 4 - id != w->cie.off)
		return false;
	/* pcrel from the field's run-time address; the range is sdata4 too */
	start = w->s->addr + off + 8 + (u64)(s64)(s32)kuw_get_le32(p + 8);
	if (__builtin_add_overflow(start,
				   (u64)(s64)(s32)kuw_get_le32(p + 12), &end))
		return false;
	alen = p[16];
	if ((alen & 0x80) || alen > len - EHF_FAST_MIN)
		return false;
	if (o->text_end > o->text_start &&
	    (start < o->text_start || end > o->text_end))
		return false;
	r->off = off;
	r->end = off + 4 + len;
	f->start = start;
	f->end = end;
	f->insn = off + 4 + EHF_FAST_MIN + alen;
	f->insn_end = r->end;
	f->skip = false;
	return true;
}

static void ehf_init(struct ehf_walk *w, const struct kuw_obj *o,
		     const struct kuw_sec *s, bool debug, struct kuw_diag *d)
{
	w->o = o;
	w->s = s;
	w->debug = debug;
	w->src = ehf_src(debug);
	w->d = d;
	w->pb.have = 0;
	w->pb.addr_size = 8;
	w->pb.text = o->text_start;
	w->pb.data = 0;
	w->pb.func = 0;
	if (o->text_end > o->text_start)
		w->pb.have |= KUW_PB_TEXT;
	w->cie.off = ~0ULL;
	w->cie.fast = false;
}

/* The walk's CFI interpreter, with caches sized by the section. */
static struct kuw_cfi *ehf_cfi_new(const struct ehf_walk *w,
				   const struct kuw_sink *sink,
				   const struct kuw_sink_ext *ext)
{
	struct kuw_cfi *x = kuw_alloc(sizeof(*x));

	if (!x)
		return NULL;
	x->arch = w->o->arch;
	x->nregs = kuw_arch(w->o->arch)->nregs;
	x->secname = kuw_src_section(w->src);
	x->sec = w->s;
	x->pb = w->pb;
	x->ext = ext;
	/* caches sized by the section; else only x->rc1 */
	if (sink && !(w->o->flags & KUW_OBJ_GENERAL))
		kuw_cfi_caches(x, w->s->size);
	return x;
}

/* Fewer than 4 bytes left at @off: padding when they are all zero. */
static bool ehf_padding(const struct kuw_sec *s, u64 off)
{
	for (; off < s->size; off++)
		if (s->data[off])
			return false;
	return true;
}

/*
 * The record at @off, read the general way: a terminator, a CIE (checked
 * whole) or an FDE (*@f), and the initial instructions of the CIE that is
 * w->cie now, unless they ran last (*@init_cie: that CIE's offset).
 * Return: 0 for an FDE, 1 for another record, or the error.
 */
static int ehf_record(struct ehf_walk *w, struct kuw_cfi *x, u64 off,
		      struct ehf_rec *r, struct ehf_fde *f, u64 *init_cie,
		      struct kuw_stats *st)
{
	int ret = ehf_rec(w, off, r);

	if (ret)
		return ret;
	if (r->term)
		return 1;
	if (r->cie) {
		/* Check it whole, initial instructions too. */
		w->cie.off = ~0ULL;
		ret = ehf_cie_parse(w, r);
	} else {
		ret = ehf_fde_parse(w, r, f);
	}
	if (ret)
		return ret;
	if (w->cie.off != *init_cie) {
		x->cie = w->cie.c;
		*init_cie = ~0ULL;
		ret = kuw_cfi_run_cie(x, w->cie.insn, w->cie.end, w->d);
		if (ret)
			return ret;
		*init_cie = w->cie.off;
	}
	if (!r->cie)
		return 0;
	st->ncie++;
	return 1;
}

/* Report FDE @f (record @r) to @sink and run its program. */
static kuw_always_inline int ehf_fde_run(struct ehf_walk *w,
					 struct kuw_cfi *x,
					 const struct kuw_sink *sink,
					 const struct ehf_rec *r,
					 const struct ehf_fde *f, u32 *nrows)
{
	u32 unused = 0;
	int ret;

	if (f->skip || f->start == f->end)	/* checked, not reported */
		return kuw_cfi_run_fde(x, f->insn, f->insn_end, f->start,
				       f->end, NULL, &unused, w->d);
	if (sink && sink->fde) {
		struct kuw_fde_info fi = {
			.start = f->start, .end = f->end, .off = r->off,
			.src = w->src, .signal = w->cie.c.signal,
		};

		ret = sink->fde(sink->ctx, &fi);
		if (ret)
			return ret;
	}
	return kuw_cfi_run_fde(x, f->insn, f->insn_end, f->start, f->end,
			       sink, nrows, w->d);
}

/**
 * kuw_ehf_walk() - parse, check and interpret .eh_frame or .debug_frame
 * @o: the object (arch, text range)
 * @s: the section bytes and their run-time address
 * @debug: false for .eh_frame, true for .debug_frame
 * @sink: receives each FDE and its rows, or NULL to only check
 * @st: counts of CIEs, FDEs and rows (may be NULL)
 * @d: where the first error was found (may be NULL)
 *
 * Walks the section once, bounded by its size.  Rows come in increasing
 * pc within an FDE: one at its start and one at each later location where
 * the rules differ from the previous row's.
 *
 * Return: 0, a negative enum kuw_err (the section is rejected whole), or
 * the non-zero value a sink callback returned.
 */
int kuw_ehf_walk(const struct kuw_obj *o, const struct kuw_sec *s, bool debug,
		 const struct kuw_sink *sink, struct kuw_stats *st,
		 struct kuw_diag *d)
{
	return kuw_ehf_walk_ext(o, s, debug, sink, NULL, st, d);
}

/**
 * kuw_ehf_walk_ext() - kuw_ehf_walk() with extra sink callbacks
 * @o: the object (arch, text range)
 * @s: the section bytes and their run-time address
 * @debug: false for .eh_frame, true for .debug_frame
 * @sink: receives each FDE and its rows, or NULL to only check
 * @ext: NULL, or @ext->row_id replaces @sink->row (see engine.h)
 * @st: counts of CIEs, FDEs and rows (may be NULL)
 * @d: where the first error was found (may be NULL)
 *
 * Return: as kuw_ehf_walk().
 */
int kuw_ehf_walk_ext(const struct kuw_obj *o, const struct kuw_sec *s,
		     bool debug, const struct kuw_sink *sink,
		     const struct kuw_sink_ext *ext, struct kuw_stats *st,
		     struct kuw_diag *d)
{
	struct kuw_stats lst = { 0 };
	struct ehf_walk w;
	struct kuw_cfi *x;
	struct ehf_rec r;
	struct ehf_fde f;
	u64 off = 0, init_cie = ~0ULL;
	int ret = 0;

	if (!o || !s || (!s->data && s->size))
		return kuw_fail(d, kuw_src_section(ehf_src(debug)), 0,
				KUW_E_INVAL);
	ehf_init(&w, o, s, debug, d);
	x = ehf_cfi_new(&w, sink, ext);
	if (!x)
		return kuw_fail(d, kuw_src_section(w.src), 0, KUW_E_NOMEM);
	while (off < s->size) {
		if (s->size - off < 4) {
			if (!ehf_padding(s, off))
				ret = ehf_err(&w, off, KUW_E_TRUNC);
			break;
		}
		/*
		 * An FDE of the CIE parsed last: that CIE's initial
		 * instructions ran after it was parsed (init_cie).
		 */
		if (!ehf_fde_fast(&w, off, &r, &f)) {
			ret = ehf_record(&w, x, off, &r, &f, &init_cie, &lst);
			if (ret < 0)
				break;
			if (ret) {
				ret = 0;
				off = r.end;
				continue;
			}
		}
		lst.nfde++;
		ret = ehf_fde_run(&w, x, sink, &r, &f, &lst.nrows);
		if (ret)
			break;
		off = r.end;
	}
	kuw_cfi_caches_free(x);
	kuw_free(x);
	if (st)
		*st = lst;
	return ret;
}

/**
 * kuw_ehf_fde_at() - the address range of the FDE at an offset
 * @o: the object
 * @s: .eh_frame
 * @off: offset of the FDE record
 * @start: its first address
 * @end: one past its last address
 * @d: where an error was found
 *
 * Return: 0, -KUW_E_BADCIE when @off is not an FDE, or another error.
 */
int kuw_ehf_fde_at(const struct kuw_obj *o, const struct kuw_sec *s, u64 off,
		   u64 *start, u64 *end, struct kuw_diag *d)
{
	struct ehf_walk w;
	struct ehf_rec r;
	struct ehf_fde f;
	int ret;

	ehf_init(&w, o, s, false, d);
	if (off >= s->size)
		return ehf_err(&w, off, KUW_E_BADCIE);
	ret = ehf_rec(&w, off, &r);
	if (ret)
		return ret;
	if (r.term || r.cie)
		return ehf_err(&w, off, KUW_E_BADCIE);
	ret = ehf_fde_parse(&w, &r, &f);
	if (ret)
		return ret;
	*start = f.start;
	*end = f.end;
	return 0;
}
