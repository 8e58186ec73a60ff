// SPDX-License-Identifier: GPL-2.0
/*
 * kunwind-dump load: give kunwind.ko the unwind tables of a stock kernel
 * from its debug package, on the running system.
 *
 * The kernel image: the first debug vmlinux found at the usual paths
 * (Debian/Ubuntu /usr/lib/debug/boot/vmlinux-VER, Fedora
 * /usr/lib/debug/lib/modules/VER/vmlinux, then /boot and the build tree)
 * whose GNU build id is the running kernel's (/sys/kernel/notes).
 * Modules: each loaded module (a /sys/module/NAME with an initstate), or
 * each one named, from NAME.ko or NAME.ko.debug anywhere under
 * /usr/lib/debug/lib/modules/VER/, when its build id is the loaded
 * module's (/sys/module/NAME/notes/.note.gnu.build-id).  Each is exported
 * as kunwind-dump export does and written to /dev/kunwind/load, which
 * checks the build id again and relocates module tables itself.
 *
 * One line per object: "loaded", "skipped" (no debug file, another build,
 * already loaded) or "failed"; then a count.  Exit 1 when one failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "dump.h"

#define LOAD_MAX_DEPTH	12
#define LOAD_PATH	4096

struct load_ctx {
	const char *root;	/* prefix of the debug file paths */
	const char *sys;	/* sysfs */
	const char *dev;	/* where kunwind/load is: /dev */
	char kver[256];
	bool dry;
	unsigned int loaded, skipped, failed;
	/* module debug files found under the debug tree */
	struct load_file {
		char name[KUW_BLOB_OWNER_MAX];
		char *path;
	} *files;
	size_t nfiles, capfiles;
};

static int read_small(const char *path, u8 *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	return n > 0 ? (int)n : -1;
}

static void hex(const u8 *id, u32 n, char *out)
{
	u32 i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* The build id of the running kernel or of a loaded module, as hex. */
static int running_id(const struct load_ctx *c, const char *owner,
		      char *out, char *path, size_t pathlen)
{
	u8 notes[4096];
	const u8 *id;
	u32 len;
	int n;

	if (!strcmp(owner, "vmlinux"))
		snprintf(path, pathlen, "%s/kernel/notes", c->sys);
	else
		snprintf(path, pathlen, "%s/module/%s/notes/.note.gnu.build-id",
			 c->sys, owner);
	n = read_small(path, notes, sizeof(notes));
	if (n <= 0 || kuw_note_build_id(notes, n, &id, &len))
		return -1;
	hex(id, len, out);
	return 0;
}

/* Write one blob to kunwind/load in one write: 0 or an errno. */
static int write_blob(const struct load_ctx *c, const u8 *buf, u64 len)
{
	char path[LOAD_PATH];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/kunwind/load", c->dev);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = errno;
	else if ((u64)n != len)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

/*
 * Export @path and load it as @owner's table.  1 when it was of another
 * build (try the next candidate), else 0.
 */
static int load_one(struct load_ctx *c, const char *owner, const char *path,
		    bool last)
{
	char want[2 * KUW_BLOB_ID_MAX + 1], have[2 * KUW_BLOB_ID_MAX + 1];
	char idpath[LOAD_PATH];
	struct kuw_blob b;
	u8 *buf = NULL;
	u64 len;
	u32 nfde;
	int err;

	if (running_id(c, owner, want, idpath, sizeof(idpath))) {
		printf("skipped %s: no build id of the running %s in %s\n",
		       owner, strcmp(owner, "vmlinux") ? "module" : "kernel",
		       idpath);
		c->skipped++;
		return 0;
	}
	if (kuw_dump_export(path, -1, &buf, &len, &b, &nfde)) {
		printf("failed %s: cannot export %s (see above)\n", owner, path);
		c->failed++;
		return 0;
	}
	hex(b.build_id, b.id_len, have);
	if (strcmp(b.owner, owner)) {
		printf("skipped %s: %s is the debug file of %s\n", owner, path,
		       b.owner);
		c->skipped++;
	} else if (strcmp(have, want)) {
		if (!last) {
			free(buf);
			return 1;
		}
		printf("skipped %s: %s is of another build (build id %s, running %s)\n",
		       owner, path, have, want);
		c->skipped++;
	} else if (c->dry) {
		printf("would load %s from %s (%s, %u FDEs)\n", owner, path,
		       kuw_src_section(b.src), nfde);
		c->loaded++;
	} else if (!(err = write_blob(c, buf, len))) {
		printf("loaded %s from %s (%s, %u FDEs)\n", owner, path,
		       kuw_src_section(b.src), nfde);
		c->loaded++;
	} else if (err == EEXIST) {
		printf("skipped %s: its %s table is already loaded\n", owner,
		       kuw_src_section(b.src));
		c->skipped++;
	} else {
		printf("failed %s: %s/kunwind/load refused %s: %s (dmesg says why)\n",
		       owner, c->dev, path, strerror(err));
		c->failed++;
	}
	fflush(stdout);
	free(buf);
	return 0;
}

static void load_vmlinux(struct load_ctx *c)
{
	static const char *const where[] = {
		"%s/usr/lib/debug/boot/vmlinux-%s",
		"%s/usr/lib/debug/lib/modules/%s/vmlinux",
		"%s/usr/lib/debug/vmlinux-%s",
		"%s/boot/vmlinux-%s",
		"%s/lib/modules/%s/build/vmlinux",
	};
	char paths[5][LOAD_PATH];
	char *real[6] = { NULL };
	struct stat st;
	int i, n = 0, j;

	/* the candidates that exist, each file once (Debian links two) */
	for (i = 0; i < 5; i++) {
		snprintf(paths[n], LOAD_PATH, where[i], c->root, c->kver);
		if (stat(paths[n], &st) || !S_ISREG(st.st_mode))
			continue;
		real[n] = realpath(paths[n], NULL);
		for (j = 0; real[n] && j < n; j++)
			if (real[j] && !strcmp(real[j], real[n]))
				break;
		if (real[n] && j < n)
			free(real[n]);
		else
			n++;
		real[n] = NULL;
	}
	for (i = 0; i < n; i++)
		free(real[i]);
	/* the first of the running build's; of another, say so at the last */
	for (i = 0; i < n; i++)
		if (!load_one(c, "vmlinux", paths[i], i == n - 1))
			return;
	printf("skipped vmlinux: no debug vmlinux of %s under %s/usr/lib/debug, %s/boot or %s/lib/modules (install the kernel's debug package)\n",
	       c->kver, c->root, c->root, c->root);
	c->skipped++;
}

/* Remember NAME.ko / NAME.ko.debug files under @dir. */
static void index_dir(struct load_ctx *c, const char *dir, int depth)
{
	char path[LOAD_PATH];
	struct dirent *de;
	DIR *d;

	if (depth > LOAD_MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name, *ko;
		struct load_file *f;
		struct stat st;
		size_t len, i;

		if (n[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			index_dir(c, path, depth + 1);
			continue;
		}
		ko = strstr(n, ".ko");
		if (!S_ISREG(st.st_mode) || !ko ||
		    (strcmp(ko, ".ko") && strcmp(ko, ".ko.debug")))
			continue;
		len = ko - n;
		if (!len || len >= KUW_BLOB_OWNER_MAX)
			continue;
		if (c->nfiles == c->capfiles) {
			size_t cap = c->capfiles ? 2 * c->capfiles : 256;
			void *v = realloc(c->files, cap * sizeof(*c->files));

			if (!v)
				break;
			c->files = v;
			c->capfiles = cap;
		}
		f = &c->files[c->nfiles];
		f->path = strdup(path);
		if (!f->path)
			break;
		for (i = 0; i < len; i++)
			f->name[i] = n[i] == '-' ? '_' : n[i];
		f->name[len] = 0;
		c->nfiles++;
	}
	closedir(d);
}

static void load_module(struct load_ctx *c, const char *name)
{
	char mod[KUW_BLOB_OWNER_MAX];
	size_t i, n = strlen(name);

	if (n >= sizeof(mod)) {
		printf("skipped %.60s...: not a module name\n", name);
		c->skipped++;
		return;
	}
	for (i = 0; i <= n; i++)
		mod[i] = name[i] == '-' ? '_' : name[i];
	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].name, mod))
			break;
	if (i == c->nfiles) {
		printf("skipped %s: no debug file %s.ko under %s/usr/lib/debug/lib/modules/%s\n",
		       mod, mod, c->root, c->kver);
		c->skipped++;
		return;
	}
	load_one(c, mod, c->files[i].path, true);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every loaded module (sysfs has an initstate for those), sorted. */
static void load_all_modules(struct load_ctx *c)
{
	char path[LOAD_PATH], **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s/module", c->sys);
	d = opendir(path);
	if (!d) {
		printf("skipped modules: cannot list %s: %s\n", path,
		       strerror(errno));
		c->skipped++;
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/module/%s/initstate", c->sys,
			 de->d_name);
		if (stat(path, &st))
			continue;
		if (n == cap) {
			void *v = realloc(names, (cap ? 2 * cap : 64) *
					  sizeof(*names));

			if (!v)
				break;
			names = v;
			cap = cap ? 2 * cap : 64;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		load_module(c, names[i]);
		free(names[i]);
	}
	free(names);
}

/**
 * kuw_cmd_load() - kunwind-dump load
 * @argc: arguments, the command's name first
 * @argv: them
 *
 * Return: EXIT_OK, EXIT_BAD when an object failed to load, EXIT_USAGE.
 */
int kuw_cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "sys", required_argument, NULL, 's' },
		{ "dev", required_argument, NULL, 'd' },
		{ "kver", required_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct load_ctx c = { .root = "", .sys = "/sys",
			      .dev = "/dev" };
	char path[LOAD_PATH];
	struct utsname u;
	struct stat st;
	int opt, i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "r:s:d:k:n", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			c.root = optarg;
			break;
		case 's':
			c.sys = optarg;
			break;
		case 'd':
			c.dev = optarg;
			break;
		case 'k':
			snprintf(c.kver, sizeof(c.kver), "%s", optarg);
			break;
		case 'n':
			c.dry = true;
			break;
		default:
			fprintf(stderr, "kunwind-dump: load: bad option\n");
			return EXIT_USAGE;
		}
	}
	if (!c.kver[0]) {
		if (uname(&u)) {
			perror("kunwind-dump: load: uname");
			return EXIT_USAGE;
		}
		snprintf(c.kver, sizeof(c.kver), "%s", u.release);
	}
	snprintf(path, sizeof(path), "%s/kunwind/load", c.dev);
	if (!c.dry && stat(path, &st)) {
		fprintf(stderr, "kunwind-dump: load: %s: %s (is kunwind.ko loaded?)\n",
			path, strerror(errno));
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/usr/lib/debug/lib/modules/%s", c.root,
		 c.kver);
	index_dir(&c, path, 0);

	if (optind == argc) {
		load_vmlinux(&c);
		load_all_modules(&c);
	}
	for (i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "vmlinux"))
			load_vmlinux(&c);
		else
			load_module(&c, argv[i]);
	}
	printf("kunwind-dump load: %u loaded, %u skipped, %u failed\n",
	       c.loaded, c.skipped, c.failed);
	for (i = 0; i < (int)c.nfiles; i++)
		free(c.files[i].path);
	free(c.files);
	return c.failed ? EXIT_BAD : EXIT_OK;
}
