/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded cache of file handles -> (host id, a flag). Keyed by the
 * handle's type and bytes. The fanotify scope keeps one for directories,
 * the flag saying whether the directory is inside the export (negative
 * answers too: on a shared file system most events are about other
 * directories). When full it is cleared, not evicted piecemeal: a miss
 * only costs a few syscalls.
 * Single-threaded (the watcher's).
 */
#ifndef RNOTIFY_HANDLE_CACHE_H
#define RNOTIFY_HANDLE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "../event.h"

struct handle_cache;

struct handle_cache *handle_cache_new(size_t capacity);
void handle_cache_free(struct handle_cache *c);
bool handle_cache_get(const struct handle_cache *c, int type, const void *h,
		      size_t len, struct rn_id *id, bool *inside);
void handle_cache_put(struct handle_cache *c, int type, const void *h,
		      size_t len, const struct rn_id *id, bool inside);
/* A directory moved: every cached "inside" answer may be stale. */
void handle_cache_clear(struct handle_cache *c);

#endif
