// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode table's three hash indexes (inode_index.h), and the questions
 * the rest of the server asks of them. The indexes are linked through
 * the inodes themselves; every call here but the queries at the end runs
 * with the table's lock held.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "inode_index.h"

static uint64_t node_hash(uint64_t nodeid)
{
	return nodeid;
}

static uint64_t id_hash(const struct rn_id *id)
{
	return id->ino ^ id->dev << 40;
}

static uint64_t node_hash_of(const struct hash_link *l)
{
	return node_hash(fs_container_of(l, struct fs_inode, by_node)->nodeid);
}

static uint64_t id_hash_of(const struct hash_link *l)
{
	return id_hash(&fs_container_of(l, struct fs_inode, by_id)->id);
}

/* A real inode's id.gen is the hash of its handle (rn_handle_gen()). */
static uint64_t handle_hash_of(const struct hash_link *l)
{
	return fs_container_of(l, struct fs_inode, by_handle)->id.gen;
}

static bool node_match(const struct hash_link *l, const void *key)
{
	return fs_container_of(l, struct fs_inode, by_node)->nodeid ==
	       *(const uint64_t *)key;
}

static bool id_match(const struct hash_link *l, const void *key)
{
	const struct fs_inode *in = fs_container_of(l, struct fs_inode, by_id);
	const struct rn_id *id = key;

	return in->id.dev == id->dev && in->id.ino == id->ino;
}

struct handle_key {
	int type;
	unsigned int len;
	const void *bytes;
};

static bool handle_match(const struct hash_link *l, const void *key)
{
	const struct fs_inode *in =
		fs_container_of(l, struct fs_inode, by_handle);
	const struct handle_key *k = key;

	return in->fh_type == k->type && in->fh_len == k->len &&
	       !memcmp(in->tail, k->bytes, k->len);
}

struct fs_inode *fs_index_node(struct fs_table *t, uint64_t nodeid)
{
	struct hash_link *l = hash_index_find(&t->by_node, node_hash(nodeid),
					      node_match, &nodeid);

	return l ? fs_container_of(l, struct fs_inode, by_node) : NULL;
}

struct fs_inode *fs_index_id(struct fs_table *t, const struct rn_id *id)
{
	struct hash_link *l = hash_index_find(&t->by_id, id_hash(id),
					      id_match, id);

	return l ? fs_container_of(l, struct fs_inode, by_id) : NULL;
}

static struct fs_inode *find_handle(struct fs_table *t,
				    const struct handle_key *k)
{
	struct hash_link *l;

	l = hash_index_find(&t->by_handle,
			    rn_handle_gen(k->type, k->bytes, k->len),
			    handle_match, k);
	return l ? fs_container_of(l, struct fs_inode, by_handle) : NULL;
}

struct fs_inode *fs_table_node_locked(struct fs_table *t, uint64_t nodeid)
{
	return fs_index_node(t, nodeid);
}

int fs_index_init(struct fs_table *t)
{
	if (hash_index_init(&t->by_node, node_hash_of) ||
	    hash_index_init(&t->by_id, id_hash_of) ||
	    hash_index_init(&t->by_handle, handle_hash_of))
		return -ENOMEM;
	return 0;
}

void fs_index_destroy(struct fs_table *t)
{
	hash_index_destroy(&t->by_node);
	hash_index_destroy(&t->by_id);
	hash_index_destroy(&t->by_handle);
}

/*
 * A real inode is found by its handle, unless another has it already; one
 * that is not is counted, as the handle index is then not the whole truth.
 */
void fs_index_add_handle(struct fs_table *t, struct fs_inode *in)
{
	struct handle_key k = { in->fh_type, in->fh_len, in->tail };

	if (!in->fh_len || find_handle(t, &k)) {
		t->unindexed++;
		return;
	}
	hash_index_add(&t->by_handle, &in->by_handle);
	in->fh_indexed = true;
}

void fs_index_add_id(struct fs_table *t, struct fs_inode *in)
{
	hash_index_add(&t->by_id, &in->by_id);
	in->id_indexed = true;
}

void fs_index_del(struct fs_table *t, struct fs_inode *in)
{
	hash_index_del(&t->by_node, &in->by_node);
	if (in->id_indexed)
		hash_index_del(&t->by_id, &in->by_id);
	if (in->fh_indexed)
		hash_index_del(&t->by_handle, &in->by_handle);
	else if (!in->ghost)
		t->unindexed--;
	in->id_indexed = false;
	in->fh_indexed = false;
}

bool fs_table_node_of(struct fs_table *t, const struct rn_id *id,
		      uint64_t *nodeid, uint32_t *generation)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = fs_index_id(t, id);
	if (in && !rn_gen_match(in->id.gen, id->gen))
		in = NULL;	/* its inode number, another object */
	if (in) {
		*nodeid = in->nodeid;
		*generation = in->generation;
	}
	pthread_mutex_unlock(&t->lock);
	return in != NULL;
}

bool fs_table_node_live(struct fs_table *t, uint64_t nodeid,
			uint32_t *generation)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = fs_index_node(t, nodeid);
	if (in)
		*generation = in->generation;
	pthread_mutex_unlock(&t->lock);
	return in != NULL;
}

bool fs_table_id_of(struct fs_table *t, uint64_t nodeid, struct rn_id *id)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = fs_index_node(t, nodeid);
	if (in)
		*id = in->id;
	pthread_mutex_unlock(&t->lock);
	return in && rn_id_known(id);
}

bool fs_table_resolve_handle(struct fs_table *t, const void *handle,
			     size_t len, int type, struct rn_id *id)
{
	struct handle_key k = { type, len, handle };
	struct fs_inode *in;

	if (len > MAX_HANDLE_SZ)
		return false;
	pthread_mutex_lock(&t->lock);
	in = find_handle(t, &k);
	if (in && !in->root_mount)
		in = NULL;	/* another mount's handles may look alike */
	if (in)
		*id = in->id;
	pthread_mutex_unlock(&t->lock);
	return in != NULL;
}

int fs_table_held_handle(struct fs_table *t, const void *handle, size_t len,
			 int type, struct rn_id *id)
{
	struct handle_key k = { type, len, handle };
	struct fs_inode *in;
	int held;

	if (len > MAX_HANDLE_SZ)
		return -EAGAIN;
	pthread_mutex_lock(&t->lock);
	in = find_handle(t, &k);
	if (!in) {
		held = t->unindexed ? -EAGAIN : 0;
	} else if (!in->root_mount) {
		held = -EAGAIN;	/* another mount's handles may look alike */
	} else {
		*id = in->id;
		held = 1;
	}
	pthread_mutex_unlock(&t->lock);
	return held;
}
