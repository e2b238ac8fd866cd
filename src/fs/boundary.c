// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The export boundary for objects the client already holds. A lookup
 * only ever goes down from a directory inside the export, but the host
 * can move a directory the client holds (its cwd, an open fd, a cached
 * dentry) out of the export: its fd follows it, and so would every name
 * looked up under it. So once the host watch reports a directory moved
 * out (fs_boundary_moved()), each held object is placed again before it
 * is next served, once: a directory by walking its ".." chain up to the
 * export root, anything else by the directories it was shown in. One
 * that is outside is answered ESTALE, like an object that is gone.
 *
 * boundary_epoch counts the moves out; an inode's inside_epoch is the
 * count at which it was last found inside. Both are atomics read and
 * set without the table lock: two threads placing the same inode at
 * once find the same answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#include "fs_internal.h"
#include "names_shown.h"

/* A bound on the ".." chain: a file system in a loop cannot hold us. */
#define BOUNDARY_MAX_DEPTH 65536
/* Parents of a non-directory looked at; one inside is enough. */
#define BOUNDARY_MAX_PARENTS 8

void fs_boundary_moved(struct fs *fs)
{
	atomic_fetch_add(&fs->boundary_epoch, 1);
}

/* Whether the directory open as fd is the export root or below it. */
static bool dir_inside(struct fs *fs, int fd)
{
	struct stat root, cur, up;
	int depth, parent;

	if (fstat(fs->root_fd, &root) || fstat(fd, &cur))
		return false;
	fd = dup(fd);
	for (depth = 0; fd >= 0 && depth < BOUNDARY_MAX_DEPTH; depth++) {
		if (cur.st_dev == root.st_dev && cur.st_ino == root.st_ino)
			break;
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (fd < 0 || fstat(fd, &up) ||
		    (up.st_dev == cur.st_dev && up.st_ino == cur.st_ino)) {
			/* The top of the mount: not under the root. */
			if (fd >= 0)
				close(fd);
			return false;
		}
		cur = up;
	}
	if (fd < 0)
		return false;
	close(fd);
	return depth < BOUNDARY_MAX_DEPTH;
}

struct parents {
	uint64_t node[BOUNDARY_MAX_PARENTS];
	int count;
};

static int parent_add(void *arg, uint64_t parent, const char *name)
{
	struct parents *p = arg;

	p->node[p->count++] = parent;
	return p->count == BOUNDARY_MAX_PARENTS;
}

/*
 * A non-directory is inside if a directory it was shown in is. One
 * shown nowhere (an unlinked file still open on the client) gives no
 * way to anything else.
 */
static bool shown_inside(struct fs *fs, struct fs_inode *in)
{
	struct parents p = { .count = 0 };
	struct fs_inode *dir;
	bool inside = false;
	int i;

	pthread_mutex_lock(&fs->table.lock);
	fs_names_each_locked(&fs->table, in, parent_add, &p);
	pthread_mutex_unlock(&fs->table.lock);
	if (!p.count)
		return true;
	for (i = 0; i < p.count && !inside; i++) {
		dir = fs_table_get(&fs->table, p.node[i]);
		inside = dir && fs_inode_inside(fs, dir);
		fs_table_put(&fs->table, dir);
	}
	return inside;
}

bool fs_inode_inside(struct fs *fs, struct fs_inode *in)
{
	unsigned int epoch = atomic_load(&fs->boundary_epoch);
	bool inside;

	if (atomic_load(&in->inside_epoch) == epoch || in->fd < 0)
		return true;
	if (S_ISDIR(in->type))
		inside = dir_inside(fs, in->fd);
	else
		inside = shown_inside(fs, in);
	if (inside)
		atomic_store(&in->inside_epoch, epoch);
	return inside;
}
