// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind-dump run as a user runs it: the binary built beside
 * the runner (KT_DUMP, else <builddir>/../kunwind-dump-asan, which `make
 * test-host` builds first) under a time limit, its exit code, stdout and
 * stderr checked.  Exit codes: 0 ok, 1 malformed input, 2 usage or I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cfi_fixture.h"
#include "kt.h"

#define DUMP_TIMEOUT_MS	10000

struct dump_run {
	int code;		/* exit code; -1: killed at the time limit */
	char out[32768];
	char err[8192];
};

static const char *dump_path(void)
{
	static char path[512];
	const char *e = getenv("KT_DUMP");

	if (e)
		return e;
	snprintf(path, sizeof(path), "%s/../kunwind-dump-asan", kt_builddir);
	if (access(path, X_OK))
		snprintf(path, sizeof(path), "%s/../kunwind-dump", kt_builddir);
	return path;
}

static void slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = 0;
}

/* Run kunwind-dump with @argv (NULL-terminated, without the program). */
static int dump_run(struct dump_run *r, const char *const *argv)
{
	char out[512], err[512];
	const char *args[64];
	int status, ms, n;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/dump.out", kt_builddir);
	snprintf(err, sizeof(err), "%s/dump.err", kt_builddir);
	args[0] = dump_path();
	for (n = 1; argv[n - 1] && n < 63; n++)
		args[n] = argv[n - 1];
	args[n] = NULL;
	r->code = -1;
	r->out[0] = r->err[0] = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(127);
		execv(args[0], (char *const *)args);
		_exit(127);
	}
	for (ms = 0; ms < DUMP_TIMEOUT_MS; ms += 10) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		nanosleep(&ts, NULL);
	}
	if (ms >= DUMP_TIMEOUT_MS) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		printf("  %s %s: killed after %d ms\n", args[0], args[1], ms);
		return -1;
	}
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return 0;
}

/* Lines of @s (a final line without '\n' counts). */
static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if (*s == '\n' || !s[1])
			n++;
	return n;
}

/* ---- 4. export never writes over its input. ---- */

/* The bytes of @path (malloc'ed, *@n bytes), or NULL. */
static char *read_all(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;

	*n = -1;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (*n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		p = malloc(*n);
		if (p && fread(p, 1, *n, f) != (size_t)*n) {
			free(p);
			p = NULL;
		}
	}
	fclose(f);
	return p;
}

static const char dump_one_fn[] =
	"\t.text\n\t.globl f\nf:\n\t.cfi_startproc\n\tpush %rbx\n"
	"\t.cfi_def_cfa_offset 16\n\t.cfi_offset rbx, -16\n\tpop %rbx\n"
	"\t.cfi_def_cfa_offset 8\n\tret\n\t.cfi_endproc\n";

KT_TEST(dump_export_refuses_own_input)
{
	struct dump_run *r = calloc(1, sizeof(*r));
	char *so = kcfi_build("dump_exp", dump_one_fn, NULL);
	char hard[512], sym[512], other[512], *before = NULL, *after;
	const char *outs[3];
	long n0, n1;
	u32 i;

	KT_ASSERT(r && so);
	snprintf(hard, sizeof(hard), "%s/dump_exp.hardlink", kt_builddir);
	snprintf(sym, sizeof(sym), "%s/dump_exp.symlink", kt_builddir);
	snprintf(other, sizeof(other), "%s/dump_exp.blob", kt_builddir);
	unlink(hard);
	unlink(sym);
	unlink(other);
	KT_ASSERT(!link(so, hard) && !symlink("dump_exp.so", sym));
	before = read_all(so, &n0);
	KT_ASSERT(before && n0 > 224);
	outs[0] = so;		/* the same path */
	outs[1] = hard;		/* another name of the same file */
	outs[2] = sym;		/* a symbolic link to it */
	for (i = 0; i < ARRAY_SIZE(outs); i++) {
		const char *const argv[] = { "export", so, "-o", outs[i], NULL };

		KT_EXPECT_EQ(dump_run(r, argv), 0);
		KT_EXPECT_EQ(r->code, 2);
		KT_EXPECT(strstr(r->err, "is the input file") != NULL);
		after = read_all(so, &n1);
		KT_EXPECT(after && n1 == n0 && !memcmp(before, after, n0));
		free(after);
	}
	/* the same input to another file is exported */
	{
		const char *const argv[] = { "export", so, "-o", other, NULL };

		KT_EXPECT_EQ(dump_run(r, argv), 0);
		KT_EXPECT_EQ(r->code, 0);
		KT_EXPECT(strstr(r->out, "wrote") != NULL);
		KT_EXPECT_EQ(access(other, F_OK), 0);
	}
	free(before);
	free(so);
	free(r);
}

/* ---- 3. rules: address syntax, every bad address reported. ---- */

/* Address of @sym in @so by nm(1), or 0. */
static u64 nm_addr(const char *so, const char *sym)
{
	char cmd[1024], line[512], name[256];
	unsigned long long a, v = 0;
	char type;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", so);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, sym))
			v = a;
	pclose(p);
	return v;
}

/* Line @i (0-based) of @s into @buf, "" when there are fewer. */
static const char *line_of(const char *s, int i, char *buf, size_t size)
{
	size_t n;

	for (; i > 0 && s; i--) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	n = s ? strcspn(s, "\n") : 0;
	if (n >= size)
		n = size - 1;
	memcpy(buf, s ? s : "", n);
	buf[n] = 0;
	return buf;
}

KT_TEST(dump_rules_address_syntax)
{
	static const char *const bad[] = {
		".text+-1", "nosuch", "-1", "1e3", "0x", "+5",
		".text+0xffffffffffffffff", "0x10000000000000000",
	};
	struct dump_run *r = calloc(1, sizeof(*r));
	char *so = kcfi_build("dump_addr", dump_one_fn, NULL);
	char hex[32], dec[32], a[512], b[512];
	const char *argv[32];
	u64 f;
	int n = 0, i;

	KT_ASSERT(r && so);
	f = nm_addr(so, "f");
	KT_ASSERT(f);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)f + 1);
	snprintf(dec, sizeof(dec), "%llu", (unsigned long long)f + 1);
	argv[n++] = "rules";
	argv[n++] = so;
	/* good and bad interleaved: the good ones are all answered */
	argv[n++] = "010";		/* ten, not octal eight */
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		argv[n++] = bad[i];
		if (i == 3)
			argv[n++] = "f+1";
	}
	argv[n++] = hex;
	argv[n++] = dec;
	argv[n++] = "0xA";
	argv[n] = NULL;
	KT_EXPECT_EQ(dump_run(r, argv), 0);
	KT_EXPECT_EQ(r->code, 2);
	KT_EXPECT_EQ(count_lines(r->out), 5);
	KT_EXPECT_STR(line_of(r->out, 0, a, sizeof(a)), "0xa none");
	/* f+1, its address in hex and in decimal: one row, f's */
	line_of(r->out, 1, a, sizeof(a));
	KT_EXPECT(strstr(a, " cfa=rsp+") != NULL);
	KT_EXPECT_STR(line_of(r->out, 2, b, sizeof(b)), a);
	KT_EXPECT_STR(line_of(r->out, 3, b, sizeof(b)), a);
	KT_EXPECT_STR(line_of(r->out, 4, b, sizeof(b)), "0xa none");
	/* one line per bad address, in order, naming it */
	KT_EXPECT_EQ(count_lines(r->err), (int)ARRAY_SIZE(bad));
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		char want[128];

		snprintf(want, sizeof(want), "bad address '%s'", bad[i]);
		line_of(r->err, i, a, sizeof(a));
		if (!strstr(a, want))
			printf("  stderr line %d: %s (want %s)\n", i, a, want);
		KT_EXPECT(strstr(a, want) != NULL);
	}
	/* only good ones: exit 0 */
	{
		const char *const ok[] = { "rules", so, "f", "0", NULL };

		KT_EXPECT_EQ(dump_run(r, ok), 0);
		KT_EXPECT_EQ(r->code, 0);
		KT_EXPECT_EQ(count_lines(r->out), 2);
		KT_EXPECT_EQ(r->err[0], 0);
	}
	free(so);
	free(r);
}

/* ---- 5. Every command finds the same files malformed. ---- */

static int sh(const char *cmd)
{
	fflush(NULL);
	return system(cmd);
}

/* tests/asm/fde_overlap.s linked by its script; NULL on failure. */
static char *overlap_fixture(void)
{
	char cmd[2048], path[512];

	snprintf(cmd, sizeof(cmd),
		 "as -o '%1$s/fde_overlap.o' '%2$s/asm/fde_overlap.s' && "
		 "ld -shared --build-id --no-check-sections -T '%2$s/asm/fde_overlap.ld' "
		 "-o '%1$s/fde_overlap.so' '%1$s/fde_overlap.o' 2>/dev/null",
		 kt_builddir, kt_srcdir);
	if (sh(cmd))
		return NULL;
	snprintf(path, sizeof(path), "%s/fde_overlap.so", kt_builddir);
	return strdup(path);
}

/* readelf's FDE ranges of @so: do two of them overlap? */
static bool readelf_fdes_overlap(const char *so)
{
	unsigned long long lo[16], hi[16];
	char cmd[1024], line[512], *q;
	int n = 0, i, j;
	bool ov = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", so);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, " FDE ") && (q = strstr(line, "pc=")) &&
		    n < 16 && sscanf(q, "pc=%llx..%llx", &lo[n], &hi[n]) == 2)
			n++;
	pclose(p);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && lo[i] < hi[j] && lo[j] < hi[i])
				ov = true;
	return ov;
}

/* Copy @so to <builddir>/@name with byte @val at .SECTION+@off. */
static char *patched_copy(const char *so, const char *name, const char *sec,
			  u64 off, u8 val)
{
	const struct kuw_elf_sec *s;
	char path[512], cmd[2048];
	struct kuw_elf e;
	u64 at = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", kt_builddir, name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", so, path);
	if (sh(cmd) || kuw_elf_open(&e, path))
		return NULL;
	s = kuw_elf_find(&e, sec);
	if (s && off < s->size)
		at = s->off + off;
	kuw_elf_close(&e);
	f = at ? fopen(path, "r+b") : NULL;
	if (!f)
		return NULL;
	fseek(f, (long)at, SEEK_SET);
	fputc(val, f);
	fclose(f);
	return strdup(path);
}

/*
 * Every command on @file: exit @code, and on an error the same line,
 * containing @what, from each ("FILE: section+0xOFF: reason" for
 * malformed input).  An I/O error (2) comes before any output.
 */
static void expect_all_commands(struct dump_run *r, const char *file,
				int code, const char *what)
{
	char blob[512], diag[512] = "", line[512];
	const char *const cmds[][6] = {
		{ "check", file, NULL },
		{ "rows", file, NULL },
		{ "rules", file, "0x1000", NULL },
		{ "sections", file, NULL },
		{ "export", file, "-o", blob, NULL },
	};
	u32 i;
	int k;

	snprintf(blob, sizeof(blob), "%s/dump_all.blob", kt_builddir);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		unlink(blob);
		KT_EXPECT_EQ(dump_run(r, cmds[i]), 0);
		if (r->code != code)
			printf("  %s %s: exit %d, expected %d: %s\n",
			       cmds[i][0], file, r->code, code, r->err);
		KT_EXPECT_EQ(r->code, code);
		if (!code)
			continue;
		KT_EXPECT(access(blob, F_OK) != 0);
		if (code == 2) {
			KT_EXPECT_EQ(count_lines(r->err), 1);
			KT_EXPECT_EQ(r->out[0], 0);
		}
		/* the diagnostic line (export may warn first) */
		for (k = 0; *line_of(r->err, k, line, sizeof(line)); k++)
			if (strstr(line, what))
				break;
		KT_EXPECT(strstr(line, what) != NULL);
		if (!i)
			snprintf(diag, sizeof(diag), "%s", line);
		else
			KT_EXPECT_STR(line, diag);
	}
}

/* ---- 1. Only regular files are read. ---- */

KT_TEST(dump_fifo_rejected_not_waited_on)
{
	struct dump_run *r = calloc(1, sizeof(*r));
	char fifo[512];

	KT_ASSERT(r);
	snprintf(fifo, sizeof(fifo), "%s/dump.fifo", kt_builddir);
	unlink(fifo);
	if (mkfifo(fifo, 0600)) {
		KT_EXPECT(!"mkfifo");
		free(r);
		return;
	}
	/* nobody ever opens the FIFO for writing: a reader would wait */
	expect_all_commands(r, fifo, 2, "dump.fifo: not a regular file");
	expect_all_commands(r, kt_builddir, 2, "not a regular file");
	unlink(fifo);
	free(r);
}

KT_TEST(dump_exit_codes_agree_on_malformed)
{
	struct dump_run *r = calloc(1, sizeof(*r));
	char *so = kcfi_build("dump_agree", dump_one_fn, NULL);
	char *ov = overlap_fixture(), *hdr = NULL, *cie = NULL;

	KT_ASSERT(r && so && ov);
	/* the fixture: readelf sees two FDEs over the same bytes */
	KT_EXPECT(readelf_fdes_overlap(ov));
	/* .eh_frame_hdr version 2 (only 1 exists); CIE version 9 */
	hdr = patched_copy(so, "dump_badhdr.so", ".eh_frame_hdr", 0, 2);
	cie = patched_copy(so, "dump_badcie.so", ".eh_frame", 8, 9);
	KT_ASSERT(hdr && cie);

	expect_all_commands(r, so, 0, NULL);
	expect_all_commands(r, ov, 1, ".eh_frame+0x");
	expect_all_commands(r, hdr, 1, ".eh_frame_hdr+0x");
	expect_all_commands(r, cie, 1, ".eh_frame+0x8:");
	free(cie);
	free(hdr);
	free(ov);
	free(so);
	free(r);
}

/*
 * A malformed section the blob does not carry: every other command fails
 * on it; export writes the blob of .eh_frame and says the other is left
 * out (the module, building its tables from the image, leaves it out too).
 */
KT_TEST(dump_export_leaves_out_a_malformed_sframe)
{
	struct dump_run *r = calloc(1, sizeof(*r));
	char *so = kcfi_build("dump_sf", dump_one_fn, "--gsframe");
	char *bad = NULL, blob[512];
	const char *chk[] = { "check", NULL, NULL };
	const char *exp[] = { "export", NULL, "-o", blob, NULL };

	KT_ASSERT(r && so);
	snprintf(blob, sizeof(blob), "%s/dump_sf.blob", kt_builddir);
	/* SFrame header: magic (2 bytes), then the version: 9 is none */
	bad = patched_copy(so, "dump_badsf.so", ".sframe", 2, 9);
	KT_ASSERT(bad);

	chk[1] = so;
	KT_EXPECT_EQ(dump_run(r, chk), 0);
	KT_EXPECT_EQ(r->code, 0);
	chk[1] = bad;
	KT_EXPECT_EQ(dump_run(r, chk), 0);
	KT_EXPECT_EQ(r->code, 1);
	KT_EXPECT(strstr(r->err, "dump_badsf.so: .sframe+0x") != NULL);

	unlink(blob);
	exp[1] = so;
	KT_EXPECT_EQ(dump_run(r, exp), 0);
	KT_EXPECT_EQ(r->code, 0);
	KT_EXPECT(strstr(r->err, "not in the blob") == NULL);
	unlink(blob);
	exp[1] = bad;
	KT_EXPECT_EQ(dump_run(r, exp), 0);
	KT_EXPECT_EQ(r->code, 0);
	KT_EXPECT(strstr(r->err, "dump_badsf.so: .sframe+0x") != NULL);
	KT_EXPECT(strstr(r->err, "not in the blob, which carries .eh_frame only") != NULL);
	KT_EXPECT(access(blob, F_OK) == 0);
	unlink(blob);
	free(bad);
	free(so);
	free(r);
}

/* ---- 2. rows and rules print every rule readelf prints, s and u too. ---- */

/* Register number of a name in the row format (x86_64), or -1. */
static int reg_of(const char *name, size_t n)
{
	int i;

	for (i = 0; i < KUW_MAX_REGS; i++) {
		const char *s = kuw_reg_name(KUW_ARCH_X86_64, i);

		if (strlen(s) == n && !strncmp(s, name, n))
			return i;
	}
	return -1;
}

/* "cfa=rsp+8 rbx=s ..." (after the pc) into @r; 0 or -1. */
static int parse_rule(const char *p, struct kuw_rule *r)
{
	memset(r, 0, sizeof(*r));
	while (*p == ' ')
		p++;
	if (strncmp(p, "cfa=", 4))
		return -1;
	p += 4;
	{
		size_t n = strcspn(p, "+-");
		int reg = reg_of(p, n);

		if (reg < 0)
			return -1;
		r->cfa_reg = reg;
		r->cfa_off = atoi(p + n);
		p += strcspn(p, " \n");
	}
	while (*p == ' ') {
		struct kuw_reg_rule *rr = &r->regs[r->nregs];
		size_t n = strcspn(++p, "=");
		const char *v = p + n + 1;
		size_t vn = strcspn(v, " \n");
		int reg = reg_of(p, n);

		if (reg < 0 || !p[n] || r->nregs >= KUW_MAX_REGS)
			return -1;
		rr->reg = reg;
		if (vn == 1 && *v == 's') {
			rr->kind = KUW_R_SAME;
		} else if (vn == 1 && *v == 'u') {
			rr->kind = KUW_R_UNDEF;
		} else if ((*v == 'c' || *v == 'v') &&
			   (v[1] == '+' || v[1] == '-')) {
			rr->kind = *v == 'c' ? KUW_R_OFFSET : KUW_R_VAL_OFFSET;
			rr->off = atoi(v + 1);
		} else if (reg_of(v, vn) >= 0) {
			rr->kind = KUW_R_REG;
			rr->src = reg_of(v, vn);
		} else {
			return -1;
		}
		r->nregs++;
		p = v + vn;
	}
	return *p && *p != '\n' ? -1 : 0;
}

/* Append a row to @c's last FDE. */
static int col_add(struct kcfi_col *c, u64 pc, const char *text)
{
	if (!c->nfde || c->nrow >= KCFI_MAX_ROWS ||
	    parse_rule(text, &c->row[c->nrow].r))
		return -1;
	c->row[c->nrow++].pc = pc;
	c->fde[c->nfde - 1].n++;
	return 0;
}

/* `kunwind-dump rows` output into @c; 0 or -1 (a line not understood). */
static int parse_rows(const char *out, struct kcfi_col *c)
{
	const char *l;

	for (l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		unsigned long long a, b;
		char *end;

		if (sscanf(l, "fde 0x%llx-0x%llx", &a, &b) == 2) {
			struct kcfi_fde *f = &c->fde[c->nfde++];

			memset(f, 0, sizeof(*f));
			f->f.start = a;
			f->f.end = b;
			f->first = c->nrow;
			continue;
		}
		a = strtoull(l, &end, 16);
		if (strncmp(l, "0x", 2) || col_add(c, a, end))
			return -1;
	}
	return 0;
}

KT_TEST(dump_rows_and_rules_print_s_and_u_like_readelf)
{
	struct dump_run *r = calloc(1, sizeof(*r));
	char *so = kcfi_build("cfi_sameval", NULL, NULL);
	struct kcfi_col *c = kcfi_col_new(), *q = kcfi_col_new();
	char pcs[KCFI_MAX_FDES][20];
	const char *argv[KCFI_MAX_FDES + 3] = { "rows", so, NULL };
	u32 n = 0, i, k, np = 0;

	KT_ASSERT(r && so && c && q);
	/* rows: every row vs readelf's (its "s" exactly, "u" as ours) */
	KT_EXPECT_EQ(dump_run(r, argv), 0);
	KT_EXPECT_EQ(r->code, 0);
	KT_EXPECT_EQ(parse_rows(r->out, c), 0);
	KT_EXPECT(c->nfde >= 3);
	KT_EXPECT_EQ(kcfi_readelf_compare(so, false, KUW_ARCH_X86_64, c, &n),
		     0);
	KT_EXPECT(n >= 20);

	/* rules at every row pc: the compiled table's rule, as readelf */
	argv[0] = "rules";
	for (i = 0; i < c->nrow && np < 60; i++) {
		snprintf(pcs[np], sizeof(pcs[np]), "0x%llx",
			 (unsigned long long)c->row[i].pc);
		argv[2 + np] = pcs[np];
		np++;
	}
	argv[2 + np] = NULL;
	KT_EXPECT_EQ(dump_run(r, argv), 0);
	KT_EXPECT_EQ(r->code, 0);
	KT_EXPECT_EQ(count_lines(r->out), (int)np);
	/* the answers, grouped under the FDEs the rows came from */
	for (i = 0, k = 0; i < c->nfde; i++) {
		u32 j;

		q->fde[q->nfde] = c->fde[i];
		q->fde[q->nfde].first = q->nrow;
		q->fde[q->nfde++].n = 0;
		for (j = 0; j < c->fde[i].n && k < np; j++, k++) {
			char line[512], *end;
			u64 pc;

			pc = strtoull(line_of(r->out, k, line, sizeof(line)),
				      &end, 16);
			KT_EXPECT(pc == c->row[k].pc && !col_add(q, pc, end));
		}
	}
	KT_EXPECT_EQ(kcfi_readelf_compare(so, false, KUW_ARCH_X86_64, q, &n),
		     0);
	kcfi_col_free(q);
	kcfi_col_free(c);
	free(so);
	free(r);
}
