/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether inotify and dnotify watchers take remote events on a kernel
 * with the series in kernel/ (fsnotify 1/7): the sysctl
 * fs.inotify.remote_events, which the administrator sets to 1 for every
 * mount.  libfuse cannot give a mount the other way in, the mount option
 * remote_events, so it is the one that counts for rnotifyfs.
 */
#ifndef RNOTIFY_UTIL_REMOTE_EVENTS_H
#define RNOTIFY_UTIL_REMOTE_EVENTS_H

#define REMOTE_EVENTS_SYSCTL "/proc/sys/fs/inotify/remote_events"

/* 1 or 0 as the sysctl says; -ENOENT without the series, or -errno. */
int remote_events_for_inotify(void);

#endif
