/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-user watcher limits (fs.fanotify.*, fs.inotify.*): the kernel
 * reports them with the errno of a full fd table (EMFILE) or of a full
 * disk (ENOSPC), which tells a user nothing. These name the sysctl.
 */
#ifndef RNOTIFY_WATCH_WATCH_LIMITS_H
#define RNOTIFY_WATCH_WATCH_LIMITS_H

#include <stdbool.h>

/* Which call failed with err, for the hint. */
enum watch_call {
	WATCH_CALL_FANOTIFY_INIT,
	WATCH_CALL_FANOTIFY_MARK,
	WATCH_CALL_INOTIFY_INIT,
	WATCH_CALL_INOTIFY_ADD,
};

/* True if err from call means a per-user limit was met. */
bool watch_limit_met(enum watch_call call, int err);

/*
 * Logs (fuse_log: stderr, or syslog in daemon mode) "rnotifyfs: WHAT:
 * strerror(err)", and when a per-user limit was met "; this user's ...
 * are at fs.x.y = N: raise it", then tail (may be ""), on one line.
 */
void watch_say_error(const char *what, enum watch_call call, int err,
		     const char *tail);

#endif
