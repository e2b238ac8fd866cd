// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replayer: takes events from the queue in host order and replays
 * each one through the mount (replay_names.c, replay_content.c).
 *
 * There is no replayer thread of its own: the event pump's threads read
 * the host watcher, queue what they read, and the one that finds nobody
 * replaying takes the queue's consumer role and replays until the queue
 * is empty, while the other goes on reading. A lone change is replayed by
 * the thread woken for it: no hand-over to another thread.
 *
 * Lifetime: replay_new() installs the gate; the pump's threads then call
 * replay_thread_init() (which waits for the FUSE loop to serve: the pump
 * threads may, the loop's own thread may not), replay_queue_event() and
 * replay_drained(). replay_abandon() comes before the pump stops, and
 * replay_stop() after, while the session still serves.
 *
 * The replayer reaches the mount through its working directory
 * (mount_cwd.h), the mount root while it replays and "/" between its turns;
 * or, for a guest's mount, through the agent there (cfg->sys), which is
 * then whom the gate answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log_out.h"
#include "util/mountinfo.h"
#include "deliver/common/overflow_log.h"
#include "replay_internal.h"

struct replay *replay_new(const struct replay_config *cfg)
{
	struct replay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (cfg->sys) {
		r->sys = cfg->sys;
		r->sys_arg = cfg->sys_arg;
	} else {
		r->mountpoint = strdup(cfg->mountpoint);
		if (!r->mountpoint) {
			free(r);
			return NULL;
		}
		r->mount.path = r->mountpoint;
		/* Left 0 if not found: each turn's first entry learns it. */
		mountinfo_dev_of(cfg->mountpoint, &r->mount.dev);
		r->sys = &replay_sys_local;
		r->sys_arg = &r->mount;
	}
	r->fs = cfg->fs;
	r->no_notify = cfg->no_notify;
	r->queue = cfg->queue;
	r->pin = cfg->pin;
	r->private_mounts = cfg->private_mounts;
	r->session = cfg->session;
	/* Never changed: no system call per replay for a stand-in's owner. */
	r->uid = getuid();
	r->gid = getgid();
	atomic_init(&r->tid, -1);
	atomic_init(&r->refresh_tid, -1);
	atomic_init(&r->gate_uid, (uid_t)-1);
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->refresh_lock, NULL);
	fs_set_gate(r->fs, replay_gate, r);
	return r;
}

/*
 * A working directory (and copy of the mounts) of the thread's own. Not
 * an entry into the mount yet: that may wait for a GETATTR, which only
 * the session loop, started after the pump, answers; a start that failed
 * would then wait for this thread for good.
 */
int replay_thread_init(void *arg)
{
	struct replay *r = arg;
	int ret;

	if (!r->mountpoint)
		return 0;	/* not ours to enter */
	ret = mount_cwd_own(r->private_mounts, r->session);
	if (ret)
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: replay: %s: %s\n",
			 r->mountpoint, strerror(-ret));
	return ret;
}

void replay_queue_event(void *arg, const struct rn_event *ev)
{
	struct replay *r = arg;

	if (atomic_load(&r->abandon)) {
		/* Stopping: the rest of the read goes too. */
		atomic_fetch_add(&r->read_at_stop, 1);
		return;
	}
	/* Full, and nobody replays: this thread does, then queues. */
	while (!event_queue_room(r->queue, ev))
		replay_drained(r);
	event_queue_push(r->queue, ev);
}

/*
 * Is the next event the first write or close of the file ev creates? A
 * writer's CREATE and CLOSE_WRITE often come as one host event, and are
 * queued one after the other.
 */
static bool next_opens(struct replay *r, const struct rn_event *ev)
{
	struct rn_event next;

	if (ev->isdir || !event_queue_peek(r->queue, &next))
		return false;
	if (next.kind != RN_EV_MODIFY && next.kind != RN_EV_CLOSE_WRITE)
		return false;
	if (rn_id_known(&ev->obj) && rn_id_known(&next.obj) &&
	    !rn_id_equal(&ev->obj, &next.obj))
		return false;
	return rn_id_equal(&ev->dir, &next.dir) &&
	       !strcmp(ev->name, next.name);
}

static int replay_event(struct replay *r, const struct rn_event *ev)
{
	if (ev->kind != RN_EV_MODIFY)
		r->last_modified = 0;
	switch (ev->kind) {
	case RN_EV_CREATE:
		return replay_create(r, ev, next_opens(r, ev));
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
		 * watchers of a FUSE mount: count it and log it. What the
		 * lost events made stale is not known: drop it all.
		 */
		fs_cache_drop_all(r->fs);
		r->stats.overflows++;
		overflow_log_warn(&r->overflows,
				  event_queue_dropped(r->queue));
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
		/* Watchers on the mount miss this change. */
		r->stats.failed++;
		fuse_log(FUSE_LOG_WARNING,
			 LOG_PER_EVENT "replay of %s %s: %s\n",
			 rn_event_kind_name(ev->kind), ev->name,
			 strerror(-ret));
	}
}

/*
 * A second event in one turn is a backlog: its round trips are worth
 * holding on one CPU (cpu_pin.c). A lone event is not.
 */
static bool hold_backlog(struct replay *r, unsigned long taken)
{
	if (taken != 2 || !r->pin)
		return false;
	cpu_pin_gather(r->pin);
	r->stats.held++;
	return true;
}

void replay_drained(void *arg)
{
	struct replay *r = arg;
	struct replay_stale stale = { 0 };
	bool overflowed = false, held = false, in = false;
	unsigned long taken = 0, unreached = 0;
	struct rn_event ev;
	pid_t tid;
	uid_t uid;
	int ret;

	if (!event_queue_claim(r->queue))
		return;
	/* r is the next holder's once take() says the queue is empty. */
	while (event_queue_take(r->queue, &ev)) {
		if (atomic_load(&r->abandon)) {
			r->stats.abandoned++;
			continue;
		}
		held |= hold_backlog(r, ++taken);
		if (ev.kind == RN_EV_OVERFLOW) {
			/* No call on the mount: counted with or without an agent. */
			replay_count(r, &ev, replay_event(r, &ev));
			overflowed = true;
			continue;
		}
		ret = in ? 0 : RSYS(r, enter);
		if (ret == -ENOTCONN) {
			/* No agent: one line for the lot, below. */
			unreached++;
			continue;
		}
		if (!in && !ret) {
			in = true;
			/* Before the first call on the mount. */
			RSYS(r, caller, &tid, &uid);
			atomic_store(&r->gate_uid, uid);
			atomic_store(&r->tid, tid);
		}
		if (!ret)
			ret = replay_event(r, &ev);
		replay_count(r, &ev, ret);
		/* The agent went (or came back as another): enter again. */
		if (ret == -ENOTCONN)
			in = false;
		replay_stale_move(&stale, &r->stale);
		overflowed = r->stats.overflows;
	}
	/* Off the next event's path: it may already be another's turn. */
	if (in)
		replay_stale_refresh(r, &stale);
	r->sys->leave(r->sys_arg);
	if (unreached) {
		r->stats.unreached += unreached;
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: no agent in the guest: %lu remote events not delivered (%lu in all)\n",
			 unreached, r->stats.unreached);
	}
	if (held)
		cpu_pin_release(r->pin);
	if (overflowed)
		overflow_log_flush(&r->overflows,
				   event_queue_dropped(r->queue), false);
}

void replay_abandon(struct replay *r)
{
	if (r)
		atomic_store(&r->abandon, true);
}

void replay_stop(struct replay *r, struct replay_stats *st)
{
	if (!r)
		return;
	replay_writer_close_all(r);
	if (r->stats.overflows)
		overflow_log_flush(&r->overflows,
				   event_queue_dropped(r->queue), true);
	r->stats.abandoned += atomic_load(&r->read_at_stop);
	if (st)
		*st = r->stats;
	fs_set_gate(r->fs, NULL, NULL);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->refresh_lock);
	free(r->mountpoint);
	free(r);
}
