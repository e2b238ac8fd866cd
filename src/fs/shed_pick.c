// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Choosing what to shed (see shed.h), under the table lock. The idle
 * inodes, least recently used last, are t->idle then t->cold (see
 * inode_table.c): the walk starts at the end of t->cold. It is bounded
 * (FS_SHED_WALK) so that a table of idle directories, which are never
 * shed, cannot hold the lock for long; what it passes over is rotated to
 * the head of its list, so the next walk goes on where this one stopped.
 */
#include <errno.h>
#include <string.h>

#include "names_shown.h"
#include "shed.h"

static bool sheddable(const struct fs_inode *in)
{
	return !S_ISDIR(in->type) && !in->shed_sent && !in->shed_kept &&
	       in->names;
}

/* fs_names_each_locked() callback: 1 when b is full. */
static int add_name(void *arg, uint64_t parent, const char *name)
{
	struct fs_shed_batch *b = arg;
	size_t len = strlen(name) + 1;

	if (b->n == FS_SHED_NAMES || b->used + len > FS_SHED_BYTES)
		return 1;
	b->name[b->n].parent = parent;
	b->name[b->n].off = b->used;
	memcpy(b->buf + b->used, name, len);
	b->n++;
	b->used += len;
	return 0;
}

/* All of in's names: 1, or 0 if it has none, -ENOSPC if b is too full. */
static int add_names(struct fs_table *t, struct fs_inode *in,
		     struct fs_shed_batch *b)
{
	size_t n = b->n, used = b->used;

	if (fs_names_each_locked(t, in, add_name, b)) {
		b->n = n;
		b->used = used;
		return -ENOSPC;
	}
	return b->n > n;
}

/*
 * Walks list from its tail; returns the files picked. *walked counts the
 * inodes looked at, in both lists.
 */
static size_t pick_from(struct fs_table *t, struct fs_list *list,
			size_t want, size_t *walked, struct fs_shed_batch *b)
{
	struct fs_list *first_rotated = NULL;
	struct fs_inode *in;
	size_t picked = 0;
	int ret;

	while (picked < want && *walked < FS_SHED_WALK &&
	       !fs_list_empty(list) && list->prev != first_rotated) {
		in = fs_container_of(list->prev, struct fs_inode, idle);
		(*walked)++;
		fs_list_del(&in->idle);
		fs_list_add(list, &in->idle);
		if (!first_rotated)
			first_rotated = &in->idle;
		if (!sheddable(in))
			continue;
		ret = add_names(t, in, b);
		if (ret < 0)
			break;		/* full: the next batch takes it */
		if (!ret)
			continue;	/* no name the kernel could drop */
		in->shed_sent = true;
		t->shed_pending++;
		picked++;
	}
	return picked;
}

size_t fs_shed_pick_locked(struct fs_table *t, size_t want,
			   struct fs_shed_batch *b)
{
	size_t walked = 0, picked;

	b->n = 0;
	b->used = 0;
	picked = pick_from(t, &t->cold, want, &walked, b);
	if (picked < want && b->n < FS_SHED_NAMES)
		picked += pick_from(t, &t->idle, want - picked, &walked, b);
	return picked;
}

/* Table lock held: see fs_shed_keep_lingering_locked(). */
static unsigned long keep_lingering(struct fs_table *t, struct fs_list *list)
{
	struct fs_list *l;
	struct fs_inode *in;
	unsigned long kept = 0;

	for (l = list->next; l != list; l = l->next) {
		in = fs_container_of(l, struct fs_inode, idle);
		if (!in->shed_sent)
			continue;
		in->shed_sent = false;
		in->shed_kept = true;
		t->shed_pending--;
		kept++;
	}
	return kept;
}

unsigned long fs_shed_keep_lingering_locked(struct fs_table *t)
{
	return keep_lingering(t, &t->idle) + keep_lingering(t, &t->cold);
}
