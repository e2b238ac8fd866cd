// SPDX-License-Identifier: GPL-2.0-or-later
/* File names of many lengths (many_names.h). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "many_names.h"

void many_name(char *buf, char tag, int i, int spread)
{
	int n = snprintf(buf, NAME_MAX + 1, "%c%04d", tag, i);

	memset(buf + n, 'x', i % spread);
	buf[n + i % spread] = '\0';
}

bool many_names_make(const char *dir, char tag, int n, int spread)
{
	char path[PATH_MAX + NAME_MAX + 2], name[NAME_MAX + 1];
	int i, fd;

	if (mkdir(dir, 0755))
		return false;
	for (i = 0; i < n; i++) {
		many_name(name, tag, i, spread);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0 || close(fd))
			return false;
	}
	return true;
}

int many_name_index(const char *name, char tag, int n, int spread)
{
	char want[NAME_MAX + 1];
	int i;

	if (name[0] != tag || sscanf(name + 1, "%4d", &i) != 1 || i < 0 ||
	    i >= n)
		return -1;
	many_name(want, tag, i, spread);
	return strcmp(want, name) ? -1 : i;
}
