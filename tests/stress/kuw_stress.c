// SPDX-License-Identifier: GPL-2.0
/*
 * kuw-stress: every /dev/kunwind/ node driven from many threads and
 * processes at once, sharing open files and not, for the guests of the
 * test bed (scripts/guest/stress.sh runs it; static, x86_64 and arm64).
 *
 *   kuw-stress [-d SECONDS] [-n OPS] [-b BLOB] [-u "OWNER SECTION"]
 *              [-w WORKERS] [-s] [-p] [-v]
 *
 * -d  stop after SECONDS (default 60)
 * -n  stop once OPS operations are done; fewer by the deadline fails
 *     (default 100000).  An operation is one system call on a node
 *     (open, write, read, lseek, close), one /proc/PID/stack read, one
 *     fork, one delete_module() attempt.
 * -b  a real blob (kunwind-dump export): written whole while walks run,
 *     after its table is dropped through unload with -u's line; its
 *     header also starts the "valid header, then garbage" writes
 * -w  backtrace worker threads (default 4)
 * -s  the switch role: flip the consumers switch (patches kernel text:
 *     run it where the guest can take that, the switch guest)
 * -p  sample with perf_event_open() (cpu-clock, PERF_SAMPLE_CALLCHAIN)
 *
 * Run as a child: "kuw-stress --child FD" writes "self" to the inherited
 * open backtrace file FD, reads the result and exits 0 when it is whole
 * (the inherited-fd-across-exec case).
 *
 * Prints one KTAP document: one result per kind of work with its counts,
 * then the total.  A result fails on an errno the interface never gives
 * for that input, on a wrong answer (a blob's writers on one open file
 * accepted more bytes than the blob has; a backtrace without its stop
 * line; another open file's rules answer), on kunwind unloaded while its
 * nodes are open, and on too few operations.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEV "/dev/kunwind/"
#define HDR 160			/* KUW_BLOB_HDR_SIZE */
#define OFF_SEC_SIZE 48
#define OFF_NSECT 56
#define SECT_SIZE 48
#define MAX_SECT 64
#define MAX_SEC (64u << 20)

enum cat {
	C_RACE, C_LOADBAD, C_RELOAD, C_BT, C_EXEC, C_RULES, C_CONS,
	C_RMMOD, C_UNPRIV, C_PERF, C__N
};

static const char *const cat_name[C__N] = {
	"load: two threads writing one open file",
	"load: partial, oversized, random and header-then-garbage writes",
	"load and unload of a real blob while walks run",
	"backtrace self, pid N, all under fork and exit storms",
	"backtrace on open files inherited across fork and exec",
	"rules: writes and reads on one open file and on private ones",
	"consumers: switch and state under /proc/PID/stack and perf load",
	"rmmod kunwind refused while its nodes are open",
	"unprivileged openers: capabilities dropped, non-root uid",
	"perf sampling with kernel callchains",
};

#define NMSG 24
struct shared {
	atomic_ulong ops;		/* all operations */
	atomic_ulong n[C__N];		/* per kind */
	atomic_ulong bad[C__N];		/* wrong answers per kind */
	atomic_ulong forks, procstack, perf_samples, perf_kframes;
	atomic_ulong race_rounds, race_hdr_done, reloads, unloads;
	atomic_ulong bt_self_ok, bt_pid_gone, bt_all;
	atomic_ulong rmmod_refused, flips, unpriv_refused, unpriv_allowed;
	atomic_ulong rules_own, exec_ok;
	atomic_int stop;
	atomic_int nmsg;
	char msg[NMSG][200];
	atomic_int pids[256];		/* recent children, for "pid N" */
	atomic_uint pidpos;
};

static struct shared *S;
static unsigned long target_ops = 100000;
static double deadline;
static const char *self_exe = "/proc/self/exe";
static unsigned char *blob;
static size_t blob_len;
static char unload_line[128];
static int nbt = 4, switch_role, perf_on, verbose;
static int keep_fds[8];
static void *noaccess;		/* a page no write can read from */		/* open for the whole run: rmmod must fail */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int stopping(void)
{
	if (atomic_load(&S->stop))
		return 1;
	if (atomic_load(&S->ops) >= target_ops || now() >= deadline) {
		atomic_store(&S->stop, 1);
		return 1;
	}
	return 0;
}

static void op(enum cat c)
{
	atomic_fetch_add(&S->ops, 1);
	atomic_fetch_add(&S->n[c], 1);
}

static void bad(enum cat c, const char *fmt, ...)
{
	va_list ap;
	int i;

	atomic_fetch_add(&S->bad[c], 1);
	i = atomic_fetch_add(&S->nmsg, 1);
	if (i >= NMSG)
		return;
	va_start(ap, fmt);
	vsnprintf(S->msg[i], sizeof(S->msg[i]), fmt, ap);
	va_end(ap);
}

/* xorshift, one state per thread */
static unsigned int rnd(unsigned int *s)
{
	unsigned int x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x ? x : 0x9e3779b9;
	return *s;
}

static unsigned int seed(void)
{
	return (unsigned int)(now() * 1e6) ^ ((unsigned int)syscall(SYS_gettid) << 16) ^ 0x5bd1e995;
}

static int xopen(enum cat c, const char *node, int flags)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), DEV "%s", node);
	fd = open(p, flags | O_CLOEXEC);
	op(c);
	return fd;
}

static void xclose(enum cat c, int fd)
{
	if (fd >= 0) {
		close(fd);
		op(c);
	}
}

static ssize_t xwrite(enum cat c, int fd, const void *b, size_t n)
{
	ssize_t r = write(fd, b, n);

	op(c);
	return r;
}

static int one_of(int e, const int *ok)
{
	for (; *ok; ok++)
		if (e == *ok)
			return 1;
	return 0;
}

/* what a refused blob write may say (README, "Controls") */
static const int load_errs[] = { EINVAL, EBADMSG, EEXIST, ENOENT, ESTALE,
				 EPERM, ENOMEM, EFAULT, EBUSY, 0 };

/* the size the header announces, 0 when it cannot be a blob */
static size_t blob_total(const unsigned char *h)
{
	uint32_t sec = h[OFF_SEC_SIZE] | h[OFF_SEC_SIZE + 1] << 8 |
		       h[OFF_SEC_SIZE + 2] << 16 | (uint32_t)h[OFF_SEC_SIZE + 3] << 24;
	unsigned int ns = h[OFF_NSECT] | h[OFF_NSECT + 1] << 8;

	if (memcmp(h, "KUWBLOB", 8) || !sec || sec > MAX_SEC || ns > MAX_SECT)
		return 0;
	return HDR + (size_t)ns * SECT_SIZE + sec;
}

/* a header with a small announced section: the real one's, else made up */
static void small_header(unsigned char *h, uint32_t sec)
{
	if (blob_len >= HDR) {
		memcpy(h, blob, HDR);
	} else {
		memset(h, 0, HDR);
		memcpy(h, "KUWBLOB", 8);
		h[8] = 2;
		h[10] = HDR;
#ifdef __aarch64__
		h[12] = 2;
#else
		h[12] = 1;
#endif
		strcpy((char *)h + 96, "vmlinux");
	}
	h[OFF_NSECT] = 0;
	h[OFF_NSECT + 1] = 0;
	h[OFF_SEC_SIZE] = sec & 0xff;
	h[OFF_SEC_SIZE + 1] = sec >> 8 & 0xff;
	h[OFF_SEC_SIZE + 2] = sec >> 16 & 0xff;
	h[OFF_SEC_SIZE + 3] = sec >> 24 & 0xff;
}

/* ---- load: two threads writing one open file ---------------------------- */

struct race {
	pthread_barrier_t bar;
	int fd;
	unsigned char *payload;
	size_t len, want;	/* want: what the header announces (0: none) */
	atomic_size_t accepted;
	atomic_int ended;	/* a write failed: the blob ended */
	int slow;		/* the round of a write stalled in its copy */
};

/*
 * A write whose source page is not mapped faults inside the kernel's
 * copy_from_user() and waits there for mmap_lock, which this thread holds
 * for writing again and again (mprotect() of a populated region): the
 * write stalls in the middle of its copy, with whatever it read of the
 * open file's state before, while the other writer goes on.
 */
static void *locker(void *arg)
{
	size_t sz = 8 << 20;
	char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (m == MAP_FAILED)
		return NULL;
	memset(m, 1, sz);
	while (!stopping()) {
		mprotect(m, sz, PROT_READ);
		mprotect(m, sz, PROT_READ | PROT_WRITE);
	}
	munmap(m, sz);
	return NULL;
}

static void spin_us(unsigned int us)
{
	double end = now() + us / 1e6;

	while (now() < end)
		;
}

/* one accepted-or-refused write of a racing round */
static void race_one(struct race *r, const unsigned char *src, size_t n)
{
	ssize_t w = xwrite(C_RACE, r->fd, src, n);

	if (w < 0) {
		if (!one_of(errno, load_errs))
			bad(C_RACE, "load write of %zu bytes: errno %d", n, errno);
		atomic_store(&r->ended, 1);
		return;
	}
	if ((size_t)w != n)
		bad(C_RACE, "load write of %zu bytes returned %zd", n, w);
	atomic_fetch_add(&r->accepted, (size_t)w);
}

static void race_write(struct race *r, unsigned int *s)
{
	size_t off = 0;

	while (off < r->len && !atomic_load(&r->ended)) {
		/* long copies keep both writers inside write() together */
		size_t n = 1 + rnd(s) % (rnd(s) % 4 ? 8192 : 64);
		ssize_t w;

		if (n > r->len - off)
			n = r->len - off;
		w = xwrite(C_RACE, r->fd, r->payload + off, n);
		if (w < 0) {
			if (!one_of(errno, load_errs))
				bad(C_RACE, "load write of %zu bytes: errno %d", n, errno);
			atomic_store(&r->ended, 1);
			break;
		}
		if ((size_t)w != n)
			bad(C_RACE, "load write of %zu bytes returned %zd", n, w);
		atomic_fetch_add(&r->accepted, (size_t)w);
		off += n;
	}
}

static void *race_peer(void *arg)
{
	struct race *r = arg;
	unsigned int s = seed();

	for (;;) {
		pthread_barrier_wait(&r->bar);	/* round starts */
		if (r->fd < 0)
			return NULL;
		if (r->slow) {
			/* the rest of the header, from a page not mapped */
			madvise(r->payload, 4096, MADV_DONTNEED);
			race_one(r, r->payload + 100, HDR - 100);
		} else {
			race_write(r, &s);
		}
		pthread_barrier_wait(&r->bar);	/* round ends */
	}
}

static void *race_lead(void *arg)
{
	struct race r = { .fd = -1 };
	unsigned char *buf, *copy;
	unsigned int s = seed();
	size_t cap = 64 * 1024;
	pthread_t peer, lk;

	(void)arg;
	/* shared: a page dropped with MADV_DONTNEED keeps its bytes */
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	copy = malloc(cap);
	if (buf == MAP_FAILED || !copy)
		return NULL;
	r.payload = buf;
	pthread_barrier_init(&r.bar, NULL, 2);
	pthread_create(&peer, NULL, race_peer, &r);
	pthread_create(&lk, NULL, locker, NULL);
	while (!stopping()) {
		unsigned int k = rnd(&s) % 4;
		size_t i;

		/* a header (the real blob's, or announcing little), then
		 * the real blob's bytes, or garbage; cut short or whole */
		if (k == 0 && blob_len >= HDR) {
			r.len = blob_len < cap ? blob_len : HDR + rnd(&s) % (cap - HDR);
			memcpy(buf, blob, r.len);
		} else {
			uint32_t sec = 1 + rnd(&s) % (cap - HDR - 64);

			small_header(buf, sec);
			r.len = HDR + sec + (k == 1 ? 64 : 0);
			for (i = HDR; i < r.len; i++)
				buf[i] = rnd(&s);
		}
		r.want = blob_total(buf);
		r.slow = rnd(&s) % 2;
		atomic_store(&r.accepted, 0);
		atomic_store(&r.ended, 0);
		r.fd = xopen(C_RACE, "load", O_WRONLY);
		if (r.fd < 0) {
			bad(C_RACE, "open load: errno %d", errno);
			break;
		}
		if (r.slow) {
			/*
			 * 100 bytes of the header; then the peer writes the
			 * rest from a page that is not mapped (its copy
			 * stalls), and this thread the same bytes and some
			 * of the section from a mapped copy: one of the two
			 * completes the header (the file's buffer is made
			 * the blob's size) while the other is in its copy.
			 */
			memcpy(copy, buf, r.len);
			race_one(&r, copy, 100);
			pthread_barrier_wait(&r.bar);
			spin_us(rnd(&s) % 300);
			race_one(&r, copy + 100, HDR - 100 + rnd(&s) % (r.len - HDR + 1));
		} else {
			pthread_barrier_wait(&r.bar);
			race_write(&r, &s);
		}
		pthread_barrier_wait(&r.bar);
		/*
		 * Each byte a write accepted is in the blob: two writers on
		 * one open file together never have more than it announced.
		 */
		if (r.want && atomic_load(&r.accepted) > r.want)
			bad(C_RACE, "writers of one open file: %zu bytes accepted of a %zu-byte blob",
			    atomic_load(&r.accepted), r.want);
		if (r.want && atomic_load(&r.accepted) >= HDR)
			atomic_fetch_add(&S->race_hdr_done, 1);
		xclose(C_RACE, r.fd);
		atomic_fetch_add(&S->race_rounds, 1);
	}
	r.fd = -1;
	pthread_barrier_wait(&r.bar);
	pthread_join(peer, NULL);
	pthread_join(lk, NULL);
	munmap(buf, cap);
	free(copy);
	return NULL;
}

/* ---- load: one writer, inputs that must be refused ---------------------- */

static void *load_bad(void *arg)
{
	unsigned char h[HDR + 4096 + 8];
	unsigned int s = seed();

	(void)arg;
	while (!stopping()) {
		unsigned int k = rnd(&s) % 8, i, n;
		int fd = xopen(C_LOADBAD, "load", O_WRONLY);
		ssize_t w = 0;
		int expect_fail = 1;

		if (fd < 0) {
			bad(C_LOADBAD, "open load: errno %d", errno);
			break;
		}
		switch (k) {
		case 0:		/* random bytes: no magic */
			n = 1 + rnd(&s) % 512;
			for (i = 0; i < n; i++)
				h[i] = rnd(&s);
			h[0] = 'X';
			w = xwrite(C_LOADBAD, fd, h, n);
			expect_fail = n >= 8;
			break;
		case 1:		/* a header announcing more than 64 MiB */
			small_header(h, MAX_SEC + 1 + rnd(&s) % 1000);
			w = xwrite(C_LOADBAD, fd, h, HDR);
			break;
		case 2:		/* header, garbage body: checksum or parse */
			n = 16 + rnd(&s) % 4096;
			small_header(h, n);
			for (i = HDR; i < HDR + n; i++)
				h[i] = rnd(&s);
			w = xwrite(C_LOADBAD, fd, h, HDR + n);
			break;
		case 3:		/* oversized: the blob and more, one write */
			n = 16 + rnd(&s) % 1024;
			small_header(h, n);
			for (i = HDR; i < HDR + n + 8; i++)
				h[i] = rnd(&s);
			w = xwrite(C_LOADBAD, fd, h, HDR + n + 8);
			break;
		case 4:		/* partial: cut short, then closed */
			small_header(h, 4096);
			w = xwrite(C_LOADBAD, fd, h, 1 + rnd(&s) % (HDR + 100));
			expect_fail = 0;
			break;
		case 5:		/* an empty write: 0, or refused (EINVAL) */
			w = xwrite(C_LOADBAD, fd, h, 0);
			expect_fail = 0;
			if (w > 0 || (w < 0 && errno != EINVAL))
				bad(C_LOADBAD, "an empty write returned %zd (errno %d)", w, errno);
			break;
		case 6:		/* a bad user pointer after a good start */
			small_header(h, 64);
			if (xwrite(C_LOADBAD, fd, h, 100) != 100)
				bad(C_LOADBAD, "100 header bytes refused: errno %d", errno);
			w = xwrite(C_LOADBAD, fd, noaccess, 200);
			break;
		default:	/* byte by byte into a header, then garbage */
			small_header(h, 32);
			for (i = 0; i < HDR + 32 && w >= 0; i++) {
				if (i >= HDR)
					h[i] = rnd(&s);
				w = xwrite(C_LOADBAD, fd, h + i, 1);
			}
			break;
		}
		if (w >= 0 && expect_fail)
			bad(C_LOADBAD, "load case %u: a write that must fail returned %zd", k, w);
		else if (w < 0 && !one_of(errno, load_errs))
			bad(C_LOADBAD, "load case %u: errno %d", k, errno);
		/* once ended, every write is refused (an empty write or a
		 * fault does not end it) */
		if (w < 0 && k != 5 && errno != EFAULT) {
			if (xwrite(C_LOADBAD, fd, h, 16) >= 0)
				bad(C_LOADBAD, "load case %u: a write after the end accepted", k);
		}
		xclose(C_LOADBAD, fd);
	}
	return NULL;
}

/* ---- load and unload of a real blob while walks run ---------------------- */

static int load_whole(unsigned int *s)
{
	int fd = xopen(C_RELOAD, "load", O_WRONLY), e = 0;
	size_t off = 0;

	if (fd < 0)
		return errno;
	while (off < blob_len) {
		size_t n = rnd(s) % 2 ? blob_len - off : 1 + rnd(s) % 65536;
		ssize_t w;

		if (n > blob_len - off)
			n = blob_len - off;
		w = xwrite(C_RELOAD, fd, blob + off, n);
		if (w < 0) {
			e = errno;
			break;
		}
		off += w;
	}
	xclose(C_RELOAD, fd);
	return e;
}

static void *reload(void *arg)
{
	static const char *const junk[] = {
		"", "vmlinux", "vmlinux nosuch", "nosuch eh_frame",
		"vmlinux eh_frame debug_frame sframe extra words", " \t\n",
	};
	unsigned int s = seed();
	int e;

	(void)arg;
	while (!stopping()) {
		int fd = xopen(C_RELOAD, "unload", O_WRONLY);
		const char *j;

		if (fd < 0) {
			bad(C_RELOAD, "open unload: errno %d", errno);
			break;
		}
		j = junk[rnd(&s) % (sizeof(junk) / sizeof(junk[0]))];
		if (xwrite(C_RELOAD, fd, j, strlen(j)) >= 0 && *j && strchr(j, ' '))
			bad(C_RELOAD, "unload '%s' accepted", j);
		if (unload_line[0] && blob_len) {
			if (xwrite(C_RELOAD, fd, unload_line, strlen(unload_line)) >= 0)
				atomic_fetch_add(&S->unloads, 1);
			else if (errno != ENOENT && errno != EPERM)
				bad(C_RELOAD, "unload '%s': errno %d", unload_line, errno);
		}
		xclose(C_RELOAD, fd);
		if (!blob_len) {
			usleep(2000);
			continue;
		}
		usleep(rnd(&s) % 3000);
		e = load_whole(&s);
		if (!e)
			atomic_fetch_add(&S->reloads, 1);
		else if (e != EEXIST)
			bad(C_RELOAD, "the real blob: errno %d", e);
		usleep(rnd(&s) % 5000);
	}
	return NULL;
}

/* ---- backtrace --------------------------------------------------------- */

static int shared_bt[4];

static void push_pid(pid_t p)
{
	unsigned int i = atomic_fetch_add(&S->pidpos, 1) % 256;

	atomic_store(&S->pids[i], p);
}

static pid_t some_pid(unsigned int *s)
{
	pid_t p = atomic_load(&S->pids[rnd(s) % 256]);

	return p > 0 ? p : 1;
}

/* read everything: returns bytes, the text in buf (NUL-terminated) */
static ssize_t read_all(enum cat c, int fd, char *buf, size_t cap, unsigned int *s)
{
	size_t got = 0;

	for (;;) {
		size_t n = 1 + rnd(s) % (rnd(s) % 4 ? 4096 : 17);
		ssize_t r;

		if (n > cap - 1 - got)
			n = cap - 1 - got;
		if (!n)
			break;
		r = read(fd, buf + got, n);
		op(c);
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += r;
	}
	buf[got] = 0;
	return got;
}

/* a walk's text ends with its stop reason and reliable flag */
static int bt_whole(const char *t)
{
	return (!strncmp(t, "stop: ", 6) || strstr(t, "\nstop: ")) &&
	       strstr(t, "\nreliable: ");
}

static void *bt_worker(void *arg)
{
	static const char *const junk[] = { "", "pid", "pid -1", "pid x",
		"selfish", "pid 99999999", "all please" };
	size_t cap = 2 << 20;
	char *buf = malloc(cap), cmd[32];
	unsigned int s = seed();
	int mine = -1;

	(void)arg;
	while (!stopping()) {
		unsigned int k = rnd(&s) % 100;
		int shared = rnd(&s) % 3 == 0;
		int fd = shared ? shared_bt[rnd(&s) % 4] : mine;
		ssize_t w;

		if (!shared && (fd < 0 || rnd(&s) % 8 == 0)) {
			xclose(C_BT, mine);
			mine = fd = xopen(C_BT, "backtrace", O_RDWR);
			if (fd < 0) {
				bad(C_BT, "open backtrace: errno %d", errno);
				break;
			}
		}
		if (k < 45) {
			strcpy(cmd, "self");
		} else if (k < 90) {
			snprintf(cmd, sizeof(cmd), "pid %d", some_pid(&s));
		} else if (k < 92) {
			strcpy(cmd, "all");
			atomic_fetch_add(&S->bt_all, 1);
		} else {
			strcpy(cmd, junk[k % 7]);
		}
		w = xwrite(C_BT, fd, cmd, strlen(cmd));
		if (w < 0) {
			if (errno == ESRCH && k >= 45) {
				if (k < 90)
					atomic_fetch_add(&S->bt_pid_gone, 1);
			} else if (!(errno == EINVAL && k >= 92) && errno != ENOMEM &&
				   errno != EPERM) {
				bad(C_BT, "write '%s': errno %d", cmd, errno);
			}
			continue;
		}
		if (k >= 92)
			bad(C_BT, "write '%s' accepted", cmd);
		if (shared) {
			if (rnd(&s) % 2)
				lseek(fd, 0, SEEK_SET);
			op(C_BT);
			if (read_all(C_BT, fd, buf, 8192, &s) < 0)
				bad(C_BT, "read of a shared backtrace file: errno %d", errno);
			continue;
		}
		/* our own open file: our own walk, whole */
		if (read_all(C_BT, fd, buf, cap, &s) < 0) {
			bad(C_BT, "read backtrace: errno %d", errno);
			continue;
		}
		if (!bt_whole(buf) && !(k >= 90 && strstr(buf, "truncated\n")))
			bad(C_BT, "'%s': no stop/reliable lines in %zu bytes", cmd, strlen(buf));
		else if (k < 45)
			atomic_fetch_add(&S->bt_self_ok, 1);
	}
	xclose(C_BT, mine);
	free(buf);
	return NULL;
}

/* ---- fork, exit and exec storms; inherited open files -------------------- */

static int child_main(int fd)
{
	char buf[32768];
	size_t got = 0;
	ssize_t r;

	if (write(fd, "self", 4) != 4)
		return 2;
	lseek(fd, 0, SEEK_SET);
	while ((r = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += r;
	buf[got] = 0;
	return bt_whole(buf) ? 0 : 3;
}

static void *fork_storm(void *arg)
{
	unsigned int s = seed();
	int inh;

	(void)arg;
	/* an open file the children inherit, across exec too */
	inh = xopen(C_EXEC, "backtrace", O_RDWR);
	if (inh < 0) {
		bad(C_EXEC, "open backtrace: errno %d", errno);
		return NULL;
	}
	fcntl(inh, F_SETFD, 0);
	while (!stopping()) {
		unsigned int k = rnd(&s) % 8;
		pid_t p = fork();
		int st;

		atomic_fetch_add(&S->forks, 1);
		atomic_fetch_add(&S->ops, 1);
		if (p < 0) {
			usleep(1000);
			continue;
		}
		if (!p) {
			char a[16];

			if (k < 4)
				_exit(0);
			if (k < 7)
				_exit(child_main(inh));
			snprintf(a, sizeof(a), "%d", inh);
			execl(self_exe, "kuw-stress", "--child", a, (char *)NULL);
			_exit(4);
		}
		push_pid(p);
		if (waitpid(p, &st, 0) == p && k >= 4) {
			op(C_EXEC);
			if (WIFEXITED(st) && !WEXITSTATUS(st))
				atomic_fetch_add(&S->exec_ok, 1);
			else
				bad(C_EXEC, "child (%s) ended with status 0x%x",
				    k < 7 ? "fork" : "exec", st);
		}
	}
	xclose(C_EXEC, inh);
	return NULL;
}

/* short-lived threads: tasks that come and go under "pid N" and "all" */
static void *short_thread(void *arg)
{
	push_pid(syscall(SYS_gettid));
	usleep((uintptr_t)arg);
	return NULL;
}

static void *thread_storm(void *arg)
{
	unsigned int s = seed();

	(void)arg;
	while (!stopping()) {
		pthread_t t;

		if (!pthread_create(&t, NULL, short_thread,
				    (void *)(uintptr_t)(rnd(&s) % 500)))
			pthread_join(t, NULL);
		atomic_fetch_add(&S->ops, 1);
	}
	return NULL;
}

/* ---- rules -------------------------------------------------------------- */

static const char *const rule_syms[] = {
	"vfs_read", "vfs_write", "schedule", "vfs_write+0x8", "kunwind_start",
	"kunwind_next_frame", "vfs_read+0x10", "schedule+0x4",
};

static int rules_shared = -1;

static void *rules_worker(void *arg)
{
	static const char *const junk[] = { "", "no_such_symbol_here",
		"vfs_read nosuch_src", "+0x10", "vfs_read+zz", "0xzz" };
	char buf[4096], line[300];
	unsigned int s = seed();
	int mine = -1;

	(void)arg;
	while (!stopping()) {
		unsigned int k = rnd(&s) % 16;
		const char *sym = rule_syms[rnd(&s) % 8];
		int shared = rnd(&s) % 2, fd;
		ssize_t w;

		if (mine < 0 || rnd(&s) % 16 == 0) {
			xclose(C_RULES, mine);
			mine = xopen(C_RULES, "rules", O_RDWR);
			if (mine < 0) {
				bad(C_RULES, "open rules: errno %d", errno);
				break;
			}
		}
		fd = shared ? rules_shared : mine;
		if (k == 0) {		/* too long */
			memset(line, 'a', sizeof(line) - 1);
			line[sizeof(line) - 1] = 0;
		} else if (k < 3) {
			strcpy(line, junk[rnd(&s) % 6]);
		} else {
			snprintf(line, sizeof(line), "%s%s", sym,
				 k == 3 ? " eh_frame" : k == 4 ? " sframe" : "");
		}
		w = xwrite(C_RULES, fd, line, strlen(line));
		if (k < 3) {
			if (w >= 0)
				bad(C_RULES, "rules '%.40s' accepted", line);
			else if (errno != EINVAL && errno != EPERM)
				bad(C_RULES, "rules '%.40s': errno %d", line, errno);
			continue;
		}
		if (w < 0) {
			/* a module's symbol may be gone; sframe may be absent */
			if (errno != EINVAL && errno != EPERM)
				bad(C_RULES, "rules '%s': errno %d", line, errno);
			continue;
		}
		lseek(fd, 0, SEEK_SET);
		op(C_RULES);
		if (read_all(C_RULES, fd, buf, sizeof(buf), &s) < 0) {
			bad(C_RULES, "read rules: errno %d", errno);
			continue;
		}
		if (!shared) {
			/* our own open file answers our own write */
			size_t l = strcspn(sym, "+");

			if (strncmp(buf, sym, l) || (buf[l] != '+' && buf[l] != '\n'))
				bad(C_RULES, "rules: wrote '%s' on this open file, read '%.60s'",
				    sym, buf);
			else
				atomic_fetch_add(&S->rules_own, 1);
		}
	}
	xclose(C_RULES, mine);
	return NULL;
}

/* ---- consumers; /proc/PID/stack; perf ------------------------------------ */

static void *consumers_worker(void *arg)
{
	char buf[4096];
	unsigned int s = seed();
	int on = 1;

	(void)arg;
	while (!stopping()) {
		int fd = xopen(C_CONS, "consumers", O_RDWR);

		if (fd < 0) {
			bad(C_CONS, "open consumers: errno %d", errno);
			break;
		}
		if (switch_role) {
			on = !on;
			if (xwrite(C_CONS, fd, on ? "1" : "0", 1) < 0) {
				if (errno != EPERM && errno != EBUSY)
					bad(C_CONS, "switch %d: errno %d", on, errno);
			} else {
				atomic_fetch_add(&S->flips, 1);
			}
			if (xwrite(C_CONS, fd, "2", 1) >= 0)
				bad(C_CONS, "switch '2' accepted");
		}
		if (read_all(C_CONS, fd, buf, sizeof(buf), &s) < 0 || !buf[0])
			bad(C_CONS, "read consumers: errno %d", errno);
		xclose(C_CONS, fd);
		usleep(switch_role ? 20000 + rnd(&s) % 30000 : 2000);
	}
	return NULL;
}

static void *procstack_worker(void *arg)
{
	char p[64], buf[8192];
	unsigned int s = seed();

	(void)arg;
	while (!stopping()) {
		pid_t pid = rnd(&s) % 3 ? some_pid(&s) : (pid_t)(1 + rnd(&s) % 64);
		int fd;

		snprintf(p, sizeof(p), "/proc/%d/stack", pid);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0 && errno != ESRCH &&
			    errno != ENOENT)
				bad(C_CONS, "%s: errno %d", p, errno);
			close(fd);
		}
		atomic_fetch_add(&S->procstack, 1);
		atomic_fetch_add(&S->ops, 1);
	}
	return NULL;
}

static int perf_fds[16], nperf;
static void *perf_maps[16];
#define PERF_PAGES 8

static int perf_setup(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), c;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 200000;	/* ns: 5 kHz per CPU */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.wakeup_events = 16;
	for (c = 0; c < ncpu && c < 16; c++) {
		int fd = syscall(SYS_perf_event_open, &a, -1, (int)c, -1,
				 PERF_FLAG_FD_CLOEXEC);
		void *m;

		if (fd < 0)
			return -errno;
		m = mmap(NULL, (1 + PERF_PAGES) * 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			return -errno;
		}
		perf_fds[nperf] = fd;
		perf_maps[nperf++] = m;
	}
	return 0;
}

static void *perf_reader(void *arg)
{
	(void)arg;
	while (!stopping()) {
		struct pollfd pf[16];
		int i;

		for (i = 0; i < nperf; i++) {
			pf[i].fd = perf_fds[i];
			pf[i].events = POLLIN;
		}
		poll(pf, nperf, 100);
		for (i = 0; i < nperf; i++) {
			struct perf_event_mmap_page *h = perf_maps[i];
			unsigned char *data = (unsigned char *)h + 4096;
			uint64_t size = PERF_PAGES * 4096, head, tail;

			head = __atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE);
			tail = h->data_tail;
			while (tail < head) {
				struct perf_event_header eh;

				memcpy(&eh, data + tail % size, sizeof(eh));
				if (!eh.size)
					break;
				if (eh.type == PERF_RECORD_SAMPLE) {
					/* ip, pid/tid, nr, ips[nr] */
					uint64_t nr, v, j, o = tail + sizeof(eh) + 16;
					int kern = 0;

					memcpy(&nr, data + o % size, 8);
					for (j = 0; j < nr && j < 512; j++) {
						o += 8;
						memcpy(&v, data + o % size, 8);
						if (v == (uint64_t)PERF_CONTEXT_KERNEL)
							kern = 1;
						else if (v >= (uint64_t)PERF_CONTEXT_MAX)
							kern = 0;
						else if (kern)
							atomic_fetch_add(&S->perf_kframes, 1);
					}
					atomic_fetch_add(&S->perf_samples, 1);
					op(C_PERF);
				}
				tail += eh.size;
			}
			__atomic_store_n(&h->data_tail, tail, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/* ---- rmmod while open ----------------------------------------------------- */

static void *rmmod_worker(void *arg)
{
	(void)arg;
	while (!stopping()) {
		long r = syscall(SYS_delete_module, "kunwind", O_NONBLOCK);

		op(C_RMMOD);
		if (!r) {
			bad(C_RMMOD, "delete_module(kunwind) succeeded with its nodes open");
			atomic_store(&S->stop, 1);
			break;
		}
		if (errno == EBUSY || errno == EAGAIN || errno == EWOULDBLOCK)
			atomic_fetch_add(&S->rmmod_refused, 1);
		else
			bad(C_RMMOD, "delete_module(kunwind): errno %d", errno);
		usleep(5000);
	}
	return NULL;
}

/* ---- unprivileged openers ---------------------------------------------- */

static int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d);
}

/* one child: as uid 0 without capabilities, or as uid 65534 */
static int unpriv_child(int nonroot, int inherited_bt, int inherited_load)
{
	static const char *const nodes[] = { "load", "unload", "rules",
					      "backtrace", "consumers" };
	static const char *const what[] = { "KUWBLOB", "vmlinux eh_frame",
					    "vfs_read", "self", "1" };
	int i, bads = 0;

	if (nonroot) {
		if (setgid(65534) || setuid(65534))
			return 10;
	} else if (drop_caps()) {
		return 11;
	}
	for (i = 0; i < 5; i++) {
		char p[64];
		int fd;

		snprintf(p, sizeof(p), DEV "%s", nodes[i]);
		fd = open(p, O_RDWR);
		atomic_fetch_add(&S->ops, 1);
		atomic_fetch_add(&S->n[C_UNPRIV], 1);
		if (fd < 0) {
			if (errno != EACCES && errno != EPERM)
				bads++;
			atomic_fetch_add(&S->unpriv_refused, 1);
			continue;
		}
		if (nonroot)	/* 0600 root: never opened by another uid */
			bads++;
		/* a write that was not refused must not hurt: 1 is already on */
		if (i == 4 || i == 1)
			close(fd), fd = -1;
		if (fd >= 0) {
			if (write(fd, what[i], strlen(what[i])) < 0)
				atomic_fetch_add(&S->unpriv_refused, 1);
			else
				atomic_fetch_add(&S->unpriv_allowed, 1);
			close(fd);
		}
	}
	/* files root opened, written through after the privileges went */
	if (write(inherited_bt, "self", 4) < 0 && errno != EPERM && errno != EACCES)
		bads++;
	if (write(inherited_load, "garbage!", 8) >= 0)
		bads++;
	return bads ? 20 + bads : 0;
}

static void *unpriv_worker(void *arg)
{
	unsigned int s = seed();

	(void)arg;
	while (!stopping()) {
		int nonroot = rnd(&s) % 2, st;
		int bt = xopen(C_UNPRIV, "backtrace", O_RDWR);
		int ld = xopen(C_UNPRIV, "load", O_WRONLY);
		pid_t p;

		p = fork();
		if (!p)
			_exit(unpriv_child(nonroot, bt, ld));
		xclose(C_UNPRIV, bt);
		xclose(C_UNPRIV, ld);
		if (p < 0)
			continue;
		push_pid(p);
		if (waitpid(p, &st, 0) == p && !(WIFEXITED(st) && !WEXITSTATUS(st)))
			bad(C_UNPRIV, "%s child: status 0x%x", nonroot ? "uid 65534" : "capless uid 0", st);
		usleep(2000 + rnd(&s) % 8000);
	}
	return NULL;
}

/* ---- main ------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: kuw-stress [-d SECONDS] [-n OPS] [-b BLOB] [-u 'OWNER SECTION'] [-w N] [-s] [-p] [-v]\n"
		"       kuw-stress --child FD\n");
	exit(2);
}

static int read_blob(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return -1;
	blob_len = st.st_size;
	blob = malloc(blob_len + 1);
	if (!blob || read(fd, blob, blob_len) != (ssize_t)blob_len)
		return -1;
	close(fd);
	if (blob_len < HDR || blob_total(blob) != blob_len) {
		fprintf(stderr, "%s: not a whole blob\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int nth = 0, i, c, perr = 0, nres = 0, failed = 0;
	double secs = 60, t0;
	unsigned long n;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(atoi(argv[2]));
	while ((c = getopt(argc, argv, "d:n:b:u:w:spv")) != -1) {
		switch (c) {
		case 'd': secs = atof(optarg); break;
		case 'n': target_ops = strtoul(optarg, NULL, 0); break;
		case 'b':
			if (read_blob(optarg))
				return 2;
			break;
		case 'u': snprintf(unload_line, sizeof(unload_line), "%s", optarg); break;
		case 'w': nbt = atoi(optarg); break;
		case 's': switch_role = 1; break;
		case 'p': perf_on = 1; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (nbt < 1 || nbt > 32)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t0 = now();
	deadline = t0 + secs;
	for (i = 0; i < 8; i++) {
		static const char *const keep[] = { "load", "unload", "rules",
			"backtrace", "consumers", "backtrace", "rules", "load" };

		keep_fds[i] = xopen(C_RMMOD, keep[i], i == 0 || i == 1 || i == 7 ?
				    O_WRONLY : O_RDWR);
		if (keep_fds[i] < 0) {
			printf("# open %s: %s\n", keep[i], strerror(errno));
			printf("KTAP version 1\n1..1\nnot ok 1 kuw-stress: the nodes of /dev/kunwind open\n");
			return 1;
		}
	}
	for (i = 0; i < 4; i++)
		shared_bt[i] = xopen(C_BT, "backtrace", O_RDWR);
	rules_shared = keep_fds[2];
	if (perf_on)
		perr = perf_setup();

	pthread_create(&th[nth++], NULL, race_lead, NULL);
	pthread_create(&th[nth++], NULL, race_lead, NULL);
	pthread_create(&th[nth++], NULL, load_bad, NULL);
	pthread_create(&th[nth++], NULL, reload, NULL);
	for (i = 0; i < nbt; i++)
		pthread_create(&th[nth++], NULL, bt_worker, NULL);
	pthread_create(&th[nth++], NULL, fork_storm, NULL);
	pthread_create(&th[nth++], NULL, fork_storm, NULL);
	pthread_create(&th[nth++], NULL, thread_storm, NULL);
	pthread_create(&th[nth++], NULL, rules_worker, NULL);
	pthread_create(&th[nth++], NULL, rules_worker, NULL);
	pthread_create(&th[nth++], NULL, rules_worker, NULL);
	pthread_create(&th[nth++], NULL, consumers_worker, NULL);
	pthread_create(&th[nth++], NULL, procstack_worker, NULL);
	pthread_create(&th[nth++], NULL, procstack_worker, NULL);
	pthread_create(&th[nth++], NULL, rmmod_worker, NULL);
	pthread_create(&th[nth++], NULL, unpriv_worker, NULL);
	if (perf_on && !perr)
		pthread_create(&th[nth++], NULL, perf_reader, NULL);
	while (!stopping()) {
		usleep(250000);
		if (verbose)
			fprintf(stderr, "%.0f s: %lu ops\n", now() - t0,
				(unsigned long)atomic_load(&S->ops));
	}
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);

	/* leave the real blob's table in, as found */
	if (blob_len) {
		unsigned int s = seed();
		int e = load_whole(&s);

		if (e && e != EEXIST)
			bad(C_RELOAD, "the real blob at the end: errno %d", e);
	}
	for (i = 0; i < 4; i++)
		xclose(C_BT, shared_bt[i]);
	for (i = 0; i < 8; i++)
		xclose(C_RMMOD, keep_fds[i]);

	n = atomic_load(&S->ops);
	printf("KTAP version 1\n1..%d\n", C__N + 1);
	for (i = 0; i < atomic_load(&S->nmsg) && i < NMSG; i++)
		printf("# %s\n", S->msg[i]);
	for (i = 0; i < C__N; i++) {
		unsigned long b = atomic_load(&S->bad[i]), k = atomic_load(&S->n[i]);
		char extra[200] = "";
		const char *skip = NULL;

		switch (i) {
		case C_RACE:
			snprintf(extra, sizeof(extra), ", %lu rounds, %lu past the header",
				 (unsigned long)S->race_rounds, (unsigned long)S->race_hdr_done);
			if (!S->race_hdr_done)
				b++;
			break;
		case C_RELOAD:
			if (!blob_len)
				skip = "no blob given (-b)";
			snprintf(extra, sizeof(extra), ", %lu unloads, %lu loads",
				 (unsigned long)S->unloads, (unsigned long)S->reloads);
			if (blob_len && unload_line[0] && !S->reloads)
				b++;
			break;
		case C_BT:
			snprintf(extra, sizeof(extra), ", %lu self walks whole, %lu of pid N gone, %lu all, %lu forks",
				 (unsigned long)S->bt_self_ok, (unsigned long)S->bt_pid_gone,
				 (unsigned long)S->bt_all, (unsigned long)S->forks);
			if (!S->bt_self_ok)
				b++;
			break;
		case C_EXEC:
			snprintf(extra, sizeof(extra), ", %lu children walked themselves",
				 (unsigned long)S->exec_ok);
			if (!S->exec_ok)
				b++;
			break;
		case C_RULES:
			snprintf(extra, sizeof(extra), ", %lu own answers", (unsigned long)S->rules_own);
			if (!S->rules_own)
				b++;
			break;
		case C_CONS:
			snprintf(extra, sizeof(extra), ", %lu switch flips, %lu /proc/PID/stack reads",
				 (unsigned long)S->flips, (unsigned long)S->procstack);
			if (switch_role && !S->flips)
				b++;
			break;
		case C_RMMOD:
			snprintf(extra, sizeof(extra), ", %lu refused", (unsigned long)S->rmmod_refused);
			if (!S->rmmod_refused)
				b++;
			break;
		case C_UNPRIV:
			snprintf(extra, sizeof(extra), ", %lu refused, %lu allowed",
				 (unsigned long)S->unpriv_refused, (unsigned long)S->unpriv_allowed);
			break;
		case C_PERF:
			if (!perf_on)
				skip = "not asked (-p)";
			else if (perr)
				skip = strerror(-perr);
			snprintf(extra, sizeof(extra), ", %lu samples, %lu kernel frames",
				 (unsigned long)S->perf_samples, (unsigned long)S->perf_kframes);
			if (!skip && !S->perf_kframes)
				b++;
			break;
		}
		printf("# %s: %lu ops%s, %lu wrong\n", cat_name[i], k, extra, b);
		nres++;
		if (skip) {
			printf("ok %d %s # SKIP %s\n", nres, cat_name[i], skip);
		} else if (b) {
			printf("not ok %d %s\n", nres, cat_name[i]);
			failed = 1;
		} else {
			printf("ok %d %s\n", nres, cat_name[i]);
		}
	}
	printf("# kuw-stress: %lu ops in %.1f s (%.0f/s), target %lu\n", n,
	       now() - t0, n / (now() - t0), target_ops);
	nres++;
	if (n >= target_ops) {
		printf("ok %d stress: %lu operations\n", nres, n);
	} else {
		printf("not ok %d stress: %lu operations, fewer than %lu\n", nres, n, target_ops);
		failed = 1;
	}
	return failed;
}
