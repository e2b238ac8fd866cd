/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replay delivery, for stock kernels (DESIGN.md section 5).
 *
 * The client kernel only generates inotify/fanotify events for operations
 * that pass through its own VFS. So for each remote change, a thread of
 * this process (one of the event pump's) performs the matching operation
 * through the
 * mount, and the file system answers the replayer's requests through the
 * gate without touching the backing store (the change already happened
 * there). The kernel then runs its normal fsnotify hooks: every watcher on
 * the mount gets the native event types, names and rename cookies, and the
 * kernel's caches end up describing the new state.
 */
#ifndef RNOTIFY_DELIVER_REPLAY_REPLAY_H
#define RNOTIFY_DELIVER_REPLAY_REPLAY_H

#include "util/cpu_pin.h"
#include "fs/remote.h"
#include "event_queue.h"

struct replay;
struct session_io;

struct replay_sys;

struct replay_config {
	struct fs *fs;			/* serves the mount; gets the gate */
	struct event_queue *queue;	/* the events to replay */
	const char *mountpoint;		/* with sys NULL */
	/*
	 * The system calls of a replay, on sys_arg, for a mount that is not
	 * ours to enter (a virtiofs guest's: agent_link.h); NULL: on
	 * mountpoint, by the replaying thread itself.
	 */
	const struct replay_sys *sys;
	void *sys_arg;
	/*
	 * The client takes no FUSE notification (a stock virtiofs guest):
	 * no cache invalidation is sent; its cache must be off instead.
	 */
	bool no_notify;
	/* The request workers, held on the replayer's CPU for a backlog. */
	struct cpu_pin *pin;		/* may be NULL */
	bool private_mounts;		/* mount_cwd_own()'s copy */
	struct session_io *session;	/* mount_cwd_own()'s */
};

/*
 * Prepares replay as cfg says and installs the gate on its fs. NULL with
 * errno set on failure.
 */
struct replay *replay_new(const struct replay_config *cfg);

/*
 * The event pump's sink (event_pump.h), arg r, called by its threads:
 * thread_init gives the calling thread a working directory of its own and
 * checks that it reaches the mount (0 or a negative errno, said in the
 * log); event queues an event; drained replays what is queued if no other
 * thread is replaying, until nothing is left.
 */
int replay_thread_init(void *r);
void replay_queue_event(void *r, const struct rn_event *ev);
void replay_drained(void *r);

struct replay_stats {
	unsigned long replayed;	/* events turned into a VFS operation */
	unsigned long skipped;	/* about objects the client never saw */
	unsigned long failed;	/* the VFS operation failed: caches dropped */
	unsigned long overflows;
	unsigned long held;	/* backlogs replayed on one CPU */
	unsigned long abandoned; /* read, not replayed when the server stopped */
	unsigned long unreached; /* the mount could not be entered */
};

/*
 * Before the pump stops: the turn in progress ends after its event, and
 * what is still queued, or still being read from the host, is dropped and
 * counted (stats.abandoned). The mount is about to go: its watchers get
 * IN_UNMOUNT, and a backlog of queue=N events would hold the stop for
 * seconds to minutes.
 */
void replay_abandon(struct replay *r);

/*
 * Once the pump is stopped (the queue is then empty): closes the files
 * the replay holds open on the mount (the session must still serve),
 * fills *st if not NULL, removes the gate and frees r.
 */
void replay_stop(struct replay *r, struct replay_stats *st);

#endif
