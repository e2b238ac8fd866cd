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
 * Every entry is linked into its directory's "children" list and its
 * child's "names" list, so that when either inode is forgotten (the kernel
 * dropped all its dentries, and so all dentries below a directory) its
 * entries go in one walk. Entries therefore only ever point at hashed
 * inodes. All of it is protected by the inode table lock.
 */
#include <errno.h>
#include <linux/fs.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "names_shown.h"

struct fs_name {
	uint64_t parent;
	struct fs_inode *dir;
	struct fs_inode *child;
	struct fs_list in_dir;
	struct fs_list in_child;
	char name[];
};

static int cmp_name(const void *a, const void *b)
{
	const struct fs_name *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Room on the stack for a search key with a name up to NAME_MAX. */
#define NAME_KEY_SIZE (sizeof(struct fs_name) + NAME_MAX + 1)

static struct fs_name *key_make(void *buf, uint64_t parent, const char *name)
{
	struct fs_name *k = buf;
	size_t len = strlen(name);

	if (len > NAME_MAX)
		return NULL;
	k->parent = parent;
	memcpy(k->name, name, len + 1);
	return k;
}

static struct fs_name *find_locked(struct fs_table *t, uint64_t parent,
				   const char *name)
{
	_Alignas(struct fs_name) char buf[NAME_KEY_SIZE];
	struct fs_name *k = key_make(buf, parent, name);
	void **hit;

	if (!k)
		return NULL;
	hit = tfind(k, &t->names, cmp_name);
	return hit ? *hit : NULL;
}

static void entry_drop(struct fs_table *t, struct fs_name *e)
{
	tdelete(e, &t->names, cmp_name);
	fs_list_del(&e->in_dir);
	fs_list_del(&e->in_child);
	free(e);
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
	void **slot;

	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	hide_locked(t, dir->nodeid, name);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	e->parent = dir->nodeid;
	e->dir = dir;
	e->child = child;
	memcpy(e->name, name, len + 1);
	slot = tsearch(e, &t->names, cmp_name);
	if (!slot) {
		free(e);
		return -ENOMEM;
	}
	fs_list_add(&dir->children, &e->in_dir);
	fs_list_add(&child->names, &e->in_child);
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

void fs_names_forget_locked(struct fs_table *t, struct fs_inode *in)
{
	while (!fs_list_empty(&in->names))
		entry_drop(t, fs_container_of(in->names.next, struct fs_name,
					      in_child));
	while (!fs_list_empty(&in->children))
		entry_drop(t, fs_container_of(in->children.next,
					      struct fs_name, in_dir));
}

void fs_names_destroy(struct fs_table *t)
{
	tdestroy(t->names, free);
	t->names = NULL;
}
