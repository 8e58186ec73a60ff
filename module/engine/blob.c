// SPDX-License-Identifier: GPL-2.0
/*
 * The vmlinux blob (format in include/kunwind/blob.h): parse and validate
 * the bytes userspace writes to debugfs kunwind/load, and write them on the
 * host for kunwind-dump export.  Plain C: no linux/ include.
 */
#include "engine.h"
#include "blob.h"
#include "read.h"

#define BLOB_SEC	"blob"

/**
 * kuw_blob_fnv1a() - FNV-1a 32-bit hash, the blob's checksum
 * @h: running hash (start with 2166136261)
 * @p: bytes
 * @len: number of bytes
 *
 * Return: the updated hash.
 */
u32 kuw_blob_fnv1a(u32 h, const u8 *p, u64 len)
{
	u64 i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

#define BLOB_FNV_INIT	2166136261u

/* Checksum of a whole blob, the checksum field counted as zero. */
static u32 blob_checksum(const u8 *buf, u64 len)
{
	static const u8 zero[4];
	u32 h = BLOB_FNV_INIT;

	h = kuw_blob_fnv1a(h, buf, KUW_BLOB_OFF_CHECKSUM);
	h = kuw_blob_fnv1a(h, zero, sizeof(zero));
	return kuw_blob_fnv1a(h, buf + KUW_BLOB_OFF_CHECKSUM + 4,
			      len - KUW_BLOB_OFF_CHECKSUM - 4);
}

/**
 * kuw_blob_parse() - validate a vmlinux blob and describe its table
 * @buf: the blob
 * @len: its length in bytes
 * @b: filled on success; b->sec.data points into @buf
 * @d: on failure, "blob", the offset of the offending field and the reason
 *
 * Checks the magic, version, header size, arch, source kind, flags, the
 * reserved field, the text range and _stext, the section size against the
 * blob length and KUW_BLOB_MAX_SEC, and the checksum.  The section bytes
 * themselves are validated by kuw_table_build().
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kuw_blob_parse(const u8 *buf, u64 len, struct kuw_blob *b,
		   struct kuw_diag *d)
{
	u64 stext, ts, te, addr, reserved;
	u32 size, sum;
	u16 flags;
	u8 arch, src;

	if (!buf || !b)
		return kuw_fail(d, BLOB_SEC, 0, KUW_E_INVAL);
	memset(b, 0, sizeof(*b));
	if (len < KUW_BLOB_HDR_SIZE)
		return kuw_fail(d, BLOB_SEC, len, KUW_E_TRUNC);
	if (memcmp(buf, KUW_BLOB_MAGIC, sizeof(KUW_BLOB_MAGIC)))
		return kuw_fail(d, BLOB_SEC, 0, KUW_E_BADMAGIC);
	if (kuw_get_le16(buf + KUW_BLOB_OFF_VERSION) != KUW_BLOB_VERSION)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_VERSION, KUW_E_BADVER);
	if (kuw_get_le16(buf + KUW_BLOB_OFF_HDR_SIZE) != KUW_BLOB_HDR_SIZE)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_HDR_SIZE,
				KUW_E_BADHDR);
	arch = buf[KUW_BLOB_OFF_ARCH];
	if (arch != KUW_ARCH_X86_64 && arch != KUW_ARCH_ARM64)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_ARCH, KUW_E_BADHDR);
	src = buf[KUW_BLOB_OFF_SRC];
	if (src != KUW_SRC_EH_FRAME && src != KUW_SRC_DEBUG_FRAME)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SRC, KUW_E_BADHDR);
	flags = kuw_get_le16(buf + KUW_BLOB_OFF_FLAGS);
	if (flags)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_FLAGS, KUW_E_BADHDR);
	reserved = kuw_get_le64(buf + KUW_BLOB_OFF_RESERVED);
	if (reserved)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_RESERVED,
				KUW_E_BADHDR);
	stext = kuw_get_le64(buf + KUW_BLOB_OFF_STEXT);
	ts = kuw_get_le64(buf + KUW_BLOB_OFF_TEXT_START);
	te = kuw_get_le64(buf + KUW_BLOB_OFF_TEXT_END);
	if (ts >= te)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_TEXT_END,
				KUW_E_BADRANGE);
	if (stext < ts || stext >= te)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_STEXT,
				KUW_E_BADRANGE);
	addr = kuw_get_le64(buf + KUW_BLOB_OFF_SEC_ADDR);
	size = kuw_get_le32(buf + KUW_BLOB_OFF_SEC_SIZE);
	if (!size)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SEC_SIZE,
				KUW_E_BADLEN);
	if (size > KUW_BLOB_MAX_SEC)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SEC_SIZE,
				KUW_E_TOOBIG);
	if (len - KUW_BLOB_HDR_SIZE < size)
		return kuw_fail(d, BLOB_SEC, len, KUW_E_TRUNC);
	if (len - KUW_BLOB_HDR_SIZE > size)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_HDR_SIZE + (u64)size,
				KUW_E_BADLEN);
	if (addr + size < addr)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SEC_ADDR,
				KUW_E_BADRANGE);
	sum = kuw_get_le32(buf + KUW_BLOB_OFF_CHECKSUM);
	if (sum != blob_checksum(buf, len))
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_CHECKSUM,
				KUW_E_BADSUM);

	b->obj.owner = "vmlinux";
	b->obj.arch = arch;
	b->obj.flags = 0;
	b->obj.text_start = ts;
	b->obj.text_end = te;
	b->sec.data = buf + KUW_BLOB_HDR_SIZE;
	b->sec.size = size;
	b->sec.addr = addr;
	b->src = src;
	b->stext = stext;
	return 0;
}

/**
 * kuw_blob_size() - size of a blob carrying a section of @sec_size bytes
 * @sec_size: section size
 *
 * Return: the blob size, or 0 when @sec_size is 0 or too large.
 */
u64 kuw_blob_size(u64 sec_size)
{
	if (!sec_size || sec_size > KUW_BLOB_MAX_SEC)
		return 0;
	return KUW_BLOB_HDR_SIZE + sec_size;
}
EXPORT_SYMBOL_GPL(kuw_blob_size);

/**
 * kuw_blob_write() - write a vmlinux blob
 * @b: what to carry: obj.arch, obj.text_start/end, src, stext, sec
 * @out: output buffer
 * @out_len: its size; must be at least kuw_blob_size(b->sec.size)
 *
 * Writes exactly kuw_blob_size(b->sec.size) bytes.  The result passes
 * kuw_blob_parse() whenever @b satisfies the rules of the format, which
 * are checked here too.
 *
 * Return: 0, -KUW_E_INVAL or -KUW_E_TOOBIG.
 */
int kuw_blob_write(const struct kuw_blob *b, u8 *out, u64 out_len)
{
	u64 total;

	if (!b || !out || !b->sec.data)
		return -KUW_E_INVAL;
	if (b->sec.size > KUW_BLOB_MAX_SEC)
		return -KUW_E_TOOBIG;
	total = kuw_blob_size(b->sec.size);
	if (!total || out_len < total)
		return -KUW_E_INVAL;
	if (b->obj.arch != KUW_ARCH_X86_64 && b->obj.arch != KUW_ARCH_ARM64)
		return -KUW_E_INVAL;
	if (b->src != KUW_SRC_EH_FRAME && b->src != KUW_SRC_DEBUG_FRAME)
		return -KUW_E_INVAL;
	if (b->obj.text_start >= b->obj.text_end ||
	    b->stext < b->obj.text_start || b->stext >= b->obj.text_end ||
	    b->sec.addr + b->sec.size < b->sec.addr)
		return -KUW_E_INVAL;

	memset(out, 0, KUW_BLOB_HDR_SIZE);
	memcpy(out, KUW_BLOB_MAGIC, sizeof(KUW_BLOB_MAGIC));
	kuw_put_le(out + KUW_BLOB_OFF_VERSION, KUW_BLOB_VERSION, 2);
	kuw_put_le(out + KUW_BLOB_OFF_HDR_SIZE, KUW_BLOB_HDR_SIZE, 2);
	out[KUW_BLOB_OFF_ARCH] = b->obj.arch;
	out[KUW_BLOB_OFF_SRC] = b->src;
	kuw_put_le(out + KUW_BLOB_OFF_STEXT, b->stext, 8);
	kuw_put_le(out + KUW_BLOB_OFF_TEXT_START, b->obj.text_start, 8);
	kuw_put_le(out + KUW_BLOB_OFF_TEXT_END, b->obj.text_end, 8);
	kuw_put_le(out + KUW_BLOB_OFF_SEC_ADDR, b->sec.addr, 8);
	kuw_put_le(out + KUW_BLOB_OFF_SEC_SIZE, b->sec.size, 4);
	memcpy(out + KUW_BLOB_HDR_SIZE, b->sec.data, b->sec.size);
	kuw_put_le(out + KUW_BLOB_OFF_CHECKSUM, blob_checksum(out, total), 4);
	return 0;
}
EXPORT_SYMBOL_GPL(kuw_blob_write);
