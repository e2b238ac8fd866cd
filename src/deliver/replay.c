// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replayer thread: takes events from the queue in host order and
 * replays each one through the mount (replay_names.c, replay_content.c).
 *
 * Lifetime: replay_new() installs the gate; replay_start() starts the
 * thread, which learns the mount's device itself (the FUSE loop may not be
 * serving yet: only this thread may wait for it). replay_stop() expects
 * the queue to be closed and the session to be still serving.
 *
 * The replayer reaches the mount through its working directory (its own:
 * the thread unshares its fs_struct), which is the mount root while
 * events are waiting and "/" when the queue is idle: like an open fd, it
 * would make a plain `fusermount3 -u` fail with EBUSY if held for good.
 * Not an fd on the root: opening the root gives its watchers OPEN|ISDIR
 * and CLOSE_NOWRITE|ISDIR and costs an OPENDIR and a RELEASEDIR, while
 * chdir() makes no event and no request; and open_by_handle_at() refuses
 * an O_PATH fd as its mount fd (EBADF) but takes AT_FDCWD. Each entry is
 * checked to be our mount (same device), not something mounted on top.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "overflow_log.h"
#include "replay_internal.h"

struct replay *replay_new(struct fs *fs, struct event_queue *q,
			  const char *mountpoint)
{
	struct replay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->mountpoint = strdup(mountpoint);
	if (!r->mountpoint) {
		free(r);
		return NULL;
	}
	r->fs = fs;
	r->queue = q;
	atomic_init(&r->tid, -1);
	pthread_mutex_init(&r->lock, NULL);
	fs_set_gate(fs, replay_gate, r);
	return r;
}

static int replay_event(struct replay *r, const struct rn_event *ev)
{
	if (ev->kind != RN_EV_MODIFY)
		r->last_modified = 0;
	switch (ev->kind) {
	case RN_EV_CREATE:
		return replay_create(r, ev);
	case RN_EV_DELETE:
		return replay_delete(r, ev);
	case RN_EV_MOVE:
		return replay_move(r, ev);
	case RN_EV_MODIFY:
		return replay_modify(r, ev);
	case RN_EV_ATTRIB:
		return replay_attrib(r, ev);
	case RN_EV_CLOSE_WRITE:
		return replay_close_write(r, ev);
	case RN_EV_OVERFLOW:
		/* A stock kernel has no way to queue IN_Q_OVERFLOW for
		 * watchers of a FUSE mount: count it and log it. */
		r->stats.overflows++;
		overflow_log_warn(event_queue_dropped(r->queue));
		return 0;
	}
	return 0;
}

static void replay_count(struct replay *r, const struct rn_event *ev,
			 int ret)
{
	if (ret > 0) {
		r->stats.replayed++;
	} else if (ret == 0) {
		r->stats.skipped++;
	} else {
		r->stats.failed++;
		fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: replay of %s %s: %s\n",
			 rn_event_kind_name(ev->kind), ev->name,
			 strerror(-ret));
	}
}

static void mount_leave(struct replay *r)
{
	/* "/" is always there: leaving cannot fail. */
	if (r->in_mount && chdir("/") == 0)
		r->in_mount = false;
}

/*
 * Enters the mount root and says which device it is on. DONT_SYNC: the
 * device comes from the superblock, no GETATTR needed.
 */
static int mount_enter_dev(struct replay *r, dev_t *dev)
{
	struct statx stx;

	if (chdir(r->mountpoint))
		return -errno;
	r->in_mount = true;
	if (statx(AT_FDCWD, ".", AT_STATX_DONT_SYNC, 0, &stx)) {
		mount_leave(r);
		return -errno;
	}
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	return 0;
}

static int mount_enter(struct replay *r)
{
	dev_t dev;
	int ret;

	if (r->in_mount)
		return 0;
	ret = mount_enter_dev(r, &dev);
	if (!ret && dev != r->mnt_dev) {
		mount_leave(r);
		ret = -EXDEV;
	}
	return ret;
}

static void *replay_main(void *arg)
{
	struct replay *r = arg;
	struct rn_event ev;
	int ret;

	atomic_store(&r->tid, gettid());
	ret = unshare(CLONE_FS) ? -errno : mount_enter_dev(r, &r->mnt_dev);
	if (ret) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: replay: %s: %s\n",
			 r->mountpoint, strerror(-ret));
		return NULL;
	}
	mount_leave(r);
	while (event_queue_pop(r->queue, &ev)) {
		ret = mount_enter(r);
		replay_count(r, &ev, ret ? ret : replay_event(r, &ev));
		if (event_queue_idle(r->queue)) {
			mount_leave(r);
			if (r->stats.overflows)
				overflow_log_flush(event_queue_dropped(r->queue),
						   false);
		}
	}
	if (r->stats.overflows)
		overflow_log_flush(event_queue_dropped(r->queue), true);
	replay_writer_close_all(r);
	mount_leave(r);
	return NULL;
}

int replay_start(struct replay *r)
{
	int err = pthread_create(&r->thread, NULL, replay_main, r);

	if (err)
		return -err;
	r->started = true;
	return 0;
}

void replay_stop(struct replay *r, struct replay_stats *st)
{
	if (!r)
		return;
	if (r->started)
		pthread_join(r->thread, NULL);
	if (st)
		*st = r->stats;
	fs_set_gate(r->fs, NULL, NULL);
	pthread_mutex_destroy(&r->lock);
	free(r->mountpoint);
	free(r);
}
