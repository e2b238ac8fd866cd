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
 * check that failed). kernel/run-virtiofs-tests runs it on a virtiofs
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

#include "vfs_tools.h"

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
