// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind-dump: the host face of the kunwind engine.  Reads an ELF file
 * (ET_EXEC, ET_DYN, or ET_REL laid out as a module loader would, see
 * tools/elf.h), runs the same engine code kunwind.ko runs, and prints rows,
 * rules, validation results, or writes the vmlinux blob for /dev/kunwind/load.
 * Run "kunwind-dump --help" for commands and exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>

#include "engine.h"
#include "blob.h"
#include "elf.h"
#include "dump.h"

bool kuw_host_log_enabled;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s COMMAND [ARGS]\n"
"\n"
"Commands:\n"
"  rows FILE               every FDE of .eh_frame, .debug_frame and .sframe:\n"
"                          'fde 0x<start>-0x<end> <src>[ pcmask=<n>][ signal]',\n"
"                          then its rows in the row text format\n"
"  rules FILE ADDR...      the row in force at each ADDR (.eh_frame first,\n"
"                          then .debug_frame, then .sframe), or '0x<addr> none';\n"
"                          ADDR is NUM, SYMBOL[+NUM] or .SECTION[+NUM], NUM\n"
"                          decimal or 0x hex; a bad ADDR is reported and\n"
"                          skipped (exit 2 at the end)\n"
"  check FILE              validate every unwind section and .eh_frame_hdr;\n"
"                          print CIEs, FDEs, rows and compiled bytes per section\n"
"  export FILE -o BLOB [--src eh_frame|debug_frame]\n"
"                          write the blob of a vmlinux or of a module's debug\n"
"                          .ko for /dev/kunwind/load (default source:\n"
"                          .eh_frame, else .debug_frame; modules: .debug_frame)\n"
"  load [--root DIR] [--sys DIR] [--dev DIR] [--kver VER] [-n] [MODULE...]\n"
"                          on the running system: find the debug vmlinux and\n"
"                          module files of the running kernel (under DIR/usr/\n"
"                          lib/debug, /boot, /lib/modules), check their build\n"
"                          ids, export and write them to kunwind/load; every\n"
"                          loaded module when none is named; -n: only say what\n"
"                          would be loaded.  One line per object: loaded,\n"
"                          skipped or failed; exit 1 when one failed\n"
"  sframe FILE             the .sframe section (v1, v2, v3) as objdump --sframe\n"
"                          prints it (binutils 2.44+), from the walker's rows\n"
"  sections FILE           allocated sections at the addresses used here\n"
"                          (ET_REL objects are laid out from 0x%llx)\n"
"  --help                  this text\n"
"\n"
"Addresses are link-time addresses for executables and shared objects.\n"
"\n"
"Every command validates the whole file as check does (each unwind section\n"
"built as kunwind.ko builds it, .eh_frame_hdr checked), so all agree on\n"
"what is malformed.  Exit codes: 0 success, 1 malformed input (the message\n"
"names file, section, byte offset and reason), 2 usage or I/O error.\n",
		kuw_prog, KUW_ELF_REL_BASE);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", kuw_prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", kuw_prog);
	return EXIT_USAGE;
}

/* rows */

/*
 * Real tables repeat few distinct rules over many rows (libLLVM: ~1000
 * rules, ~1M rows), so the text kuw_format_row() gives each rule is cached
 * and only the pc is formatted per row.  kuw_format_row() stays the one
 * definition of the format: the cache stores its output after the pc.
 */
#define RULE_CACHE_BITS	14
#define RULE_CACHE_SIZE	(1u << RULE_CACHE_BITS)

/* Every field of a rule (all the text may depend on), packed in words. */
struct rule_key {
	u32 len;
	u64 w[1 + KUW_MAX_REGS];
};

struct rule_text {
	u32 hash;
	u32 nw;			/* words of the key */
	u64 *w;			/* the key (struct rule_key.w) */
	char *text;		/* " cfa=... ra=..." */
	u32 len;
};

struct rows_ctx {
	u8 arch;
	u64 nfde;
	u64 nrows;
	u32 *slot;		/* RULE_CACHE_SIZE: entry index + 1, 0 empty */
	struct rule_text *ent;	/* RULE_CACHE_SIZE / 2 entries */
	u32 nent;
};

static void rule_key_of(const struct kuw_rule *r, struct rule_key *k)
{
	u32 i, n = r->nregs < KUW_MAX_REGS ? r->nregs : KUW_MAX_REGS;

	k->w[0] = (u64)r->cfa_kind | (u64)r->cfa_reg << 8 | (u64)n << 16 |
		  (u64)r->flags << 24 | (u64)(u32)r->cfa_off << 32;
	for (i = 0; i < n; i++)
		k->w[1 + i] = (u64)r->regs[i].reg |
			      (u64)r->regs[i].kind << 8 |
			      (u64)r->regs[i].src << 16 |
			      (u64)(u32)r->regs[i].off << 32;
	k->len = 1 + n;
}

static u32 rule_key_hash(const struct rule_key *k)
{
	u64 h = 0x9e3779b97f4a7c15ull;
	u32 i;

	for (i = 0; i < k->len; i++) {
		h ^= k->w[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (u32)h;
}

/* The cached text after the pc for @r, or NULL (then format directly). */
static const struct rule_text *rule_text(struct rows_ctx *c,
					 const struct kuw_rule *r)
{
	struct rule_text *t;
	struct rule_key k;
	char buf[512];
	u32 h, i, j;
	int n;

	if (!c->slot || c->nent >= RULE_CACHE_SIZE / 2)
		return NULL;
	rule_key_of(r, &k);
	h = rule_key_hash(&k);
	for (i = 0; i < RULE_CACHE_SIZE; i++) {
		u32 *slot = &c->slot[(h + i) & (RULE_CACHE_SIZE - 1)];

		if (!*slot) {
			n = kuw_format_row(buf, sizeof(buf), c->arch, 0, r);
			if (n < 3 || n >= (int)sizeof(buf) ||
			    memcmp(buf, "0x0", 3))
				return NULL;
			t = &c->ent[c->nent];
			t->text = strdup(buf + 3);
			t->w = malloc(k.len * sizeof(u64));
			if (!t->text || !t->w) {
				free(t->text);
				free(t->w);
				return NULL;
			}
			memcpy(t->w, k.w, k.len * sizeof(u64));
			t->nw = k.len;
			t->hash = h;
			t->len = (u32)n - 3;
			*slot = ++c->nent;
			return t;
		}
		t = &c->ent[*slot - 1];
		if (t->hash != h || t->nw != k.len)
			continue;
		for (j = 0; j < k.len && t->w[j] == k.w[j]; j++)
			;
		if (j == k.len)
			return t;
	}
	return NULL;
}

/* Output of "rows": one big buffer, written with fwrite when full. */
static char out_buf[1 << 20];
static size_t out_len;

static void out_flush(void)
{
	if (out_len)
		fwrite(out_buf, 1, out_len, stdout);
	out_len = 0;
}

static void out_put(const char *p, size_t n)
{
	if (n > sizeof(out_buf) - out_len) {
		out_flush();
		if (n > sizeof(out_buf)) {
			fwrite(p, 1, n, stdout);
			return;
		}
	}
	memcpy(out_buf + out_len, p, n);
	out_len += n;
}

static void out_hex(u64 v)
{
	static const char digits[] = "0123456789abcdef";
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	char *p;

	if (sizeof(out_buf) - out_len < 18)
		out_flush();
	p = out_buf + out_len;
	p[0] = '0';
	p[1] = 'x';
	out_len += 2 + n;
	for (p += 1 + n; n--; v >>= 4)
		*p-- = digits[v & 15];
}

static int rows_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct rows_ctx *c = ctx;
	const char *src = kuw_src_name(f->src);
	char buf[32];
	int n;

	c->nfde++;
	out_put("fde ", 4);
	out_hex(f->start);
	out_put("-", 1);
	out_hex(f->end);
	out_put(" ", 1);
	out_put(src, strlen(src));
	if (f->pcmask) {
		n = snprintf(buf, sizeof(buf), " pcmask=%u", f->pcmask);
		out_put(buf, n);
	}
	if (f->signal)
		out_put(" signal", 7);
	out_put("\n", 1);
	return 0;
}

static int rows_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct rows_ctx *c = ctx;
	const struct rule_text *t;
	char buf[512];
	int n;

	c->nrows++;
	t = rule_text(c, r);
	if (t) {
		out_hex(pc);
		out_put(t->text, t->len);
		out_put("\n", 1);
		return 0;
	}
	n = kuw_format_row(buf, sizeof(buf), c->arch, pc, r);
	if (n < 0)
		return n;
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	out_put(buf, n);
	out_put("\n", 1);
	return 0;
}

static int walk_sec(const struct kuw_obj *o, int src, const struct kuw_sec *s,
		    const struct kuw_sink *sink, struct kuw_stats *st,
		    struct kuw_diag *d)
{
	if (src == KUW_SRC_SFRAME)
		return kuw_sfr_walk(o, s, sink, st, d);
	return kuw_ehf_walk(o, s, src == KUW_SRC_DEBUG_FRAME, sink, st, d);
}

static int cmd_rows(int argc, char **argv)
{
	struct rows_ctx c = { 0 };
	struct kuw_sink sink = { rows_fde, rows_row, &c };
	int ret, status = EXIT_OK;
	struct kuw_elf e;
	struct kuw_obj o;
	s64 nent;
	u32 i;

	if (argc != 2)
		return usage_error("rows: expected one FILE%s", "");
	ret = open_elf(&e, argv[1]);
	if (ret)
		return ret;
	kuw_elf_obj(&e, argv[1], &o);
	c.arch = o.arch;
	c.slot = calloc(RULE_CACHE_SIZE, sizeof(*c.slot));
	c.ent = calloc(RULE_CACHE_SIZE / 2, sizeof(*c.ent));
	if (!c.slot || !c.ent) {
		free(c.slot);
		c.slot = NULL;
	}
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		struct kuw_diag d = { 0 };
		struct kuw_stats st = { 0 };
		struct kuw_table *t;
		struct kuw_sec s;

		if (!get_sec(&e, kuw_src_section(i), &s))
			continue;
		ret = walk_sec(&o, i, &s, &sink, &st, &d);
		out_flush();
		fflush(stdout);
		/*
		 * Validated as by every command: the walk checks no
		 * overlaps.  A walk error is the build's too, named once.
		 */
		if (build_sec(argv[1], &e, &o, i, &t)) {
			status = EXIT_BAD;
		} else if (ret) {
			print_diag(argv[1], &d, ret, kuw_src_section(i));
			status = EXIT_BAD;
		}
		if (t)
			kuw_table_free(t);
	}
	out_flush();
	fflush(stdout);
	status |= check_hdr(argv[1], &e, &o, &nent);
	for (i = 0; i < c.nent; i++) {
		free(c.ent[i].text);
		free(c.ent[i].w);
	}
	free(c.ent);
	free(c.slot);
	kuw_elf_close(&e);
	return status;
}

/* rules */

/*
 * A number: decimal, or hexadecimal after "0x"; no sign, no spaces, no
 * octal (010 is ten).  0, or -1 with *@why set.
 */
static int parse_num(const char *s, u64 *out, const char **why)
{
	unsigned int base = 10, d;
	u64 v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s) {
		*why = "missing number";
		return -1;
	}
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else {
			*why = base == 16 ? "not a hexadecimal number" :
			       "not a number (decimal, or hexadecimal with 0x)";
			return -1;
		}
		if (v > (~0ULL - d) / base) {
			*why = "number too large";
			return -1;
		}
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/*
 * ADDR: NUMBER, SYMBOL[+NUMBER] or .SECTION[+NUMBER].  0, or -1 with
 * *@why set.
 */
static int parse_addr(const struct kuw_elf *e, const char *arg, u64 *out,
		      const char **why)
{
	char name[256];
	const char *plus;
	u64 base = 0, off = 0;
	size_t n;

	if (arg[0] >= '0' && arg[0] <= '9')
		return parse_num(arg, out, why);
	if (arg[0] == '-') {
		*why = "negative address";
		return -1;
	}
	plus = strrchr(arg, '+');
	n = plus ? (size_t)(plus - arg) : strlen(arg);
	if (!n || n >= sizeof(name)) {
		*why = n ? "name too long" : "empty name";
		return -1;
	}
	memcpy(name, arg, n);
	name[n] = 0;
	if (plus && plus[1] == '-') {
		*why = "negative offset";
		return -1;
	}
	if (plus && parse_num(plus + 1, &off, why))
		return -1;
	if (kuw_elf_symbol(e, name, &base)) {
		const struct kuw_elf_sec *s = kuw_elf_find(e, name);

		if (!s) {
			*why = "unknown symbol or section";
			return -1;
		}
		base = s->addr;
	}
	if (base + off < base) {
		*why = "address beyond 64 bits";
		return -1;
	}
	*out = base + off;
	return 0;
}

static int cmd_rules(int argc, char **argv)
{
	struct kuw_table *tabs[KUW_SRC__COUNT] = { 0 };
	int ret, status;
	struct kuw_elf e;
	struct kuw_obj o;
	u32 i;
	int a;

	if (argc < 3)
		return usage_error("rules: expected FILE ADDR...%s", "");
	ret = open_elf(&e, argv[1]);
	if (ret)
		return ret;
	kuw_elf_obj(&e, argv[1], &o);
	status = validate(argv[1], &e, &o, tabs, NULL);
	if (status)
		goto out;
	for (a = 2; a < argc; a++) {
		const struct kuw_rule *r = NULL;
		const char *why;
		char buf[512];
		u64 addr, row_pc;

		if (parse_addr(&e, argv[a], &addr, &why)) {
			/* one line each, and on with the others */
			fflush(stdout);
			fprintf(stderr, "%s: rules: bad address '%s': %s\n",
				kuw_prog, argv[a], why);
			status = EXIT_USAGE;
			continue;
		}
		/* .eh_frame first, then .debug_frame, then .sframe */
		for (i = 0; i < KUW_SRC__COUNT; i++)
			if (tabs[i] &&
			    !kuw_table_lookup(tabs[i], addr, &r, &row_pc))
				break;
		if (i == KUW_SRC__COUNT ||
		    kuw_format_row(buf, sizeof(buf), o.arch, row_pc, r) < 0) {
			printf("0x%llx none\n", addr);
			continue;
		}
		printf("%s\n", buf);
	}
out:
	free_tables(tabs);
	kuw_elf_close(&e);
	return status;
}

/* check */

static int cmd_check(int argc, char **argv)
{
	struct kuw_table *tabs[KUW_SRC__COUNT] = { 0 };
	u64 tot_fde = 0, tot_rows = 0, tot_bytes = 0;
	int ret, status;
	struct kuw_elf e;
	struct kuw_obj o;
	s64 nent;
	u32 i;

	if (argc != 2)
		return usage_error("check: expected one FILE%s", "");
	ret = open_elf(&e, argv[1]);
	if (ret)
		return ret;
	kuw_elf_obj(&e, argv[1], &o);
	status = validate(argv[1], &e, &o, tabs, &nent);
	for (i = 0; i < KUW_SRC__COUNT; i++) {
		const struct kuw_table *t = tabs[i];

		if (!t)
			continue;
		printf("%s: %s: %u CIEs, %u FDEs, %u rows, %u rules, %llu bytes\n",
		       argv[1], kuw_src_section(i), t->ncie, t->nfde,
		       t->nrows, t->nrules, t->bytes);
		tot_fde += t->nfde;
		tot_rows += t->nrows;
		tot_bytes += t->bytes;
	}
	if (nent >= 0)
		printf("%s: .eh_frame_hdr: %lld entries, ok\n", argv[1], nent);
	if (status == EXIT_OK)
		printf("%s: total: %llu FDEs, %llu rows, %llu bytes, %.2f bytes/row\n",
		       argv[1], tot_fde, tot_rows, tot_bytes,
		       tot_rows ? (double)tot_bytes / tot_rows : 0.0);
	free_tables(tabs);
	kuw_elf_close(&e);
	return status;
}

static int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "src", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = NULL, *outp = NULL, *srcname = NULL;
	struct stat ist, ost;
	struct kuw_blob b;
	int c, status, src = -1;
	u8 *buf = NULL;
	u64 size;
	u32 nfde;
	FILE *f;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outp = optarg;
			break;
		case 's':
			srcname = optarg;
			break;
		default:
			return usage_error("export: bad option%s", "");
		}
	}
	if (optind != argc - 1)
		return usage_error("export: expected one FILE%s", "");
	in = argv[optind];
	if (!outp)
		return usage_error("export: missing -o BLOB%s", "");
	if (srcname && !strcmp(srcname, kuw_src_name(KUW_SRC_EH_FRAME)))
		src = KUW_SRC_EH_FRAME;
	else if (srcname &&
		 !strcmp(srcname, kuw_src_name(KUW_SRC_DEBUG_FRAME)))
		src = KUW_SRC_DEBUG_FRAME;
	else if (srcname)
		return usage_error("export: --src must be eh_frame or debug_frame, not '%s'",
				   srcname);
	/* Not even truncated: -o naming the input (any link to it). */
	if (!stat(outp, &ost) && !stat(in, &ist) && ost.st_dev == ist.st_dev &&
	    ost.st_ino == ist.st_ino) {
		fprintf(stderr, "%s: export: %s is the input file %s; not overwriting it\n",
			kuw_prog, outp, in);
		return EXIT_USAGE;
	}
	status = kuw_dump_export(in, src, &buf, &size, &b, &nfde);
	if (status)
		return status;
	status = EXIT_USAGE;
	f = fopen(outp, "wb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", kuw_prog, outp, strerror(errno));
		goto out;
	}
	if (fwrite(buf, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "%s: %s: write failed\n", kuw_prog, outp);
		goto out;
	}
	printf("%s: %s%s: %s, %u FDEs; ", in,
	       b.kind == KUW_BLOB_MODULE ? "module " : "", b.owner,
	       kuw_src_section(b.src), nfde);
	if (b.kind == KUW_BLOB_VMLINUX)
		printf("_stext 0x%llx, ", b.stext);
	printf("text 0x%llx-0x%llx; build id ", b.obj.text_start,
	       b.obj.text_end);
	for (c = 0; c < b.id_len; c++)
		printf("%02x", b.build_id[c]);
	printf("; wrote %llu bytes to %s\n", size, outp);
	status = EXIT_OK;
out:
	free(buf);
	return status;
}

/* sections */

static int cmd_sections(int argc, char **argv)
{
	struct kuw_elf e;
	struct kuw_obj o;
	int ret;
	u32 i;

	if (argc != 2)
		return usage_error("sections: expected one FILE%s", "");
	ret = open_elf(&e, argv[1]);
	if (ret)
		return ret;
	for (i = 1; i < e.nsec; i++) {
		const struct kuw_elf_sec *s = &e.sec[i];

		if (!(s->flags & 0x2))
			continue;
		printf("%-24s 0x%llx 0x%llx%s\n", s->name, s->addr, s->size,
		       s->flags & 0x4 ? " x" : "");
	}
	printf("text 0x%llx-0x%llx\n", e.text_start, e.text_end);
	fflush(stdout);
	kuw_elf_obj(&e, argv[1], &o);
	ret = validate(argv[1], &e, &o, NULL, NULL);
	kuw_elf_close(&e);
	return ret;
}

int main(int argc, char **argv)
{
	const char *cmd;

	kuw_host_log_enabled = getenv("KUW_VERBOSE") != NULL;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "rows"))
		return cmd_rows(argc - 1, argv + 1);
	if (!strcmp(cmd, "rules"))
		return cmd_rules(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "sframe"))
		return kuw_cmd_sframe(argc - 1, argv + 1);
	if (!strcmp(cmd, "sections"))
		return cmd_sections(argc - 1, argv + 1);
	if (!strcmp(cmd, "load"))
		return kuw_cmd_load(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", cmd);
}
