// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Open-addressing hash table of directory handles. Invariants: the table
 * is never more than 3/4 full (a put into a fuller table clears it first),
 * so a probe always meets an empty slot; entries are never removed one by
 * one, so no tombstones are needed. Owned and used by one thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fnv.h"
#include "dir_cache.h"
#include "fanotify_decode.h"

struct dir_entry {
	bool used;
	bool inside;
	int type;
	uint8_t len;
	unsigned char h[FAN_DECODE_MAX_HANDLE];
	struct rn_id id;
};

struct dir_cache {
	size_t cap;	/* a power of two */
	size_t used;
	struct dir_entry *e;
};

struct dir_cache *dir_cache_new(size_t capacity)
{
	struct dir_cache *c = calloc(1, sizeof(*c));
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

void dir_cache_free(struct dir_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c);
}

/* FNV-1a over the type and the bytes. */
static size_t dir_cache_hash(int type, const unsigned char *h, size_t len)
{
	uint64_t x = fnv1a64((uint32_t)type, h, len);

	return (size_t)(x ^ (x >> 29));
}

static struct dir_entry *dir_cache_slot(const struct dir_cache *c, int type,
					const void *h, size_t len)
{
	size_t i = dir_cache_hash(type, h, len) & (c->cap - 1);
	struct dir_entry *e;

	for (;; i = (i + 1) & (c->cap - 1)) {
		e = &c->e[i];
		if (!e->used || (e->type == type && e->len == len &&
				 memcmp(e->h, h, len) == 0))
			return e;
	}
}

bool dir_cache_get(const struct dir_cache *c, int type, const void *h,
		   size_t len, struct rn_id *id, bool *inside)
{
	const struct dir_entry *e;

	if (len == 0 || len > FAN_DECODE_MAX_HANDLE)
		return false;
	e = dir_cache_slot(c, type, h, len);
	if (!e->used)
		return false;
	*id = e->id;
	*inside = e->inside;
	return true;
}

void dir_cache_put(struct dir_cache *c, int type, const void *h, size_t len,
		   const struct rn_id *id, bool inside)
{
	struct dir_entry *e;

	if (len == 0 || len > FAN_DECODE_MAX_HANDLE)
		return;
	if (c->used + 1 > c->cap / 4 * 3)
		dir_cache_clear(c);
	e = dir_cache_slot(c, type, h, len);
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

void dir_cache_clear(struct dir_cache *c)
{
	memset(c->e, 0, c->cap * sizeof(*c->e));
	c->used = 0;
}
