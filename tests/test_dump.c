// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind-dump run as a user runs it (issue 11): the binary built beside
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

/* ---- 1. Only regular files are read. ---- */

KT_TEST(dump_fifo_rejected_not_waited_on)
{
	char fifo[512], blob[512];
	struct dump_run *r = calloc(1, sizeof(*r));
	const char *const cmds[][6] = {
		{ "check", fifo, NULL },
		{ "rows", fifo, NULL },
		{ "rules", fifo, "0", NULL },
		{ "sections", fifo, NULL },
		{ "export", fifo, "-o", blob, NULL },
		{ "check", kt_builddir, NULL },		/* a directory */
	};
	u32 i;

	KT_ASSERT(r);
	snprintf(fifo, sizeof(fifo), "%s/dump.fifo", kt_builddir);
	snprintf(blob, sizeof(blob), "%s/dump-fifo.blob", kt_builddir);
	unlink(fifo);
	if (mkfifo(fifo, 0600)) {
		KT_EXPECT(!"mkfifo");
		free(r);
		return;
	}
	/* nobody ever opens the FIFO for writing: a reader would wait */
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		KT_EXPECT_EQ(dump_run(r, cmds[i]), 0);
		KT_EXPECT_EQ(r->code, 2);
		KT_EXPECT(strstr(r->err, "not a regular file") != NULL);
		KT_EXPECT_EQ(count_lines(r->err), 1);
		KT_EXPECT_EQ(r->out[0], 0);
	}
	KT_EXPECT(access(blob, F_OK) != 0);
	unlink(fifo);
	free(r);
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
