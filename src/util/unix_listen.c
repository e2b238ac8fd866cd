// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sockets a VMM or a guest's channel connects to: a peer on them acts
 * as the guest (vhost-user) or as guest root (the agent), so no other
 * user of the host may connect, not even between bind() and a chmod().
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "unix_listen.h"

int unix_listen_owner_only(const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, err;

	if (strlen(path) >= sizeof(un.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(un.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	old = umask(0077);
	err = bind(fd, (struct sockaddr *)&un, sizeof(un));
	umask(old);
	if (err || listen(fd, 1)) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}
