// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

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

static bool line_has_dev(const char *line, dev_t dev)
{
	unsigned int maj, min;

	return sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 &&
	       makedev(maj, min) == dev;
}

/*
 * Not stdio: a FILE rewound over a table that fits its buffer may hand
 * back the buffer instead of reading again (seen in the VM, where the
 * table is 415 bytes: the unmount never showed).
 */
int mountinfo_has_dev(int fd, dev_t dev)
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
			if (start && line_has_dev(line, dev))
				return 1;
			start = true;
		}
		have -= line - buf;
		memmove(buf, line, have);
		/* A line longer than the buffer: only its start is parsed. */
		if (have == sizeof(buf) - 1) {
			if (start && line_has_dev(buf, dev))
				return 1;
			start = false;
			have = 0;
		}
	}
	return 0;
}
