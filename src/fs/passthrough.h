/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FUSE passthrough (Linux 6.9+, FUSE_PASSTHROUGH): a file opened only
 * for reading is read by the kernel straight from the backing file, with
 * no READ request, so its reads cost what they cost on the backing file.
 *
 * Only reading opens start it: writes still come to the server, which
 * must see them to tell the mount's own changes from remote ones (a
 * passthrough write would reach the host watch as a change by the
 * writing process). Reads need nothing of the server: the host watch
 * does not ask for access events.
 *
 * The kernel holds one io mode per inode: while an inode is open in
 * passthrough every open of it must be passthrough too, with the same
 * backing file (else the open fails with EIO), and while it is open
 * through the page cache no passthrough open is allowed. So each inode
 * counts its opens here, io_opens: > 0 opens through the page cache
 * (or direct io), < 0 passthrough opens, as the kernel counts. A reading
 * open starts passthrough only when io_opens is 0; any open of an inode
 * in passthrough joins it, a writing one with direct io as well, so that
 * its reads and writes still come to the server and only mmap goes to
 * the backing file. The kernel drops an open from its count before
 * sending RELEASE, so ours is never below its.
 *
 * For a writer that joins, the kernel opens the backing file for writing
 * too, and closes it at the writer's last close: the host watch sees a
 * CLOSE_WRITE by the writing process, which is not the server. Each such
 * open expects one close of its object, and the first CLOSE_WRITE of the
 * object read from the host takes the expectation instead of passing for
 * a remote one. (A remote writer's close of the same file at that
 * moment can be taken instead: then that one is not reported, and this
 * one is, once.)
 */
#ifndef RNOTIFY_FS_PASSTHROUGH_H
#define RNOTIFY_FS_PASSTHROUGH_H

#include <stdbool.h>
#include <sys/uio.h>

#include "fs_internal.h"

/* -o passthrough=off turns it off; the default is on where possible. */
void fs_passthrough_want(bool want);
bool fs_passthrough_wanted(void);
/* The INIT reply accepted FUSE_PASSTHROUGH on fuse_fd. */
void fs_passthrough_start(int fuse_fd);

/*
 * Before the reply to an open or create of in (fd: the open backing file,
 * or FS_NO_FILE) in this thread: decides the open's io mode and counts
 * it; for passthrough, sets fi->direct_io if the open writes, and makes
 * fs_passthrough_patch() mark the reply.
 */
void fs_passthrough_open(struct fs_inode *in, int fd,
			 struct fuse_file_info *fi);
/*
 * The reply that fs_passthrough_open() prepared in this thread was not
 * delivered: the kernel has no such open file.
 */
void fs_passthrough_open_undo(struct fs_inode *in);
/* RELEASE of an open that fs_passthrough_open() counted. */
void fs_passthrough_release(struct fs_inode *in);

/*
 * Is a host CLOSE_WRITE of object id the close of a backing file that
 * the kernel opened for a writer on the mount (see above)? Counts it.
 * fs_passthrough_closes_taken(): the caller will ask this of every host
 * CLOSE_WRITE from now on; until then no close is expected.
 */
void fs_passthrough_closes_taken(void);
bool fs_passthrough_backing_close(const struct rn_id *id);

/*
 * Called with each reply this thread writes: the open reply that
 * fs_passthrough_open() prepared gets FOPEN_PASSTHROUGH and the backing
 * id. Anything else goes as it is.
 */
void fs_passthrough_patch(struct iovec *iov, int count);

#endif
