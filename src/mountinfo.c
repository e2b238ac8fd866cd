// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>
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

int mountinfo_has_dev(FILE *f, dev_t dev)
{
	/* Long lines are read in pieces: only a line's start is parsed. */
	char line[4096];
	unsigned int maj, min;
	bool start = true;
	int has = 0;

	rewind(f);
	while (!has && fgets(line, sizeof(line), f)) {
		if (start && sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 &&
		    makedev(maj, min) == dev)
			has = 1;
		start = strchr(line, '\n') != NULL;
	}
	return ferror(f) ? -EIO : has;
}
