/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chain that carries remote changes to the mount:
 *   host watcher -> event pump -> event queue -> delivery backend.
 */
#ifndef RNOTIFY_DELIVER_DELIVERY_H
#define RNOTIFY_DELIVER_DELIVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fs/remote.h"
#include "session/session_io.h"
#include "util/cpu_pin.h"

struct replay_sys;

struct delivery;

enum delivery_mode {
	DELIVERY_AUTO,		/* the protocol if INIT negotiated it, else replay */
	DELIVERY_REPLAY,
	DELIVERY_PROTOCOL,
	DELIVERY_NONE,
};

struct delivery_config {
	enum delivery_mode mode;
	int watch_backend;	/* enum watch_backend */
	const char *mountpoint;	/* kept, not copied; NULL: a virtiofs guest's */
	/*
	 * Writes a notification frame as write(2) to the session fd would,
	 * for a transport without one (vhost_io_notify()); NULL: the fd.
	 */
	ssize_t (*notify)(void *ctx, const void *buf, size_t len);
	void *notify_ctx;
	size_t queue_size;	/* replay queue, in events */
	/*
	 * Replay on a mount that is not ours (a virtiofs guest's, through
	 * its agent: agent_link.h), with these system calls; NULL: on
	 * mountpoint.
	 */
	const struct replay_sys *replay_sys;
	void *replay_sys_arg;
	bool no_notify;		/* replay.h's */
	bool debug;		/* log the counts at the end */
};

/*
 * Opens the host watcher for fs, before the mount and before the process
 * daemonizes, so that a refusal (a per-user watch limit, say) is said on
 * the terminal and nothing is mounted. NULL when delivery=none, or after
 * printing why it failed, with *fatal set.
 */
struct delivery *delivery_new(const struct delivery_config *cfg,
			      struct fs *fs, bool *fatal);

/*
 * Whether the mount may use FUSE passthrough with d's host watcher: the
 * inotify fallback's events name no object, so the kernel's close of a
 * backing file it opened for a writer would pass for a remote change.
 */
bool delivery_allows_passthrough(const struct delivery *d);

/*
 * Starts the chain of d (from delivery_new, may be NULL) once INIT was
 * answered: the kernel's protocol when sio negotiated it, replay
 * otherwise; fuse_fd is the session's, for notifications; pin holds the
 * threads that answer requests, for replay (replay.h); private_mounts:
 * the threads that work in the mount take a private copy of the mounts
 * (mount_cwd.h), once the mount table is watched. Returns NULL
 * after printing why delivery is off when it cannot work here and was not
 * explicitly asked for (d is freed), with *fatal set when it was asked
 * for and failed.
 */
struct delivery *delivery_start(struct delivery *d, struct session_io *sio,
				int fuse_fd, struct cpu_pin *pin,
				bool private_mounts, bool *fatal);

/*
 * Stops the chain (or frees what delivery_new() opened); a started chain
 * needs the FUSE session still serving requests.
 */
void delivery_stop(struct delivery *d);

#endif
