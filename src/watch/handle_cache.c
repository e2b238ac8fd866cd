// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Two open-addressing hash tables of file handles (generations, see the
 * header). Invariants: a table is never more than 3/4 full (a put into a
 * full current table first drops the older one and takes its place), so
 * a probe always meets an empty slot; entries are never removed one by
 * one, so no tombstones are needed. A key has at most one live entry:
 * put and promote retire a copy in the older table. An entry is live
 * while its epoch is the cache's epoch for its answer; forget() bumps
 * that, which retires every answer of one kind at once. Epochs are 64
 * bits: they never wrap in the life of a process.
 *
 * The hash is seeded from getrandom() per cache: handles are visible to
 * any user (name_to_handle_at() needs no privilege), and with a known
 * hash a user could make directories whose handles all probe the same
 * slots. Owned and used by one thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "util/fnv.h"
#include "handle_cache.h"
#include "fanotify_decode.h"

/* No live entry has it: put in a retired entry's epoch. */
#define HANDLE_RETIRED UINT64_MAX

struct handle_entry {
	bool used;
	bool inside;
	uint8_t len;
	int type;
	uint64_t epoch;
	unsigned char h[FAN_DECODE_MAX_HANDLE];
	struct rn_id id;
};

struct handle_table {
	size_t used;
	struct handle_entry *e;
};

struct handle_cache {
	size_t cap;	/* slots of a table: a power of two */
	size_t max;	/* entries of a table */
	uint64_t seed;
	uint64_t epoch[2];	/* [inside] */
	struct handle_table t[2];
	int cur;	/* t[cur] takes new entries, t[!cur] is older */
};

struct handle_cache *handle_cache_new(size_t capacity)
{
	struct handle_cache *c = calloc(1, sizeof(*c));
	size_t max = capacity / 2 ? capacity / 2 : 1, cap = 16;
	int i;

	if (!c)
		return NULL;
	while (cap / 4 * 3 < max)
		cap <<= 1;
	c->cap = cap;
	c->max = max;
	if (getrandom(&c->seed, sizeof(c->seed), GRND_NONBLOCK) !=
	    sizeof(c->seed))
		c->seed = (uintptr_t)c;	/* weak, but better than none */
	for (i = 0; i < 2; i++) {
		c->t[i].e = calloc(cap, sizeof(*c->t[i].e));
		if (!c->t[i].e) {
			handle_cache_free(c);
			return NULL;
		}
	}
	return c;
}

void handle_cache_free(struct handle_cache *c)
{
	if (!c)
		return;
	free(c->t[0].e);
	free(c->t[1].e);
	free(c);
}

size_t handle_cache_bytes(const struct handle_cache *c)
{
	return sizeof(*c) + 2 * c->cap * sizeof(*c->t[0].e);
}

static size_t handle_cache_hash(const struct handle_cache *c, int type,
				const unsigned char *h, size_t len)
{
	uint64_t x = fnv1a64(c->seed ^ (uint32_t)type, h, len);

	return (size_t)(x ^ (x >> 29));
}

/* The key's slot in t: its entry, or the empty slot it would take. */
static struct handle_entry *handle_cache_slot(const struct handle_cache *c,
					      const struct handle_table *t,
					      size_t hash, int type,
					      const void *h, size_t len)
{
	size_t i = hash & (c->cap - 1);
	struct handle_entry *e;

	for (;; i = (i + 1) & (c->cap - 1)) {
		e = &t->e[i];
		if (!e->used || (e->type == type && e->len == len &&
				 memcmp(e->h, h, len) == 0))
			return e;
	}
}

static bool handle_cache_live(const struct handle_cache *c,
			      const struct handle_entry *e)
{
	return e->used && e->epoch == c->epoch[e->inside];
}

/* The older table goes; the current one becomes the older. */
static void handle_cache_age(struct handle_cache *c)
{
	struct handle_table *old = &c->t[!c->cur];

	memset(old->e, 0, c->cap * sizeof(*old->e));
	old->used = 0;
	c->cur = !c->cur;
}

static void handle_cache_store(struct handle_cache *c, size_t hash,
			       int type, const void *h, size_t len,
			       const struct rn_id *id, bool inside)
{
	struct handle_table *t = &c->t[c->cur];
	struct handle_entry *e = handle_cache_slot(c, t, hash, type, h, len);

	if (!e->used) {
		if (t->used + 1 > c->max) {
			handle_cache_age(c);
			t = &c->t[c->cur];
			e = handle_cache_slot(c, t, hash, type, h, len);
		}
		e->used = true;
		e->type = type;
		e->len = (uint8_t)len;
		memcpy(e->h, h, len);
		t->used++;
	}
	e->id = *id;
	e->inside = inside;
	e->epoch = c->epoch[inside];
	/* After an age the older table is the empty one: nothing to retire. */
	e = handle_cache_slot(c, &c->t[!c->cur], hash, type, h, len);
	if (e->used)
		e->epoch = HANDLE_RETIRED;
}

bool handle_cache_get(struct handle_cache *c, int type, const void *h,
		      size_t len, struct rn_id *id, bool *inside)
{
	const struct handle_entry *e;
	size_t hash;

	if (len == 0 || len > FAN_DECODE_MAX_HANDLE)
		return false;
	hash = handle_cache_hash(c, type, h, len);
	e = handle_cache_slot(c, &c->t[c->cur], hash, type, h, len);
	if (handle_cache_live(c, e)) {
		*id = e->id;
		*inside = e->inside;
		return true;
	}
	e = handle_cache_slot(c, &c->t[!c->cur], hash, type, h, len);
	if (!handle_cache_live(c, e))
		return false;
	/* In use: into the current table, before e can be dropped. */
	*id = e->id;
	*inside = e->inside;
	handle_cache_store(c, hash, type, h, len, id, *inside);
	return true;
}

void handle_cache_put(struct handle_cache *c, int type, const void *h,
		      size_t len, const struct rn_id *id, bool inside)
{
	if (len == 0 || len > FAN_DECODE_MAX_HANDLE)
		return;
	handle_cache_store(c, handle_cache_hash(c, type, h, len), type, h,
			   len, id, inside);
}

void handle_cache_forget(struct handle_cache *c, bool inside)
{
	c->epoch[inside]++;
}

void handle_cache_clear(struct handle_cache *c)
{
	int i;

	for (i = 0; i < 2; i++) {
		memset(c->t[i].e, 0, c->cap * sizeof(*c->t[i].e));
		c->t[i].used = 0;
	}
}
