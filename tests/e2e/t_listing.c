// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A listing gives the kernel entries with attributes (readdirplus) only
 * for a small directory: ls -l of it then needs no lookup, while a plain
 * listing of a big cold directory does not pay a read of every inode it
 * lists. The server holds an O_PATH fd for each entry the kernel holds,
 * so its fds on files of a directory tell how many entries a listing
 * handed over: none for 40 files, all for 10, and no second one when
 * those 10 are then stat()ed. (Only fds on the files count: the fd of an
 * open directory goes at RELEASEDIR, which the kernel sends later.)
 * The files are made outside the export and moved in inside a directory,
 * so that no event about them is replayed (which would hand them over).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define LS_BIG 40
#define LS_SMALL 10

/* The server's fds on files in BACKING/dir, or -1. */
static int server_fds_in(const char *dir)
{
	char path[PATH_MAX], target[PATH_MAX], prefix[PATH_MAX];
	struct dirent *de;
	ssize_t len;
	DIR *d;
	int n = 0;

	snprintf(prefix, sizeof(prefix), "%s/", e2e_bpath(dir));
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)e2e_server_pid());
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s",
			 (int)e2e_server_pid(), de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += !strncmp(target, prefix, strlen(prefix));
	}
	closedir(d);
	return n;
}

/* Makes dir/f0..f(n-1) under top, a directory outside the export. */
static bool make_files(const char *top, const char *dir, int n)
{
	char path[PATH_MAX];
	int i, fd;

	snprintf(path, sizeof(path), "%s/%s", top, dir);
	if (mkdir(path, 0755))
		return false;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/f%d", top, dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0 || close(fd))
			return false;
	}
	return true;
}

/* BACKING/ls holds big and small; the mount has seen only ls. */
static bool files_moved_in(void)
{
	char top[PATH_MAX];

	snprintf(top, sizeof(top), "%s/../ls", e2e_backing());
	if (mkdir(top, 0755) || !make_files(top, "big", LS_BIG) ||
	    !make_files(top, "small", LS_SMALL) ||
	    rename(top, e2e_bpath("ls")))
		return false;
	e2e_sync();
	return true;
}

/* Lists MNT/dir; the number of names read, or -1. */
static int list(const char *dir)
{
	DIR *d = opendir(e2e_mpath(dir));
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool stat_all(const char *dir, int n)
{
	char rel[64];
	struct stat st;
	int i;

	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "%s/f%d", dir, i);
		if (stat(e2e_mpath(rel), &st))
			return false;
	}
	return true;
}

/* The server's fds: natively (--native) there is no server to count. */
#define CHECK_FDS(name, cond) \
	do { \
		if (!e2e_native()) \
			CHECK(name, cond); \
	} while (0)

int main(void)
{
	struct stat st;

	e2e_mount(NULL);
	CHECK("listing: files moved into the export", files_moved_in());
	CHECK("listing: directories looked up",
	      !stat(e2e_mpath("ls/big"), &st) &&
	      !stat(e2e_mpath("ls/small"), &st));
	CHECK_FDS("listing: no entry held before",
		  server_fds_in("ls/big") == 0 &&
		  server_fds_in("ls/small") == 0);
	CHECK("listing: big directory listed whole",
	      list("ls/big") == LS_BIG + 2);
	CHECK_FDS("listing: big directory: no entry handed over",
		  server_fds_in("ls/big") == 0);
	CHECK("listing: small directory listed whole",
	      list("ls/small") == LS_SMALL + 2);
	CHECK_FDS("listing: small directory: every entry handed over",
		  server_fds_in("ls/small") == LS_SMALL);
	CHECK("listing: stat of the small directory's files",
	      stat_all("ls/small", LS_SMALL));
	CHECK_FDS("listing: one fd each after",
		  server_fds_in("ls/small") == LS_SMALL);
	return check_exit();
}
