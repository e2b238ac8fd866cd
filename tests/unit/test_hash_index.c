// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hash_index - the intrusive hash index: 200,000 keys found after
 * growth, keys with equal hashes told apart by match(), removal at the
 * head, middle and tail of a chain, every key found after removals, and
 * a walk that may free what it visits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util/fnv.h"
#include "fs/fs_list.h"
#include "fs/hash_index.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

#define N 200000

struct item {
	uint64_t key;
	struct hash_link link;
};

static struct item items[N];
static int hash_buckets = 0;	/* 0: a good hash; else key % this */
static size_t walked;

static uint64_t key_hash(uint64_t key)
{
	return hash_buckets ? key % hash_buckets : key;
}

static uint64_t item_hash(const struct hash_link *l)
{
	return key_hash(fs_container_of(l, struct item, link)->key);
}

static bool item_match(const struct hash_link *l, const void *key)
{
	return fs_container_of(l, struct item, link)->key ==
	       *(const uint64_t *)key;
}

static struct item *find(struct hash_index *h, uint64_t key)
{
	struct hash_link *l = hash_index_find(h, key_hash(key), item_match,
					      &key);

	return l ? fs_container_of(l, struct item, link) : NULL;
}

/* A new index over key % buckets (0: the key itself); false if no memory. */
static bool index_new(struct hash_index *h, const char *name, int buckets)
{
	hash_buckets = buckets;
	if (!hash_index_init(h, item_hash))
		return true;
	CHECK(name, false);
	return false;
}

static void add_all(struct hash_index *h)
{
	size_t i;

	for (i = 0; i < N; i++) {
		items[i].key = i * 7 + 1;
		hash_index_add(h, &items[i].link);
	}
}

/* Every item kept (i % 3 != 0 once removed) found, every removed not. */
static size_t wrong_after_removals(struct hash_index *h, bool removed)
{
	size_t i, bad = 0;

	for (i = 0; i < N; i++) {
		bool gone = removed && i % 3 == 0;

		if (find(h, items[i].key) != (gone ? NULL : &items[i]))
			bad++;
	}
	return bad;
}

static void test_many(const char *name, int buckets)
{
	struct hash_index h;
	char label[80];
	size_t i;

	if (!index_new(&h, name, buckets))
		return;
	add_all(&h);
	snprintf(label, sizeof(label), "%s: 200000 added, grown", name);
	CHECK(label, h.count == N && (1UL << h.bits) >= N / 2);
	snprintf(label, sizeof(label), "%s: all found", name);
	CHECK(label, wrong_after_removals(&h, false) == 0);
	snprintf(label, sizeof(label), "%s: absent keys not found", name);
	CHECK(label, !find(&h, 0) && !find(&h, 2) && !find(&h, N * 7 + 1));
	for (i = 0; i < N; i += 3)
		hash_index_del(&h, &items[i].link);
	snprintf(label, sizeof(label), "%s: right after removals", name);
	CHECK(label, wrong_after_removals(&h, true) == 0 &&
	      h.count == N - (N + 2) / 3);
	for (i = 0; i < N; i += 3)
		hash_index_add(&h, &items[i].link);
	snprintf(label, sizeof(label), "%s: added back", name);
	CHECK(label, wrong_after_removals(&h, false) == 0 && h.count == N);
	hash_index_destroy(&h);
}

/* Chains of one hash: removing head, middle and tail keeps the rest. */
static void test_chain(void)
{
	struct hash_index h;
	struct item *it = items;
	size_t i, bad = 0;

	if (!index_new(&h, "chain: init", 1))
		return;
	for (i = 0; i < 5; i++) {
		it[i].key = i + 10;
		hash_index_add(&h, &it[i].link);
	}
	/* Added at the head: key 14 is first, key 10 last. */
	hash_index_del(&h, &it[4].link);
	hash_index_del(&h, &it[2].link);
	hash_index_del(&h, &it[0].link);
	for (i = 0; i < 5; i++)
		if (find(&h, i + 10) != (i % 2 ? &it[i] : NULL))
			bad++;
	CHECK("chain: head, middle and tail removed, rest found",
	      bad == 0 && h.count == 2);
	hash_index_add(&h, &it[2].link);
	CHECK("chain: added again after removal", find(&h, 12) == &it[2] &&
	      find(&h, 11) == &it[1] && find(&h, 13) == &it[3]);
	hash_index_destroy(&h);
}

static void count_and_free(struct hash_link *l)
{
	walked++;
	free(fs_container_of(l, struct item, link));
}

static void test_each(void)
{
	struct hash_index h;
	struct item *it;
	size_t i, made = 0;

	if (!index_new(&h, "each: init", 0))
		return;
	for (i = 0; i < 1000; i++) {
		it = malloc(sizeof(*it));
		if (!it)
			break;
		it->key = i;
		hash_index_add(&h, &it->link);
		made++;
	}
	walked = 0;
	hash_index_each(&h, count_and_free);
	CHECK("each: visits every link once, may free it",
	      made == 1000 && walked == 1000 && h.count == 0 &&
	      !find(&h, 5));
	hash_index_destroy(&h);
}

static void test_bytes(void)
{
	CHECK("bytes: seed and bytes both count",
	      fnv1a64(1, "ab", 2) != fnv1a64(2, "ab", 2) &&
	      fnv1a64(1, "ab", 2) != fnv1a64(1, "ba", 2) &&
	      fnv1a64(1, "ab", 2) == fnv1a64(1, "ab", 2));
}

int main(void)
{
	test_many("spread", 0);
	test_many("collisions", 1000);
	test_chain();
	test_each();
	test_bytes();
	return check_exit();
}
