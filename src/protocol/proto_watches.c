// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proto_watches - an open-addressing hash of node id -> (generation,
 * mask), linear probing, deletion by backward shift (no tombstones, so a
 * table that sees watches come and go for days never degrades). 24 bytes
 * a watch at a load of at most one half.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "proto_watches.h"

#define PROTO_WATCHES_MIN 64

struct proto_watch_slot {
	uint64_t nodeid;	/* 0: empty (node id 0 is never valid) */
	uint64_t mask;
	uint32_t generation;
};

struct proto_watches {
	pthread_mutex_t lock;
	struct proto_watch_slot *slot;
	size_t size;		/* a power of two */
	size_t used;
	uint64_t fs_mask;
	/*
	 * Requests applied: written under lock, read without it, since a
	 * remote create reads it every time (proto_events.c).
	 */
	_Atomic uint64_t epoch;
};

static size_t slot_home(const struct proto_watches *t, uint64_t nodeid)
{
	/* Fibonacci hashing: node ids are sequential, spread them out. */
	return (nodeid * 0x9e3779b97f4a7c15ULL) >> 32 & (t->size - 1);
}

static struct proto_watch_slot *slot_find(struct proto_watches *t,
					  uint64_t nodeid)
{
	size_t i = slot_home(t, nodeid);

	while (t->slot[i].nodeid && t->slot[i].nodeid != nodeid)
		i = (i + 1) & (t->size - 1);
	return &t->slot[i];
}

static int table_grow(struct proto_watches *t)
{
	struct proto_watch_slot *old = t->slot;
	size_t i, old_size = t->size;

	t->slot = calloc(old_size * 2, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return -ENOMEM;
	}
	t->size = old_size * 2;
	for (i = 0; i < old_size; i++)
		if (old[i].nodeid)
			*slot_find(t, old[i].nodeid) = old[i];
	free(old);
	return 0;
}

/* Empties slot hole, moving up later entries of its probe run. */
static void slot_remove(struct proto_watches *t, size_t hole)
{
	size_t i = hole, home;

	t->slot[hole].nodeid = 0;
	t->used--;
	for (;;) {
		i = (i + 1) & (t->size - 1);
		if (!t->slot[i].nodeid)
			return;
		home = slot_home(t, t->slot[i].nodeid);
		/* Movable if its home is not in (hole, i], cyclically. */
		if ((i > hole && (home <= hole || home > i)) ||
		    (i < hole && home <= hole && home > i)) {
			t->slot[hole] = t->slot[i];
			t->slot[i].nodeid = 0;
			hole = i;
		}
	}
}

struct proto_watches *proto_watches_new(void)
{
	struct proto_watches *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->size = PROTO_WATCHES_MIN;
	t->slot = calloc(t->size, sizeof(*t->slot));
	if (!t->slot) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void proto_watches_free(struct proto_watches *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->slot);
	free(t);
}

static int node_set(struct proto_watches *t, const struct proto_watch *w)
{
	struct proto_watch_slot *s = slot_find(t, w->nodeid);

	if (!w->mask) {
		if (s->nodeid)
			slot_remove(t, s - t->slot);
		return 0;
	}
	if (!s->nodeid) {
		if ((t->used + 1) * 2 > t->size && table_grow(t))
			return -ENOMEM;
		s = slot_find(t, w->nodeid);
		s->nodeid = w->nodeid;
		t->used++;
	}
	s->mask = w->mask;
	s->generation = (uint32_t)w->generation;
	return 0;
}

int proto_watches_set(struct proto_watches *t, const struct proto_watch *w)
{
	int err = 0;

	pthread_mutex_lock(&t->lock);
	if (w->flags & FUSE_FSNOTIFY_FILESYSTEM)
		t->fs_mask = w->mask;
	else
		err = node_set(t, w);
	if (!err)
		t->epoch++;
	pthread_mutex_unlock(&t->lock);
	return err;
}

uint64_t proto_watches_epoch(struct proto_watches *t)
{
	return atomic_load(&t->epoch);
}

uint64_t proto_watches_mask(struct proto_watches *t, uint64_t nodeid,
			    uint32_t generation)
{
	struct proto_watch_slot *s;
	uint64_t mask = 0;

	pthread_mutex_lock(&t->lock);
	s = slot_find(t, nodeid);
	if (s->nodeid && s->generation == generation)
		mask = s->mask;
	pthread_mutex_unlock(&t->lock);
	return mask;
}

uint64_t proto_watches_fs_mask(struct proto_watches *t)
{
	uint64_t mask;

	pthread_mutex_lock(&t->lock);
	mask = t->fs_mask;
	pthread_mutex_unlock(&t->lock);
	return mask;
}
