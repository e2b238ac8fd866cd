// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Does the host watch see every change of the export (watch.h,
 * watch_sees_all())? Only then may the client keep what it was shown
 * until it is told otherwise (fs/cache_policy.c).
 *
 * The inotify fallback does not: a directory made on the host is watched
 * only once its CREATE has been read, and what is made in it before that
 * is found by a scan, not by events. A fanotify filesystem mark does, on
 * a file system whose every change passes through this kernel's
 * superblock: a local one. A network file system changes under us from
 * other machines, a FUSE backing from its own server, an overlay from
 * writes to its layers; none of those make events here. The list is of
 * the file systems known to be local, so that an unknown one keeps the
 * short timeouts.
 */
#include <string.h>
#include <sys/vfs.h>

#include "watch.h"

static const struct {
	long magic;
	const char *name;
} watch_local_fs[] = {
	{ 0xef53, "ext4" },		/* also ext2, ext3 */
	{ 0x58465342, "xfs" },
	{ 0x9123683e, "btrfs" },
	{ 0x01021994, "tmpfs" },
	{ 0x858458f6, "ramfs" },
	{ 0xf2f52010, "f2fs" },
	{ 0xca451a4e, "bcachefs" },
};

#define WATCH_LOCAL_FS (sizeof(watch_local_fs) / sizeof(watch_local_fs[0]))

bool watch_sees_all(const struct watch *w, int backing_fd, const char **why)
{
	struct statfs sfs;
	size_t i;

	if (!w) {
		*why = "no host watch";
		return false;
	}
	if (strcmp(watch_backend_name(w), "fanotify")) {
		*why = "the inotify watch misses what is made in a new directory before it is watched";
		return false;
	}
	if (fstatfs(backing_fd, &sfs)) {
		*why = "the backing file system's type is unknown";
		return false;
	}
	for (i = 0; i < WATCH_LOCAL_FS; i++) {
		if (watch_local_fs[i].magic == (long)sfs.f_type) {
			*why = watch_local_fs[i].name;
			return true;
		}
	}
	*why = "the backing file system is not one known to be local (a network file system, FUSE or an overlay changes without events here)";
	return false;
}
