// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The protocol sender thread: takes events from the queue in host order
 * and delivers each one (proto_events.c).
 *
 * Naming a child the kernel never looked up takes a lookup through the
 * mount. The thread reaches the mount through its own working directory
 * (unshare(CLONE_FS)): open_by_handle_at(AT_FDCWD, ...) then needs no
 * open file on the mount, and an open of the root would itself be an
 * OPEN event for watchers of the root. The working directory is the
 * mount's root only while events are waiting, so that a plain
 * `fusermount3 -u` does not find the mount busy; each entry is checked to
 * be our mount (same device), not something mounted on top.
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

static int mount_enter(struct proto_send *s)
{
	struct stat st;

	if (s->in_mount)
		return 0;
	if (!s->own_cwd)
		return -EPERM;
	if (chdir(s->mountpoint))
		return -errno;
	s->in_mount = true;
	if (stat(".", &st))
		return -errno;
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

static void *send_main(void *arg)
{
	struct proto_send *s = arg;
	struct rn_event ev;
	struct stat st;

	/* Served by the loop once it runs: the mount is ours right now. */
	if (!stat(s->mountpoint, &st))
		s->mnt_dev = st.st_dev;
	/* Without its own cwd the thread only loses child lookups. */
	s->own_cwd = !unshare(CLONE_FS);
	if (!s->own_cwd)
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: unshare(CLONE_FS): %s; events about files the client never looked up are not delivered\n",
			 strerror(errno));
	while (event_queue_pop(s->cfg.queue, &ev)) {
		count(s, &ev, proto_deliver(s, &ev));
		if (event_queue_idle(s->cfg.queue))
			mount_leave(s);
	}
	mount_leave(s);
	return NULL;
}

struct proto_send *proto_send_start(const struct proto_send_config *cfg)
{
	struct proto_send *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->mountpoint = strdup(cfg->mountpoint);
	err = s->mountpoint ? pthread_create(&s->thread, NULL, send_main, s) :
			      ENOMEM;
	if (err) {
		free(s->mountpoint);
		free(s);
		errno = err;
		return NULL;
	}
	return s;
}

void proto_send_stop(struct proto_send *s, struct proto_send_stats *st)
{
	if (!s)
		return;
	pthread_join(s->thread, NULL);
	if (st)
		*st = s->stats;
	free(s->mountpoint);
	free(s);
}
