// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-thread credentials (caller.h). setfsuid() and setfsgid() change
 * the calling thread alone; glibc's setgroups() would change every
 * thread of the process, so the groups go through the raw system call,
 * which changes only the caller. Neither the fs ids nor the groups are
 * checked by anything but file system permission checks, and an fsuid
 * other than 0 takes the file system capabilities (CAP_DAC_OVERRIDE,
 * CAP_FOWNER, CAP_CHOWN, ...) out of the thread's effective set until it
 * is 0 again: the thread then has exactly the caller's file rights.
 *
 * The caller's supplementary groups are not in the request: they are
 * read from /proc/TID/status of the calling thread. If that fails (the
 * thread is gone, or is not in the server's pid namespace and came with
 * pid 0), the caller acts with none: fewer rights, never more. A caller
 * in a virtiofs guest (fs->guest_callers) always acts with none: its pid
 * is the guest's, and /proc/PID here is some other process, or none.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caller.h"
#include "fs_internal.h"

/* Read once at the start, before any request thread exists. */
static struct {
	gid_t *list;
	int count;
	uid_t uid;
	gid_t gid;
} server;

int fs_caller_setup(void)
{
	int n = getgroups(0, NULL);

	server.uid = geteuid();
	server.gid = getegid();
	if (n < 0)
		return -errno;
	free(server.list);
	server.list = calloc(n ? n : 1, sizeof(gid_t));
	if (!server.list)
		return -ENOMEM;
	server.count = getgroups(n, server.list);
	return server.count < 0 ? -errno : 0;
}

static int set_groups(int count, const gid_t *list)
{
	return syscall(SYS_setgroups, count, list) ? -errno : 0;
}

/* The caller's groups into *list (malloc'ed when more than fit). */
static int caller_groups(fuse_req_t req, gid_t *buf, int size, gid_t **list)
{
	int n;

	*list = buf;
	if (fs_of(req)->guest_callers)
		return 0;
	n = fuse_req_getgroups(req, size, buf);
	if (n < 0)
		return 0;
	if (n <= size)
		return n;
	*list = calloc(n, sizeof(gid_t));
	if (!*list)
		return -ENOMEM;
	n = fuse_req_getgroups(req, n, *list);
	return n < 0 ? 0 : n;
}

int fs_caller_enter(fuse_req_t req, struct fs_caller *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t buf[32], *list;
	int n, err;

	c->switched = false;
	if (!fs_of(req)->as_root || (ctx->uid == 0 && ctx->gid == 0))
		return 0;
	n = caller_groups(req, buf, (int)(sizeof(buf) / sizeof(buf[0])),
			  &list);
	if (n < 0)
		return n;
	err = set_groups(n, list);
	if (list != buf)
		free(list);
	if (err)
		return err;
	c->switched = true;
	setfsgid(ctx->gid);
	setfsuid(ctx->uid);
	/* Each returns the old id, never an error: ask what took. */
	if ((uid_t)setfsuid(-1) != ctx->uid ||
	    (gid_t)setfsgid(-1) != ctx->gid) {
		fs_caller_leave(c);
		c->switched = false;
		return -EPERM;
	}
	return 0;
}

void fs_caller_leave(const struct fs_caller *c)
{
	if (!c->switched)
		return;
	/* The fsuid first: it gives back the capabilities. */
	setfsuid(server.uid);
	setfsgid(server.gid);
	if (set_groups(server.count, server.list))
		abort();	/* a thread left with a user's groups */
}
