// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inotify backend's watches: one on every directory of the export,
 * added at open and on every new directory, removed from a directory
 * tree that moved out. inotify_watch.c reads the events; this file only
 * keeps the set of watches equal to the export's directory tree.
 *
 * Objects: w->dirs maps wd -> directory (inotify_dirs.c); a directory moved
 * out of the export is marked gone (with its subtree) and its watches
 * removed; its entries go when IN_IGNORED arrives. Directories are opened
 * with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) from the export
 * root (or from a directory so opened: inotify_dirs_open()) and watched
 * through /proc/self/fd/N, so no symlink is ever followed out of the
 * export (IN_DONT_FOLLOW cannot be used: it would watch the /proc magic
 * link itself; the openat2 flags give the same guarantee for every
 * component, not only the last).
 *
 * New directories: entries that arrived before the watch did are found
 * by a scan and reported as CREATE. Names so reported are remembered in
 * w->scanned until the next time the queue is drained (EAGAIN), so the
 * queued IN_CREATE of an entry found by the scan is not reported twice:
 * everything queued before the scan has been read by then.
 *
 * All of it runs on the reading thread (inotify_watch_internal.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inotify_watch_internal.h"
#include "watch_backend.h"
#include "watch_limits.h"

#define INOTIFY_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		  IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | \
		  IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

static void inotify_scanned_add(struct inotify_watch *w, int wd,
				const char *name)
{
	if (w->nscanned == INOTIFY_SCANNED_MAX)
		return;		/* worst case: a duplicate CREATE */
	w->scanned[w->nscanned].wd = wd;
	strcpy(w->scanned[w->nscanned].name, name);
	w->nscanned++;
}

bool inotify_scanned_consume(struct inotify_watch *w, int wd, const char *name)
{
	size_t i;

	for (i = 0; i < w->nscanned; i++) {
		if (w->scanned[i].wd == wd &&
		    strcmp(w->scanned[i].name, name) == 0) {
			w->scanned[i] = w->scanned[--w->nscanned];
			return true;
		}
	}
	return false;
}

/*
 * Directories found by a scan and not yet watched: (parent wd, name), on
 * the heap. The walk below is a loop over this stack, not recursion: a
 * client can build a tree of any depth through the mount, and a stack
 * frame per level ran out of stack at every start after that (#30).
 */
struct inotify_todo {
	int parent_wd;
	char *name;
};

struct inotify_todos {
	struct inotify_todo *v;
	size_t n, cap;
};

/* 0, or -ENOMEM. */
static int inotify_todo_push(struct inotify_todos *t, int parent_wd,
			     const char *name)
{
	struct inotify_todo *v;
	char *copy = strdup(name);
	size_t cap;

	if (!copy)
		return -ENOMEM;
	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : 16;
		v = realloc(t->v, cap * sizeof(*v));
		if (!v) {
			free(copy);
			return -ENOMEM;
		}
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].parent_wd = parent_wd;
	t->v[t->n].name = copy;
	t->n++;
	return 0;
}

/* One entry found in a new directory: report it, queue dirs. */
static void inotify_scan_entry(struct inotify_watch *w, int dfd, int wd,
			   const struct rn_id *dir, const char *name,
			   bool report, struct inotify_todos *todo)
{
	struct rn_event ev;
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;		/* already gone again: its DELETE is queued */
	if (report) {
		memset(&ev, 0, sizeof(ev));
		ev.dir = *dir;
		strcpy(ev.name, name);
		ev.isdir = S_ISDIR(st.st_mode);
		ev.obj.dev = st.st_dev;
		ev.obj.ino = st.st_ino;
		ev.obj.gen = watch_name_gen(dfd, name);
		inotify_scanned_add(w, wd, name);
		if (!inotify_own(w, dir, name, RN_EV_CREATE))
			inotify_emit(w, &ev, RN_EV_CREATE);
	}
	if (S_ISDIR(st.st_mode) && inotify_todo_push(todo, wd, name) < 0)
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: watch: out of memory: new directory %s not watched\n",
			 name);
}

static void inotify_scan(struct inotify_watch *w, int fd, int wd,
		     const struct rn_id *dir, bool report,
		     struct inotify_todos *todo)
{
	struct dirent *de;
	DIR *d;
	int dfd;

	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		inotify_scan_entry(w, dirfd(d), wd, dir, de->d_name, report,
				   todo);
	}
	closedir(d);
}

/*
 * Opens name in parent_wd (the export root for -1) as O_PATH: from
 * held_fd, the last directory watched, when that is the parent (so a
 * chain goes down one level per step), else by its path from the root.
 * An fd, or a negative errno.
 */
static int inotify_open_child(struct inotify_watch *w, int parent_wd,
			  const char *name, int held_wd, int held_fd)
{
	int pfd, fd;

	if (parent_wd < 0)
		return inotify_dirs_open_path(w->root_fd, ".");
	if (parent_wd == held_wd)
		return inotify_dirs_open_path(held_fd, name);
	pfd = inotify_dirs_open(&w->dirs, w->root_fd, parent_wd);
	if (pfd < 0)
		return pfd;
	fd = inotify_dirs_open_path(pfd, name);
	close(pfd);
	return fd;
}

/*
 * Watches the directory open as fd, named name in parent_wd: its wd, or
 * a negative errno (a refused inotify_add_watch() is logged).
 */
static int inotify_watch_dir(struct inotify_watch *w, int fd, int parent_wd,
			 const char *name, struct rn_id *id)
{
	char proc[64], *rel, *what;
	int wd, ret;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ret = watch_fd_id(fd, id);
	if (ret < 0)
		return ret;
	id->gen = watch_name_gen(fd, "");
	wd = inotify_add_watch(w->fd, proc, INOTIFY_MASK);
	if (wd < 0) {
		ret = -errno;
		rel = parent_wd < 0 ? NULL : inotify_dirs_path(&w->dirs,
							       parent_wd);
		if (asprintf(&what, "inotify watch on %s/%s",
			     rel ? rel : ".", name) < 0)
			what = NULL;
		watch_say_error(what ? what : "inotify watch",
				WATCH_CALL_INOTIFY_ADD, -ret, "");
		free(what);
		free(rel);
		return ret;
	}
	ret = inotify_dirs_set(&w->dirs, wd, parent_wd, id, name);
	if (ret < 0) {
		inotify_rm_watch(w->fd, wd);
		return ret;
	}
	return wd;
}

/*
 * Depth first, from a stack on the heap, with at most four fds open
 * whatever the depth (the last directory watched, the one being opened,
 * its parent if that had to be opened again, and a read fd while its
 * entries are read): a directory whose parent is not the last one
 * watched is opened again from the root, by a path of any length. A
 * directory that cannot be opened (gone, a symlink now) or watched is
 * skipped with its subtree.
 */
int inotify_add_tree(struct inotify_watch *w, int parent_wd, const char *name,
		     bool report)
{
	struct inotify_todos todo = { 0 };
	int held_fd = -1, held_wd = -1, top_wd, fd, wd;
	bool top = true;
	struct inotify_todo t;
	struct rn_id id;

	top_wd = inotify_todo_push(&todo, parent_wd, name);
	if (top_wd < 0)
		return top_wd;
	while (todo.n) {
		t = todo.v[--todo.n];
		fd = inotify_open_child(w, t.parent_wd, t.name, held_wd,
					held_fd);
		wd = fd < 0 ? fd : inotify_watch_dir(w, fd, t.parent_wd, t.name,
						    &id);
		if (top) {
			top_wd = wd;
			top = false;
		}
		free(t.name);
		if (wd < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		inotify_scan(w, fd, wd, &id, report, &todo);
		if (held_fd >= 0)
			close(held_fd);
		held_fd = fd;
		held_wd = wd;
	}
	if (held_fd >= 0)
		close(held_fd);
	free(todo.v);
	return top_wd;
}

static void inotify_forget_one(void *arg, int wd)
{
	struct inotify_watch *w = arg;
	struct inotify_dir *d = inotify_dirs_find(&w->dirs, wd);

	if (d)
		d->gone = true;
	inotify_rm_watch(w->fd, wd);
}

void inotify_dir_left(struct inotify_watch *w, int wd, const char *name)
{
	struct inotify_dir *d = inotify_dirs_child(&w->dirs, wd, name);

	if (!d)
		return;
	if (inotify_dirs_each_below(&w->dirs, d->wd, inotify_forget_one, w) < 0)
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: watch: out of memory: a directory moved out of the export stays watched below its top\n");
	inotify_forget_one(w, d->wd);
}
