/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fs_identity - is an object on the same file system (superblock) as the
 * export's root, when it was reached through another mount? A bind mount
 * of the root's own file system inside the export is one: its handles
 * reopen at the root's mount, and the host's filesystem mark reports
 * them. Another file system mounted there is not, however alike its
 * handles look.
 */
#ifndef RNOTIFY_FS_FS_IDENTITY_H
#define RNOTIFY_FS_FS_IDENTITY_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/vfs.h>

struct fs_identity {
	dev_t dev;
	long type;		/* statfs f_type */
	int fsid[2];		/* statfs f_fsid */
};

/* Of the object open as fd with attributes st: 0 or a negative errno. */
int fs_identity_of(int fd, const struct stat *st, struct fs_identity *id);

/*
 * Same device, file system type and fsid: one superblock. The device
 * alone is not enough: an overlay reports its lower file system's device
 * for files, but its own type, and handles of its own.
 */
bool fs_identity_equal(const struct fs_identity *a,
		       const struct fs_identity *b);

#endif
