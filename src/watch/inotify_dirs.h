/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inotify backend's table of watched directories: watch descriptor ->
 * (host id, parent wd, name). Paths are rebuilt from the parent chain on
 * demand, so a directory rename is one update, not a subtree rewrite.
 * Single-threaded (the watcher's).
 */
#ifndef RNOTIFY_WATCH_INOTIFY_DIRS_H
#define RNOTIFY_WATCH_INOTIFY_DIRS_H

#include <stdbool.h>
#include <stddef.h>

#include "event/event.h"

#define INOTIFY_DIRS_BUCKETS 1024

struct inotify_dir {
	int wd;
	int parent_wd;		/* -1 for the export root */
	struct rn_id id;
	char *name;		/* "" for the export root */
	bool gone;		/* moved out: ignore until IN_IGNORED */
	struct inotify_dir *next;
};

struct inotify_dirs {
	struct inotify_dir *bucket[INOTIFY_DIRS_BUCKETS];
	size_t count;		/* entries: no parent chain is longer */
};

void inotify_dirs_free(struct inotify_dirs *d);
/*
 * Adds or updates wd (the kernel reuses a wd for the same inode): 0, or
 * -ENOMEM.
 */
int inotify_dirs_set(struct inotify_dirs *d, int wd, int parent_wd,
		 const struct rn_id *id, const char *name);
struct inotify_dir *inotify_dirs_find(const struct inotify_dirs *d, int wd);
/* Linear: used only for directory moves and removals. */
struct inotify_dir *inotify_dirs_child(const struct inotify_dirs *d,
				       int parent_wd,
			       const char *name);
void inotify_dirs_remove(struct inotify_dirs *d, int wd);
/*
 * "a/b/c" relative to the export root ("." for the root), malloc()ed and
 * as long as the tree is deep (PATH_MAX does not bound it); NULL if wd is
 * unknown or detached from the root, or on ENOMEM.
 */
char *inotify_dirs_path(const struct inotify_dirs *d, int wd);

/*
 * Opens the directory wd as O_PATH from root_fd, never leaving it nor
 * following a symlink (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_XDEV), however deep: a path longer than PATH_MAX is walked
 * in pieces, each from the directory the last one opened. An fd, or a
 * negative errno (-ENOENT if wd is unknown or detached from the root).
 */
int inotify_dirs_open(const struct inotify_dirs *d, int root_fd, int wd);
/* The same for a path below root_fd of any length. */
int inotify_dirs_open_path(int root_fd, const char *path);

/*
 * Calls fn for every descendant of wd (not wd itself), in no particular
 * order. Iterative, on the heap: a tree of any depth. fn must not add or
 * remove entries. 0, or -ENOMEM (then fn was called for none).
 */
int inotify_dirs_each_below(const struct inotify_dirs *d, int wd,
			void (*fn)(void *arg, int wd), void *arg);

#endif
