// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Chained hash of watched directories by wd (ino_dirs.h). Invariants: a
 * wd appears at most once; parent links form a tree rooted at the export
 * root (a directory cannot be moved below itself), walks are still bounded
 * by INO_DIRS_MAX_DEPTH in case a stale entry made a loop.
 */
#include <stdlib.h>
#include <string.h>

#include "ino_dirs.h"

#define INO_DIRS_MAX_DEPTH 4096

static struct ino_dir **ino_dirs_head(const struct ino_dirs *d, int wd)
{
	return (struct ino_dir **)&d->bucket[(unsigned int)wd %
					     INO_DIRS_BUCKETS];
}

void ino_dirs_free(struct ino_dirs *d)
{
	struct ino_dir *e, *next;
	size_t i;

	for (i = 0; i < INO_DIRS_BUCKETS; i++) {
		for (e = d->bucket[i]; e; e = next) {
			next = e->next;
			free(e->name);
			free(e);
		}
		d->bucket[i] = NULL;
	}
}

struct ino_dir *ino_dirs_find(const struct ino_dirs *d, int wd)
{
	struct ino_dir *e;

	for (e = *ino_dirs_head(d, wd); e; e = e->next)
		if (e->wd == wd)
			return e;
	return NULL;
}

int ino_dirs_set(struct ino_dirs *d, int wd, int parent_wd,
		 const struct rn_id *id, const char *name)
{
	struct ino_dir *e = ino_dirs_find(d, wd);
	char *copy = strdup(name);

	if (!copy)
		return -1;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			free(copy);
			return -1;
		}
		e->wd = wd;
		e->next = *ino_dirs_head(d, wd);
		*ino_dirs_head(d, wd) = e;
	}
	free(e->name);
	e->name = copy;
	e->parent_wd = parent_wd;
	e->id = *id;
	e->gone = false;
	return 0;
}

struct ino_dir *ino_dirs_child(const struct ino_dirs *d, int parent_wd,
			       const char *name)
{
	struct ino_dir *e;
	size_t i;

	for (i = 0; i < INO_DIRS_BUCKETS; i++)
		for (e = d->bucket[i]; e; e = e->next)
			if (e->parent_wd == parent_wd &&
			    strcmp(e->name, name) == 0)
				return e;
	return NULL;
}

void ino_dirs_remove(struct ino_dirs *d, int wd)
{
	struct ino_dir **pp, *e;

	for (pp = ino_dirs_head(d, wd); (e = *pp); pp = &e->next) {
		if (e->wd == wd) {
			*pp = e->next;
			free(e->name);
			free(e);
			return;
		}
	}
}

bool ino_dirs_path(const struct ino_dirs *d, int wd, char *buf, size_t size)
{
	const struct ino_dir *e = ino_dirs_find(d, wd);
	size_t pos = size - 1, n;
	int depth;

	if (!e || size < 2)
		return false;
	buf[pos] = '\0';
	for (depth = 0; e && e->parent_wd >= 0; depth++) {
		n = strlen(e->name);
		if (depth >= INO_DIRS_MAX_DEPTH || n + 1 > pos)
			return false;
		pos -= n;
		memcpy(buf + pos, e->name, n);
		buf[--pos] = '/';
		e = ino_dirs_find(d, e->parent_wd);
	}
	if (!e)
		return false;	/* detached from the root */
	if (pos == size - 1) {
		strcpy(buf, ".");
		return true;
	}
	memmove(buf, buf + pos + 1, size - pos - 1);
	return true;
}

static void ino_dirs_below(const struct ino_dirs *d, int wd, int depth,
			   void (*fn)(void *arg, int wd), void *arg)
{
	struct ino_dir *e;
	size_t i;

	if (depth >= INO_DIRS_MAX_DEPTH)
		return;
	for (i = 0; i < INO_DIRS_BUCKETS; i++) {
		for (e = d->bucket[i]; e; e = e->next) {
			if (e->parent_wd != wd || e->wd == wd)
				continue;
			ino_dirs_below(d, e->wd, depth + 1, fn, arg);
			fn(arg, e->wd);
		}
	}
}

void ino_dirs_each_below(const struct ino_dirs *d, int wd,
			 void (*fn)(void *arg, int wd), void *arg)
{
	ino_dirs_below(d, wd, 0, fn, arg);
}
