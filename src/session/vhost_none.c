// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vhost_io.h when the server is built without libvhost-user (no
 * scripts/setup-vhost before make): the mode is refused.
 */
#include <errno.h>

#include "vhost_io.h"

bool vhost_io_available(void)
{
	return false;
}

struct vhost_io *vhost_io_accept(const char *socket_path, int listen_fd)
{
	errno = ENOTSUP;
	return 0;
}

int vhost_io_start(struct vhost_io *vio, struct fuse_session *se,
		   struct fs *fs, struct session_io *sio)
{
	return -ENOTSUP;
}

ssize_t vhost_io_notify(struct vhost_io *vio, const struct iovec *iov,
			int count)
{
	errno = ENOTSUP;
	return -1;
}

bool vhost_io_guest_ended(struct vhost_io *vio)
{
	return false;
}

int vhost_io_next_session(struct vhost_io *vio, struct fuse_session *se)
{
	return -ENOTSUP;
}

void vhost_io_stop(struct vhost_io *vio)
{
}

void vhost_io_free(struct vhost_io *vio)
{
}
