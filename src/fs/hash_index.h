/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An intrusive chained hash index: objects embed a struct hash_link per
 * index they are in, so the index allocates nothing per object, only its
 * bucket array (8 bytes a bucket, at most one bucket per object: 5 to 16
 * bytes an object with the link). The index owns nothing and locks
 * nothing: whoever embeds the links owns the objects and the lock.
 *
 * Keys are the caller's business: hash_of() gives an object's hash (used
 * to grow and to remove), and a lookup passes the key's hash and a
 * match() for the chain of that hash's bucket. Adding never fails: when
 * the bucket array cannot grow the chains just get longer.
 */
#ifndef RNOTIFY_FS_HASH_INDEX_H
#define RNOTIFY_FS_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hash_link {
	struct hash_link *next;
};

struct hash_index {
	struct hash_link **bucket;
	unsigned int bits;	/* 1 << bits buckets */
	size_t count;
	uint64_t (*hash_of)(const struct hash_link *link);
};

/* 0, or -ENOMEM. */
int hash_index_init(struct hash_index *h,
		    uint64_t (*hash_of)(const struct hash_link *link));
/* Frees the buckets; the objects still linked are the caller's. */
void hash_index_destroy(struct hash_index *h);

/* link must not be in h already; equal keys may be added twice. */
void hash_index_add(struct hash_index *h, struct hash_link *link);
/* link must be in h. */
void hash_index_del(struct hash_index *h, struct hash_link *link);

/* The first link for which match(link, key) holds, or NULL. */
struct hash_link *hash_index_find(const struct hash_index *h, uint64_t hash,
				  bool (*match)(const struct hash_link *link,
						const void *key),
				  const void *key);

/* Calls fn on every link; fn may free the object (not touch the index). */
void hash_index_each(struct hash_index *h, void (*fn)(struct hash_link *));

/* Calls fn(link, arg) on every link; fn changes neither object nor index. */
void hash_index_visit(const struct hash_index *h,
		      void (*fn)(struct hash_link *link, void *arg), void *arg);

#endif
