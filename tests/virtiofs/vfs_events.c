// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events - remote changes seen from a virtiofs guest: the host makes
 * each change (guest_cmd.h), and the guest reads what its mount shows.
 *
 *   vfs_events LABEL MOUNTPOINT TAG
 *
 * LABEL prefixes every check ("rnotifyfs", "virtiofsd"); TAG names the
 * export to host_cmd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "guest_cmd.h"

static const char *label, *mnt, *tag;
static int failures;

/* "PASS label:name" or "FAIL label:name: why", as vfs_tools prints. */
#define VCHECK(name, cond)						\
	do {								\
		if (cond) {						\
			printf("PASS %s:%s\n", label, (name));		\
		} else {						\
			printf("FAIL %s:%s: %s (%s:%d)\n", label, (name), \
			       #cond, __FILE__, __LINE__);		\
			failures++;					\
		}							\
		fflush(stdout);						\
	} while (0)

/* The whole content of path (at most len - 1 bytes), or "" on error. */
static const char *slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* The harness itself: a host write is there when host_cmd returns. */
static void test_host_cmd(void)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/hc_smoke", mnt);
	VCHECK("host_cmd_write", host_cmd("write %s hc_smoke hello",
					       tag) == 0);
	VCHECK("host_cmd_read_back",
	       !strcmp(slurp(path, buf, sizeof(buf)), "hello"));
	VCHECK("host_cmd_errno",
	       host_cmd("unlink %s hc_none", tag) == ENOENT);
	VCHECK("host_cmd_unlink", host_cmd("unlink %s hc_smoke",
						tag) == 0);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: vfs_events LABEL MOUNTPOINT TAG\n");
		return 2;
	}
	label = argv[1];
	mnt = argv[2];
	tag = argv[3];
	test_host_cmd();
	return failures ? 1 : 0;
}
