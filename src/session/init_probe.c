// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include "protocol/proto_codec.h"
#include "init_probe.h"

/* /dev/fuse refuses reads into buffers smaller than a whole request. */
#define PROBE_BUF_SIZE (1024 * 1024 + 4096)

static int read_offer(int fd, bool *offered)
{
	void *buf = malloc(PROBE_BUF_SIZE);
	uint64_t unique, flags;
	ssize_t n;
	int err;

	if (!buf)
		return -ENOMEM;
	n = read(fd, buf, PROBE_BUF_SIZE);
	err = n < 0 ? -errno : proto_decode_init(buf, n, &unique, &flags);
	if (!err)
		*offered = !!(flags & FUSE_HAS_FSNOTIFY);
	free(buf);
	return err;
}

int init_probe(bool *offered)
{
	char dir[] = "/tmp/rnotifyfs-probe.XXXXXX";
	char opts[96];
	int fd, err;

	if (!mkdtemp(dir))
		return -errno;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%u,group_id=%u",
		 fd, getuid(), getgid());
	if (!err && mount("rnotifyfs-probe", dir, "fuse.rnotifyfs-probe",
			  MS_NOSUID | MS_NODEV | MS_RDONLY, opts))
		err = -errno;
	if (!err) {
		err = read_offer(fd, offered);
		umount2(dir, MNT_DETACH);
	}
	if (fd >= 0)
		close(fd);
	rmdir(dir);
	return err;
}
