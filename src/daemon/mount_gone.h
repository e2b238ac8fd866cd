/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Noticing that users unmounted the mount.
 *
 * The threads that work in the mount (the replayer, the protocol
 * sender's lookups) do it in a private copy of it (deliver/mount_cwd.h),
 * so that a plain `umount` never finds the mount busy because of them.
 * That copy keeps the filesystem alive, so the kernel no longer ends the
 * session when users unmount it: a thread watches our mount namespace's
 * table instead (poll() on /proc/self/mountinfo wakes at every change),
 * and once no mount of our device is left in it, the server stops as for
 * SIGTERM. A bind mount of the mount elsewhere keeps it serving.
 *
 * The same thread tells of mounts made or removed below the backing
 * directory: the host watch sees nothing of them, and a directory the
 * client cached shows another one once something is mounted over it.
 */
#ifndef RNOTIFY_DAEMON_MOUNT_GONE_H
#define RNOTIFY_DAEMON_MOUNT_GONE_H

#include <stdbool.h>

struct mount_gone;

/*
 * Starts watching for the mount at mountpoint (already mounted) to go;
 * then SIGTERM is sent to the process. Call it with the stop signals
 * blocked, so that the thread inherits the mask. NULL with errno set.
 */
struct mount_gone *mount_gone_start(const char *mountpoint);

/*
 * From now on, below(arg) is called on that thread whenever the mounts on
 * points below the directory backing change (backing is kept, not
 * copied).
 */
void mount_gone_below(struct mount_gone *g, const char *backing,
		      void (*below)(void *arg), void *arg);

/* Stops watching (NULL: a no-op); true if users had unmounted it. */
bool mount_gone_stop(struct mount_gone *g);

#endif
