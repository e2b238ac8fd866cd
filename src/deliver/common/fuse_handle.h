/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening an object of the mount by its FUSE node id, without a path.
 *
 * A path goes stale when a directory is renamed and can be diverted by a
 * mount on top of a subdirectory; a node id cannot. The kernel encodes a
 * FUSE inode as the file handle FILEID_INO64_GEN = [nodeid >> 32,
 * nodeid & 0xffffffff, generation] (fs/fuse/inode.c, fuse_encode_fh), so
 * open_by_handle_at() on the mount gives the very object the client
 * knows. It needs export support in the file system and
 * CAP_DAC_READ_SEARCH.
 */
#ifndef RNOTIFY_DELIVER_COMMON_FUSE_HANDLE_H
#define RNOTIFY_DELIVER_COMMON_FUSE_HANDLE_H

#include <stdint.h>

/*
 * Opens node (id, generation) of the mount that mount_fd is on (an fd on
 * the mount, or AT_FDCWD for the caller's working directory, which must
 * then be the mount's root). Returns an fd or a negative errno.
 */
int fuse_handle_open(int mount_fd, uint64_t id, uint32_t generation,
		     int flags);

/*
 * The node (id, generation) that fd, open on the mount (O_PATH will do),
 * is, from its file handle: 0 or a negative errno. The root's is
 * (FUSE_ROOT_ID, 0).
 */
int fuse_handle_node(int fd, uint64_t *id, uint32_t *generation);

#endif
