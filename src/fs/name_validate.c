// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Name validation. The kernel never sends a '/' today, but the server
 * must not rely on that: a name with '/' would turn a single-component
 * *at() call into a path walk, possibly through a symlink out of the
 * export.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "name_validate.h"

static bool is_dots(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

int fs_name_validate(const char *name, bool dots_ok)
{
	size_t len = strnlen(name, NAME_MAX + 1);

	if (!len || memchr(name, '/', len))
		return -EINVAL;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	if (!dots_ok && is_dots(name))
		return -EINVAL;
	return 0;
}
