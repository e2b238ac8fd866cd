// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Chained hash of watched directories by wd (inotify_dirs.h). Invariants: a
 * wd appears at most once; parent links form a tree rooted at the export
 * root (a directory cannot be moved below itself). Walks along them are
 * loops on the heap, never recursion: a client can make a tree as deep as
 * it likes through the mount (issue #30). They are still bounded by the
 * number of entries, in case a stale entry made a loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inotify_dirs.h"

static struct inotify_dir **inotify_dirs_head(const struct inotify_dirs *d,
					      int wd)
{
	return (struct inotify_dir **)&d->bucket[(unsigned int)wd %
					     INOTIFY_DIRS_BUCKETS];
}

void inotify_dirs_free(struct inotify_dirs *d)
{
	struct inotify_dir *e, *next;
	size_t i;

	for (i = 0; i < INOTIFY_DIRS_BUCKETS; i++) {
		for (e = d->bucket[i]; e; e = next) {
			next = e->next;
			free(e->name);
			free(e);
		}
		d->bucket[i] = NULL;
	}
	d->count = 0;
}

struct inotify_dir *inotify_dirs_find(const struct inotify_dirs *d, int wd)
{
	struct inotify_dir *e;

	for (e = *inotify_dirs_head(d, wd); e; e = e->next)
		if (e->wd == wd)
			return e;
	return NULL;
}

int inotify_dirs_set(struct inotify_dirs *d, int wd, int parent_wd,
		 const struct rn_id *id, const char *name)
{
	struct inotify_dir *e = inotify_dirs_find(d, wd);
	char *copy = strdup(name);

	if (!copy)
		return -ENOMEM;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			free(copy);
			return -ENOMEM;
		}
		e->wd = wd;
		e->next = *inotify_dirs_head(d, wd);
		*inotify_dirs_head(d, wd) = e;
		d->count++;
	}
	free(e->name);
	e->name = copy;
	e->parent_wd = parent_wd;
	e->id = *id;
	e->gone = false;
	return 0;
}

struct inotify_dir *inotify_dirs_child(const struct inotify_dirs *d,
				       int parent_wd,
			       const char *name)
{
	struct inotify_dir *e;
	size_t i;

	for (i = 0; i < INOTIFY_DIRS_BUCKETS; i++)
		for (e = d->bucket[i]; e; e = e->next)
			if (e->parent_wd == parent_wd &&
			    strcmp(e->name, name) == 0)
				return e;
	return NULL;
}

void inotify_dirs_remove(struct inotify_dirs *d, int wd)
{
	struct inotify_dir **pp, *e;

	for (pp = inotify_dirs_head(d, wd); (e = *pp); pp = &e->next) {
		if (e->wd == wd) {
			*pp = e->next;
			free(e->name);
			free(e);
			d->count--;
			return;
		}
	}
}

char *inotify_dirs_path(const struct inotify_dirs *d, int wd)
{
	const struct inotify_dir *e = inotify_dirs_find(d, wd), *top = e;
	size_t len = 0, steps = 0, n;
	char *buf, *p;

	/* Measure, then fill from the end. */
	for (; e && e->parent_wd >= 0; e = inotify_dirs_find(d, e->parent_wd)) {
		if (++steps > d->count)
			return NULL;	/* a loop: a stale entry */
		len += strlen(e->name) + 1;
	}
	if (!e)
		return NULL;		/* detached from the root */
	if (!len)
		return strdup(".");
	buf = malloc(len);
	if (!buf)
		return NULL;
	p = buf + len - 1;
	*p = '\0';
	for (e = top; e->parent_wd >= 0; e = inotify_dirs_find(d,
	     e->parent_wd)) {
		n = strlen(e->name);
		p -= n;
		memcpy(p, e->name, n);
		if (p > buf)
			*--p = '/';
	}
	return buf;
}

/* An fd, or a negative errno. */
static int inotify_dirs_open_beneath(int dfd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/*
 * Each piece is resolved beneath the directory the previous one opened,
 * which is beneath root_fd: the whole walk stays beneath it too.
 */
int inotify_dirs_open_path(int root_fd, const char *path)
{
	char *copy = NULL, *rest, *cut;
	int fd, next;

	if (strlen(path) < PATH_MAX)
		return inotify_dirs_open_beneath(root_fd, path);
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	fd = root_fd;
	for (rest = copy; strlen(rest) >= PATH_MAX; rest = cut + 1) {
		cut = memrchr(rest, '/', PATH_MAX - 1);
		if (!cut || cut == rest) {
			next = -ENAMETOOLONG;	/* no component is */
		} else {
			*cut = '\0';
			next = inotify_dirs_open_beneath(fd, rest);
		}
		if (fd != root_fd)
			close(fd);
		if (next < 0) {
			free(copy);
			return next;
		}
		fd = next;
	}
	next = inotify_dirs_open_beneath(fd, rest);
	close(fd);
	free(copy);
	return next;
}

int inotify_dirs_open(const struct inotify_dirs *d, int root_fd, int wd)
{
	char *path = inotify_dirs_path(d, wd);
	int fd;

	if (!path)
		return -ENOENT;
	fd = inotify_dirs_open_path(root_fd, path);
	free(path);
	return fd;
}

/* A child link, for finding a directory's children by binary search. */
struct inotify_link {
	int parent_wd;
	int wd;
};

static int inotify_link_cmp(const void *a, const void *b)
{
	const struct inotify_link *x = a, *y = b;

	return (x->parent_wd > y->parent_wd) - (x->parent_wd < y->parent_wd);
}

/* Index of the first link whose parent is parent_wd, or n. */
static size_t inotify_links_first(const struct inotify_link *l, size_t n,
			      int parent_wd)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l[mid].parent_wd < parent_wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * All links sorted by parent, then a breadth-first walk from wd whose
 * queue is wds[]: each wd is queued once (the parent links form a tree;
 * the count bounds it should a stale entry make a loop).
 */
int inotify_dirs_each_below(const struct inotify_dirs *d, int wd,
			void (*fn)(void *arg, int wd), void *arg)
{
	struct inotify_link *links;
	struct inotify_dir *e;
	size_t n = 0, head = 0, tail = 0, i;
	int *wds;

	links = malloc((d->count + 1) * sizeof(*links));
	wds = malloc((d->count + 1) * sizeof(*wds));
	if (!links || !wds) {
		free(links);
		free(wds);
		return -ENOMEM;
	}
	for (i = 0; i < INOTIFY_DIRS_BUCKETS; i++)
		for (e = d->bucket[i]; e; e = e->next)
			if (e->wd != e->parent_wd)
				links[n++] = (struct inotify_link){ e->parent_wd,
								e->wd };
	qsort(links, n, sizeof(*links), inotify_link_cmp);
	wds[tail++] = wd;
	while (head < tail) {
		int parent = wds[head++];

		for (i = inotify_links_first(links, n, parent);
		     i < n && links[i].parent_wd == parent && tail <= n; i++)
			wds[tail++] = links[i].wd;
	}
	for (i = 1; i < tail; i++)
		fn(arg, wds[i]);
	free(links);
	free(wds);
	return 0;
}
