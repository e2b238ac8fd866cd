// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inotify backend's directory table (src/watch/inotify_dirs.c) on a tree
 * deeper than any fixed buffer: a chain of DEPTH directories whose path
 * is several times PATH_MAX. The path of its deepest entry is rebuilt
 * whole, inotify_dirs_open() reaches that very directory through it, a
 * symlink on the way is refused, every descendant is visited once by
 * inotify_dirs_each_below() (no recursion: this runs on the default stack),
 * and a stale loop of parent links ends a walk instead of hanging it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch/inotify_dirs.h"
#include "../lib/check.h"
#include "../lib/scratch.h"

CHECK_MAIN_DEFS;

#define DEPTH 3000
#define NAME "dd"
#define ROOT_WD 1

static struct rn_id id_of(int fd)
{
	struct stat st;
	struct rn_id id = { 0 };

	if (fstat(fd, &st) == 0) {
		id.dev = st.st_dev;
		id.ino = st.st_ino;
	}
	return id;
}

/*
 * mkdir -p exp/dd/dd/... one level at a time from the last one's fd; each
 * level goes into the table as wd ROOT_WD + level. The deepest's id.
 */
static int make_chain(struct inotify_dirs *d, int root_fd, struct rn_id *deepest)
{
	struct rn_id id = id_of(root_fd);
	int fd = dup(root_fd), next, i;

	if (inotify_dirs_set(d, ROOT_WD, -1, &id, ""))
		return -1;
	for (i = 1; i <= DEPTH; i++) {
		if (mkdirat(fd, NAME, 0755))
			return -1;
		next = openat(fd, NAME, O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
		id = id_of(fd);
		if (inotify_dirs_set(d, ROOT_WD + i, ROOT_WD + i - 1, &id, NAME))
			return -1;
	}
	*deepest = id;
	/* A symlink out, at the bottom. */
	if (symlinkat("/", fd, "out"))
		return -1;
	close(fd);
	return 0;
}

/* rm -r of the chain, bottom up by "..": rm -rf takes seconds on it. */
static void remove_chain(int root_fd)
{
	int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int next, i;

	for (i = 0; fd >= 0 && i < DEPTH; i++) {
		next = openat(fd, NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		if (next < 0)
			break;
		close(fd);
		fd = next;
	}
	if (fd < 0)
		return;
	unlinkat(fd, "out", 0);
	for (; i > 0; i--) {
		next = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = next;
		if (fd < 0 || unlinkat(fd, NAME, AT_REMOVEDIR))
			break;
	}
	if (fd >= 0)
		close(fd);
}

static bool path_is_chain(const char *p)
{
	size_t i;

	if (!p || strlen(p) != DEPTH * (sizeof(NAME)) - 1)
		return false;
	for (i = 0; i < DEPTH; i++)
		if (memcmp(p + i * sizeof(NAME), NAME, sizeof(NAME) - 1) ||
		    (i + 1 < DEPTH && p[i * sizeof(NAME) + 2] != '/'))
			return false;
	return true;
}

static void deep_chain(int root_fd)
{
	struct inotify_dirs d;
	struct rn_id deepest, got;
	char *path, *out;
	int fd;

	memset(&d, 0, sizeof(d));
	if (make_chain(&d, root_fd, &deepest)) {
		printf("FAIL inotify_dirs: making the chain: %s\n", strerror(errno));
		check_failures++;
		inotify_dirs_free(&d);
		return;
	}
	path = inotify_dirs_path(&d, ROOT_WD + DEPTH);
	CHECK("inotify_dirs: the deepest path is whole, past PATH_MAX",
	      path_is_chain(path) && strlen(path) > 2 * PATH_MAX);
	path = path ? path : strdup("");
	out = inotify_dirs_path(&d, ROOT_WD);
	CHECK("inotify_dirs: the root's path is \".\"", out && !strcmp(out, "."));
	free(out);

	fd = inotify_dirs_open(&d, root_fd, ROOT_WD + DEPTH);
	got = id_of(fd);
	CHECK("inotify_dirs: open reaches the deepest directory",
	      fd >= 0 && got.dev == deepest.dev && got.ino == deepest.ino);
	if (fd >= 0)
		close(fd);

	if (asprintf(&out, "%s/out", path) < 0)
		out = NULL;
	fd = out ? inotify_dirs_open_path(root_fd, out) : -ENOMEM;
	CHECK("inotify_dirs: a symlink at the end of a long path is refused",
	      out && (fd == -ELOOP || fd == -ENOTDIR));
	if (fd >= 0)
		close(fd);
	free(out);
	free(path);
	inotify_dirs_free(&d);
}

static int visits[16];

static void visit(void *arg, int wd)
{
	(void)arg;
	if (wd >= 0 && wd < 16)
		visits[wd]++;
}

/* Exactly the wds in want (a 0-terminated list) were visited, once each. */
static bool visited(const int *want)
{
	int expect[16] = { 0 }, i;

	for (; *want; want++)
		expect[*want] = 1;
	for (i = 0; i < 16; i++)
		if (visits[i] != expect[i])
			return false;
	return true;
}

static void each_below(void)
{
	static const struct {
		int wd, parent;
	} tree[] = {
		{ 1, -1 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 5, 4 }, { 6, 3 },
		{ 7, 1 }, { 8, 5 }, { 9, 5 },
	};
	static const int below2[] = { 4, 5, 8, 9, 0 };
	static const int below1[] = { 2, 3, 4, 5, 6, 7, 8, 9, 0 };
	static const int none[] = { 0 };
	struct rn_id id = { 0 };
	struct inotify_dirs d;
	char *p;
	size_t i;
	int rc;

	memset(&d, 0, sizeof(d));
	for (i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		inotify_dirs_set(&d, tree[i].wd, tree[i].parent, &id, "x");
	memset(visits, 0, sizeof(visits));
	rc = inotify_dirs_each_below(&d, 2, visit, NULL);
	CHECK("inotify_dirs: each_below visits a subtree once each",
	      rc == 0 && visited(below2));
	memset(visits, 0, sizeof(visits));
	inotify_dirs_each_below(&d, 1, visit, NULL);
	CHECK("inotify_dirs: each_below from the root visits all but it",
	      visited(below1));
	memset(visits, 0, sizeof(visits));
	inotify_dirs_each_below(&d, 9, visit, NULL);
	CHECK("inotify_dirs: each_below of a leaf visits none", visited(none));

	/* A stale loop: 10 <-> 11, detached from the root. */
	inotify_dirs_set(&d, 10, 11, &id, "a");
	inotify_dirs_set(&d, 11, 10, &id, "b");
	p = inotify_dirs_path(&d, 10);
	CHECK("inotify_dirs: a loop of parent links has no path", p == NULL);
	free(p);
	memset(visits, 0, sizeof(visits));
	rc = inotify_dirs_each_below(&d, 10, visit, NULL);
	CHECK("inotify_dirs: each_below ends on a loop", rc == 0);
	inotify_dirs_free(&d);
}

int main(void)
{
	int root_fd;

	if (scratch_make("rninodirs") || mkdir(scratch("exp"), 0755))
		return 2;
	root_fd = open(scratch("exp"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return 2;
	deep_chain(root_fd);
	each_below();
	remove_chain(root_fd);
	close(root_fd);
	scratch_remove();
	return check_exit();
}
