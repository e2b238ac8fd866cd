// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of reading a directory's entries (src/fs/dir_stream.c) on
 * real directories: every name comes once however reads ahead fall
 * (names of 5 to 205 bytes, so the buffer is refilled and compacted many
 * times), the end is NULL with errno 0, a seek to a told position gives
 * the same entries again, looking ahead passes no entry, and a file that
 * is not a directory gives its error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../lib/check.h"
#include "../lib/many_names.h"
#include "fs/dir_stream.h"

CHECK_MAIN_DEFS;

#define BIG_N 2000
#define SMALL_N 5
#define AGAIN_N 300
#define NAME_SPREAD 201	/* names of 5 to 205 bytes */

static char top[64];

static struct dir_stream *open_stream(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? NULL : dir_stream_open(fd);
}

/* Is de name i of a directory of n, not seen before? Marks it seen. */
static bool fresh(const struct dirent64 *de, bool *seen, int n)
{
	int i = many_name_index(de->d_name, 'f', n, NAME_SPREAD);

	if (i < 0 || seen[i])
		return false;
	seen[i] = true;
	return true;
}

/*
 * Lists s to its end, reading ahead prefetch bytes after each run of
 * `every` entries (never if 0): true if it gave ".", ".." and n names,
 * each once.
 */
static bool lists_whole(struct dir_stream *s, int n, int every,
			size_t prefetch)
{
	static bool seen[BIG_N];
	const struct dirent64 *de;
	int dots = 0, names = 0, k = 0;

	memset(seen, 0, sizeof(seen));
	while ((de = dir_stream_peek(s))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			dots++;
		else if (fresh(de, seen, n))
			names++;
		else
			return false;
		dir_stream_next(s);
		if (every && ++k % every == 0)
			dir_stream_prefetch(s, prefetch);
	}
	return !errno && dots == 2 && names == n;
}

/* The next count names, into names[]; false if the directory ended. */
static bool read_names(struct dir_stream *s, char (*names)[NAME_MAX + 1],
		       int count)
{
	const struct dirent64 *de;
	int i;

	for (i = 0; i < count; i++) {
		de = dir_stream_peek(s);
		if (!de)
			return false;
		snprintf(names[i], NAME_MAX + 1, "%s", de->d_name);
		dir_stream_next(s);
	}
	return true;
}

static bool seek_gives_same(struct dir_stream *s)
{
	static char first[AGAIN_N][NAME_MAX + 1], again[AGAIN_N][NAME_MAX + 1];
	static char skip[700][NAME_MAX + 1];
	off_t at;
	int i;

	if (dir_stream_seek(s, 0) || !read_names(s, skip, 700))
		return false;
	at = dir_stream_tell(s);
	if (!read_names(s, first, AGAIN_N) || dir_stream_seek(s, at) ||
	    dir_stream_tell(s) != at || !read_names(s, again, AGAIN_N))
		return false;
	for (i = 0; i < AGAIN_N; i++)
		if (strcmp(first[i], again[i]))
			return false;
	return true;
}

static bool ends_quietly(struct dir_stream *s)
{
	errno = EBADF;
	if (dir_stream_peek(s) || errno)
		return false;
	errno = EBADF;
	return !dir_stream_peek(s) && !errno;
}

static void check_big(const char *dir)
{
	struct dir_stream *s = open_stream(dir);

	CHECK("dir_stream: big directory opened", s);
	if (!s)
		return;
	CHECK("dir_stream: every name once", lists_whole(s, BIG_N, 0, 0));
	CHECK("dir_stream: the end is NULL with errno 0, twice",
	      ends_quietly(s));
	CHECK("dir_stream: nothing more at the end", dir_stream_at_most(s, 0));
	CHECK("dir_stream: seek 0 lists it all again",
	      !dir_stream_seek(s, 0) && lists_whole(s, BIG_N, 0, 0));
	CHECK("dir_stream: reading ahead 32 KiB every 50 entries",
	      !dir_stream_seek(s, 0) && lists_whole(s, BIG_N, 50, 32768));
	CHECK("dir_stream: reading ahead 1 KiB every entry",
	      !dir_stream_seek(s, 0) && lists_whole(s, BIG_N, 1, 1024));
	CHECK("dir_stream: reading ahead past the buffer is capped",
	      !dir_stream_seek(s, 0) && lists_whole(s, BIG_N, 7, 1 << 20));
	CHECK("dir_stream: a seek to a told position gives the same names",
	      seek_gives_same(s));
	CHECK("dir_stream: more than 32 entries",
	      !dir_stream_seek(s, 0) && !dir_stream_at_most(s, 32));
	CHECK("dir_stream: looking ahead passes no entry",
	      lists_whole(s, BIG_N, 0, 0));
	dir_stream_close(s);
}

static void check_small(const char *dir)
{
	struct dir_stream *s = open_stream(dir);

	CHECK("dir_stream: small directory opened", s);
	if (!s)
		return;
	CHECK("dir_stream: at most its entries and the dots",
	      dir_stream_at_most(s, SMALL_N + 2));
	CHECK("dir_stream: not at most one fewer",
	      !dir_stream_at_most(s, SMALL_N + 1));
	CHECK("dir_stream: small directory listed whole after looking",
	      lists_whole(s, SMALL_N, 0, 0));
	dir_stream_close(s);
}

static void check_not_dir(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct dir_stream *s = fd < 0 ? NULL : dir_stream_open(fd);

	CHECK("dir_stream: a file opened", s);
	if (!s)
		return;
	errno = 0;
	CHECK("dir_stream: a file is not a directory",
	      !dir_stream_peek(s) && errno == ENOTDIR);
	dir_stream_close(s);
}

int main(void)
{
	char big[PATH_MAX], small[PATH_MAX], file[PATH_MAX];

	snprintf(top, sizeof(top), "/tmp/rnotify-dir-stream.XXXXXX");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(big, sizeof(big), "%s/big", top);
	snprintf(small, sizeof(small), "%s/small", top);
	snprintf(file, sizeof(file), "%s/small/f0000", top);
	CHECK("dir_stream: directories made",
	      many_names_make(big, 'f', BIG_N, NAME_SPREAD) &&
	      many_names_make(small, 'f', SMALL_N, NAME_SPREAD));
	check_big(big);
	check_small(small);
	check_not_dir(file);
	snprintf(big, sizeof(big), "rm -rf '%s'", top);
	if (system(big) != 0)
		perror(big);
	return check_exit();
}
