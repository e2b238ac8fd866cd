// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hash_index - see hash_index.h. The bucket array doubles when there are
 * more than two objects a bucket: a chain then holds two on average, and
 * the array costs 4 to 8 bytes an object (a tree node cost 32). It never
 * shrinks: a table that once held many objects will likely again.
 */
#include <errno.h>
#include <stdlib.h>

#include "hash_index.h"

#define HASH_INDEX_MIN_BITS 4
#define HASH_INDEX_LOAD 2	/* objects a bucket before the array grows */

/* Fibonacci hashing spreads sequential keys (node ids) over the top bits. */
static size_t bucket_of(unsigned int bits, uint64_t hash)
{
	return (hash * 0x9e3779b97f4a7c15ULL) >> (64 - bits);
}

int hash_index_init(struct hash_index *h,
		    uint64_t (*hash_of)(const struct hash_link *link))
{
	h->bits = HASH_INDEX_MIN_BITS;
	h->count = 0;
	h->hash_of = hash_of;
	h->bucket = calloc((size_t)1 << h->bits, sizeof(*h->bucket));
	return h->bucket ? 0 : -ENOMEM;
}

void hash_index_destroy(struct hash_index *h)
{
	free(h->bucket);
	h->bucket = NULL;
	h->count = 0;
}

static void grow(struct hash_index *h)
{
	size_t i, old_n = (size_t)1 << h->bits;
	unsigned int bits = h->bits + 1;
	struct hash_link **bucket, *l, *next, **head;

	bucket = calloc((size_t)1 << bits, sizeof(*bucket));
	if (!bucket)
		return;
	for (i = 0; i < old_n; i++) {
		for (l = h->bucket[i]; l; l = next) {
			next = l->next;
			head = &bucket[bucket_of(bits, h->hash_of(l))];
			l->next = *head;
			*head = l;
		}
	}
	free(h->bucket);
	h->bucket = bucket;
	h->bits = bits;
}

void hash_index_add(struct hash_index *h, struct hash_link *link)
{
	struct hash_link **head;

	if (++h->count > (size_t)HASH_INDEX_LOAD << h->bits)
		grow(h);
	head = &h->bucket[bucket_of(h->bits, h->hash_of(link))];
	link->next = *head;
	*head = link;
}

void hash_index_del(struct hash_index *h, struct hash_link *link)
{
	struct hash_link **p = &h->bucket[bucket_of(h->bits,
						      h->hash_of(link))];

	while (*p && *p != link)
		p = &(*p)->next;
	if (!*p)
		return;
	*p = link->next;
	link->next = NULL;
	h->count--;
}

struct hash_link *hash_index_find(const struct hash_index *h, uint64_t hash,
				  bool (*match)(const struct hash_link *link,
						const void *key),
				  const void *key)
{
	struct hash_link *l = h->bucket[bucket_of(h->bits, hash)];

	while (l && !match(l, key))
		l = l->next;
	return l;
}

void hash_index_each(struct hash_index *h, void (*fn)(struct hash_link *))
{
	size_t i, n = (size_t)1 << h->bits;
	struct hash_link *l, *next;

	for (i = 0; i < n; i++) {
		for (l = h->bucket[i]; l; l = next) {
			next = l->next;
			fn(l);
		}
		h->bucket[i] = NULL;
	}
	h->count = 0;
}

void hash_index_visit(const struct hash_index *h,
		      void (*fn)(struct hash_link *link, void *arg), void *arg)
{
	size_t i, n = (size_t)1 << h->bits;
	struct hash_link *l;

	for (i = 0; i < n; i++)
		for (l = h->bucket[i]; l; l = l->next)
			fn(l, arg);
}
