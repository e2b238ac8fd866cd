/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading /proc/self/mountinfo: which device a mount point shows, and
 * whether a device is still mounted anywhere in our mount namespace.
 */
#ifndef RNOTIFY_UTIL_MOUNTINFO_H
#define RNOTIFY_UTIL_MOUNTINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The device of the last mount on mountpoint: 0, or -ENOENT or -errno. */
int mountinfo_dev_of(const char *mountpoint, dev_t *dev);

/*
 * Is dev mounted anywhere in the table open on fd (a mountinfo file,
 * read again from its start with read(2))? 1, 0, or -errno.
 */
int mountinfo_has_dev(int fd, dev_t dev);

/*
 * Which mounts are on points strictly below dir, in the table open on
 * fd: *sum, a sum of their ids' hashes, changes when they do (0: none).
 * 0, or -errno.
 */
int mountinfo_below(int fd, const char *dir, uint64_t *sum);

#endif
