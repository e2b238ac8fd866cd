/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The normalised event: the only type that crosses from the host watcher
 * (src/watch) to a delivery backend (src/deliver).
 *
 * Objects are named by their host identity (st_dev, st_ino) on the backing
 * store, never by path: paths go stale as soon as a directory is renamed,
 * identities do not. The watcher knows nothing of FUSE node ids; the
 * delivery backend asks the file system which node id (if any) the
 * client kernel knows for a host identity.
 */
#ifndef RNOTIFY_EVENT_EVENT_H
#define RNOTIFY_EVENT_EVENT_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/fnv.h"

/*
 * Inode numbers are reused at once (ext4, tmpfs), so (dev, ino) alone can
 * name a deleted object's successor. gen tells the two apart: a digest of
 * the object's host file handle (which holds the inode generation), 0 when
 * the source could not say (inotify, fstat alone). Two ids are the same
 * object if dev and ino match and their gens do, where both are known.
 */
struct rn_id {
	uint64_t dev;
	uint64_t ino;
	uint32_t gen;
};

static inline bool rn_id_known(const struct rn_id *id)
{
	return id->ino != 0;
}

static inline bool rn_gen_match(uint32_t a, uint32_t b)
{
	return !a || !b || a == b;
}

static inline bool rn_id_equal(const struct rn_id *a, const struct rn_id *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	       rn_gen_match(a->gen, b->gen);
}

/* The gen of a host file handle (FNV-1a over type and bytes), never 0. */
static inline uint32_t rn_handle_gen(int type, const void *handle,
				     size_t len)
{
	uint32_t h = fnv1a32((uint32_t)type, handle, len);

	return h ? h : 1;
}

enum rn_event_kind {
	RN_EV_CREATE,		/* name appeared in dir */
	RN_EV_DELETE,		/* name left dir */
	RN_EV_MOVE,		/* (dir, name) became (dir2, name2) */
	RN_EV_MODIFY,		/* content of obj (dir/name) changed */
	RN_EV_ATTRIB,		/* metadata of obj (dir/name) changed */
	RN_EV_CLOSE_WRITE,	/* a writer of obj (dir/name) closed it */
	RN_EV_OVERFLOW,		/* the host queue overflowed: events lost */
};

/*
 * Field use by kind:
 *   CREATE, DELETE:      dir, name, isdir; obj when the host could name it;
 *                        moved if a rename brought the name in from outside
 *                        the export or took it out (a watcher of the
 *                        backing store sees MOVED_TO or MOVED_FROM alone)
 *   MOVE:                dir, name (from), dir2, name2 (to), isdir, obj;
 *                        replaced: the file it replaced at name2, when
 *                        the host said (that file's link count change
 *                        came with the move: fanotify)
 *   MODIFY, ATTRIB,
 *   CLOSE_WRITE:         obj; dir and name when the host reported them
 *                        (an event on the export root has no dir); an
 *                        ATTRIB with link_count set has none: a file's
 *                        link count changed, which the host reports to
 *                        the file's own watchers only (watch_objects())
 *   OVERFLOW:            nothing
 * Unused ids are zero, unused names empty.
 */
struct rn_event_paths;

struct rn_event {
	enum rn_event_kind kind;
	bool isdir;
	bool moved;
	bool link_count;
	struct rn_id obj;
	struct rn_id dir;
	struct rn_id dir2;
	struct rn_id replaced;
	char name[NAME_MAX + 1];
	char name2[NAME_MAX + 1];
	/* The watcher's paths of dir and dir2, or NULL: see below. */
	const struct rn_event_paths *paths;
};

/*
 * What the watcher can tell of an event's directories beyond their ids,
 * valid only while the event is being emitted (a queued copy has none):
 * dir_path() writes the path below the export root of ev->dir (which 0)
 * or ev->dir2 (which 1), "" for the root. 0, or a negative errno
 * (-ENOENT: no such directory). Only a hint, which a rename can make
 * stale at once: check what it leads to by identity.
 */
struct rn_event_paths {
	int (*dir_path)(const struct rn_event_paths *paths, int which,
			char *buf, size_t size);
};

static inline int rn_event_dir_path(const struct rn_event *ev, int which,
				    char *buf, size_t size)
{
	return ev->paths ? ev->paths->dir_path(ev->paths, which, buf, size) :
			   -EOPNOTSUPP;
}

/* Sets of kinds, as masks: 1u << kind. */
#define RN_EV_BIT(kind)	(1u << (kind))
#define RN_EV_ALL	(~0u)

const char *rn_event_kind_name(enum rn_event_kind kind);

#endif
