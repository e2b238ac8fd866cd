/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Validation of a name the kernel hands us, before it reaches an *at()
 * call: one path component, never a path.
 */
#ifndef RNOTIFY_FS_NAME_VALIDATE_H
#define RNOTIFY_FS_NAME_VALIDATE_H

#include <stdbool.h>

/*
 * 0 if name is a single component we may create or remove; -EINVAL for
 * an empty name, one with '/', or (unless dots_ok) "." and "..";
 * -ENAMETOOLONG past NAME_MAX.
 */
int fs_name_validate(const char *name, bool dots_ok);

#endif
