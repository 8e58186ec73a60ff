// SPDX-License-Identifier: GPL-2.0
/*
 * ELF64 little-endian reader for kunwind-dump and the host tests; see elf.h.
 * All fields are decoded byte by byte from the image, so neither alignment
 * nor the host's byte order matter, and every access is bounds-checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf.h"
#include "read.h"

#define EHDR_SIZE	64
#define SHDR_SIZE	64
#define SYM_SIZE	24
#define RELA_SIZE	24

#define ET_REL_		1
#define ET_EXEC_	2
#define ET_DYN_		3
#define EM_X86_64_	62
#define EM_AARCH64_	183

#define SHT_NULL_	0
#define SHT_SYMTAB_	2
#define SHT_RELA_	4
#define SHT_NOBITS_	8
#define SHT_DYNSYM_	11

#define SHF_ALLOC_	0x2
#define SHF_EXECINSTR_	0x4

#define SHN_UNDEF_	0
#define SHN_LORESERVE_	0xff00
#define SHN_ABS_	0xfff1
#define SHN_COMMON_	0xfff2
#define SHN_XINDEX_	0xffff

#define R_X86_64_NONE_	0
#define R_X86_64_64_	1
#define R_X86_64_PC32_	2
#define R_X86_64_32_	10
#define R_X86_64_32S_	11
#define R_X86_64_PC64_	24

#define R_AARCH64_NONE_		0
#define R_AARCH64_NONE2_	256
#define R_AARCH64_ABS64_	257
#define R_AARCH64_ABS32_	258
#define R_AARCH64_PREL64_	260
#define R_AARCH64_PREL32_	261

/* How a relocation computes its value. */
enum rel_kind {
	REL_NONE,
	REL_ABS64,	/* S + A */
	REL_PC64,	/* S + A - P */
	REL_ABS32U,	/* S + A, fits u32 */
	REL_ABS32S,	/* S + A, fits s32 */
	REL_ABS32,	/* S + A, fits s32 or u32 (AArch64 ABS32) */
	REL_PC32S,	/* S + A - P, fits s32 */
	REL_PC32,	/* S + A - P, fits s32 or u32 (AArch64 PREL32) */
};

/* Hard limits: a real file is far below them; a hostile one is refused. */
#define MAX_SECTIONS	(1u << 20)
#define MAX_ALIGN	(1ull << 32)

static int fail(struct kuw_elf *e, const char *where, u64 off,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct kuw_elf *e, const char *where, u64 off,
		const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(e->err, sizeof(e->err), "%s+0x%llx: ", where, off);
	if (n < 0 || (size_t)n >= sizeof(e->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(e->err + n, sizeof(e->err) - n, fmt, ap);
	va_end(ap);
	return KUW_ELF_EBAD;
}

/* [off, off + len) inside [0, size)?  No overflow. */
static bool in_range(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

static int read_shdrs(struct kuw_elf *e, u64 shoff, u32 nsec, u32 shstrndx)
{
	const struct kuw_elf_sec *strsec;
	u32 i;

	e->sec = calloc(nsec, sizeof(*e->sec));
	if (!e->sec)
		return fail(e, "elf", 0, "out of memory");
	e->nsec = nsec;
	for (i = 0; i < nsec; i++) {
		const u8 *sh = e->img + shoff + (u64)i * SHDR_SIZE;
		struct kuw_elf_sec *s = &e->sec[i];

		s->idx = i;
		s->type = kuw_get_le32(sh + 4);
		s->flags = kuw_get_le64(sh + 8);
		s->addr = kuw_get_le64(sh + 16);
		s->off = kuw_get_le64(sh + 24);
		s->size = kuw_get_le64(sh + 32);
		s->link = kuw_get_le32(sh + 40);
		s->info = kuw_get_le32(sh + 44);
		s->align = kuw_get_le64(sh + 48);
		s->entsize = kuw_get_le64(sh + 56);
		s->name = "";
		if (s->type == SHT_NOBITS_ || s->type == SHT_NULL_)
			continue;
		if (!in_range(s->off, s->size, e->size))
			return fail(e, "elf", shoff + (u64)i * SHDR_SIZE,
				    "section %u [0x%llx, +0x%llx) outside the file (size 0x%llx)",
				    i, s->off, s->size, e->size);
		s->data = e->img + s->off;
	}
	if (shstrndx == SHN_UNDEF_)
		return KUW_ELF_OK;
	if (shstrndx >= nsec)
		return fail(e, "elf", 62, "section name table index %u out of range",
			    shstrndx);
	strsec = &e->sec[shstrndx];
	if (!strsec->data || !strsec->size ||
	    strsec->data[strsec->size - 1] != 0)
		return fail(e, "elf", 62,
			    "section name table %u missing or not NUL-terminated",
			    shstrndx);
	for (i = 0; i < nsec; i++) {
		u32 nm = kuw_get_le32(e->img + shoff + (u64)i * SHDR_SIZE);

		if (nm >= strsec->size)
			return fail(e, "elf", shoff + (u64)i * SHDR_SIZE,
				    "section %u name offset 0x%x outside the name table",
				    i, nm);
		e->sec[i].name = (const char *)strsec->data + nm;
	}
	return KUW_ELF_OK;
}

/* Lay out ET_REL SHF_ALLOC sections as a module loader would. */
static int layout_rel(struct kuw_elf *e)
{
	u64 addr = KUW_ELF_REL_BASE;
	u32 i;

	for (i = 1; i < e->nsec; i++) {
		struct kuw_elf_sec *s = &e->sec[i];
		u64 al = s->align ? s->align : 1;

		if (!(s->flags & SHF_ALLOC_))
			continue;
		if (al & (al - 1) || al > MAX_ALIGN)
			return fail(e, s->name, 0, "bad section alignment 0x%llx",
				    s->align);
		addr = (addr + al - 1) & ~(al - 1);
		if (s->size > (1ull << 48) || addr > (1ull << 48))
			return fail(e, s->name, 0, "section too large to lay out");
		s->addr = addr;
		addr += s->size;
	}
	return KUW_ELF_OK;
}

static bool is_unwind_name(const char *n)
{
	int src;

	for (src = 0; src < KUW_SRC__COUNT; src++)
		if (!strcmp(n, kuw_src_section(src)))
			return true;
	return false;
}

/* Kind and name of relocation @type for @machine; false if unsupported. */
static bool rel_kind_of(u16 machine, u32 type, enum rel_kind *k,
			const char **name)
{
	if (machine == EM_X86_64_) {
		switch (type) {
		case R_X86_64_NONE_:
			*k = REL_NONE, *name = "R_X86_64_NONE";
			return true;
		case R_X86_64_64_:
			*k = REL_ABS64, *name = "R_X86_64_64";
			return true;
		case R_X86_64_PC32_:
			*k = REL_PC32S, *name = "R_X86_64_PC32";
			return true;
		case R_X86_64_32_:
			*k = REL_ABS32U, *name = "R_X86_64_32";
			return true;
		case R_X86_64_32S_:
			*k = REL_ABS32S, *name = "R_X86_64_32S";
			return true;
		case R_X86_64_PC64_:
			*k = REL_PC64, *name = "R_X86_64_PC64";
			return true;
		}
		return false;
	}
	switch (type) {
	case R_AARCH64_NONE_:
	case R_AARCH64_NONE2_:
		*k = REL_NONE, *name = "R_AARCH64_NONE";
		return true;
	case R_AARCH64_ABS64_:
		*k = REL_ABS64, *name = "R_AARCH64_ABS64";
		return true;
	case R_AARCH64_ABS32_:
		*k = REL_ABS32, *name = "R_AARCH64_ABS32";
		return true;
	case R_AARCH64_PREL64_:
		*k = REL_PC64, *name = "R_AARCH64_PREL64";
		return true;
	case R_AARCH64_PREL32_:
		*k = REL_PC32, *name = "R_AARCH64_PREL32";
		return true;
	}
	return false;
}

static int apply_one(struct kuw_elf *e, const struct kuw_elf_sec *rs,
		     const struct kuw_elf_sec *tgt,
		     const struct kuw_elf_sec *symtab, u64 i)
{
	const u8 *r = rs->data + i * RELA_SIZE;
	u64 roff = kuw_get_le64(r);
	u64 info = kuw_get_le64(r + 8);
	s64 addend = (s64)kuw_get_le64(r + 16);
	u32 type = (u32)info;
	u32 symi = (u32)(info >> 32);
	u64 where = i * RELA_SIZE;
	u64 nsym = symtab->size / SYM_SIZE;
	const char *name;
	enum rel_kind k;
	const u8 *sym;
	u64 S, P, v;
	u16 shndx;
	bool ok;
	int width;

	if (!rel_kind_of(e->machine, type, &k, &name))
		return fail(e, rs->name, where,
			    "unsupported relocation type %u", type);
	if (k == REL_NONE)
		return KUW_ELF_OK;
	width = k == REL_ABS64 || k == REL_PC64 ? 8 : 4;
	if (!in_range(roff, width, tgt->size))
		return fail(e, rs->name, where,
			    "relocation offset 0x%llx outside %s (size 0x%llx)",
			    roff, tgt->name, tgt->size);
	if (symi == 0 || symi >= nsym)
		return fail(e, rs->name, where, "bad symbol index %u", symi);
	sym = symtab->data + (u64)symi * SYM_SIZE;
	shndx = kuw_get_le16(sym + 6);
	if (shndx == SHN_UNDEF_)
		return fail(e, rs->name, where,
			    "relocation against undefined symbol %u", symi);
	if (shndx == SHN_ABS_) {
		S = kuw_get_le64(sym + 8);
	} else if (shndx >= SHN_LORESERVE_ || shndx >= e->nsec) {
		return fail(e, rs->name, where,
			    "symbol %u has unsupported section index 0x%x",
			    symi, shndx);
	} else {
		S = e->sec[shndx].addr + kuw_get_le64(sym + 8);
	}
	P = tgt->addr + roff;
	v = S + addend;
	if (k == REL_PC64 || k == REL_PC32S || k == REL_PC32)
		v -= P;
	switch (k) {
	case REL_ABS32U:
		ok = v == (u32)v;
		break;
	case REL_ABS32S:
	case REL_PC32S:
		ok = (s64)v == (s32)v;
		break;
	case REL_ABS32:
	case REL_PC32:
		ok = (s64)v == (s32)v || v == (u32)v;
		break;
	default:
		ok = true;
		break;
	}
	if (!ok)
		return fail(e, rs->name, where, "%s overflow", name);
	kuw_put_le(tgt->data + roff, v, width);
	e->nrel++;
	return KUW_ELF_OK;
}

/* Apply the RELA sections whose target is an unwind section. */
static int relocate_rel(struct kuw_elf *e)
{
	u32 i;
	u64 j;
	int ret;

	for (i = 1; i < e->nsec; i++) {
		const struct kuw_elf_sec *rs = &e->sec[i];
		const struct kuw_elf_sec *tgt, *symtab;

		if (rs->type != SHT_RELA_)
			continue;
		if (rs->info == 0 || rs->info >= e->nsec)
			return fail(e, rs->name, 0,
				    "relocation target section %u out of range",
				    rs->info);
		tgt = &e->sec[rs->info];
		if (!is_unwind_name(tgt->name))
			continue;
		if (!tgt->data)
			return fail(e, rs->name, 0,
				    "relocation target %s has no data", tgt->name);
		if (rs->entsize != RELA_SIZE || rs->size % RELA_SIZE)
			return fail(e, rs->name, 0,
				    "bad RELA entry size 0x%llx or section size 0x%llx",
				    rs->entsize, rs->size);
		if (rs->link == 0 || rs->link >= e->nsec ||
		    e->sec[rs->link].type != SHT_SYMTAB_)
			return fail(e, rs->name, 0,
				    "symbol table section %u invalid", rs->link);
		symtab = &e->sec[rs->link];
		if (symtab->entsize != SYM_SIZE || !symtab->data)
			return fail(e, symtab->name, 0, "bad symbol table");
		for (j = 0; j < rs->size / RELA_SIZE; j++) {
			ret = apply_one(e, rs, tgt, symtab, j);
			if (ret)
				return ret;
		}
	}
	return KUW_ELF_OK;
}

static int parse(struct kuw_elf *e)
{
	const u8 *h = e->img;
	u64 shoff;
	u32 nsec, shstrndx, i;
	u16 shentsize;
	int ret;

	if (e->size < EHDR_SIZE)
		return fail(e, "elf", 0, "file too small for an ELF header");
	if (memcmp(h, "\177ELF", 4))
		return fail(e, "elf", 0, "not an ELF file");
	if (h[4] != 2)
		return fail(e, "elf", 4, "not ELF64 (class %u)", h[4]);
	if (h[5] != 1)
		return fail(e, "elf", 5, "not little-endian (data %u)", h[5]);
	e->type = kuw_get_le16(h + 16);
	e->machine = kuw_get_le16(h + 18);
	if (e->type != ET_REL_ && e->type != ET_EXEC_ && e->type != ET_DYN_)
		return fail(e, "elf", 16, "unsupported ELF type %u", e->type);
	if (e->machine == EM_X86_64_)
		e->arch = KUW_ARCH_X86_64;
	else if (e->machine == EM_AARCH64_)
		e->arch = KUW_ARCH_ARM64;
	else
		return fail(e, "elf", 18, "unsupported machine %u", e->machine);
	shoff = kuw_get_le64(h + 40);
	shentsize = kuw_get_le16(h + 58);
	nsec = kuw_get_le16(h + 60);
	shstrndx = kuw_get_le16(h + 62);
	if (!shoff)
		return fail(e, "elf", 40, "no section header table");
	if (shentsize != SHDR_SIZE)
		return fail(e, "elf", 58, "bad section header size %u",
			    shentsize);
	if (!in_range(shoff, SHDR_SIZE, e->size))
		return fail(e, "elf", 40,
			    "section header table at 0x%llx outside the file",
			    shoff);
	/* Extended numbering: counts live in section header 0. */
	if (nsec == 0) {
		u64 n = kuw_get_le64(e->img + shoff + 32);

		nsec = n > MAX_SECTIONS ? MAX_SECTIONS + 1 : (u32)n;
	}
	if (shstrndx == SHN_XINDEX_)
		shstrndx = kuw_get_le32(e->img + shoff + 40);
	if (nsec == 0 || nsec > MAX_SECTIONS)
		return fail(e, "elf", 60, "bad section count %u", nsec);
	if (!in_range(shoff, (u64)nsec * SHDR_SIZE, e->size))
		return fail(e, "elf", 40,
			    "section header table (%u entries) outside the file",
			    nsec);
	ret = read_shdrs(e, shoff, nsec, shstrndx);
	if (ret)
		return ret;
	if (e->type == ET_REL_) {
		ret = layout_rel(e);
		if (!ret)
			ret = relocate_rel(e);
		if (ret)
			return ret;
	}
	e->text_start = ~0ull;
	e->text_end = 0;
	for (i = 1; i < e->nsec; i++) {
		const struct kuw_elf_sec *s = &e->sec[i];

		if ((s->flags & (SHF_ALLOC_ | SHF_EXECINSTR_)) !=
		    (SHF_ALLOC_ | SHF_EXECINSTR_) || !s->size)
			continue;
		if (s->addr + s->size < s->addr)
			return fail(e, s->name, 0, "address range wraps");
		if (s->addr < e->text_start)
			e->text_start = s->addr;
		if (s->addr + s->size > e->text_end)
			e->text_end = s->addr + s->size;
	}
	if (e->text_start > e->text_end)
		e->text_start = e->text_end = 0;
	return KUW_ELF_OK;
}

int kuw_elf_load(struct kuw_elf *e, const void *buf, u64 size)
{
	memset(e, 0, sizeof(*e));
	e->img = malloc(size ? size : 1);
	if (!e->img)
		return fail(e, "elf", 0, "out of memory");
	memcpy(e->img, buf, size);
	e->size = size;
	return parse(e);
}

int kuw_elf_open(struct kuw_elf *e, const char *path)
{
	struct stat st;
	void *p;
	int fd;

	memset(e, 0, sizeof(*e));
	/*
	 * O_NONBLOCK: opening a FIFO for reading would wait for a writer;
	 * anything but a regular file is refused below.  (No effect on the
	 * mmap of a regular file.)
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(e->err, sizeof(e->err), "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return KUW_ELF_EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(e->err, sizeof(e->err), "not a regular file (%s)",
			 S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISCHR(st.st_mode) ? "a character device" :
			 S_ISBLK(st.st_mode) ? "a block device" :
			 S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
		close(fd);
		return KUW_ELF_EIO;
	}
	e->dev = (u64)st.st_dev;
	e->ino = (u64)st.st_ino;
	e->size = (u64)st.st_size;
	if (!e->size) {
		close(fd);
		return fail(e, "elf", 0, "empty file");
	}
	/* Private writable mapping: relocations never reach the file. */
	p = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(e->err, sizeof(e->err), "mmap: %s", strerror(errno));
		e->size = 0;
		return KUW_ELF_EIO;
	}
	e->img = p;
	e->mapped = true;
	return parse(e);
}

void kuw_elf_close(struct kuw_elf *e)
{
	if (e->mapped)
		munmap(e->img, e->size);
	else
		free(e->img);
	free(e->sec);
	memset(e, 0, sizeof(*e));
}

const struct kuw_elf_sec *kuw_elf_find(const struct kuw_elf *e,
				       const char *name)
{
	u32 i;

	for (i = 1; i < e->nsec; i++)
		if (!strcmp(e->sec[i].name, name))
			return &e->sec[i];
	return NULL;
}

void kuw_elf_obj(const struct kuw_elf *e, const char *owner,
		 struct kuw_obj *o)
{
	memset(o, 0, sizeof(*o));
	o->owner = owner;
	o->arch = e->arch;
	o->flags = e->type == ET_REL_ ? KUW_OBJ_RELOCATED : 0;
	o->text_start = e->text_start;
	o->text_end = e->text_end;
}

void kuw_elf_kuw_sec(const struct kuw_elf_sec *s, struct kuw_sec *out)
{
	out->data = s->data;
	out->size = s->data ? s->size : 0;
	out->addr = s->addr;
}

int kuw_elf_read(const struct kuw_elf *e, u64 addr, void *dst, u32 len)
{
	u32 i;

	for (i = 1; i < e->nsec; i++) {
		const struct kuw_elf_sec *s = &e->sec[i];

		if (!(s->flags & SHF_ALLOC_) || !s->data)
			continue;
		if (addr >= s->addr && addr - s->addr <= s->size &&
		    len <= s->size - (addr - s->addr)) {
			memcpy(dst, s->data + (addr - s->addr), len);
			return 0;
		}
	}
	return -KUW_E_FAULT;
}

static int sym_in(const struct kuw_elf *e, const struct kuw_elf_sec *st,
		  const char *name, u64 *addr)
{
	const struct kuw_elf_sec *str;
	u64 i, n;

	if (!st->data || st->entsize != SYM_SIZE || st->link >= e->nsec)
		return -1;
	str = &e->sec[st->link];
	if (!str->data || !str->size)
		return -1;
	n = st->size / SYM_SIZE;
	for (i = 1; i < n; i++) {
		const u8 *sym = st->data + i * SYM_SIZE;
		u32 nm = kuw_get_le32(sym);
		u16 shndx = kuw_get_le16(sym + 6);
		u64 len = strlen(name);

		if (nm >= str->size || len >= str->size - nm ||
		    memcmp(str->data + nm, name, len + 1))
			continue;
		if (shndx == SHN_UNDEF_)
			continue;
		if (shndx == SHN_ABS_ || e->type != ET_REL_)
			*addr = kuw_get_le64(sym + 8);
		else if (shndx < e->nsec)
			*addr = e->sec[shndx].addr + kuw_get_le64(sym + 8);
		else
			continue;
		return 0;
	}
	return -1;
}

int kuw_elf_symbol(const struct kuw_elf *e, const char *name, u64 *addr)
{
	bool have_symtab = false;
	u32 i;

	for (i = 1; i < e->nsec; i++) {
		if (e->sec[i].type != SHT_SYMTAB_)
			continue;
		have_symtab = true;
		if (!sym_in(e, &e->sec[i], name, addr))
			return 0;
	}
	if (have_symtab)
		return -1;
	for (i = 1; i < e->nsec; i++)
		if (e->sec[i].type == SHT_DYNSYM_ &&
		    !sym_in(e, &e->sec[i], name, addr))
			return 0;
	return -1;
}
