// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "remote_events.h"

int remote_events_for_inotify(void)
{
	int fd = open(REMOTE_EVENTS_SYSCTL, O_RDONLY | O_CLOEXEC);
	char c;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, &c, 1);
	close(fd);
	if (n < 0)
		return -errno;
	return n == 1 && c == '1';
}
