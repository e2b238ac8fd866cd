// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "fnv.h"
#include "mountinfo.h"

/* mountinfo escapes blanks and backslashes as \ooo. */
static bool mountinfo_path_is(const char *field, const char *path)
{
	unsigned int c;

	while (*field && *path) {
		if (field[0] == '\\' && sscanf(field + 1, "%3o", &c) == 1) {
			if ((unsigned char)*path != c)
				return false;
			field += 4;
		} else if (*field++ != *path) {
			return false;
		}
		path++;
	}
	return !*field && !*path;
}

int mountinfo_dev_of(const char *mountpoint, dev_t *dev)
{
	char line[4096], point[4096];
	unsigned int maj, min;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min,
			   point) == 3 && mountinfo_path_is(point, mountpoint)) {
			*dev = makedev(maj, min);
			found = 0;
		}
	fclose(f);
	return found;
}

static bool line_has_dev(const char *line, void *arg)
{
	dev_t dev = *(dev_t *)arg;
	unsigned int maj, min;

	return sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 &&
	       makedev(maj, min) == dev;
}

/*
 * Calls fn on each line of the table open on fd until it returns true;
 * 1 if it did, 0 if not, or -errno. Not stdio: a FILE rewound over a
 * table that fits its buffer may hand back the buffer instead of reading
 * again (seen in the VM, where the table is 415 bytes: the unmount never
 * showed).
 */
static int mountinfo_each(int fd, bool (*fn)(const char *line, void *arg),
			  void *arg)
{
	char buf[4096], *line, *nl;
	size_t have = 0;
	bool start = true;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		have += n;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			if (start && fn(line, arg))
				return 1;
			start = true;
		}
		have -= line - buf;
		memmove(buf, line, have);
		/* A line longer than the buffer: only its start is parsed. */
		if (have == sizeof(buf) - 1) {
			if (start && fn(buf, arg))
				return 1;
			start = false;
			have = 0;
		}
	}
	return 0;
}

int mountinfo_has_dev(int fd, dev_t dev)
{
	return mountinfo_each(fd, line_has_dev, &dev);
}

struct below {
	const char *dir;
	size_t len;
	uint64_t sum;
};

/* Is the escaped mount point field strictly below b->dir? */
static bool point_below(const char *field, const struct below *b)
{
	unsigned int c;
	size_t i = 0;

	if (b->len == 1)	/* "/": every other point */
		return strcmp(field, "/") != 0;
	while (*field && i <= b->len) {
		if (field[0] == '\\' && sscanf(field + 1, "%3o", &c) == 1)
			field += 4;
		else
			c = (unsigned char)*field++;
		if (i == b->len)
			return c == '/';
		if ((unsigned char)b->dir[i++] != c)
			return false;
	}
	return false;
}

static bool line_below(const char *line, void *arg)
{
	struct below *b = arg;
	char point[4096];
	unsigned int id;

	if (sscanf(line, "%u %*u %*s %*s %4095s", &id, point) == 2 &&
	    point_below(point, b))
		b->sum += fnv1a64(0, &id, sizeof(id));
	return false;
}

int mountinfo_below(int fd, const char *dir, uint64_t *sum)
{
	struct below b = { .dir = dir, .len = strlen(dir) };
	int ret = mountinfo_each(fd, line_below, &b);

	*sum = b.sum;
	return ret < 0 ? ret : 0;
}
