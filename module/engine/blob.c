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

/*
 * Is the zero-padded string field @p[0..@size) a NUL-terminated name?  A
 * module name is 1..55 of [A-Za-z0-9_-]; a section name (it becomes a
 * path under /sys/module/NAME/sections/) is [A-Za-z0-9_.$-], not "." or
 * "..".
 */
static bool blob_name_ok(const u8 *p, u32 size, bool module_name)
{
	u32 i, n;

	for (n = 0; n < size && p[n]; n++) {
		u8 c = p[n];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-')
			continue;
		if (module_name || (c != '.' && c != '$'))
			return false;
	}
	if (!n || n >= size || (module_name && n > 55))
		return false;
	if (!module_name && p[0] == '.' && (n == 1 || (n == 2 && p[1] == '.')))
		return false;
	for (i = n; i < size; i++)
		if (p[i])
			return false;
	return true;
}

static bool blob_zero(const u8 *p, u32 n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Header fields that do not depend on the kind. */
static int blob_parse_common(const u8 *buf, u64 len, struct kuw_blob *b,
			     struct kuw_diag *d)
{
	if (len < KUW_BLOB_HDR_SIZE)
		return kuw_fail(d, BLOB_SEC, len, KUW_E_TRUNC);
	if (memcmp(buf, KUW_BLOB_MAGIC, sizeof(KUW_BLOB_MAGIC)))
		return kuw_fail(d, BLOB_SEC, 0, KUW_E_BADMAGIC);
	if (kuw_get_le16(buf + KUW_BLOB_OFF_VERSION) != KUW_BLOB_VERSION)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_VERSION, KUW_E_BADVER);
	if (kuw_get_le16(buf + KUW_BLOB_OFF_HDR_SIZE) != KUW_BLOB_HDR_SIZE)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_HDR_SIZE,
				KUW_E_BADHDR);
	b->obj.arch = buf[KUW_BLOB_OFF_ARCH];
	if (b->obj.arch != KUW_ARCH_X86_64 && b->obj.arch != KUW_ARCH_ARM64)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_ARCH, KUW_E_BADHDR);
	b->src = buf[KUW_BLOB_OFF_SRC];
	if (b->src != KUW_SRC_EH_FRAME && b->src != KUW_SRC_DEBUG_FRAME)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SRC, KUW_E_BADHDR);
	b->kind = buf[KUW_BLOB_OFF_KIND];
	if (b->kind != KUW_BLOB_VMLINUX && b->kind != KUW_BLOB_MODULE)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_KIND, KUW_E_BADHDR);
	b->id_len = buf[KUW_BLOB_OFF_ID_LEN];
	if (!b->id_len || b->id_len > KUW_BLOB_ID_MAX)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_ID_LEN, KUW_E_BADHDR);
	if (!blob_zero(buf + KUW_BLOB_OFF_BUILD_ID + b->id_len,
		       KUW_BLOB_ID_MAX - b->id_len))
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_BUILD_ID + b->id_len,
				KUW_E_BADHDR);
	memcpy(b->build_id, buf + KUW_BLOB_OFF_BUILD_ID, b->id_len);
	if (!blob_zero(buf + KUW_BLOB_OFF_RESERVED, 6))
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_RESERVED,
				KUW_E_BADHDR);
	if (!blob_name_ok(buf + KUW_BLOB_OFF_OWNER, KUW_BLOB_OWNER_MAX,
			  b->kind == KUW_BLOB_MODULE) ||
	    (b->kind == KUW_BLOB_VMLINUX &&
	     strcmp((const char *)buf + KUW_BLOB_OFF_OWNER, "vmlinux")) ||
	    (b->kind == KUW_BLOB_MODULE &&
	     !strcmp((const char *)buf + KUW_BLOB_OFF_OWNER, "vmlinux")))
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_OWNER, KUW_E_BADHDR);
	memcpy(b->owner, buf + KUW_BLOB_OFF_OWNER, KUW_BLOB_OWNER_MAX);
	b->obj.owner = b->owner;
	return 0;
}

/* The section map of a module blob: names, sizes, order, in the text. */
static int blob_parse_map(const u8 *buf, struct kuw_blob *b,
			  struct kuw_diag *d)
{
	u64 prev_end = b->obj.text_start;
	struct kuw_blob_sect m;
	u32 i, off;

	for (i = 0; i < b->nsect; i++) {
		off = KUW_BLOB_HDR_SIZE + i * KUW_BLOB_SECT_SIZE;
		if (!blob_name_ok(buf + off, KUW_BLOB_SECT_NAME, false))
			return kuw_fail(d, BLOB_SEC, off, KUW_E_BADHDR);
		kuw_blob_sect_at(b, i, &m);
		if (!m.size || m.addr + m.size < m.addr)
			return kuw_fail(d, BLOB_SEC, off + 40, KUW_E_BADLEN);
		if (m.addr < prev_end || m.addr + m.size > b->obj.text_end)
			return kuw_fail(d, BLOB_SEC, off + 32, KUW_E_BADRANGE);
		prev_end = m.addr + m.size;
	}
	return 0;
}

/**
 * kuw_blob_parse() - validate a blob and describe its table
 * @buf: the blob
 * @len: its length in bytes
 * @b: filled on success; b->sec.data and b->sect_raw point into @buf
 * @d: on failure, "blob", the offset of the offending field and the reason
 *
 * Checks the magic, version, header size, arch, source kind, blob kind,
 * build id, owner, the reserved field, the text range and _stext, the
 * section map, the section size against the blob length and
 * KUW_BLOB_MAX_SEC, and the checksum.  The section bytes themselves are
 * validated by kuw_table_build().
 *
 * Return: 0 or a negative enum kuw_err.
 */
int kuw_blob_parse(const u8 *buf, u64 len, struct kuw_blob *b,
		   struct kuw_diag *d)
{
	u64 ts, te, addr, want;
	u32 size, sum;
	int ret;

	if (!buf || !b)
		return kuw_fail(d, BLOB_SEC, 0, KUW_E_INVAL);
	memset(b, 0, sizeof(*b));
	ret = blob_parse_common(buf, len, b, d);
	if (ret)
		return ret;
	b->stext = kuw_get_le64(buf + KUW_BLOB_OFF_STEXT);
	ts = kuw_get_le64(buf + KUW_BLOB_OFF_TEXT_START);
	te = kuw_get_le64(buf + KUW_BLOB_OFF_TEXT_END);
	if (ts >= te)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_TEXT_END,
				KUW_E_BADRANGE);
	if (b->kind == KUW_BLOB_VMLINUX ?
	    b->stext < ts || b->stext >= te : b->stext != 0)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_STEXT,
				KUW_E_BADRANGE);
	if (b->kind == KUW_BLOB_MODULE && b->src != KUW_SRC_DEBUG_FRAME)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SRC, KUW_E_BADHDR);
	b->obj.text_start = ts;
	b->obj.text_end = te;
	b->nsect = kuw_get_le16(buf + KUW_BLOB_OFF_NSECT);
	if (b->kind == KUW_BLOB_VMLINUX ? b->nsect != 0 :
	    !b->nsect || b->nsect > KUW_BLOB_MAX_SECT)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_NSECT, KUW_E_BADHDR);
	addr = kuw_get_le64(buf + KUW_BLOB_OFF_SEC_ADDR);
	size = kuw_get_le32(buf + KUW_BLOB_OFF_SEC_SIZE);
	if (!size)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SEC_SIZE,
				KUW_E_BADLEN);
	if (size > KUW_BLOB_MAX_SEC)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SEC_SIZE,
				KUW_E_TOOBIG);
	want = kuw_blob_size(b->nsect, size);
	if (len < want)
		return kuw_fail(d, BLOB_SEC, len, KUW_E_TRUNC);
	if (len > want)
		return kuw_fail(d, BLOB_SEC, want, KUW_E_BADLEN);
	if (addr + size < addr)
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_SEC_ADDR,
				KUW_E_BADRANGE);
	b->sect_raw = buf + KUW_BLOB_HDR_SIZE;
	ret = blob_parse_map(buf, b, d);
	if (ret)
		return ret;
	sum = kuw_get_le32(buf + KUW_BLOB_OFF_CHECKSUM);
	if (sum != blob_checksum(buf, len))
		return kuw_fail(d, BLOB_SEC, KUW_BLOB_OFF_CHECKSUM,
				KUW_E_BADSUM);

	b->obj.flags = 0;
	b->sec.data = buf + want - size;
	b->sec.size = size;
	b->sec.addr = addr;
	return 0;
}
EXPORT_SYMBOL_GPL(kuw_blob_parse);

/**
 * kuw_blob_sect_at() - one entry of a parsed blob's section map
 * @b: a blob kuw_blob_parse() accepted
 * @i: the entry, below b->nsect
 * @out: its name (NUL-terminated), link address and size
 */
void kuw_blob_sect_at(const struct kuw_blob *b, u32 i,
		      struct kuw_blob_sect *out)
{
	const u8 *p = b->sect_raw + (u64)i * KUW_BLOB_SECT_SIZE;

	memcpy(out->name, p, KUW_BLOB_SECT_NAME);
	out->name[KUW_BLOB_SECT_NAME - 1] = 0;
	out->addr = kuw_get_le64(p + KUW_BLOB_SECT_NAME);
	out->size = kuw_get_le64(p + KUW_BLOB_SECT_NAME + 8);
}
EXPORT_SYMBOL_GPL(kuw_blob_sect_at);

/**
 * kuw_blob_size() - size of a blob
 * @nsect: entries of its section map
 * @sec_size: bytes of its unwind section
 *
 * Return: the blob size, or 0 when @sec_size is 0 or too large, or @nsect
 * above KUW_BLOB_MAX_SECT.
 */
u64 kuw_blob_size(u32 nsect, u64 sec_size)
{
	if (!sec_size || sec_size > KUW_BLOB_MAX_SEC ||
	    nsect > KUW_BLOB_MAX_SECT)
		return 0;
	return KUW_BLOB_HDR_SIZE + (u64)nsect * KUW_BLOB_SECT_SIZE + sec_size;
}
EXPORT_SYMBOL_GPL(kuw_blob_size);

/* Would kuw_blob_parse() accept what @b describes?  (The map aside.) */
static bool blob_desc_ok(const struct kuw_blob *b)
{
	u8 owner[KUW_BLOB_OWNER_MAX] = { 0 };
	const char *z = memchr(b->owner, 0, sizeof(b->owner));
	bool is_vmlinux;

	if (!z)
		return false;
	memcpy(owner, b->owner, z - b->owner);
	if (!blob_name_ok(owner, sizeof(owner), b->kind == KUW_BLOB_MODULE))
		return false;
	is_vmlinux = !strcmp(b->owner, "vmlinux");
	if (is_vmlinux ? b->kind != KUW_BLOB_VMLINUX :
	    b->kind != KUW_BLOB_MODULE)
		return false;
	if (b->obj.arch != KUW_ARCH_X86_64 && b->obj.arch != KUW_ARCH_ARM64)
		return false;
	if (b->src != KUW_SRC_EH_FRAME && b->src != KUW_SRC_DEBUG_FRAME)
		return false;
	if (!b->id_len || b->id_len > KUW_BLOB_ID_MAX)
		return false;
	if (b->obj.text_start >= b->obj.text_end ||
	    b->sec.addr + b->sec.size < b->sec.addr)
		return false;
	if (b->kind == KUW_BLOB_VMLINUX)
		return b->nsect == 0 && b->stext >= b->obj.text_start &&
		       b->stext < b->obj.text_end;
	return b->kind == KUW_BLOB_MODULE && b->stext == 0 && b->sect &&
	       b->nsect && b->src == KUW_SRC_DEBUG_FRAME;
}

/**
 * kuw_blob_write() - write a blob
 * @b: what to carry: kind, owner, build id, obj.arch, obj.text_start/end,
 *     src, stext (vmlinux), nsect and sect (module), sec
 * @out: output buffer
 * @out_len: its size; must be at least kuw_blob_size(b->nsect, b->sec.size)
 *
 * Writes exactly kuw_blob_size() bytes.  The result passes
 * kuw_blob_parse() whenever @b satisfies the rules of the format, which
 * are checked here too (the section map by parsing the result).
 *
 * Return: 0, -KUW_E_INVAL or -KUW_E_TOOBIG.
 */
int kuw_blob_write(const struct kuw_blob *b, u8 *out, u64 out_len)
{
	struct kuw_blob chk;
	u64 total;
	u8 *p;
	u32 i;

	if (!b || !out || !b->sec.data)
		return -KUW_E_INVAL;
	if (b->sec.size > KUW_BLOB_MAX_SEC)
		return -KUW_E_TOOBIG;
	total = kuw_blob_size(b->nsect, b->sec.size);
	if (!total || out_len < total || !blob_desc_ok(b))
		return -KUW_E_INVAL;

	memset(out, 0, total - b->sec.size);
	memcpy(out, KUW_BLOB_MAGIC, sizeof(KUW_BLOB_MAGIC));
	kuw_put_le(out + KUW_BLOB_OFF_VERSION, KUW_BLOB_VERSION, 2);
	kuw_put_le(out + KUW_BLOB_OFF_HDR_SIZE, KUW_BLOB_HDR_SIZE, 2);
	out[KUW_BLOB_OFF_ARCH] = b->obj.arch;
	out[KUW_BLOB_OFF_SRC] = b->src;
	out[KUW_BLOB_OFF_KIND] = b->kind;
	out[KUW_BLOB_OFF_ID_LEN] = b->id_len;
	kuw_put_le(out + KUW_BLOB_OFF_STEXT, b->stext, 8);
	kuw_put_le(out + KUW_BLOB_OFF_TEXT_START, b->obj.text_start, 8);
	kuw_put_le(out + KUW_BLOB_OFF_TEXT_END, b->obj.text_end, 8);
	kuw_put_le(out + KUW_BLOB_OFF_SEC_ADDR, b->sec.addr, 8);
	kuw_put_le(out + KUW_BLOB_OFF_SEC_SIZE, b->sec.size, 4);
	kuw_put_le(out + KUW_BLOB_OFF_NSECT, b->nsect, 2);
	memcpy(out + KUW_BLOB_OFF_BUILD_ID, b->build_id, b->id_len);
	memcpy(out + KUW_BLOB_OFF_OWNER, b->owner, strlen(b->owner));
	for (i = 0; i < b->nsect; i++) {
		p = out + KUW_BLOB_HDR_SIZE + i * KUW_BLOB_SECT_SIZE;
		if (!memchr(b->sect[i].name, 0, KUW_BLOB_SECT_NAME))
			return -KUW_E_INVAL;
		memcpy(p, b->sect[i].name, strlen(b->sect[i].name));
		kuw_put_le(p + KUW_BLOB_SECT_NAME, b->sect[i].addr, 8);
		kuw_put_le(p + KUW_BLOB_SECT_NAME + 8, b->sect[i].size, 8);
	}
	memcpy(out + total - b->sec.size, b->sec.data, b->sec.size);
	kuw_put_le(out + KUW_BLOB_OFF_CHECKSUM, blob_checksum(out, total), 4);
	return kuw_blob_parse(out, total, &chk, NULL) ? -KUW_E_INVAL : 0;
}
EXPORT_SYMBOL_GPL(kuw_blob_write);

/* ELF note header: namesz, descsz, type; name and desc 4-byte padded. */
#define NOTE_GNU_BUILD_ID	3

/**
 * kuw_note_build_id() - the GNU build id in a run of ELF notes
 * @notes: the notes (a .notes or .note.gnu.build-id section)
 * @len: their length
 * @id: set to the build id's bytes (inside @notes)
 * @id_len: set to their number, 1..KUW_BLOB_ID_MAX
 *
 * Return: 0, -KUW_E_NOINFO when no note is a GNU build id (or it is empty
 * or too long), -KUW_E_TRUNC when a note runs past @len.
 */
int kuw_note_build_id(const u8 *notes, u64 len, const u8 **id, u32 *id_len)
{
	u64 off = 0, name_end, desc_end;
	u32 namesz, descsz, type;

	while (len - off >= 12) {
		namesz = kuw_get_le32(notes + off);
		descsz = kuw_get_le32(notes + off + 4);
		type = kuw_get_le32(notes + off + 8);
		name_end = off + 12 + (((u64)namesz + 3) & ~3ULL);
		desc_end = name_end + (((u64)descsz + 3) & ~3ULL);
		if (desc_end > len)
			return -KUW_E_TRUNC;
		if (type == NOTE_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(notes + off + 12, "GNU", 4) && descsz &&
		    descsz <= KUW_BLOB_ID_MAX) {
			*id = notes + name_end;
			*id_len = descsz;
			return 0;
		}
		off = desc_end;
	}
	return -KUW_E_NOINFO;
}
EXPORT_SYMBOL_GPL(kuw_note_build_id);
