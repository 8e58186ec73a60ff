// SPDX-License-Identifier: GPL-2.0
/*
 * kuw_priv: a guest helper for the checks of /dev/kunwind/'s permissions
 * and concurrency (scripts/guest/robust_load.sh).  Static, no libcap: the
 * capability sets are changed with capget()/capset() directly.
 *
 *   kuw_priv [-d CAP]... [-k] PATH [DATA]
 *	open PATH (read-write with DATA, else read-only), write DATA (a string, or @FILE for a file's
 *	bytes, in one write) and print what a read then gives.  -d drops
 *	CAP (sys_admin, syslog or all) from the effective, permitted and
 *	inheritable sets, uid 0 stays: before the open, or after it with -k
 *	(the fd keeps its opener's rights).  Exit 0, or 1 open refused,
 *	2 write refused, 3 anything else; the errno on stderr
 *	("open: Operation not permitted").
 *   kuw_priv load-race PATH BLOB N
 *	N times: open PATH, two threads write the whole BLOB at once to that
 *	one fd; exactly one write may take it (0, or EEXIST when the table
 *	is there), the other must be refused as a write after the blob's
 *	end (EINVAL).  Prints the counts; exit 0 when every round did so.
 *   kuw_priv load-chunks PATH BLOB N
 *	N times: two threads write BLOB in small odd pieces to one fd, their
 *	pieces interleaved: every write succeeds or fails with an errno of
 *	a refused blob, nothing else (exit 0).
 *   kuw_priv read-race PATH N W1 W2
 *	one fd, a thread writing W1 and W2 alternately, another reading from
 *	offset 0 (pread) N times: every read must be a whole result (its
 *	last line "reliable: ..." for backtrace, three lines for rules).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int drop_caps(const unsigned int *caps, int n, int all)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int i;

	if (syscall(SYS_capget, &h, d))
		return -1;
	for (i = 0; i < 2; i++) {
		if (all) {
			d[i].effective = 0;
			d[i].permitted = 0;
			d[i].inheritable = 0;
		}
	}
	for (i = 0; i < n; i++) {
		unsigned int w = caps[i] / 32, b = 1u << (caps[i] % 32);

		d[w].effective &= ~b;
		d[w].permitted &= ~b;
		d[w].inheritable &= ~b;
	}
	return syscall(SYS_capset, &h, d);
}

static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	*buf = malloc(st.st_size + 1);
	if (!*buf)
		return -1;
	r = read(fd, *buf, st.st_size);
	close(fd);
	if (r != st.st_size)
		return -1;
	*len = r;
	return 0;
}

static int cmd_open(int argc, char **argv)
{
	unsigned int caps[8];
	int n = 0, all = 0, keep = 0, i, fd;
	const char *path, *data = NULL;
	char *buf = NULL, out[65536];
	size_t len = 0;
	ssize_t r;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-k")) {
			keep = 1;
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc && n < 8) {
			i++;
			if (!strcmp(argv[i], "sys_admin"))
				caps[n++] = CAP_SYS_ADMIN;
			else if (!strcmp(argv[i], "syslog"))
				caps[n++] = CAP_SYSLOG;
			else if (!strcmp(argv[i], "all"))
				all = 1;
			else
				return fprintf(stderr, "unknown cap %s\n", argv[i]), 3;
		} else {
			return fprintf(stderr, "unknown option %s\n", argv[i]), 3;
		}
	}
	if (i >= argc)
		return fprintf(stderr, "no path\n"), 3;
	path = argv[i++];
	if (i < argc)
		data = argv[i];
	if (data && data[0] == '@') {
		if (read_file(data + 1, &buf, &len))
			return perror(data + 1), 3;
	} else if (data) {
		len = strlen(data);
		buf = strdup(data);
	}
	if (!keep && (n || all) && drop_caps(caps, n, all))
		return perror("capset"), 3;
	/* nothing to write: read-only (debugfs files are 0400) */
	fd = open(path, buf ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return perror("open"), 1;
	if (keep && (n || all) && drop_caps(caps, n, all))
		return perror("capset"), 3;
	if (buf) {
		r = write(fd, buf, len);
		if (r < 0)
			return perror("write"), 2;
		if ((size_t)r != len)
			return fprintf(stderr, "write: short (%zd of %zu)\n", r, len), 2;
	}
	for (;;) {
		r = read(fd, out, sizeof(out));
		if (r <= 0)
			break;
		fwrite(out, 1, r, stdout);
	}
	close(fd);
	free(buf);
	return 0;
}

struct race {
	pthread_barrier_t bar;
	int fd;
	const char *buf;
	size_t len;
	size_t chunk;		/* 0: one write */
	int err[2];		/* errno of the last failed write, 0 */
	long fails;
	/* read-race */
	const char *w[2];
	long n;
	int rules;
	long bad;
};

static void *race_writer(void *arg)
{
	struct race *c = ((void **)arg)[0];
	int me = (int)(long)((void **)arg)[1];
	size_t off = 0, k;
	ssize_t r;

	c->err[me] = 0;
	pthread_barrier_wait(&c->bar);
	if (!c->chunk) {
		r = write(c->fd, c->buf, c->len);
		c->err[me] = r < 0 ? errno : (size_t)r == c->len ? 0 : -1;
		return NULL;
	}
	while (off < c->len) {
		k = c->chunk + me * 2;
		if (k > c->len - off)
			k = c->len - off;
		r = write(c->fd, c->buf + off, k);
		if (r < 0) {
			c->err[me] = errno;
			break;
		}
		off += r;
	}
	return NULL;
}

static int refused(int e)
{
	return e == EINVAL || e == EBADMSG || e == ESTALE || e == EEXIST ||
	       e == ENOENT;
}

static int cmd_load(char **argv, int chunks)
{
	struct race c = { .chunk = chunks ? 5 : 0 };
	long n = atol(argv[4]), i, one = 0, bad = 0;
	pthread_t t[2];
	void *a[2][2];
	char *buf;
	int j;

	if (read_file(argv[3], &buf, &c.len))
		return perror(argv[3]), 3;
	c.buf = buf;
	pthread_barrier_init(&c.bar, NULL, 2);
	for (i = 0; i < n; i++) {
		c.fd = open(argv[2], O_WRONLY);
		if (c.fd < 0)
			return perror("open"), 3;
		for (j = 0; j < 2; j++) {
			a[j][0] = &c;
			a[j][1] = (void *)(long)j;
			pthread_create(&t[j], NULL, race_writer, a[j]);
		}
		for (j = 0; j < 2; j++)
			pthread_join(t[j], NULL);
		close(c.fd);
		if (chunks) {
			for (j = 0; j < 2; j++)
				if (c.err[j] && !refused(c.err[j])) {
					fprintf(stderr, "round %ld: writer %d: %s\n",
						i, j, strerror(c.err[j]));
					bad++;
				}
			continue;
		}
		/* one took it (0 or EEXIST), the other came after the end */
		if ((c.err[0] == 0 || c.err[0] == EEXIST) && c.err[1] == EINVAL)
			one++;
		else if ((c.err[1] == 0 || c.err[1] == EEXIST) &&
			 c.err[0] == EINVAL)
			one++;
		else {
			bad++;
			if (bad < 10)
				fprintf(stderr, "round %ld: writes gave %s | %s\n", i,
					c.err[0] > 0 ? strerror(c.err[0]) :
					c.err[0] ? "short" : "ok",
					c.err[1] > 0 ? strerror(c.err[1]) :
					c.err[1] ? "short" : "ok");
		}
	}
	printf("%s: %ld rounds, %ld as one writer, %ld otherwise\n",
	       chunks ? "load-chunks" : "load-race", n,
	       chunks ? n - bad : one, bad);
	free(buf);
	return bad ? 1 : 0;
}

static void *rr_writer(void *arg)
{
	struct race *c = arg;
	long i;

	pthread_barrier_wait(&c->bar);
	for (i = 0; i < c->n; i++)
		if (write(c->fd, c->w[i & 1], strlen(c->w[i & 1])) < 0)
			c->fails++;
	return NULL;
}

static void *rr_reader(void *arg)
{
	static char out[1 << 20];
	struct race *c = arg;
	long i;
	ssize_t r;
	int nl, k;

	pthread_barrier_wait(&c->bar);
	for (i = 0; i < c->n; i++) {
		r = pread(c->fd, out, sizeof(out) - 1, 0);
		if (r <= 0) {
			c->bad++;
			continue;
		}
		out[r] = 0;
		if (!strncmp(out, "write ", 6))
			continue;	/* before the first write */
		if (c->rules) {
			for (nl = 0, k = 0; k < r; k++)
				nl += out[k] == '\n';
			if (nl != 3)
				c->bad++;
		} else if (r < 16 || out[r - 1] != '\n' ||
			   (!strstr(out, "\nreliable: yes\n") &&
			    !strstr(out, "\nreliable: no\n"))) {
			c->bad++;
		}
	}
	return NULL;
}

static int cmd_read_race(char **argv)
{
	struct race c = { .n = atol(argv[3]), .w = { argv[4], argv[5] } };
	pthread_t t[2];

	c.rules = strstr(argv[2], "rules") != NULL;
	c.fd = open(argv[2], O_RDWR);
	if (c.fd < 0)
		return perror("open"), 3;
	pthread_barrier_init(&c.bar, NULL, 2);
	pthread_create(&t[0], NULL, rr_writer, &c);
	pthread_create(&t[1], NULL, rr_reader, &c);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	close(c.fd);
	printf("read-race: %ld writes (%ld failed), %ld reads, %ld not whole\n",
	       c.n, c.fails, c.n, c.bad);
	return c.bad || c.fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "load-race"))
		return cmd_load(argv, 0);
	if (argc == 5 && !strcmp(argv[1], "load-chunks"))
		return cmd_load(argv, 1);
	if (argc == 6 && !strcmp(argv[1], "read-race"))
		return cmd_read_race(argv);
	return cmd_open(argc, argv);
}
