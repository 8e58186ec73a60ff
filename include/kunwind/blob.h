/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vmlinux blob: the link-time unwind table of a kernel image that keeps
 * none in memory (a stock distro kernel), made on the host by
 * "kunwind-dump export VMLINUX -o BLOB" from the vmlinux's .eh_frame or
 * .debug_frame and written by userspace to debugfs kunwind/load.  kunwind.ko
 * parses it with kuw_blob_parse(), builds the table at the link-time
 * addresses the blob carries, and moves it by the KASLR offset
 * (run-time _stext - link-time _stext) with kuw_table_relocate().
 *
 * The blob is untrusted input: kuw_blob_parse() checks every header field
 * and the checksum and rejects the blob whole; kuw_table_build() then
 * validates the section itself.
 *
 * Format, version 1.  All fields little-endian, no padding:
 *
 *   offset size  field
 *        0    8  magic       "KUWBLOB\0"
 *        8    2  version     1
 *       10    2  hdr_size    64 (header bytes before the section)
 *       12    1  arch        enum kuw_arch (1 x86_64, 2 arm64)
 *       13    1  src         enum kuw_src: 0 eh_frame or 1 debug_frame
 *       14    2  flags       0; no flag is defined, any bit set is rejected
 *       16    8  stext       link-time address of _stext
 *       24    8  text_start  link-time text range [text_start, text_end):
 *       32    8  text_end      every FDE must lie inside it
 *       40    8  sec_addr    link-time address of the section (.eh_frame
 *                            pointers are relative to it; 0 for .debug_frame)
 *       48    4  sec_size    bytes of the section, following the header
 *       52    4  checksum    FNV-1a (32 bit) of the whole blob computed
 *                            with this field set to 0
 *       56    8  reserved    0
 *       64       the section's bytes (sec_size of them)
 *
 * The blob is exactly hdr_size + sec_size bytes long; trailing bytes are
 * rejected.  Rules: text_start < text_end, text_start <= stext < text_end,
 * 0 < sec_size <= KUW_BLOB_MAX_SEC, sec_addr + sec_size does not wrap.
 */
#ifndef KUNWIND_BLOB_H
#define KUNWIND_BLOB_H

#include "engine.h"

#define KUW_BLOB_MAGIC		"KUWBLOB"	/* 7 chars + NUL = 8 bytes */
#define KUW_BLOB_VERSION	1
#define KUW_BLOB_HDR_SIZE	64
#define KUW_BLOB_MAX_SEC	(64u << 20)	/* 64 MiB of unwind section */

/* Field offsets in the header (for tests and error offsets). */
#define KUW_BLOB_OFF_VERSION	8
#define KUW_BLOB_OFF_HDR_SIZE	10
#define KUW_BLOB_OFF_ARCH	12
#define KUW_BLOB_OFF_SRC	13
#define KUW_BLOB_OFF_FLAGS	14
#define KUW_BLOB_OFF_STEXT	16
#define KUW_BLOB_OFF_TEXT_START	24
#define KUW_BLOB_OFF_TEXT_END	32
#define KUW_BLOB_OFF_SEC_ADDR	40
#define KUW_BLOB_OFF_SEC_SIZE	48
#define KUW_BLOB_OFF_CHECKSUM	52
#define KUW_BLOB_OFF_RESERVED	56

/* What a blob carries; kuw_blob_parse() fills it, kuw_blob_write() reads it. */
struct kuw_blob {
	struct kuw_obj obj;	/* owner "vmlinux", arch, text range */
	struct kuw_sec sec;	/* the section bytes (inside the blob) */
	u8 src;			/* KUW_SRC_EH_FRAME or KUW_SRC_DEBUG_FRAME */
	u64 stext;		/* link-time _stext */
};

/*
 * Parse and validate @len bytes at @buf.  On success @b describes the
 * table (b->sec.data points into @buf, which must outlive its use).
 * Returns 0 or a negative enum kuw_err with @d naming "blob" and the byte
 * offset of the offending field.
 */
int kuw_blob_parse(const u8 *buf, u64 len, struct kuw_blob *b,
		   struct kuw_diag *d);

/* Bytes needed for a blob carrying @sec_size bytes of section, or 0. */
u64 kuw_blob_size(u64 sec_size);

/*
 * Write the blob described by @b (arch, text range, src, stext, sec) into
 * @out, which has room for @out_len bytes.  Returns 0 or -KUW_E_INVAL /
 * -KUW_E_TOOBIG.
 */
int kuw_blob_write(const struct kuw_blob *b, u8 *out, u64 out_len);

/* The checksum function of the format (FNV-1a, 32 bit). */
u32 kuw_blob_fnv1a(u32 h, const u8 *p, u64 len);

#endif /* KUNWIND_BLOB_H */
