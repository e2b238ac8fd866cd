/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Acting as the caller. The server runs as root and serves many users
 * (allow_other, VM guests): a backing-store call that creates, opens or
 * changes an object for a request runs with the caller's fsuid, fsgid
 * and supplementary groups, so that the backing kernel checks
 * permissions, ACLs, sticky and set-group-ID directories and chown rules
 * for that user exactly as on the backing directory, and a new object is
 * born the caller's (no chown by name afterwards, which a writer of the
 * directory could aim at another object).
 *
 * The switch is per thread and lasts from fs_caller_enter() to
 * fs_caller_leave(), which the caller keeps around the backing call
 * alone: the server's own bookkeeping (handles, the inode table, the
 * host watch) keeps its full rights.
 */
#ifndef RNOTIFY_FS_CALLER_H
#define RNOTIFY_FS_CALLER_H

#include <stdbool.h>

#include "fs.h"

struct fs_caller {
	bool switched;
};

/*
 * Records the server's own groups, once, before any request: leaving
 * goes back to them. Returns 0 or -errno.
 */
int fs_caller_setup(void);

/*
 * Takes on the credentials of req's caller, if the server runs as root
 * and the caller is not root:root. Returns 0, or -errno with nothing
 * changed (the request must then fail: never act with more rights than
 * the caller's).
 */
int fs_caller_enter(fuse_req_t req, struct fs_caller *c);

/* Back to the server's own credentials. */
void fs_caller_leave(const struct fs_caller *c);

#endif
