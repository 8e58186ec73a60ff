/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Blobs: the link-time unwind table of an object that keeps none in memory
 * (a stock distro kernel and its modules), made on the host by
 * "kunwind-dump export FILE -o BLOB" from the debug file's .debug_frame (or
 * .eh_frame) and written by userspace to /dev/kunwind/load
 * ("kunwind-dump load" does both).
 *
 *  - vmlinux blob (kind 0): built at the link-time addresses it carries and
 *    moved by the KASLR offset (run-time _stext - link-time _stext).
 *  - module blob (kind 1): the module's debug .ko laid out by the exporter
 *    (each text section at a link address of its choosing, relocations
 *    applied); the blob lists those sections by name, and kunwind.ko moves
 *    each FDE by the distance between its section's link address and
 *    where the loaded module has that section (struct kuw_remap).
 *
 * Both carry the GNU build id of the object they were made from; kunwind.ko
 * compares it with the running kernel's (/sys/kernel/notes) or the loaded
 * module's (/sys/module/NAME/notes) and refuses a blob of another build.
 *
 * The blob is untrusted input: kuw_blob_parse() checks every header field,
 * the section map and the checksum and rejects the blob whole;
 * kuw_table_build() then validates the unwind section itself.
 *
 * Format, version 2.  All fields little-endian, no padding:
 *
 *   offset size  field
 *        0    8  magic       "KUWBLOB\0"
 *        8    2  version     2
 *       10    2  hdr_size    160 (header bytes before the section map)
 *       12    1  arch        enum kuw_arch (1 x86_64, 2 arm64)
 *       13    1  src         enum kuw_src: 0 eh_frame or 1 debug_frame
 *       14    1  kind        0 vmlinux, 1 module
 *       15    1  id_len      bytes of build id, 1..32
 *       16    8  stext       vmlinux: link-time address of _stext; module: 0
 *       24    8  text_start  link-time text range [text_start, text_end):
 *       32    8  text_end      every FDE must lie inside it
 *       40    8  sec_addr    link-time address of the section (.eh_frame
 *                            pointers are relative to it; 0 for .debug_frame)
 *       48    4  sec_size    bytes of the unwind section
 *       52    4  checksum    FNV-1a (32 bit) of the whole blob computed
 *                            with this field set to 0
 *       56    2  nsect       entries in the section map: 0 for vmlinux,
 *                            1..KUW_BLOB_MAX_SECT for a module
 *       58    6  reserved    0
 *       64   32  build_id    id_len bytes, the rest 0
 *       96   64  owner       "vmlinux", or the module's name: 1..55 bytes of
 *                            [A-Za-z0-9_-], NUL, the rest 0
 *      160       section map: nsect entries of 48 bytes each:
 *                  0   32  name   section name of [A-Za-z0-9_.$-], not "."
 *                                 or "..", NUL-terminated, rest 0
 *                 32    8  addr   link address of the section
 *                 40    8  size   its size (> 0)
 *                sorted by address, not overlapping, inside the text range
 *      160 + 48 * nsect: the unwind section's bytes (sec_size of them)
 *
 * The blob is exactly that long; trailing bytes are rejected.  Rules:
 * text_start < text_end; vmlinux: text_start <= stext < text_end; module:
 * stext == 0, .debug_frame only; 0 < sec_size <= KUW_BLOB_MAX_SEC;
 * sec_addr + sec_size does not wrap.
 */
#ifndef KUNWIND_BLOB_H
#define KUNWIND_BLOB_H

#include "engine.h"

#define KUW_BLOB_MAGIC		"KUWBLOB"	/* 7 chars + NUL = 8 bytes */
#define KUW_BLOB_VERSION	2
#define KUW_BLOB_HDR_SIZE	160
#define KUW_BLOB_MAX_SEC	(64u << 20)	/* 64 MiB of unwind section */
#define KUW_BLOB_ID_MAX		32		/* build id bytes */
#define KUW_BLOB_OWNER_MAX	64		/* owner field, NUL included */
#define KUW_BLOB_SECT_SIZE	48		/* one section map entry */
#define KUW_BLOB_SECT_NAME	32		/* its name field, NUL included */
#define KUW_BLOB_MAX_SECT	64		/* section map entries at most */

enum kuw_blob_kind {
	KUW_BLOB_VMLINUX = 0,
	KUW_BLOB_MODULE = 1,
};

/* Field offsets in the header (for tests and error offsets). */
#define KUW_BLOB_OFF_VERSION	8
#define KUW_BLOB_OFF_HDR_SIZE	10
#define KUW_BLOB_OFF_ARCH	12
#define KUW_BLOB_OFF_SRC	13
#define KUW_BLOB_OFF_KIND	14
#define KUW_BLOB_OFF_ID_LEN	15
#define KUW_BLOB_OFF_STEXT	16
#define KUW_BLOB_OFF_TEXT_START	24
#define KUW_BLOB_OFF_TEXT_END	32
#define KUW_BLOB_OFF_SEC_ADDR	40
#define KUW_BLOB_OFF_SEC_SIZE	48
#define KUW_BLOB_OFF_CHECKSUM	52
#define KUW_BLOB_OFF_NSECT	56
#define KUW_BLOB_OFF_RESERVED	58
#define KUW_BLOB_OFF_BUILD_ID	64
#define KUW_BLOB_OFF_OWNER	96

/* One entry of a module blob's section map. */
struct kuw_blob_sect {
	char name[KUW_BLOB_SECT_NAME];
	u64 addr;
	u64 size;
};

/* What a blob carries; kuw_blob_parse() fills it, kuw_blob_write() reads it. */
struct kuw_blob {
	struct kuw_obj obj;	/* owner, arch, link-time text range */
	struct kuw_sec sec;	/* the section bytes (inside the blob) */
	u8 src;			/* KUW_SRC_EH_FRAME or KUW_SRC_DEBUG_FRAME */
	u8 kind;		/* enum kuw_blob_kind */
	u8 id_len;
	u8 build_id[KUW_BLOB_ID_MAX];
	char owner[KUW_BLOB_OWNER_MAX];	/* obj.owner points here after parse */
	u64 stext;		/* link-time _stext (vmlinux) */
	u16 nsect;
	/* parse: the raw map inside the blob (kuw_blob_sect_at() reads it) */
	const u8 *sect_raw;
	/* write: the map to write */
	const struct kuw_blob_sect *sect;
};

/*
 * Parse and validate @len bytes at @buf.  On success @b describes the
 * table (b->sec.data and b->sect_raw point into @buf, which must outlive
 * their use).  Returns 0 or a negative enum kuw_err with @d naming "blob"
 * and the byte offset of the offending field.
 */
int kuw_blob_parse(const u8 *buf, u64 len, struct kuw_blob *b,
		   struct kuw_diag *d);

/* Entry @i (< b->nsect) of a parsed blob's section map. */
void kuw_blob_sect_at(const struct kuw_blob *b, u32 i,
		      struct kuw_blob_sect *out);

/* Bytes of a blob with @nsect map entries and @sec_size bytes of section, or 0. */
u64 kuw_blob_size(u32 nsect, u64 sec_size);

/*
 * Write the blob described by @b into @out, which has room for @out_len
 * bytes.  Returns 0 or -KUW_E_INVAL / -KUW_E_TOOBIG.
 */
int kuw_blob_write(const struct kuw_blob *b, u8 *out, u64 out_len);

/* The checksum function of the format (FNV-1a, 32 bit). */
u32 kuw_blob_fnv1a(u32 h, const u8 *p, u64 len);

/*
 * The GNU build id in a run of ELF notes (a .notes section, a
 * .note.gnu.build-id section, /sys/kernel/notes): 0 with *@id pointing
 * into @notes and *@id_len its length (1..KUW_BLOB_ID_MAX), or
 * -KUW_E_NOINFO when there is none, -KUW_E_TRUNC for a malformed note.
 */
int kuw_note_build_id(const u8 *notes, u64 len, const u8 **id, u32 *id_len);

#endif /* KUNWIND_BLOB_H */
