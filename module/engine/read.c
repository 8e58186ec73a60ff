// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded byte cursor: LEB128 numbers and DW_EH_PE_* pointers.  Fixed-width
 * reads are inline in read.h.  Nothing here allocates or loops longer than
 * the bytes it reads.
 */
#include "read.h"
#include "dwarf.h"

/*
 * ULEB128 or, with @sign, SLEB128.  The tenth byte holds bit 63 alone: the
 * rest of it must be 0, or for a signed number copies of the sign.
 */
static kuw_always_inline int rd_leb(struct kuw_cur *c, bool sign, u64 *v)
{
	u64 pos = c->pos, val = 0;
	unsigned int shift = 0, n;
	u8 b;

	for (n = 0; n < KUW_LEB_MAX; n++) {
		if (pos >= c->end)
			return -KUW_E_TRUNC;
		b = c->data[pos++];
		if (shift == 63) {
			if (b != 0x00 && b != (sign ? 0x7f : 0x01))
				return -KUW_E_BADLEN;	/* bits beyond 64 */
			val |= (u64)(b & 1) << 63;
			break;
		}
		val |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (sign && (b & 0x40))
				val |= ~0ULL << shift;
			break;
		}
	}
	if (n == KUW_LEB_MAX)
		return -KUW_E_BADLEN;
	c->pos = pos;
	*v = val;
	return 0;
}

int kuw_rd_uleb(struct kuw_cur *c, u64 *v)
{
	return rd_leb(c, false, v);
}

int kuw_rd_sleb(struct kuw_cur *c, s64 *v)
{
	u64 u;
	int ret = rd_leb(c, true, &u);

	if (!ret)
		*v = (s64)u;
	return ret;
}

/* the DW_OP evaluator's operands: the walk's path, never kprobed */
kuw_nokprobe(kuw_rd_uleb);
kuw_nokprobe(kuw_rd_sleb);

int kuw_rd_str(struct kuw_cur *c, const char **s, u64 *len)
{
	u64 pos;

	for (pos = c->pos; pos < c->end; pos++) {
		if (!c->data[pos]) {
			*s = (const char *)c->data + c->pos;
			*len = pos - c->pos;
			c->pos = pos + 1;
			return 0;
		}
	}
	return -KUW_E_TRUNC;
}

int kuw_enc_check(u8 enc)
{
	if (enc == KUW_DW_EH_PE_omit)
		return 0;
	switch (enc & KUW_DW_EH_PE_TYPE_MASK) {
	case KUW_DW_EH_PE_absptr:
	case KUW_DW_EH_PE_uleb128:
	case KUW_DW_EH_PE_udata2:
	case KUW_DW_EH_PE_udata4:
	case KUW_DW_EH_PE_udata8:
	case KUW_DW_EH_PE_sleb128:
	case KUW_DW_EH_PE_sdata2:
	case KUW_DW_EH_PE_sdata4:
	case KUW_DW_EH_PE_sdata8:
		break;
	default:
		return -KUW_E_BADENC;
	}
	switch (enc & KUW_DW_EH_PE_BASE_MASK) {
	case KUW_DW_EH_PE_abs:
	case KUW_DW_EH_PE_pcrel:
	case KUW_DW_EH_PE_textrel:
	case KUW_DW_EH_PE_datarel:
	case KUW_DW_EH_PE_funcrel:
		break;
	case KUW_DW_EH_PE_aligned:
		/* As libgcc: aligned is a whole absptr encoding of its own. */
		if ((enc & ~KUW_DW_EH_PE_indirect) != KUW_DW_EH_PE_aligned)
			return -KUW_E_BADENC;
		break;
	default:
		return -KUW_E_BADENC;
	}
	return 0;
}

/*
 * A 2- or 4-byte value (@n), sign-extended when @sign; 0 and the cursor
 * put on error.
 */
static kuw_always_inline int rd_fixed(struct kuw_cur *c, u32 n, bool sign,
				      u64 *v)
{
	const u8 *p;

	*v = 0;
	if (kuw_cur_left(c) < n)
		return -KUW_E_TRUNC;
	p = c->data + c->pos;
	if (n == 2)
		*v = sign ? (u64)(s64)(s16)kuw_get_le16(p) : kuw_get_le16(p);
	else
		*v = sign ? (u64)(s64)(s32)kuw_get_le32(p) : kuw_get_le32(p);
	c->pos += n;
	return 0;
}

/* The value of one data type; the cursor stays put on error. */
static int rd_type(struct kuw_cur *c, u8 type, u8 addr_size, u64 *v)
{
	s64 sv = 0;
	int ret;

	switch (type) {
	case KUW_DW_EH_PE_absptr:
		if (addr_size == 8)
			return kuw_rd_u64(c, v);
		return rd_fixed(c, 4, false, v);
	case KUW_DW_EH_PE_uleb128:
		return kuw_rd_uleb(c, v);
	case KUW_DW_EH_PE_udata2:
		return rd_fixed(c, 2, false, v);
	case KUW_DW_EH_PE_udata4:
		return rd_fixed(c, 4, false, v);
	case KUW_DW_EH_PE_udata8:
	case KUW_DW_EH_PE_sdata8:
		return kuw_rd_u64(c, v);
	case KUW_DW_EH_PE_sleb128:
		ret = kuw_rd_sleb(c, &sv);
		*v = (u64)sv;
		return ret;
	case KUW_DW_EH_PE_sdata2:
		return rd_fixed(c, 2, true, v);
	case KUW_DW_EH_PE_sdata4:
		return rd_fixed(c, 4, true, v);
	}
	return -KUW_E_BADENC;
}

int kuw_rd_ptr(struct kuw_cur *c, u8 enc, const struct kuw_ptr_base *b,
	       bool type_only, u64 *v, bool *indirect)
{
	u64 field = c->addr + c->pos, start = c->pos, base = 0;
	u8 asz = b && b->addr_size == 4 ? 4 : 8;
	u64 val = 0;
	int ret;

	if (indirect)
		*indirect = false;
	/* .eh_frame's usual encoding, valid with any base: no checks */
	if (enc == (KUW_DW_EH_PE_pcrel | KUW_DW_EH_PE_sdata4) &&
	    kuw_cur_left(c) >= 4) {
		const u8 *p = c->data + c->pos;
		s32 x = (s32)kuw_get_le32(p);

		c->pos += 4;
		*v = type_only ? (u64)(s64)x : field + (u64)(s64)x;
		return 0;
	}
	if (enc == KUW_DW_EH_PE_omit) {
		*v = 0;
		return 0;
	}
	ret = kuw_enc_check(enc);
	if (ret)
		return ret;
	if ((enc & KUW_DW_EH_PE_indirect) && !type_only) {
		if (!indirect)
			return -KUW_E_BADENC;
		*indirect = true;
	}
	if (type_only) {
		/* A length: only the data type counts (aligned is absptr). */
		return rd_type(c, enc & KUW_DW_EH_PE_TYPE_MASK, asz, v);
	}

	switch (enc & KUW_DW_EH_PE_BASE_MASK) {
	case KUW_DW_EH_PE_abs:
		break;
	case KUW_DW_EH_PE_pcrel:
		base = field;
		break;
	case KUW_DW_EH_PE_textrel:
		if (!b || !(b->have & KUW_PB_TEXT))
			return -KUW_E_BADENC;
		base = b->text;
		break;
	case KUW_DW_EH_PE_datarel:
		if (!b || !(b->have & KUW_PB_DATA))
			return -KUW_E_BADENC;
		base = b->data;
		break;
	case KUW_DW_EH_PE_funcrel:
		if (!b || !(b->have & KUW_PB_FUNC))
			return -KUW_E_BADENC;
		base = b->func;
		break;
	case KUW_DW_EH_PE_aligned: {
		/* Padding up to the next address-size boundary, then absptr. */
		u64 pad = (asz - (field & (asz - 1))) & (asz - 1);

		ret = kuw_rd_skip(c, pad);
		if (ret)
			return ret;
		ret = rd_type(c, KUW_DW_EH_PE_absptr, asz, v);
		if (ret)
			c->pos = start;
		return ret;
	}
	}
	ret = rd_type(c, enc & KUW_DW_EH_PE_TYPE_MASK, asz, &val);
	if (ret)
		return ret;
	*v = base + val;	/* modulo 2^64, as the hardware adds */
	return 0;
}
