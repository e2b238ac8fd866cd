/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inotify backend's table of watched directories: watch descriptor ->
 * (host id, parent wd, name). Paths are rebuilt from the parent chain on
 * demand, so a directory rename is one update, not a subtree rewrite.
 * Single-threaded (the watcher's).
 */
#ifndef RNOTIFY_INO_DIRS_H
#define RNOTIFY_INO_DIRS_H

#include <stdbool.h>
#include <stddef.h>

#include "../event.h"

#define INO_DIRS_BUCKETS 1024

struct ino_dir {
	int wd;
	int parent_wd;		/* -1 for the export root */
	struct rn_id id;
	char *name;		/* "" for the export root */
	bool gone;		/* moved out: ignore until IN_IGNORED */
	struct ino_dir *next;
};

struct ino_dirs {
	struct ino_dir *bucket[INO_DIRS_BUCKETS];
};

void ino_dirs_free(struct ino_dirs *d);
/* Adds or updates wd (the kernel reuses a wd for the same inode). */
int ino_dirs_set(struct ino_dirs *d, int wd, int parent_wd,
		 const struct rn_id *id, const char *name);
struct ino_dir *ino_dirs_find(const struct ino_dirs *d, int wd);
/* Linear: used only for directory moves and removals. */
struct ino_dir *ino_dirs_child(const struct ino_dirs *d, int parent_wd,
			       const char *name);
void ino_dirs_remove(struct ino_dirs *d, int wd);
/* "a/b/c" relative to the export root ("." for the root); false if long. */
bool ino_dirs_path(const struct ino_dirs *d, int wd, char *buf, size_t size);

/*
 * Calls fn for every descendant of wd (not wd itself). fn must not add or
 * remove entries.
 */
void ino_dirs_each_below(const struct ino_dirs *d, int wd,
			 void (*fn)(void *arg, int wd), void *arg);

#endif
