/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals shared by proto_send.c (lifetime, mount access),
 * proto_events.c (one event) and proto_rename.c (a rename's FS_RENAME).
 */
#ifndef RNOTIFY_DELIVER_PROTO_PROTO_INTERNAL_H
#define RNOTIFY_DELIVER_PROTO_PROTO_INTERNAL_H


#include "deliver/common/mount_cwd.h"
#include "deliver/common/overflow_log.h"
#include "proto_asked.h"
#include "proto.h"

struct proto_send {
	struct proto_send_config cfg;
	char *mountpoint;
	int own_cwd;		/* the thread's cwd is its own: 1, no: -1, 0: untried */
	struct mount_cwd cwd;	/* the mount root while delivering a batch */
	uint32_t cookie;	/* last rename cookie sent */
	struct proto_asked asked;	/* where the kernel wants children */
	struct proto_send_stats stats;
	struct overflow_log overflows;	/* the pump thread's */
};

/* A node as the client kernel knows it. */
struct proto_node {
	uint64_t id;
	uint32_t gen;
};

/*
 * proto_events.c: the node the kernel holds for a host object; false if
 * it holds none.
 */
bool proto_node_known(struct proto_send *s, const struct rn_id *id,
		      struct proto_node *n);
/* proto_events.c: one remote change; >0 delivered, 0 skipped, <0 error. */
int proto_deliver(struct proto_send *s, const struct rn_event *ev);
/* proto_events.c: writes one notification; 1 or -errno. */
int proto_send_frame(struct proto_send *s, const struct proto_event *ev);
/*
 * proto_events.c: sends pe with the entry of child name of directory dir
 * (ISDIR added if it is one), counting the kernel's lookup of it. 0, and
 * nothing sent, if the name no longer leads to obj; else as
 * proto_send_frame().
 */
int proto_send_pushed(struct proto_send *s, uint64_t dir, const char *name,
		      const struct rn_id *obj, struct proto_event *pe);

/* ISDIR for an event about a directory. */
static inline uint32_t proto_isdir_bit(const struct rn_event *ev)
{
	return ev->isdir ? FUSE_FSNOTIFY_ISDIR : 0;
}

/* proto_events.c: one notification about node n (name: NULL or a child). */
int proto_notify(struct proto_send *s, const struct proto_node *n,
		     uint32_t mask, uint32_t cookie, const char *name);
/* proto_events.c: ATTRIB for n's link count, to its own watchers only. */
int proto_notify_link_count(struct proto_send *s, const struct proto_node *n,
			    bool isdir);
/* proto_events.c: does a filesystem mark on the mount want mask? */
bool proto_fs_wants(struct proto_send *s, uint32_t mask);
/*
 * proto_events.c: makes the kernel hold ev's directory (which 0: dir,
 * 1: dir2), which it did not; *held is the fd to proto_unhold() once the
 * event is sent.
 */
bool proto_hold(struct proto_send *s, const struct rn_event *ev, int which,
		struct proto_node *n, int *held);
/* proto_events.c: closes held (if one), and returns ret. */
int proto_unhold(int held, int ret);
/* proto_events.c: a nonzero cookie no earlier rename used. */
uint32_t proto_next_cookie(struct proto_send *s);
/*
 * proto_events.c: a new entry's event (CREATE or MOVED_TO) in dir, by
 * name, or with the child's entry where the kernel asks for it.
 */
int proto_send_new_entry(struct proto_send *s, const struct proto_node *dir,
			 const struct rn_event *ev, const char *name,
			 uint32_t kind, uint32_t cookie);
/* proto_moves.c: a remote rename inside the export. */
int proto_deliver_move(struct proto_send *s, const struct rn_event *ev);

/*
 * proto_rename.c: a rename from (from, ev->name) to (to, ev->name2) as
 * one notification, FS_RENAME, MOVED_FROM and MOVED_TO (with cookie), if
 * anyone watches for FS_RENAME; >0 sent, 0 not, <0 error.
 */
int proto_send_rename(struct proto_send *s, const struct proto_node *from,
		      const struct proto_node *to, const struct rn_event *ev,
		      uint32_t cookie);

/* proto_send.c: the pump thread's cwd is the mount root: 0 or -errno. */
int proto_mount_enter(struct proto_send *s);
/* proto_send.c: makes the kernel look up (dir, name): 0 or -errno. */
int proto_lookup_child(struct proto_send *s, const struct proto_node *dir,
		       const char *name);

/*
 * proto_hold.c: makes the kernel hold id, the directory (which 0: dir,
 * 1: dir2) of the event being delivered, by opening it through the
 * mount. The fd that keeps it held, to close once the event is sent,
 * with *n filled; or a negative errno.
 */
int proto_hold_dir(struct proto_send *s, const struct rn_event *ev, int which,
		   const struct rn_id *id, struct proto_node *n);

#endif
