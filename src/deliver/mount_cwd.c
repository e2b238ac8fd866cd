// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../request_read.h"
#include "mount_cwd.h"

int mount_cwd_own(void)
{
	request_read_from_self();
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
