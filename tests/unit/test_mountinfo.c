// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the mount table reader (src/util/mountinfo.c): which
 * mounts are below a directory (mountinfo_below()), with mount points
 * escaped as the kernel escapes them, from a table written to a file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/check.h"
#include "util/mountinfo.h"

CHECK_MAIN_DEFS;

/* A table of one line per mount point (ids 20, 21, ...), open. */
static int table_of(const char *const *points, int n)
{
	char path[] = "/tmp/rnotify-mountinfo.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	int i;

	if (fd < 0)
		return -1;
	unlink(path);
	f = fdopen(dup(fd), "w");
	for (i = 0; f && i < n; i++)
		fprintf(f, "%d 1 0:%d / %s rw,relatime shared:1 - tmpfs none rw\n",
			20 + i, 40 + i, points[i]);
	if (f)
		fclose(f);
	return fd;
}

static uint64_t below(const char *const *points, int n, const char *dir)
{
	uint64_t sum = ~0ULL;
	int fd = table_of(points, n);

	if (fd < 0 || mountinfo_below(fd, dir, &sum))
		sum = ~0ULL;
	if (fd >= 0)
		close(fd);
	return sum;
}

int main(void)
{
	static const char *const none[] = { "/", "/var", "/a", "/ab/c",
					    "/a\\040c" };
	static const char *const one[] = { "/", "/a", "/a/b" };
	static const char *const escaped[] = { "/", "/a\\040b/x" };
	static const char *const other[] = { "/", "/a", "/x", "/a/c" };

	CHECK("mountinfo: none below /a (itself, /ab/c, \"/a c\" are not)",
	      below(none, 5, "/a") == 0);
	CHECK("mountinfo: /a/b is below /a",
	      below(one, 3, "/a") != 0 && below(one, 3, "/a") != ~0ULL);
	CHECK("mountinfo: an escaped point is compared unescaped",
	      below(escaped, 2, "/a b") != 0 && below(escaped, 2, "/a") == 0);
	CHECK("mountinfo: another mount below gives another sum",
	      below(one, 3, "/a") != below(other, 4, "/a"));
	CHECK("mountinfo: everything but / is below /",
	      below(one, 3, "/") != 0);
	return check_exit();
}
