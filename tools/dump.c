// SPDX-License-Identifier: GPL-2.0
/*
 * What kunwind-dump's commands share (dump.h): the ELF file the engine
 * reads through kuw_read_mem(), validation as kunwind.ko would build the
 * tables, and the blob export (the export command, and the loader in
 * load.c).  Calls go one way: kunwind-dump.c and load.c call in here, this
 * file calls neither.
 */
#include <errno.h>
#include <string.h>

#include "engine.h"
#include "blob.h"
#include "elf.h"
#include "dump.h"

const char *const kuw_prog = "kunwind-dump";

/* The image the engine reads through kuw_read_mem() (indirect pointers). */
static const struct kuw_elf *cur_elf;

int kuw_read_mem(void *mem_ctx, u64 addr, void *dst, u32 len)
{
	if (!cur_elf)
		return -KUW_E_FAULT;
	return kuw_elf_read(cur_elf, addr, dst, len);
}

int open_elf(struct kuw_elf *e, const char *path)
{
	int ret = kuw_elf_open(e, path);

	if (ret == KUW_ELF_EIO) {
		fprintf(stderr, "%s: %s: %s\n", kuw_prog, path, e->err);
		return EXIT_USAGE;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", path, e->err);
		kuw_elf_close(e);
		return EXIT_BAD;
	}
	cur_elf = e;
	return EXIT_OK;
}

void print_diag(const char *path, const struct kuw_diag *d, int err,
		const char *fallback_sec)
{
	fprintf(stderr, "%s: %s+0x%llx: %s\n", path,
		d->err ? d->section : fallback_sec, d->err ? d->off : 0,
		kuw_strerror(d->err ? d->err : err));
}

/*
 * Present with data?  A NOBITS or empty section counts as absent.  rows,
 * rules and check try the unwind sections in enum kuw_src order
 * (kuw_src_section(): .eh_frame, .debug_frame, .sframe).
 */
bool get_sec(const struct kuw_elf *e, const char *name,
	     struct kuw_sec *s)
{
	const struct kuw_elf_sec *es = kuw_elf_find(e, name);

	if (!es || !es->data || !es->size)
		return false;
	kuw_elf_kuw_sec(es, s);
	return true;
}

/*
 * Validation, the same for every command, so that their exit codes agree
 * on what is malformed: each unwind section is built into a compiled
 * table as kunwind.ko would build it (every record checked, every CFI
 * program run, FDE ranges checked for overlap), and .eh_frame_hdr is
 * checked against .eh_frame.  Problems are printed as "FILE:
 * section+0xOFF: reason".
 */

/* Build unwind section @i; *@t stays NULL when absent or malformed. */
int build_sec(const char *path, const struct kuw_elf *e,
	      const struct kuw_obj *o, u32 i, struct kuw_table **t)
{
	struct kuw_diag d = { 0 };
	struct kuw_sec s;
	int ret;

	*t = NULL;
	if (!get_sec(e, kuw_src_section(i), &s))
		return EXIT_OK;
	ret = kuw_table_build(o, i, &s, t, &d);
	if (!ret)
		return EXIT_OK;
	print_diag(path, &d, ret, kuw_src_section(i));
	*t = NULL;
	return EXIT_BAD;
}

/* Check .eh_frame_hdr when there is one; *@nent: its entries, or -1. */
int check_hdr(const char *path, const struct kuw_elf *e,
	      const struct kuw_obj *o, s64 *nent)
{
	const struct kuw_elf_sec *hdr = kuw_elf_find(e, ".eh_frame_hdr");
	struct kuw_diag d = { 0 };
	struct kuw_sec hs, ehf;
	u32 n = 0;
	int ret;

	*nent = -1;
	if (!hdr || !hdr->data || !hdr->size)
		return EXIT_OK;
	if (!get_sec(e, kuw_src_section(KUW_SRC_EH_FRAME), &ehf)) {
		fprintf(stderr, "%s: .eh_frame_hdr+0x0: no .eh_frame\n", path);
		return EXIT_BAD;
	}
	kuw_elf_kuw_sec(hdr, &hs);
	ret = kuw_ehhdr_check(o, &hs, &ehf, &n, &d);
	if (ret) {
		print_diag(path, &d, ret, ".eh_frame_hdr");
		return EXIT_BAD;
	}
	*nent = n;
	return EXIT_OK;
}

/*
 * Everything above: EXIT_OK or EXIT_BAD.  The tables of the valid
 * sections are left in @tab (indexed by enum kuw_src) when it is not
 * NULL, else freed.
 */
int validate(const char *path, const struct kuw_elf *e,
	     const struct kuw_obj *o, struct kuw_table **tab,
	     s64 *hdr_nent)
{
	int status = EXIT_OK;
	struct kuw_table *t;
	s64 nent;
	u32 i;

	for (i = 0; i < KUW_SRC__COUNT; i++) {
		status |= build_sec(path, e, o, i, &t);
		if (tab)
			tab[i] = t;
		else if (t)
			kuw_table_free(t);
	}
	status |= check_hdr(path, e, o, hdr_nent ? hdr_nent : &nent);
	return status;
}

void free_tables(struct kuw_table **tab)
{
	u32 i;

	for (i = 0; i < KUW_SRC__COUNT; i++)
		if (tab[i])
			kuw_table_free(tab[i]);
}

/* export */

/* The GNU build id of @e, from its note sections: 0 or -1. */
static int elf_build_id(const struct kuw_elf *e, u8 *id, u8 *id_len)
{
	const u8 *p;
	u32 i, n;

	for (i = 0; i < e->nsec; i++) {
		const struct kuw_elf_sec *s = &e->sec[i];

		if (s->type != 7 /* SHT_NOTE */ || !s->data ||
		    kuw_note_build_id(s->data, s->size, &p, &n))
			continue;
		memcpy(id, p, n);
		*id_len = n;
		return 0;
	}
	return -1;
}

/*
 * A module's name: "name=" in .modinfo, else the file name without its
 * directory and .ko... suffix; '-' becomes '_' as the kernel does.
 */
static void module_name(const struct kuw_elf *e, const char *path,
			char *out, size_t size)
{
	const struct kuw_elf_sec *mi = kuw_elf_find(e, ".modinfo");
	const char *base = strrchr(path, '/'), *p, *end;
	size_t n = 0, i;

	if (mi && mi->data) {
		p = (const char *)mi->data;
		end = p + mi->size;
		for (; p < end; p += strnlen(p, end - p) + 1) {
			if ((size_t)(end - p) > 5 && !strncmp(p, "name=", 5)) {
				n = strnlen(p + 5, end - p - 5);
				base = p + 5;
				break;
			}
		}
	}
	if (!n) {
		base = base ? base + 1 : path;
		p = strstr(base, ".ko");
		n = p ? (size_t)(p - base) : strlen(base);
	}
	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[n] = 0;
}

/* The text sections of a laid-out module, for its blob's section map. */
static int module_map(const char *in, const struct kuw_elf *e,
		      struct kuw_blob_sect **out, u16 *nout)
{
	struct kuw_blob_sect *m;
	u32 i, n = 0;

	m = calloc(KUW_BLOB_MAX_SECT, sizeof(*m));
	if (!m)
		return -1;
	for (i = 0; i < e->nsec; i++) {
		const struct kuw_elf_sec *s = &e->sec[i];

		if ((s->flags & 6) != 6 || !s->size)	/* SHF_ALLOC|SHF_EXECINSTR */
			continue;
		if (strlen(s->name) >= KUW_BLOB_SECT_NAME ||
		    n == KUW_BLOB_MAX_SECT) {
			fprintf(stderr, "%s: warning: section %s left out of the blob (name too long or too many sections)\n",
				in, s->name);
			continue;
		}
		if (n && s->addr < m[n - 1].addr + m[n - 1].size) {
			free(m);
			fprintf(stderr, "%s: %s+0x0: text sections not laid out in order\n",
				in, s->name);
			return -1;
		}
		strcpy(m[n].name, s->name);
		m[n].addr = s->addr;
		m[n].size = s->size;
		n++;
	}
	*out = m;
	*nout = n;
	return n ? 0 : -1;
}

/**
 * kuw_dump_export() - make the blob of a vmlinux or a module debug file
 * @in: the file
 * @src: KUW_SRC_EH_FRAME, KUW_SRC_DEBUG_FRAME, or -1 for the default
 *       (.eh_frame, else .debug_frame; a module: .debug_frame)
 * @out: set to the blob (malloc'ed)
 * @info: set to what it carries (info->sec.data is not valid after)
 * @nfde: set to the FDEs of its table
 *
 * Errors are printed, naming the file.  Another unwind section of the file
 * that is malformed is left out with a warning.
 *
 * Return: EXIT_OK, EXIT_BAD or EXIT_USAGE.
 */
int kuw_dump_export(const char *in, int src, u8 **out, u64 *outlen,
		    struct kuw_blob *info, u32 *nfde)
{
	struct kuw_table *tabs[KUW_SRC__COUNT] = { 0 };
	struct kuw_blob_sect *map = NULL;
	struct kuw_diag d = { 0 };
	struct kuw_blob b, chk;
	const char *secname;
	int ret, status, other;
	struct kuw_elf e;
	u8 *buf = NULL;
	u64 size, stext;
	s64 nent;
	u32 i;

	*out = NULL;
	ret = open_elf(&e, in);
	if (ret)
		return ret;
	memset(&b, 0, sizeof(b));
	b.kind = e.type == 1 ? KUW_BLOB_MODULE : KUW_BLOB_VMLINUX;
	if (src >= 0)
		b.src = src;
	else if (b.kind == KUW_BLOB_VMLINUX &&
		 get_sec(&e, kuw_src_section(KUW_SRC_EH_FRAME), &b.sec))
		b.src = KUW_SRC_EH_FRAME;
	else
		b.src = KUW_SRC_DEBUG_FRAME;
	secname = kuw_src_section(b.src);
	status = EXIT_BAD;
	if (!get_sec(&e, secname, &b.sec)) {
		fprintf(stderr, "%s: %s+0x0: section missing or empty\n", in,
			secname);
		goto out;
	}
	if (b.kind == KUW_BLOB_MODULE && b.src != KUW_SRC_DEBUG_FRAME) {
		fprintf(stderr, "%s: %s+0x0: a module blob carries .debug_frame (a module's .eh_frame is read where it is loaded)\n",
			in, secname);
		goto out;
	}
	kuw_elf_obj(&e, "vmlinux", &b.obj);
	if (b.kind == KUW_BLOB_MODULE) {
		module_name(&e, in, b.owner, sizeof(b.owner));
		if (module_map(in, &e, &map, &b.nsect))
			goto out;
		b.sect = map;
	} else {
		strcpy(b.owner, "vmlinux");
		if (kuw_elf_symbol(&e, "_stext", &stext)) {
			fprintf(stderr, "%s: warning: no _stext symbol, using the start of text 0x%llx\n",
				in, b.obj.text_start);
			stext = b.obj.text_start;
		}
		b.stext = stext;
	}
	/*
	 * Refuse to export what the module would refuse to load: a malformed
	 * section the blob carries, or .eh_frame_hdr.  Another section that
	 * is malformed (its line is printed) stays out of the blob, as the
	 * module leaves it out of the tables it builds from the image; say
	 * so, since every other command fails on it.
	 */
	other = 0;
	for (i = 0; i < KUW_SRC__COUNT; i++)
		if (build_sec(in, &e, &b.obj, i, &tabs[i]) && i != b.src)
			other = 1;
	if (!tabs[b.src] || check_hdr(in, &e, &b.obj, &nent))
		goto out;
	if (other)
		fprintf(stderr, "%s: warning: the malformed section above is not in the blob, which carries %s only\n",
			in, secname);
	if (elf_build_id(&e, b.build_id, &b.id_len)) {
		fprintf(stderr, "%s: .notes+0x0: no GNU build id: the kernel could not tell this file from another build\n",
			in);
		goto out;
	}
	size = kuw_blob_size(b.nsect, b.sec.size);
	if (!size) {
		fprintf(stderr, "%s: %s+0x0: section too large for a blob (max %u bytes)\n",
			in, secname, KUW_BLOB_MAX_SEC);
		goto out;
	}
	buf = malloc(size);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", kuw_prog);
		status = EXIT_USAGE;
		goto out;
	}
	ret = kuw_blob_write(&b, buf, size);
	if (!ret)
		ret = kuw_blob_parse(buf, size, &chk, &d);
	if (ret) {
		fprintf(stderr, "%s: %s: cannot make a valid blob: %s\n", in,
			secname, kuw_strerror(ret));
		goto out;
	}
	*out = buf;
	*outlen = size;
	buf = NULL;
	*info = chk;
	info->obj.owner = NULL;
	info->sec.data = NULL;
	info->sect_raw = NULL;
	*nfde = tabs[b.src]->nfde;
	status = EXIT_OK;
out:
	free_tables(tabs);
	free(buf);
	free(map);
	kuw_elf_close(&e);
	cur_elf = NULL;
	return status;
}
