// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names shown: the client's view of the namespace, as far as we told it.
 *
 * An entry (parent node id, name) -> child inode is made for every entry
 * the client is given (lookup, create, mknod, mkdir, symlink, link,
 * readdirplus) and changed by the operations that change names through
 * the mount: unlink, rmdir and rename, whether they touched the backing
 * store or were answered by the gate. A node may be shown under several
 * names (hard links); a name shows one node.
 *
 * Entries are found by a hash of (parent node id, name) and are linked
 * into their child's "names" list (singly: a node has one name or a few
 * hard links), so that when the child is forgotten its entries go in one
 * walk. Entries therefore only ever point at hashed inodes.
 *
 * A forgotten directory's entries are not looked for: every lookup asks
 * for a live parent, so they are dead weight, not wrong answers. There
 * are few: the kernel evicts an inode with its last dentry
 * (generic_delete_inode) and a directory only after every dentry below
 * it, so a child outlives its directory only through another hard link;
 * its dead entries go when it is forgotten or shown again. This saves a
 * list in every directory and entry (16 bytes each, a tenth of what a
 * watched directory costs).
 *
 * All of it is protected by the inode table lock.
 */
#include <errno.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>

#include "util/fnv.h"
#include "names_shown.h"

/* 32 bytes and the name, in one allocation. */
struct fs_name {
	struct hash_link link;		/* in t->names */
	uint64_t parent;
	struct fs_inode *child;
	struct fs_name *next_name;	/* the child's other names */
	char name[];
};

struct name_key {
	uint64_t parent;
	const char *name;
};

static uint64_t name_hash(uint64_t parent, const char *name, size_t len)
{
	return fnv1a64(parent, name, len);
}

static uint64_t name_hash_of(const struct hash_link *l)
{
	const struct fs_name *e = fs_container_of(l, struct fs_name, link);

	return name_hash(e->parent, e->name, strlen(e->name));
}

static bool name_match(const struct hash_link *l, const void *key)
{
	const struct fs_name *e = fs_container_of(l, struct fs_name, link);
	const struct name_key *k = key;

	return e->parent == k->parent && !strcmp(e->name, k->name);
}

int fs_names_init(struct fs_table *t)
{
	return hash_index_init(&t->names, name_hash_of);
}

static struct fs_name *find_locked(struct fs_table *t, uint64_t parent,
				   const char *name)
{
	struct name_key k = { parent, name };
	size_t len = strlen(name);
	struct hash_link *l;

	if (len > NAME_MAX || !fs_table_node_locked(t, parent))
		return NULL;
	l = hash_index_find(&t->names, name_hash(parent, name, len),
			    name_match, &k);
	return l ? fs_container_of(l, struct fs_name, link) : NULL;
}

/* A node has one name, or a few hard links: its list is short. */
static void entry_drop(struct fs_table *t, struct fs_name *e)
{
	struct fs_name **p = &e->child->names;

	while (*p != e)
		p = &(*p)->next_name;
	*p = e->next_name;
	hash_index_del(&t->names, &e->link);
	free(e);
}

/* Drops child's names in directories that were forgotten. */
static void prune_locked(struct fs_table *t, struct fs_inode *child)
{
	struct fs_name *e, *next;

	for (e = child->names; e; e = next) {
		next = e->next_name;
		if (!fs_table_node_locked(t, e->parent))
			entry_drop(t, e);
	}
}

static void hide_locked(struct fs_table *t, uint64_t parent, const char *name)
{
	struct fs_name *e = find_locked(t, parent, name);

	if (e)
		entry_drop(t, e);
}

static int show_locked(struct fs_table *t, struct fs_inode *dir,
		       const char *name, struct fs_inode *child)
{
	size_t len = strlen(name);
	struct fs_name *e;

	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	hide_locked(t, dir->nodeid, name);
	prune_locked(t, child);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	e->parent = dir->nodeid;
	e->child = child;
	e->next_name = child->names;
	child->names = e;
	memcpy(e->name, name, len + 1);
	hash_index_add(&t->names, &e->link);
	return 0;
}

int fs_names_show(struct fs_table *t, uint64_t parent, const char *name,
		  uint64_t child)
{
	struct fs_inode *dir, *in;
	int err = -ENOENT;

	pthread_mutex_lock(&t->lock);
	dir = fs_table_node_locked(t, parent);
	in = fs_table_node_locked(t, child);
	if (dir && in)
		err = show_locked(t, dir, name, in);
	pthread_mutex_unlock(&t->lock);
	return err;
}

void fs_names_hide(struct fs_table *t, uint64_t parent, const char *name)
{
	pthread_mutex_lock(&t->lock);
	hide_locked(t, parent, name);
	pthread_mutex_unlock(&t->lock);
}

bool fs_names_find(struct fs_table *t, uint64_t parent, const char *name,
		   uint64_t *child)
{
	struct fs_name *e;

	pthread_mutex_lock(&t->lock);
	e = find_locked(t, parent, name);
	if (e)
		*child = e->child->nodeid;
	pthread_mutex_unlock(&t->lock);
	return e != NULL;
}

/* fs_names_each_locked() callback: the first name, if it fits. */
static int name_copy(void *arg, uint64_t parent, const char *name)
{
	struct fs_name_buf *b = arg;

	if (strlen(name) >= sizeof(b->name))
		return 0;
	b->parent = parent;
	strcpy(b->name, name);
	return 1;
}

bool fs_names_one(struct fs_table *t, uint64_t child, struct fs_name_buf *b)
{
	struct fs_inode *in;
	bool found = false;

	pthread_mutex_lock(&t->lock);
	in = fs_table_node_locked(t, child);
	if (in)
		found = fs_names_each_locked(t, in, name_copy, b) == 1;
	pthread_mutex_unlock(&t->lock);
	return found;
}

/* Table lock held: the child shown at (parent, name), then forget it. */
static struct fs_inode *take_locked(struct fs_table *t, uint64_t parent,
				    const char *name)
{
	struct fs_name *e = find_locked(t, parent, name);
	struct fs_inode *child = NULL;

	if (e) {
		child = e->child;
		entry_drop(t, e);
	}
	return child;
}

void fs_names_rename(struct fs_table *t, uint64_t parent, const char *name,
		     uint64_t newparent, const char *newname,
		     unsigned int flags)
{
	struct fs_inode *from, *to, *dir, *newdir;

	pthread_mutex_lock(&t->lock);
	dir = fs_table_node_locked(t, parent);
	newdir = fs_table_node_locked(t, newparent);
	from = take_locked(t, parent, name);
	to = take_locked(t, newparent, newname);
	/* A failed show leaves the name unshown: the safe side. */
	if (from && newdir)
		show_locked(t, newdir, newname, from);
	if ((flags & RENAME_EXCHANGE) && to && dir)
		show_locked(t, dir, name, to);
	pthread_mutex_unlock(&t->lock);
}

int fs_names_each_locked(struct fs_table *t, struct fs_inode *in,
			 int (*fn)(void *arg, uint64_t parent,
				   const char *name),
			 void *arg)
{
	struct fs_name *e;
	int ret = 0;

	for (e = in->names; e && !ret; e = e->next_name)
		if (fs_table_node_locked(t, e->parent))
			ret = fn(arg, e->parent, e->name);
	return ret;
}

void fs_names_forget_locked(struct fs_table *t, struct fs_inode *in)
{
	while (in->names)
		entry_drop(t, in->names);
}

static void entry_free(struct hash_link *l)
{
	free(fs_container_of(l, struct fs_name, link));
}

void fs_names_destroy(struct fs_table *t)
{
	hash_index_each(&t->names, entry_free);
}
