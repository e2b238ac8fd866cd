// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A directory the client kernel never looked up, in which a filesystem
 * mark on the mount wants an event.
 *
 * The kernel delivers an event only through an inode it holds. Marks on
 * a directory it never looked up, or on that directory's children,
 * cannot exist; but a filesystem mark (fanotify FAN_MARK_FILESYSTEM)
 * wants every event of its kinds, as it gets them for local changes
 * anywhere. For it the pump opens the directory through the mount: the
 * kernel looks up each name on the way, as for any path, and the fd keeps
 * the directory held until the event is sent (O_PATH: no OPEN request and
 * no event). The path comes from the host watcher's handle of the
 * directory. A rename can make it stale, so it must lead to the event's
 * directory by identity, or the event is not delivered, as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proto_internal.h"

/* path below the working directory (the mount root): fd or -errno. */
static int open_beneath(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path[0] ? path : ".",
			      &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

int proto_hold_dir(struct proto_send *s, const struct rn_event *ev, int which,
		   const struct rn_id *id, struct proto_node *n)
{
	char *path;
	int ret;

	path = malloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	ret = rn_event_dir_path(ev, which, path, PATH_MAX);
	if (!ret)
		ret = proto_mount_enter(s);
	if (!ret)
		ret = open_beneath(path);
	free(path);
	if (ret >= 0 && !proto_node_known(s, id, n)) {
		close(ret);
		ret = -ESTALE;
	}
	if (ret >= 0)
		s->stats.dirs_held++;
	return ret;
}
