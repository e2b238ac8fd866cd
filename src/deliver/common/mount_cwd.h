/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reaching the mount through the calling thread's working directory, for
 * the threads that make requests to their own mount (the replayer, the
 * protocol sender's lookups).
 *
 * The thread unshares its fs_struct, then makes the mount root its
 * working directory while it has work and "/" when idle: held for good,
 * the directory (like an open fd) would make a plain `fusermount3 -u`
 * fail with EBUSY. When the server watches for users' unmounting
 * (mount_gone.h), the thread also gets a mount namespace of its own, so
 * that the mount it works in, and holds files open in for remote
 * writers, is its private copy: `umount` of the users' mount then never
 * finds it busy because of us. Events made through the copy reach
 * inotify and fanotify inode and filesystem marks as any other, but not
 * fanotify mount marks on the users' mount.
 *
 * Not an fd on the root: opening the root gives its watchers
 * OPEN|ISDIR and CLOSE_NOWRITE|ISDIR and costs an OPENDIR and a
 * RELEASEDIR, while chdir() makes no event and no request; and
 * open_by_handle_at() refuses an O_PATH fd as its mount fd (EBADF) but
 * takes AT_FDCWD. Each entry is checked to be our mount (its device, as
 * the caller knows it or the first entry learned it), not something
 * mounted on top since.
 */
#ifndef RNOTIFY_DELIVER_COMMON_MOUNT_CWD_H
#define RNOTIFY_DELIVER_COMMON_MOUNT_CWD_H

#include <stdbool.h>
#include <sys/types.h>

struct mount_cwd {
	const char *path;	/* the mount point; the caller's string */
	dev_t dev;		/* the mount's device, 0 until the first entry */
	bool in;		/* the working directory is the mount root */
};

/*
 * The calling thread gets a working directory of its own, and with
 * private_mounts a private copy of the mounts (see above; only once
 * mount_gone is watching), and is known to the session sio as a thread
 * that makes requests: 0 or -errno.
 */
struct session_io;
int mount_cwd_own(bool private_mounts, struct session_io *sio);

/*
 * Makes the mount root the working directory (a no-op if it is): 0, or a
 * negative errno (-EXDEV: something else is mounted there now), and then
 * the working directory is "/".
 */
int mount_cwd_enter(struct mount_cwd *m);

/* Back to "/", which is always there. */
void mount_cwd_leave(struct mount_cwd *m);

#endif
