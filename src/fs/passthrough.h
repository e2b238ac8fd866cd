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

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "inode_table.h"

struct fs;

/*
 * Objects whose backing file the kernel opened for a writer that joined
 * passthrough, and how many closes of it are still to come.
 */
struct fs_passthrough_close {
	struct rn_id id;
	unsigned int n;
};

/*
 * A file system's passthrough state (in struct fs). The want (set with
 * fs_passthrough_want(), fs.h) is read before the session starts; lock
 * guards every inode's io_opens and backing_id, and closes: ncloses is
 * read without it to skip the lock when there are none.
 */
struct fs_passthrough {
	bool want;
	atomic_bool on;
	int fuse_fd;
	pthread_mutex_t lock;
	struct fs_passthrough_close *closes;
	atomic_size_t ncloses;
	size_t closes_cap;
	/* Only delivery reads host events, and so takes expected closes. */
	atomic_bool closes_taken;
};

void fs_passthrough_init(struct fs_passthrough *pt);
void fs_passthrough_free(struct fs_passthrough *pt);

/*
 * Before the reply to an open or create of in (fd: the open backing file,
 * or FS_NO_FILE) in this thread: decides the open's io mode and counts
 * it; for passthrough, sets fi->direct_io if the open writes, clears
 * fi->keep_cache (the kernel refuses it with passthrough), and makes
 * fs_passthrough_patch() mark the reply.
 */
void fs_passthrough_open(struct fs *fs, struct fs_inode *in, int fd,
			 struct fuse_file_info *fi);
/*
 * The reply that fs_passthrough_open() prepared in this thread was not
 * delivered: the kernel has no such open file.
 */
void fs_passthrough_open_undo(struct fs *fs, struct fs_inode *in);
/* RELEASE of an open that fs_passthrough_open() counted. */
void fs_passthrough_release(struct fs *fs, struct fs_inode *in);

/* fs_passthrough_closes_taken(), fs_passthrough_backing_close(): remote.h */
/* fs_passthrough_patch(): fs.h */

#endif
