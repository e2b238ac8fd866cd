// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The protocol sender: lifetime, statistics and access to the mount.
 *
 * Giving a watched object that was renamed its new name in the kernel
 * takes a lookup through the mount (other events on children the kernel
 * never looked up carry the child's entry instead: proto_events.c), as
 * does a directory the kernel never looked up in which a filesystem mark
 * wants an event (proto_hold.c). The pump thread reaches the mount
 * through its working directory (mount_cwd.h) while a batch of events is
 * being delivered.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deliver/common/fuse_handle.h"
#include "proto_internal.h"

/* Without its own cwd the pump thread only loses lookups after renames. */
static bool own_cwd(struct proto_send *s)
{
	int err;

	if (!s->own_cwd) {
		err = mount_cwd_own(s->cfg.private_mounts, s->cfg.session);
		s->own_cwd = err ? -1 : 1;
		if (err)
			fuse_log(FUSE_LOG_WARNING,
				 "rnotifyfs: unshare(CLONE_FS): %s; renamed watched files are not looked up under their new name, nor directories for filesystem marks\n",
				 strerror(-err));
	}
	return s->own_cwd > 0;
}

int proto_mount_enter(struct proto_send *s)
{
	/* A virtiofs guest's mount is not ours to enter. */
	if (!s->mountpoint)
		return -ENOTSUP;
	return own_cwd(s) ? mount_cwd_enter(&s->cwd) : -EPERM;
}

int proto_lookup_child(struct proto_send *s, const struct proto_node *dir,
		       const char *name)
{
	struct stat st;
	int fd, err = proto_mount_enter(s);

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
	struct proto_send *s = arg;

	mount_cwd_leave(&s->cwd);
}

struct proto_send *proto_send_new(const struct proto_send_config *cfg)
{
	struct proto_send *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->mountpoint = cfg->mountpoint ? strdup(cfg->mountpoint) : NULL;
	if (cfg->mountpoint && !s->mountpoint) {
		free(s);
		return NULL;
	}
	s->cwd.path = s->mountpoint;
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
