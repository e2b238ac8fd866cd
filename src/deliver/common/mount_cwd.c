// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "session/session_io.h"
#include "mount_cwd.h"

/*
 * A mount namespace of the thread's own, every mount in it private: no
 * unmount in ours reaches the copy, nor does its being busy hold one up.
 */
static bool own_copy(void)
{
	if (unshare(CLONE_FS | CLONE_NEWNS)) {
		fuse_log(FUSE_LOG_DEBUG,
			 "rnotifyfs: no mount namespace of our own (%s): umount fails while we work in the mount\n",
			 strerror(errno));
		return false;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: cannot make our copies of the mounts private (%s): umount fails while we work in the mount\n",
			 strerror(errno));
	return true;
}

int mount_cwd_own(bool private_mounts, struct session_io *sio)
{
	session_io_from_self(sio);
	if (private_mounts && own_copy())
		return 0;
	return unshare(CLONE_FS) ? -errno : 0;
}

void mount_cwd_leave(struct mount_cwd *m)
{
	if (m->in && chdir("/") == 0)
		m->in = false;
}

int mount_cwd_enter(struct mount_cwd *m)
{
	struct statx stx;
	dev_t dev;

	if (m->in)
		return 0;
	if (chdir(m->path))
		return -errno;
	m->in = true;
	/* DONT_SYNC: the device comes from the superblock, no GETATTR. */
	if (statx(AT_FDCWD, ".", AT_STATX_DONT_SYNC, 0, &stx)) {
		int err = -errno;

		mount_cwd_leave(m);
		return err;
	}
	dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if (!m->dev)
		m->dev = dev;
	if (dev != m->dev) {
		mount_cwd_leave(m);
		return -EXDEV;
	}
	return 0;
}
