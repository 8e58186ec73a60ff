/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded byte cursor over one section: fixed-width little-endian reads,
 * ULEB128/SLEB128 and DW_EH_PE_* pointers.  Every read checks the cursor's
 * end first; on failure the cursor does not move, so c->pos still names
 * the offending field for the caller's diagnostic.
 */
#ifndef KUNWIND_READ_H
#define KUNWIND_READ_H

#include "engine.h"

/* struct kuw_cur: engine.h (a DW_OP evaluation's memory holds one) */

/* Longest LEB128 accepted: 10 bytes hold 64 bits (overlong padding up to it). */
#define KUW_LEB_MAX	10

static inline void kuw_cur_init(struct kuw_cur *c, const u8 *data, u64 size,
				u64 addr)
{
	c->data = data;
	c->pos = 0;
	c->end = size;
	c->addr = addr;
}

/*
 * Little-endian loads and stores at @p (any alignment), no bound check:
 * the one set of the engine, the tools and the tests.  Compilers turn the
 * fixed widths into single loads.
 */
static inline u16 kuw_get_le16(const u8 *p)
{
	return (u16)(p[0] | (u16)p[1] << 8);
}

static inline u32 kuw_get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static inline u64 kuw_get_le64(const u8 *p)
{
	return (u64)kuw_get_le32(p) | (u64)kuw_get_le32(p + 4) << 32;
}

/* The @n bytes at @p (0 to 8) as a little-endian number. */
static inline u64 kuw_get_le(const u8 *p, u32 n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Store the low @n bytes (0 to 8) of @v at @p, little endian. */
static inline void kuw_put_le(u8 *p, u64 v, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(v >> (8 * i));
}

static inline u64 kuw_cur_left(const struct kuw_cur *c)
{
	return c->pos < c->end ? c->end - c->pos : 0;
}

static inline int kuw_rd_skip(struct kuw_cur *c, u64 n)
{
	if (n > kuw_cur_left(c))
		return -KUW_E_TRUNC;
	c->pos += n;
	return 0;
}

static inline int kuw_rd_u8(struct kuw_cur *c, u8 *v)
{
	if (kuw_cur_left(c) < 1)
		return -KUW_E_TRUNC;
	*v = c->data[c->pos++];
	return 0;
}

static inline int kuw_rd_u16(struct kuw_cur *c, u16 *v)
{
	if (kuw_cur_left(c) < 2)
		return -KUW_E_TRUNC;
	*v = kuw_get_le16(c->data + c->pos);
	c->pos += 2;
	return 0;
}

static inline int kuw_rd_u32(struct kuw_cur *c, u32 *v)
{
	if (kuw_cur_left(c) < 4)
		return -KUW_E_TRUNC;
	*v = kuw_get_le32(c->data + c->pos);
	c->pos += 4;
	return 0;
}

static inline int kuw_rd_u64(struct kuw_cur *c, u64 *v)
{
	if (kuw_cur_left(c) < 8)
		return -KUW_E_TRUNC;
	*v = kuw_get_le64(c->data + c->pos);
	c->pos += 8;
	return 0;
}

/*
 * ULEB128 / SLEB128.  -KUW_E_TRUNC when the cursor ends inside the number,
 * -KUW_E_BADLEN when it is longer than KUW_LEB_MAX bytes or its value does
 * not fit 64 bits.  Redundant padding bytes (0x80 ... 0x00) are accepted.
 */
int kuw_rd_uleb(struct kuw_cur *c, u64 *v);
int kuw_rd_sleb(struct kuw_cur *c, s64 *v);

/* kuw_rd_uleb() with the one-byte case inline (most CFA operands). */
static inline int kuw_rd_uleb1(struct kuw_cur *c, u64 *v)
{
	if (c->pos < c->end && !(c->data[c->pos] & 0x80)) {
		*v = c->data[c->pos++];
		return 0;
	}
	return kuw_rd_uleb(c, v);
}

/* kuw_rd_sleb() with the one-byte case inline: bit 6 is the sign. */
static inline int kuw_rd_sleb1(struct kuw_cur *c, s64 *v)
{
	if (c->pos < c->end && !(c->data[c->pos] & 0x80)) {
		u8 b = c->data[c->pos++];

		*v = b & 0x40 ? (s64)b - 0x80 : (s64)b;
		return 0;
	}
	return kuw_rd_sleb(c, v);
}

/*
 * A NUL-terminated string inside the cursor (augmentation): *s points at
 * it, *len is its length without the NUL.  -KUW_E_TRUNC without NUL.
 */
int kuw_rd_str(struct kuw_cur *c, const char **s, u64 *len);

/* Bases of DW_EH_PE_* pointers other than pcrel (which is the field). */
#define KUW_PB_TEXT	0x1
#define KUW_PB_DATA	0x2
#define KUW_PB_FUNC	0x4

struct kuw_ptr_base {
	u64 text;	/* textrel */
	u64 data;	/* datarel */
	u64 func;	/* funcrel */
	u8 have;	/* KUW_PB_*: which bases are known */
	u8 addr_size;	/* absptr width: 4 or 8 */
};

/*
 * Static check of an encoding byte: a known data type and base, aligned
 * only as DW_EH_PE_aligned itself, omit as 0xff.  0 or -KUW_E_BADENC.
 */
int kuw_enc_check(u8 enc);

/*
 * Read one pointer encoded with @enc.  pcrel is relative to the run-time
 * address of the field, aligned reads an addr_size pointer at the next
 * addr_size-aligned address, textrel/datarel/funcrel need that base in @b
 * (else -KUW_E_BADENC).  @enc == DW_EH_PE_omit reads nothing and gives 0.
 * DW_EH_PE_indirect is not followed here: the value is the address of the
 * pointer and *indirect is set (NULL @indirect makes it -KUW_E_BADENC).
 * kunwind never needs the target: the only indirect pointer real objects
 * carry is the personality routine, which an unwinder skips.
 * With @type_only the base is ignored (FDE address_range, a length).
 */
int kuw_rd_ptr(struct kuw_cur *c, u8 enc, const struct kuw_ptr_base *b,
	       bool type_only, u64 *v, bool *indirect);

#endif /* KUNWIND_READ_H */
