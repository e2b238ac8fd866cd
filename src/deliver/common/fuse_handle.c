// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fs/remote.h"
#include "fuse_handle.h"

#define FUSE_FILEID_INO64_GEN 0x81

int fuse_handle_open(int mount_fd, uint64_t id, uint32_t generation,
		     int flags)
{
	struct {
		struct file_handle fh;
		uint32_t words[3];
	} h;
	int fd;

	/* The kernel never encodes the root: it is the mount fd itself. */
	if (id == FUSE_ROOT_ID) {
		fd = openat(mount_fd, ".", flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	h.fh.handle_bytes = sizeof(h.words);
	h.fh.handle_type = FUSE_FILEID_INO64_GEN;
	h.words[0] = (uint32_t)(id >> 32);
	h.words[1] = (uint32_t)id;
	h.words[2] = generation;
	fd = open_by_handle_at(mount_fd, &h.fh, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int fuse_handle_node(int fd, uint64_t *id, uint32_t *generation)
{
	struct {
		struct file_handle fh;
		uint32_t words[3];
	} h;
	int mount_id;

	h.fh.handle_bytes = sizeof(h.words);
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH))
		return -errno;
	if (h.fh.handle_type != FUSE_FILEID_INO64_GEN ||
	    h.fh.handle_bytes != sizeof(h.words))
		return -EINVAL;
	*id = (uint64_t)h.words[0] << 32 | h.words[1];
	*generation = h.words[2];
	return 0;
}
