// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_tools - what tests/e2e/tools.sh does with git, tar and cp -a, done
 * by a static program inside a busybox guest: the same system calls those
 * tools make, each result checked exactly.
 *
 *   vfs_tools LABEL DIR
 *
 * runs every scenario in a fresh subdirectory of DIR and prints one line
 * per scenario, "PASS LABEL:name" or "FAIL LABEL:name: why" (the first
 * check that failed). kernel/run-vm-tests --virtiofs runs it on a virtiofs
 * mount served by Debian's virtiofsd, on one served by rnotifyfs, and on
 * the guest's tmpfs (the native reference for every expectation).
 * Exit status: 0 when every scenario passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *label;
static char why[8192];	/* the first failed check of the scenario */

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (!why[0])						\
			snprintf(why, sizeof(why), __VA_ARGS__);	\
		return;							\
	}								\
} while (0)

/* A check that does not end the scenario (for helpers returning a value). */
static void note(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static int put(const char *path, const void *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The whole file into buf (at most size bytes); its length or -errno. */
static ssize_t get(const char *path, void *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < size &&
	       (n = read(fd, (char *)buf + got, size - got)) > 0)
		got += n;
	close(fd);
	return got;
}

static bool has(const char *path, const char *want)
{
	char buf[4096];
	ssize_t n = get(path, buf, sizeof(buf));

	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}

static void fill(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

static uint64_t hash(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir, but . and ..; count into *n. NULL on error. */
static char **names(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v ? v : calloc(1, sizeof(*v));
}

static void names_free(char **v, int n)
{
	while (n--)
		free(v[n]);
	free(v);
}

/*
 * A description of the tree at dir: one line per object, sorted by path,
 * with type, mode, size, link count, mtime, link target, content hash and
 * xattrs; no inode numbers or ctimes. Appended to *out (malloc'ed).
 */
static void describe(const char *dir, const char *rel, char **out,
		     size_t *len)
{
	char path[4096], line[8192], tgt[512], x[2048];
	static unsigned char data[4 << 20];
	struct stat st;
	char **v;
	int n, i;
	ssize_t k, xl;

	v = names(dir, &n);
	if (!v) {
		note("opendir %s: %s", dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
		if (lstat(path, &st)) {
			note("lstat %s: %s", path, strerror(errno));
			continue;
		}
		tgt[0] = 0;
		k = 0;
		if (S_ISLNK(st.st_mode)) {
			k = readlink(path, tgt, sizeof(tgt) - 1);
			tgt[k < 0 ? 0 : k] = 0;
			k = 0;
		} else if (S_ISREG(st.st_mode)) {
			k = get(path, data, sizeof(data));
		}
		xl = S_ISLNK(st.st_mode) ? 0 :
		     listxattr(path, x, sizeof(x));
		snprintf(line, sizeof(line),
			 "%s%s%s %o %o %lld %lu %lld %s %016llx %zd\n", rel,
			 *rel ? "/" : "", v[i], (unsigned)(st.st_mode >> 12),
			 (unsigned)(st.st_mode & 07777),
			 S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size,
			 S_ISDIR(st.st_mode) ? 0UL : (unsigned long)st.st_nlink,
			 S_ISLNK(st.st_mode) ? 0LL : (long long)st.st_mtime,
			 tgt, (unsigned long long)hash(data, k > 0 ? k : 0),
			 xl < 0 ? 0 : xl);
		*out = realloc(*out, *len + strlen(line) + 1);
		strcpy(*out + *len, line);
		*len += strlen(line);
		if (S_ISDIR(st.st_mode)) {
			char sub[4096];

			snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
				 v[i]);
			describe(path, sub, out, len);
		}
	}
	names_free(v, n);
}

static char *describe_tree(const char *dir)
{
	char *out = strdup("");
	size_t len = 0;

	describe(dir, "", &out, &len);
	return out;
}

/* The source tree of tools.sh's make_source_tree, as tar -x makes it. */
static void sc_tar(void)
{
	static unsigned char blob[100000], back[100000];
	struct timespec t[2] = { { 981173106, 0 }, { 981173106, 0 } };
	char longtxt[5000], buf[64];
	struct stat st, st2;
	char **v;
	int n;

	fill(blob, sizeof(blob), 7);
	memset(longtxt, 'x', sizeof(longtxt));
	CHECK(!mkdir("dir", 0755) && !mkdir("dir/sub", 0755) &&
	      !mkdir("empty", 0755), "mkdir: %s", strerror(errno));
	CHECK(!put("dir/a.txt", "hello\n", 6, 0644), "write a.txt");
	CHECK(!put("dir/sub/blob", blob, sizeof(blob), 0644), "write blob");
	CHECK(!put("long.txt", longtxt, sizeof(longtxt), 0644),
	      "write long.txt");
	CHECK(!symlink("dir/a.txt", "link") &&
	      !symlink("/nonexistent", "dangling"),
	      "symlink: %s", strerror(errno));
	CHECK(!link("dir/a.txt", "dir/hard"), "link: %s", strerror(errno));
	CHECK(!chmod("dir/sub", 0750) && !chmod("long.txt", 0600),
	      "chmod: %s", strerror(errno));
	CHECK(!utimensat(AT_FDCWD, "dir/a.txt", t, 0), "utimensat: %s",
	      strerror(errno));
	v = names(".", &n);
	CHECK(v && n == 5 && !strcmp(v[0], "dangling") &&
	      !strcmp(v[1], "dir") && !strcmp(v[2], "empty") &&
	      !strcmp(v[3], "link") && !strcmp(v[4], "long.txt"),
	      "listing has %d names", n);
	names_free(v, n);
	CHECK(!stat("dir/a.txt", &st) && st.st_mtime == 981173106 &&
	      st.st_nlink == 2 && st.st_size == 6, "a.txt: mtime %ld nlink %lu",
	      (long)st.st_mtime, (unsigned long)st.st_nlink);
	CHECK(!stat("dir/hard", &st2) && st2.st_ino == st.st_ino,
	      "hard link is another inode");
	CHECK(get("dir/sub/blob", back, sizeof(back)) == sizeof(back) &&
	      !memcmp(blob, back, sizeof(blob)), "blob reads back different");
	CHECK(!lstat("dir/sub", &st) && (st.st_mode & 07777) == 0750,
	      "sub mode %o", st.st_mode & 07777);
	CHECK(!lstat("long.txt", &st) && (st.st_mode & 07777) == 0600 &&
	      st.st_size == 5000, "long.txt mode %o size %lld",
	      st.st_mode & 07777, (long long)st.st_size);
	n = readlink("link", buf, sizeof(buf));
	CHECK(n == 9 && !memcmp(buf, "dir/a.txt", 9), "readlink link");
	CHECK(has("link", "hello\n"), "reading through the symlink");
	CHECK(stat("dangling", &st) && errno == ENOENT &&
	      !lstat("dangling", &st) && S_ISLNK(st.st_mode),
	      "dangling symlink");
}

/* cp -a: a copy keeps modes, times, symlinks, hard links and xattrs. */
static int copy_tree(const char *from, const char *to, ino_t *inos,
		     char (*paths)[512], int *nlinks)
{
	char a[512], b[512], buf[512], x[2048], val[4096];
	static unsigned char data[4 << 20];
	struct timespec t[2];
	struct stat st;
	char **v;
	int n, i, j, err = 0;
	ssize_t k, xl, vl;
	char *p;

	if (lstat(from, &st) || mkdir(to, 0700))
		return -errno;
	v = names(from, &n);
	for (i = 0; v && i < n && !err; i++) {
		snprintf(a, sizeof(a), "%s/%s", from, v[i]);
		snprintf(b, sizeof(b), "%s/%s", to, v[i]);
		if (lstat(a, &st))
			return -errno;
		if (S_ISDIR(st.st_mode)) {
			err = copy_tree(a, b, inos, paths, nlinks);
			if (err)
				break;
		} else if (S_ISLNK(st.st_mode)) {
			k = readlink(a, buf, sizeof(buf) - 1);
			buf[k < 0 ? 0 : k] = 0;
			if (symlink(buf, b))
				return -errno;
		} else {
			for (j = 0; j < *nlinks && inos[j] != st.st_ino; j++)
				;
			if (j < *nlinks) {
				if (link(paths[j], b))
					return -errno;
				continue;
			}
			inos[*nlinks] = st.st_ino;
			snprintf(paths[(*nlinks)++], 512, "%s", b);
			k = get(a, data, sizeof(data));
			if (k < 0 || put(b, data, k, 0600))
				return -EIO;
		}
		if (!S_ISLNK(st.st_mode)) {
			xl = listxattr(a, x, sizeof(x));
			for (p = x; xl > 0 && p < x + xl; p += strlen(p) + 1) {
				vl = getxattr(a, p, val, sizeof(val));
				if (vl < 0 || setxattr(b, p, val, vl, 0))
					return -errno;
			}
			if (chmod(b, st.st_mode & 07777))
				return -errno;
		}
		t[0] = st.st_atim;
		t[1] = st.st_mtim;
		if (utimensat(AT_FDCWD, b, t, AT_SYMLINK_NOFOLLOW))
			return -errno;
	}
	names_free(v, n);
	if (!err && !lstat(from, &st)) {
		t[0] = st.st_atim;
		t[1] = st.st_mtim;
		if (chmod(to, st.st_mode & 07777) ||
		    utimensat(AT_FDCWD, to, t, 0))
			return -errno;
	}
	return err;
}

static void sc_cp_a(void)
{
	static ino_t inos[64];
	static char paths[64][512];
	char *d1, *d2, *d3;
	int n = 0, err;

	sc_tar();
	CHECK(!why[0], "making the source: %s", why);
	CHECK(!mkdir("src", 0755), "mkdir src");
	CHECK(!rename("dir", "src/dir") && !rename("empty", "src/empty") &&
	      !rename("link", "src/link") && !rename("dangling",
						       "src/dangling") &&
	      !rename("long.txt", "src/long.txt"), "rename into src: %s",
	      strerror(errno));
	CHECK(!setxattr("src/dir/a.txt", "user.note", "kept", 4, 0),
	      "setxattr: %s", strerror(errno));
	err = copy_tree("src", "copy", inos, paths, &n);
	CHECK(!err, "copy: %s", strerror(-err));
	n = 0;
	err = copy_tree("copy", "copy2", inos, paths, &n);
	CHECK(!err, "copy of the copy: %s", strerror(-err));
	d1 = describe_tree("src");
	d2 = describe_tree("copy");
	d3 = describe_tree("copy2");
	CHECK(!strcmp(d1, d2) && !strcmp(d2, d3) && strlen(d1) > 200,
	      "copies differ: [%.120s] vs [%.120s]", d1, d2);
	free(d1);
	free(d2);
	free(d3);
}

/*
 * What git does to a repository's files: objects written to a temporary
 * file, made read-only, moved in by link()+unlink(); a lock file taken
 * with O_EXCL and renamed over the index; packs read through mmap.
 */
static void sc_git(void)
{
	static unsigned char obj[70000], back[70000];
	char tmp[] = "objects/tmp_obj_XXXXXX";
	struct stat st;
	unsigned char *m;
	int fd, fd2, n;
	char **v;

	fill(obj, sizeof(obj), 42);
	CHECK(!mkdir("objects", 0755) && !mkdir("objects/ab", 0755),
	      "mkdir: %s", strerror(errno));
	fd = mkstemp(tmp);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	CHECK(write(fd, obj, sizeof(obj)) == sizeof(obj) && !fsync(fd) &&
	      !fchmod(fd, 0444) && !close(fd), "writing the object");
	CHECK(!link(tmp, "objects/ab/cdef") && !unlink(tmp),
	      "moving the object in: %s", strerror(errno));
	CHECK(!stat("objects/ab/cdef", &st) && (st.st_mode & 0777) == 0444 &&
	      st.st_nlink == 1, "object mode %o nlink %lu", st.st_mode & 0777,
	      (unsigned long)st.st_nlink);
	CHECK(get("objects/ab/cdef", back, sizeof(back)) == sizeof(back) &&
	      !memcmp(obj, back, sizeof(obj)), "object reads back different");
	CHECK(!put("index", "old index\n", 10, 0644), "index");
	fd = open("index.lock", O_RDWR | O_CREAT | O_EXCL, 0666);
	CHECK(fd >= 0, "index.lock: %s", strerror(errno));
	fd2 = open("index.lock", O_RDWR | O_CREAT | O_EXCL, 0666);
	CHECK(fd2 < 0 && errno == EEXIST, "a second index.lock: %s",
	      fd2 < 0 ? strerror(errno) : "created");
	CHECK(write(fd, "new index\n", 10) == 10 && !close(fd),
	      "writing index.lock");
	CHECK(!rename("index.lock", "index") && has("index", "new index\n"),
	      "index.lock over index");
	CHECK(access("index.lock", F_OK) && errno == ENOENT,
	      "index.lock still there");
	/* A pack, read through a private map; a shared map written. */
	CHECK(!put("pack", obj, sizeof(obj), 0444), "pack");
	fd = open("pack", O_RDONLY);
	m = mmap(NULL, sizeof(obj), PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED && !memcmp(m, obj, sizeof(obj)),
	      "mmap of the pack: %s", strerror(errno));
	munmap(m, sizeof(obj));
	close(fd);
	fd = open("shared", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0 && !ftruncate(fd, 8192), "shared: %s", strerror(errno));
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED, "shared mmap: %s", strerror(errno));
	memcpy(m + 4000, "through the map", 15);
	CHECK(!msync(m, 8192, MS_SYNC), "msync: %s", strerror(errno));
	munmap(m, 8192);
	close(fd);
	n = get("shared", back, sizeof(back));
	CHECK(n == 8192 && !memcmp(back + 4000, "through the map", 15),
	      "shared map wrote %d bytes", n);
	/* gc: loose objects go, the directory is left empty. */
	CHECK(!unlink("objects/ab/cdef") && !rmdir("objects/ab"),
	      "pruning: %s", strerror(errno));
	v = names("objects", &n);
	CHECK(v && n == 0, "objects/ keeps %d names", n);
	names_free(v, n);
}

static void sc_links(void)
{
	struct stat a, b;
	char buf[64];
	int n;

	CHECK(!put("f", "data\n", 5, 0644), "f");
	CHECK(!symlink("f", "sym"), "symlink: %s", strerror(errno));
	n = readlink("sym", buf, sizeof(buf));
	CHECK(n == 1 && buf[0] == 'f' && has("sym", "data\n"), "sym");
	CHECK(!link("f", "hard"), "link: %s", strerror(errno));
	CHECK(!stat("f", &a) && !stat("hard", &b) && a.st_nlink == 2 &&
	      b.st_nlink == 2 && a.st_ino == b.st_ino,
	      "after link: nlink %lu %lu", (unsigned long)a.st_nlink,
	      (unsigned long)b.st_nlink);
	CHECK(!rename("hard", "moved") && !stat("f", &a) &&
	      a.st_nlink == 2 && has("moved", "data\n"), "after mv");
	CHECK(!unlink("f") && !stat("moved", &a) && a.st_nlink == 1,
	      "after rm: nlink %lu", (unsigned long)a.st_nlink);
	CHECK(!symlink("/nonexistent", "dang") && stat("dang", &a) &&
	      errno == ENOENT && !lstat("dang", &a) && S_ISLNK(a.st_mode),
	      "dangling");
	CHECK(link("moved", "sym") && errno == EEXIST, "link over a name: %s",
	      strerror(errno));
}

static int rename2(const char *a, const char *b, unsigned int flags)
{
	return renameat2(AT_FDCWD, a, AT_FDCWD, b, flags) ? errno : 0;
}

static void sc_rename_flags(void)
{
	struct stat st;
	int r;

	CHECK(!put("a", "a\n", 2, 0644) && !put("b", "b\n", 2, 0644) &&
	      !mkdir("d", 0755) && !put("d/c", "c\n", 2, 0644), "setup");
	r = rename2("a", "b", RENAME_NOREPLACE);
	CHECK(r == EEXIST, "noreplace: %s", strerror(r));
	r = rename2("a", "b", RENAME_EXCHANGE);
	CHECK(!r && has("a", "b\n") && has("b", "a\n"), "exchange: %s",
	      strerror(r));
	r = rename2("d", "b", RENAME_EXCHANGE);
	CHECK(!r && has("d", "a\n") && has("b/c", "c\n"), "exchange-dir: %s",
	      strerror(r));
	r = rename2("a", "new", RENAME_NOREPLACE);
	CHECK(!r && has("new", "b\n") && stat("a", &st) && errno == ENOENT,
	      "noreplace-new: %s", strerror(r));
	r = rename2("new", "x", RENAME_NOREPLACE | RENAME_EXCHANGE |
		    RENAME_WHITEOUT);
	CHECK(r == EINVAL, "bad flags: %s", strerror(r));
	r = rename2("new", "b", 0);
	CHECK(r == EISDIR, "file over a directory: %s", strerror(r));
	r = rename2("b", "d", 0);
	CHECK(r == ENOTDIR, "directory over a file: %s", strerror(r));
}

static void xattrs_of(const char *p)
{
	char list[256], val[4096], big[3000];
	ssize_t n;

	memset(big, 'z', sizeof(big));
	CHECK(!setxattr(p, "user.k", "v1", 2, 0) &&
	      !setxattr(p, "user.big", big, sizeof(big), 0),
	      "setxattr %s: %s", p, strerror(errno));
	n = listxattr(p, list, sizeof(list));
	/* Order is the file system's: either is a correct listing. */
	CHECK(n == 16 && (!memcmp(list, "user.k\0user.big\0", 16) ||
			  !memcmp(list, "user.big\0user.k\0", 16)),
	      "listxattr %s: %zd bytes", p, n);
	n = getxattr(p, "user.k", val, sizeof(val));
	CHECK(n == 2 && !memcmp(val, "v1", 2), "getxattr %s", p);
	n = getxattr(p, "user.big", val, sizeof(val));
	CHECK(n == 3000 && !memcmp(val, big, 3000), "getxattr big %s", p);
	n = getxattr(p, "user.big", NULL, 0);
	CHECK(n == 3000, "size of big %s: %zd", p, n);
	n = getxattr(p, "user.big", val, 10);
	CHECK(n < 0 && errno == ERANGE, "small buffer %s", p);
	CHECK(!removexattr(p, "user.k"), "removexattr %s", p);
	n = listxattr(p, list, sizeof(list));
	CHECK(n == 9 && !memcmp(list, "user.big\0", 9), "after remove %s", p);
	n = getxattr(p, "user.k", val, sizeof(val));
	CHECK(n < 0 && errno == ENODATA, "removed attribute %s: %s", p,
	      n < 0 ? strerror(errno) : "still there");
	CHECK(setxattr(p, "user.big", "q", 1, XATTR_CREATE) &&
	      errno == EEXIST, "XATTR_CREATE over one %s", p);
	CHECK(setxattr(p, "user.none", "q", 1, XATTR_REPLACE) &&
	      errno == ENODATA, "XATTR_REPLACE of none %s", p);
}

static void sc_xattr(void)
{
	CHECK(!put("f", "x\n", 2, 0644) && !mkdir("d", 0755), "setup");
	xattrs_of("f");
	xattrs_of("d");
}

static void sc_file_ranges(void)
{
	char buf[64], zero[4096] = { 0 }, back[4096];
	struct stat st;
	int fd, src, dst;
	ssize_t n = 0, k;

	fd = open("sparse", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0 && pwrite(fd, "tail", 4, 1 << 20) == 4,
	      "sparse write: %s", strerror(errno));
	CHECK(!fstat(fd, &st) && st.st_size == (1 << 20) + 4, "size %lld",
	      (long long)st.st_size);
	k = lseek(fd, 0, SEEK_DATA);
	CHECK(k == 1 << 20, "SEEK_DATA gave %zd (%s)", k, strerror(errno));
	k = lseek(fd, 0, SEEK_HOLE);
	CHECK(k == 0, "SEEK_HOLE gave %zd", k);
	CHECK(!posix_fallocate(fd, 0, 8192) && !fstat(fd, &st) &&
	      st.st_blocks > 0 && st.st_size == (1 << 20) + 4,
	      "posix_fallocate");
	close(fd);
	src = open("src", O_RDWR | O_CREAT, 0644);
	dst = open("dst", O_RDWR | O_CREAT, 0644);
	CHECK(src >= 0 && dst >= 0, "src/dst");
	for (k = 0; k < 1000; k++)
		CHECK(write(src, "0123456789", 10) == 10, "write src");
	while (n < 10000) {
		loff_t in = n, out = n;

		k = copy_file_range(src, &in, dst, &out, 10000 - n, 0);
		CHECK(k > 0, "copy_file_range: %s", strerror(errno));
		n += k;
	}
	CHECK(pread(dst, buf, 20, 4990) == 20 &&
	      !memcmp(buf, "01234567890123456789", 20), "copied bytes");
	close(src);
	close(dst);
	fd = open("fa", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0 && !fallocate(fd, 0, 0, 65536) && !fstat(fd, &st) &&
	      st.st_size == 65536, "fallocate: %s", strerror(errno));
	CHECK(pwrite(fd, "abcd", 4, 100) == 4, "pwrite");
	CHECK(!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			 4096) && !fstat(fd, &st) && st.st_size == 65536,
	      "punch hole: %s", strerror(errno));
	CHECK(pread(fd, back, 4096, 0) == 4096 && !memcmp(back, zero, 4096),
	      "the hole reads as zeros");
	CHECK(!fallocate(fd, FALLOC_FL_KEEP_SIZE, 65536, 4096) &&
	      !fstat(fd, &st) && st.st_size == 65536, "keep size");
	close(fd);
}

static void sc_attrs(void)
{
	struct timespec t[2] = { { 1293840000, 0 }, { 1262304000, 0 } };
	struct stat st;

	CHECK(!put("f", "12345\n", 6, 0644) && !chmod("f", 0640) &&
	      !truncate("f", 3), "setup: %s", strerror(errno));
	CHECK(!utimensat(AT_FDCWD, "f", t, 0), "utimensat: %s",
	      strerror(errno));
	CHECK(!stat("f", &st) && st.st_size == 3 &&
	      (st.st_mode & 07777) == 0640 && st.st_atime == 1293840000 &&
	      st.st_mtime == 1262304000, "f: %lld %o %ld %ld",
	      (long long)st.st_size, st.st_mode & 07777, (long)st.st_atime,
	      (long)st.st_mtime);
	CHECK(!chown("f", 65534, 65534) && !stat("f", &st) &&
	      st.st_uid == 65534 && st.st_gid == 65534, "chown: %s",
	      strerror(errno));
	CHECK(!mkdir("d", 0755) && !chmod("d", 02755) &&
	      !chown("d", -1, 65534) && !put("d/x", "", 0, 0644),
	      "setgid dir: %s", strerror(errno));
	CHECK(!stat("d", &st) && (st.st_mode & 07777) == 02755 &&
	      st.st_gid == 65534, "d: %o %u", st.st_mode & 07777, st.st_gid);
	CHECK(!stat("d/x", &st) && st.st_gid == 65534, "d/x gid %u",
	      st.st_gid);
	CHECK(!mkfifo("p", 0644) && !lstat("p", &st) && S_ISFIFO(st.st_mode),
	      "mkfifo: %s", strerror(errno));
	CHECK(!chmod("f", 04755) && !stat("f", &st) &&
	      (st.st_mode & 07777) == 04755, "setuid bit");
}

static void sc_many(void)
{
	char name[160], pad[101];
	struct stat st;
	char **v;
	int i, n;

	memset(pad, '0', 100);
	pad[100] = 0;
	CHECK(!mkdir("big", 0755), "mkdir");
	for (i = 1; i <= 600; i++) {
		snprintf(name, sizeof(name), "big/file-%d-%s", i, pad);
		CHECK(!put(name, "", 0, 0644), "create %d: %s", i,
		      strerror(errno));
	}
	v = names("big", &n);
	CHECK(v && n == 600, "listing has %d names", n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "big/%s", v[i]);
		CHECK(!lstat(name, &st) && S_ISREG(st.st_mode), "stat %s",
		      v[i]);
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "big/%s", v[i]);
		CHECK(!unlink(name), "unlink %s", v[i]);
	}
	names_free(v, n);
	CHECK(!rmdir("big"), "rmdir: %s", strerror(errno));
}

/* Large reads and writes: requests and replies over many descriptors. */
static void sc_big_io(void)
{
	static unsigned char data[3 << 20], back[3 << 20];
	int fd;
	ssize_t n;

	fill(data, sizeof(data), 99);
	fd = open("big", O_RDWR | O_CREAT, 0644);
	CHECK(fd >= 0, "open: %s", strerror(errno));
	n = write(fd, data, sizeof(data));
	CHECK(n == sizeof(data), "write: %zd", n);
	CHECK(!fsync(fd), "fsync: %s", strerror(errno));
	close(fd);
	n = get("big", back, sizeof(back));
	CHECK(n == sizeof(data) && !memcmp(data, back, n),
	      "read back %zd bytes, %s", n,
	      n == sizeof(data) ? "different" : "short");
}

/* The errors the tools rely on. */
static void sc_errors(void)
{
	int fd;

	CHECK(!mkdir("d", 0755) && !put("d/f", "", 0, 0644), "setup");
	CHECK(rmdir("d") && errno == ENOTEMPTY, "rmdir non-empty: %s",
	      strerror(errno));
	CHECK(unlink("d") && errno == EISDIR, "unlink dir: %s",
	      strerror(errno));
	CHECK(mkdir("d", 0755) && errno == EEXIST, "mkdir existing: %s",
	      strerror(errno));
	fd = open("d/f", O_CREAT | O_EXCL | O_WRONLY, 0644);
	CHECK(fd < 0 && errno == EEXIST, "O_EXCL existing");
	CHECK(open("d/none", O_RDONLY) < 0 && errno == ENOENT, "ENOENT");
	CHECK(open("d/f/x", O_RDONLY) < 0 && errno == ENOTDIR, "ENOTDIR");
	CHECK(rmdir("d/f") && errno == ENOTDIR, "rmdir of a file");
}

/* As another user: what is made is theirs; what is not theirs is closed. */
static void sc_owner(void)
{
	struct stat st;
	pid_t pid;
	int status, fd;

	CHECK(!mkdir("pub", 0755) && !chmod("pub", 01777) &&
	      !put("secret", "s\n", 2, 0600) && !mkdir("closed", 0755),
	      "setup");
	pid = fork();
	if (!pid) {
		int bad = 0;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		fd = open("pub/mine", O_CREAT | O_WRONLY, 0644);
		bad |= fd < 0;
		bad |= mkdir("pub/mydir", 0755) != 0;
		bad |= (open("secret", O_RDONLY) >= 0 || errno != EACCES) << 1;
		bad |= (open("closed/x", O_CREAT | O_WRONLY, 0644) >= 0 ||
			errno != EACCES) << 2;
		bad |= (unlink("secret") == 0 || errno != EACCES) << 3;
		_exit(bad);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	      "child died");
	CHECK(WEXITSTATUS(status) == 0, "as uid 65534: check bits %d failed",
	      WEXITSTATUS(status));
	CHECK(!stat("pub/mine", &st) && st.st_uid == 65534 &&
	      st.st_gid == 65534, "pub/mine is %u:%u", st.st_uid, st.st_gid);
	CHECK(!stat("pub/mydir", &st) && st.st_uid == 65534 &&
	      st.st_gid == 65534, "pub/mydir is %u:%u", st.st_uid, st.st_gid);
}

/* File handles (fanotify, NFS export, open_by_handle_at) and df. */
static void sc_handles(void)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[128];
	} h = { .fh.handle_bytes = 128 };
	struct stat a, b;
	struct statfs sf;
	int mount_id, dfd, fd;

	CHECK(!mkdir("h", 0755) && !mkdir("h/i", 0755) &&
	      !put("h/i/f", "handle\n", 7, 0644), "setup");
	CHECK(!name_to_handle_at(AT_FDCWD, "h/i", &h.fh, &mount_id, 0),
	      "name_to_handle_at: %s", strerror(errno));
	dfd = open("h", O_RDONLY | O_DIRECTORY);
	fd = open_by_handle_at(dfd, &h.fh, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0, "open_by_handle_at: %s", strerror(errno));
	CHECK(!fstat(fd, &a) && !stat("h/i", &b) && a.st_ino == b.st_ino,
	      "the handle opens another directory");
	close(fd);
	close(dfd);
	CHECK(!statfs(".", &sf) && sf.f_bsize > 0 && sf.f_blocks > 0 &&
	      sf.f_bfree <= sf.f_blocks && sf.f_namelen == 255,
	      "statfs: bsize %ld blocks %llu namelen %ld", (long)sf.f_bsize,
	      (unsigned long long)sf.f_blocks, (long)sf.f_namelen);
}

static const struct {
	const char *name;
	void (*fn)(void);
} scenarios[] = {
	{ "tar", sc_tar },
	{ "cp_a", sc_cp_a },
	{ "git", sc_git },
	{ "links", sc_links },
	{ "rename_flags", sc_rename_flags },
	{ "xattr", sc_xattr },
	{ "file_ranges", sc_file_ranges },
	{ "attrs", sc_attrs },
	{ "many", sc_many },
	{ "big_io", sc_big_io },
	{ "errors", sc_errors },
	{ "owner", sc_owner },
	{ "handles", sc_handles },
};

int main(int argc, char **argv)
{
	char dir[4096];
	size_t i;
	int failed = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s LABEL DIR\n", argv[0]);
		return 2;
	}
	label = argv[1];
	umask(022);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", argv[2], scenarios[i].name);
		why[0] = 0;
		if (mkdir(dir, 0755) || chdir(dir))
			snprintf(why, sizeof(why), "%s: %s", dir,
				 strerror(errno));
		else
			scenarios[i].fn();
		if (chdir("/"))
			return 2;
		if (why[0]) {
			printf("FAIL %s:%s: %s\n", label, scenarios[i].name, why);
			failed = 1;
		} else {
			printf("PASS %s:%s\n", label, scenarios[i].name);
		}
		fflush(stdout);
	}
	return failed;
}
