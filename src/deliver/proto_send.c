// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The protocol sender: lifetime, statistics and access to the mount.
 *
 * Naming a child the kernel never looked up takes a lookup through the
 * mount. The pump thread reaches the mount through a working directory
 * of its own (unshare(CLONE_FS)): open_by_handle_at(AT_FDCWD, ...) then
 * needs no open file on the mount, and an open of the root would itself
 * be an OPEN event for watchers of the root. The working directory is the
 * mount's root only while a batch of events is being delivered, so that
 * a plain `fusermount3 -u` does not find the mount busy; each entry is
 * checked to be our mount (the device it had at the first entry), not
 * something mounted on top since.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse_handle.h"
#include "proto_send_internal.h"

/* Without its own cwd the pump thread only loses child lookups. */
static bool own_cwd(struct proto_send *s)
{
	if (!s->own_cwd) {
		s->own_cwd = unshare(CLONE_FS) ? -1 : 1;
		if (s->own_cwd < 0)
			fuse_log(FUSE_LOG_WARNING,
				 "rnotifyfs: unshare(CLONE_FS): %s; events about files the client never looked up are not delivered\n",
				 strerror(errno));
	}
	return s->own_cwd > 0;
}

static int mount_enter(struct proto_send *s)
{
	struct stat st;

	if (s->in_mount)
		return 0;
	if (!own_cwd(s))
		return -EPERM;
	if (chdir(s->mountpoint))
		return -errno;
	s->in_mount = true;
	if (stat(".", &st))
		return -errno;
	if (!s->mnt_dev)
		s->mnt_dev = st.st_dev;
	return st.st_dev == s->mnt_dev ? 0 : -EXDEV;
}

static void mount_leave(struct proto_send *s)
{
	if (s->in_mount && !chdir("/"))
		s->in_mount = false;
}

int proto_lookup_child(struct proto_send *s, const struct proto_node *dir,
		       const char *name)
{
	struct stat st;
	int fd, err = mount_enter(s);

	if (err)
		return err;
	fd = fuse_handle_open(AT_FDCWD, dir->id, dir->gen,
			      O_PATH | O_DIRECTORY);
	if (fd < 0)
		return fd;
	err = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	close(fd);
	if (!err)
		s->stats.lookups++;
	return err;
}

static void count(struct proto_send *s, const struct rn_event *ev, int ret)
{
	if (ret > 0) {
		s->stats.events++;
	} else if (ret == 0) {
		s->stats.skipped++;
	} else {
		s->stats.failed++;
		fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: notify %s %s: %s\n",
			 rn_event_kind_name(ev->kind), ev->name,
			 strerror(-ret));
	}
}

void proto_send_event(void *arg, const struct rn_event *ev)
{
	struct proto_send *s = arg;

	count(s, ev, proto_deliver(s, ev));
}

void proto_send_drained(void *arg)
{
	mount_leave(arg);
}

struct proto_send *proto_send_new(const struct proto_send_config *cfg)
{
	struct proto_send *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->mountpoint = strdup(cfg->mountpoint);
	if (!s->mountpoint) {
		free(s);
		return NULL;
	}
	return s;
}

void proto_send_free(struct proto_send *s, struct proto_send_stats *st)
{
	if (!s)
		return;
	if (st)
		*st = s->stats;
	free(s->mountpoint);
	free(s);
}
