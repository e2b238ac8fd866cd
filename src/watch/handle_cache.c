// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Open-addressing hash table of file handles. Invariants: the table
 * is never more than 3/4 full (a put into a fuller table clears it first),
 * so a probe always meets an empty slot; entries are never removed one by
 * one, so no tombstones are needed. Owned and used by one thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fnv.h"
#include "handle_cache.h"
#include "fanotify_decode.h"

struct handle_entry {
	bool used;
	bool inside;
	int type;
	uint8_t len;
	unsigned char h[FAN_DECODE_MAX_HANDLE];
	struct rn_id id;
};

struct handle_cache {
	size_t cap;	/* a power of two */
	size_t used;
	struct handle_entry *e;
};

struct handle_cache *handle_cache_new(size_t capacity)
{
	struct handle_cache *c = calloc(1, sizeof(*c));
	size_t cap = 16;

	while (cap < capacity)
		cap <<= 1;
	if (!c)
		return NULL;
	c->cap = cap;
	c->e = calloc(cap, sizeof(*c->e));
	if (!c->e) {
		free(c);
		return NULL;
	}
	return c;
}

void handle_cache_free(struct handle_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c);
}

/* FNV-1a over the type and the bytes. */
static size_t handle_cache_hash(int type, const unsigned char *h, size_t len)
{
	uint64_t x = fnv1a64((uint32_t)type, h, len);

	return (size_t)(x ^ (x >> 29));
}

static struct handle_entry *handle_cache_slot(const struct handle_cache *c,
					      int type, const void *h,
					      size_t len)
{
	size_t i = handle_cache_hash(type, h, len) & (c->cap - 1);
	struct handle_entry *e;

	for (;; i = (i + 1) & (c->cap - 1)) {
		e = &c->e[i];
		if (!e->used || (e->type == type && e->len == len &&
				 memcmp(e->h, h, len) == 0))
			return e;
	}
}

bool handle_cache_get(const struct handle_cache *c, int type, const void *h,
		      size_t len, struct rn_id *id, bool *inside)
{
	const struct handle_entry *e;

	if (len == 0 || len > FAN_DECODE_MAX_HANDLE)
		return false;
	e = handle_cache_slot(c, type, h, len);
	if (!e->used)
		return false;
	*id = e->id;
	*inside = e->inside;
	return true;
}

void handle_cache_put(struct handle_cache *c, int type, const void *h,
		      size_t len, const struct rn_id *id, bool inside)
{
	struct handle_entry *e;

	if (len == 0 || len > FAN_DECODE_MAX_HANDLE)
		return;
	if (c->used + 1 > c->cap / 4 * 3)
		handle_cache_clear(c);
	e = handle_cache_slot(c, type, h, len);
	if (!e->used) {
		e->used = true;
		e->type = type;
		e->len = (uint8_t)len;
		memcpy(e->h, h, len);
		c->used++;
	}
	e->id = *id;
	e->inside = inside;
}

void handle_cache_clear(struct handle_cache *c)
{
	memset(c->e, 0, c->cap * sizeof(*c->e));
	c->used = 0;
}
