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
 * The replayer reaches the mount through its working directory
 * (mount_cwd.h), the mount root while events are waiting and "/" when the
 * queue is idle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
	r->cwd.path = r->mountpoint;
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
		/*
		 * A stock kernel has no way to queue IN_Q_OVERFLOW for
		 * watchers of a FUSE mount: count it and log it.
		 */
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

static void *replay_main(void *arg)
{
	struct replay *r = arg;
	struct rn_event ev;
	int ret;

	atomic_store(&r->tid, gettid());
	/* The first entry learns which device the mount is. */
	ret = mount_cwd_own();
	if (!ret)
		ret = mount_cwd_enter(&r->cwd);
	if (ret) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: replay: %s: %s\n",
			 r->mountpoint, strerror(-ret));
		return NULL;
	}
	mount_cwd_leave(&r->cwd);
	while (event_queue_pop(r->queue, &ev)) {
		ret = mount_cwd_enter(&r->cwd);
		replay_count(r, &ev, ret ? ret : replay_event(r, &ev));
		if (event_queue_idle(r->queue)) {
			mount_cwd_leave(&r->cwd);
			if (r->stats.overflows)
				overflow_log_flush(event_queue_dropped(r->queue),
						   false);
		}
	}
	if (r->stats.overflows)
		overflow_log_flush(event_queue_dropped(r->queue), true);
	replay_writer_close_all(r);
	mount_cwd_leave(&r->cwd);
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
