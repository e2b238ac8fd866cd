/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Protocol delivery, for kernels with the rnotify series (DESIGN.md
 * section 4): each remote change becomes FUSE_NOTIFY_FSNOTIFY
 * notifications on the session fd, after the kernel's caches for the
 * objects concerned were invalidated, and the client kernel hands them to
 * every inotify and fanotify mark on the mount.
 *
 * Which events are sent: every event about an object the client kernel
 * knows (it holds a node for it). The kernel filters against its own
 * marks, and filtering here on the forwarded masks would lose the events
 * that happen right after inotify_add_watch() returns, before the
 * kernel's asynchronous mask update has reached us. The masks decide the
 * case of a child the kernel never looked up instead: an event about it
 * goes (with the child's entry, which makes the kernel hold it from then
 * on) only when its directory is watched for children, or a
 * filesystem-wide mark exists. A directory the kernel never looked up is
 * looked up through the mount only for a filesystem-wide mark that
 * wants the event (proto_hold.c).
 */
#ifndef RNOTIFY_DELIVER_PROTO_PROTO_H
#define RNOTIFY_DELIVER_PROTO_PROTO_H

#include <sys/types.h>

#include "fs/remote.h"
#include "protocol/proto_watches.h"

struct proto_send;
struct session_io;

struct proto_send_config {
	struct fs *fs;
	struct proto_watches *watches;
	int fuse_fd;			/* the session's /dev/fuse fd */
	/* Writes a frame instead of fuse_fd, if set (delivery.h) */
	ssize_t (*notify)(void *ctx, const void *buf, size_t len);
	void *notify_ctx;
	const char *mountpoint;		/* NULL: none (virtiofs) */
	bool private_mounts;		/* mount_cwd_own()'s copy */
	struct session_io *session;	/* mount_cwd_own()'s */
	bool link_counts;		/* the watcher reports them */
};

/*
 * A sender for the mount; NULL with errno set on failure. Its calls come
 * from one thread, the event pump's: events go out in host order, without
 * a hand-over to another thread.
 */
struct proto_send *proto_send_new(const struct proto_send_config *cfg);

/* Delivers one remote change (an event_sink callback; arg is the sender). */
void proto_send_event(void *arg, const struct rn_event *ev);

/* The host watcher has nothing more for now (an event_sink callback). */
void proto_send_drained(void *arg);

struct proto_send_stats {
	unsigned long events;		/* remote changes delivered */
	unsigned long skipped;		/* about objects the client never saw */
	unsigned long failed;		/* refused by the kernel */
	unsigned long lookups;		/* renamed watched objects looked up */
	unsigned long dirs_held;	/* directories looked up for fs marks */
	unsigned long by_name;		/* child events sent by name alone */
	unsigned long with_entry;	/* ... sent again with the entry */
	unsigned long new_refused;	/* new entries refused by name */
	unsigned long overflows;
};

/* Once the pump has stopped: fills *st if not NULL and frees. */
void proto_send_free(struct proto_send *s, struct proto_send_stats *st);

#endif
