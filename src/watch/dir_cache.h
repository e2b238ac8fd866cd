/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded cache of directory file handles -> (host id, inside the
 * export?). Keyed by the handle's type and bytes. Negative answers
 * (outside) are cached too: on a shared file system most events are about
 * other directories. When full it is cleared, not evicted piecemeal: a
 * miss only costs a few syscalls. Single-threaded (the watcher's).
 */
#ifndef RNOTIFY_DIR_CACHE_H
#define RNOTIFY_DIR_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "../event.h"

struct dir_cache;

struct dir_cache *dir_cache_new(size_t capacity);
void dir_cache_free(struct dir_cache *c);
bool dir_cache_get(const struct dir_cache *c, int type, const void *h,
		   size_t len, struct rn_id *id, bool *inside);
void dir_cache_put(struct dir_cache *c, int type, const void *h, size_t len,
		   const struct rn_id *id, bool inside);
/* A directory moved: every cached "inside" answer may be stale. */
void dir_cache_clear(struct dir_cache *c);

#endif
