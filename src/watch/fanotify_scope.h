/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Is this directory handle inside the export, and what is its host id?"
 * for the fanotify backend, whose filesystem mark sees the whole file
 * system.
 */
#ifndef RNOTIFY_WATCH_FANOTIFY_SCOPE_H
#define RNOTIFY_WATCH_FANOTIFY_SCOPE_H

#include <stdbool.h>

#include "handle_cache.h"
#include "fanotify_decode.h"
#include "watch.h"

/* Where a directory is, by its handle. */
enum fan_place {
	FAN_OUTSIDE,
	FAN_INSIDE,
	FAN_GONE,	/* removed, and the client never saw it */
	FAN_UNKNOWN,	/* could not tell (out of fds, memory, too deep) */
};

struct fan_scope_level;

struct fan_scope {
	int root_fd;		/* the export root, O_PATH (not owned) */
	int mount_fd;		/* the same opened for reading: owned */
	struct rn_id root;
	struct handle_cache *cache;	/* directories */
	struct fan_scope_level *chain;	/* a walk's uncached levels */
	watch_resolve_fn resolve;
	void *resolve_arg;
	watch_held_fn held;		/* NULL: every object is opened */
	void *held_arg;
};

/* 0, or a negative errno (then nothing is held). */
int fan_scope_init(struct fan_scope *s, const struct watch_config *cfg);
void fan_scope_fini(struct fan_scope *s);

/* Opens the object of a handle as O_PATH: an fd, or a negative errno. */
int fan_scope_open(struct fan_scope *s, const struct fan_fid *fid);

/*
 * Where fid's directory is, with *id: FAN_INSIDE if in the export (or its
 * root).
 */
enum fan_place fan_scope_place(struct fan_scope *s, const struct fan_fid *fid,
			       struct rn_id *id);

/*
 * A directory moved from a directory at from to one at to: drops the
 * cached answers the move may have made stale (see fanotify_scope.c).
 */
void fan_scope_moved(struct fan_scope *s, enum fan_place from,
		     enum fan_place to);

/* Events were lost, renames among them maybe: every answer may be stale. */
void fan_scope_lost(struct fan_scope *s);

/*
 * Host id of any object's handle: (st_dev, st_ino) and the handle's own
 * gen. False if it cannot be decoded, or, with only the gen, if held()
 * says the consumer does not hold the object (see watch_objects()).
 */
bool fan_scope_obj(struct fan_scope *s, const struct fan_fid *fid,
		   struct rn_id *id);

/*
 * The path of a directory's handle below the export root ("" for the
 * root), from /proc's links of both: 0, or a negative errno (-EXDEV: not
 * below the root). Only a hint, which a rename can make stale at once:
 * the caller checks by identity what the path leads to.
 */
int fan_scope_path(struct fan_scope *s, const struct fan_fid *fid,
		   char *buf, size_t size);

#endif
