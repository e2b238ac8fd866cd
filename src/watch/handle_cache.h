/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded cache of file handles -> (host id, a flag). Keyed by the
 * handle's type and bytes. The fanotify scope keeps one for directories,
 * the flag saying whether the directory is inside the export (negative
 * answers too: on a shared file system most events are about other
 * directories).
 *
 * Bounded by a fixed number of entries, allocated at once: two
 * generations of capacity/2 each. New answers go into the current one;
 * when it is full the older is dropped and the current becomes the older.
 * A hit in the older generation moves the entry to the current one, so
 * what is in use stays (least recently used, roughly) and a stream of
 * new handles cannot empty the cache of the ones in use all at once.
 * Single-threaded (the watcher's).
 */
#ifndef RNOTIFY_WATCH_HANDLE_CACHE_H
#define RNOTIFY_WATCH_HANDLE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "event/event.h"

struct handle_cache;

struct handle_cache *handle_cache_new(size_t capacity);
void handle_cache_free(struct handle_cache *c);
bool handle_cache_get(struct handle_cache *c, int type, const void *h,
		      size_t len, struct rn_id *id, bool *inside);
void handle_cache_put(struct handle_cache *c, int type, const void *h,
		      size_t len, const struct rn_id *id, bool inside);
/*
 * A directory moved across the export's edge: every answer equal to
 * inside may be stale now. O(1): the entries stay, unused, until their
 * generation is dropped.
 */
void handle_cache_forget(struct handle_cache *c, bool inside);
/* Every answer may be stale (events were lost). */
void handle_cache_clear(struct handle_cache *c);
/* Bytes allocated, for the log and the tests. */
size_t handle_cache_bytes(const struct handle_cache *c);

#endif
