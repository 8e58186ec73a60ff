/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, bounds-checked ELF64 little-endian reader for the host tool and
 * tests.  ET_EXEC and ET_DYN keep their link-time section addresses (what
 * readelf prints).  ET_REL objects (.o, .ko) get their SHF_ALLOC sections
 * laid out as a module loader would (in section order, each aligned to its
 * sh_addralign, from KUW_ELF_REL_BASE), and the RELA relocations of their
 * unwind sections (.eh_frame, .sframe, .debug_frame) are applied against
 * that layout: x86_64 R_X86_64_{NONE,64,PC32,32,32S,PC64} and AArch64
 * R_AARCH64_{NONE,ABS64,ABS32,PREL64,PREL32}, against section symbols and
 * defined symbols; any other type, or an undefined symbol, is an error.  The file is untrusted input: every offset, size, index and
 * string is checked; a bad file gives an error naming where and why.
 */
#ifndef KUNWIND_TOOLS_ELF_H
#define KUNWIND_TOOLS_ELF_H

#include "engine.h"

/* First laid-out address of an ET_REL object. */
#define KUW_ELF_REL_BASE	0x10000ULL

/* Return values of kuw_elf_open()/kuw_elf_load(). */
#define KUW_ELF_OK	0
#define KUW_ELF_EBAD	(-1)	/* malformed or unsupported file */
#define KUW_ELF_EIO	(-2)	/* cannot open or read the file */

struct kuw_elf_sec {
	const char *name;
	u32 idx;
	u32 type;
	u64 flags;
	u64 addr;	/* link address, or laid-out address for ET_REL */
	u64 off;	/* file offset */
	u64 size;
	u64 align;
	u32 link;
	u32 info;
	u64 entsize;
	u8 *data;	/* bytes in the image; NULL for SHT_NOBITS */
};

struct kuw_elf {
	u8 *img;		/* the file (private, writable copy) */
	u64 size;
	bool mapped;		/* img comes from mmap */
	u64 dev, ino;		/* of the file opened (kuw_elf_open) */
	u16 type;		/* ET_* */
	u16 machine;		/* EM_* */
	u8 arch;		/* enum kuw_arch, 0 if unknown */
	u32 nsec;
	struct kuw_elf_sec *sec;
	u64 text_start;		/* union of executable SHF_ALLOC sections */
	u64 text_end;
	u32 nrel;		/* relocations applied (ET_REL) */
	char err[256];		/* "<where>+0x<off>: <reason>" after a failure */
};

/* Open @path and read it; KUW_ELF_OK, KUW_ELF_EBAD or KUW_ELF_EIO. */
int kuw_elf_open(struct kuw_elf *e, const char *path);

/* Same from a buffer (copied); KUW_ELF_OK or KUW_ELF_EBAD. */
int kuw_elf_load(struct kuw_elf *e, const void *buf, u64 size);

void kuw_elf_close(struct kuw_elf *e);

/* First section called @name, or NULL. */
const struct kuw_elf_sec *kuw_elf_find(const struct kuw_elf *e,
				       const char *name);

/* Describe the object for the engine (owner is kept by pointer). */
void kuw_elf_obj(const struct kuw_elf *e, const char *owner,
		 struct kuw_obj *o);

/* A section as the engine sees it: bytes + address. */
void kuw_elf_kuw_sec(const struct kuw_elf_sec *s, struct kuw_sec *out);

/*
 * Read @len bytes at address @addr of the loaded image (SHF_ALLOC sections
 * with file data).  0 or -KUW_E_FAULT.
 */
int kuw_elf_read(const struct kuw_elf *e, u64 addr, void *dst, u32 len);

/*
 * Value (address in our view) of the defined symbol @name in .symtab, or
 * of .dynsym when there is no .symtab.  0 or -1 when absent.
 */
int kuw_elf_symbol(const struct kuw_elf *e, const char *name, u64 *addr);

#endif /* KUNWIND_TOOLS_ELF_H */
