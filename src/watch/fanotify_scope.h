/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Is this directory handle inside the export, and what is its host id?"
 * for the fanotify backend, whose filesystem mark sees the whole file
 * system.
 */
#ifndef RNOTIFY_FANOTIFY_SCOPE_H
#define RNOTIFY_FANOTIFY_SCOPE_H

#include <stdbool.h>

#include "handle_cache.h"
#include "fanotify_decode.h"
#include "watch.h"

struct fan_scope {
	int root_fd;		/* the export root, O_PATH (not owned) */
	int mount_fd;		/* the same opened for reading: owned */
	struct rn_id root;
	struct handle_cache *cache;	/* directories */
	watch_resolve_fn resolve;
	void *resolve_arg;
	watch_held_fn held;		/* NULL: every object is opened */
	void *held_arg;
};

int fan_scope_init(struct fan_scope *s, const struct watch_config *cfg);
void fan_scope_fini(struct fan_scope *s);

/* True, with *id, if fid names a directory in the export (or its root). */
bool fan_scope_dir(struct fan_scope *s, const struct fan_fid *fid,
		   struct rn_id *id);

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
