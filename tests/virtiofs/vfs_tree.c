// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_tools' scenarios of the tools that make and copy trees: tar, cp -a,
 * git, links and renames with flags, as their system calls.
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

#include "vfs_tools.h"

void sc_tar(void)
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

void sc_cp_a(void)
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
void sc_git(void)
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

void sc_links(void)
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

void sc_rename_flags(void)
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
