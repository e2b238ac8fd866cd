// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Naming objects on the mount without paths (fuse_handle.h says why). The
 * replayer's working directory is the mount root while it replays
 * (replay.c), so AT_FDCWD names the mount.
 *
 * An event about an object the client holds no reference to is of no use
 * to any watcher on the mount (a watch pins its inode), so such events
 * are skipped.
 */
#include <errno.h>
#include <string.h>

#include "replay_internal.h"

bool replay_known_node(struct replay *r, const struct rn_id *id,
		       struct replay_node *n)
{
	return rn_id_known(id) && fs_node_of(r->fs, id, &n->id, &n->gen);
}

/*
 * By node, not through its host id: a ghost has none, and the host id of
 * a deleted object may already name its successor.
 */
bool replay_shown_node(struct replay *r, uint64_t parent, const char *name,
		       struct replay_node *n)
{
	return fs_name_shown(r->fs, parent, name, &n->id) &&
	       fs_node_live(r->fs, n->id, &n->gen);
}

int replay_node_open(struct replay *r, const struct replay_node *n,
		     int how)
{
	return RSYS(r, open_node, n->id, n->gen, how);
}

/* Bounds the walk up to a directory whose handle decodes. */
#define REPLAY_DIR_DEPTH 64

/*
 * A directory to replay in. By handle, as any node; but when the kernel
 * has dropped its dentry (reclaim: a watch pins the inode, not the
 * name), decoding the handle reconnects it through its parent: the
 * parent's listing and a lookup of its name, which the host has already
 * removed. The lookup's ENOENT would hide the name the client was shown
 * (the rmdir's replay then removes a stand-in, no DELETE_SELF) and the
 * decode fails, ESTALE: the event would be lost. So the gate answers a
 * lookup of the name shown with the node shown, and if the decode still
 * fails, the directory is reached by that name from its parent.
 */
static int dir_open(struct replay *r, const struct replay_node *dir,
		    int depth)
{
	const int how = REPLAY_OPEN_PATH | REPLAY_OPEN_DIR;
	struct replay_expect e = { .op = FS_GATE_LOOKUP };
	struct replay_node parent;
	struct fs_name_buf shown;
	uint64_t node;
	uint32_t gen;
	int fd, pfd;

	if (!depth || !fs_name_of(r->fs, dir->id, &shown))
		return replay_node_open(r, dir, how);
	e.parent = shown.parent;
	strcpy(e.name, shown.name);
	/* Only if the name went meanwhile: then the node check fails. */
	e.st.st_mode = S_IFDIR;
	replay_expect_set(r, &e);
	fd = replay_node_open(r, dir, how);
	replay_expect_clear(r);
	if (fd != -ESTALE || !fs_node_live(r->fs, shown.parent, &parent.gen))
		return fd;
	parent.id = shown.parent;
	pfd = dir_open(r, &parent, depth - 1);
	if (pfd < 0)
		return fd;
	replay_expect_set(r, &e);
	fd = RSYS(r, openat, pfd, shown.name, how | REPLAY_OPEN_NOFOLLOW, 0);
	replay_expect_clear(r);
	RSYS(r, close, pfd);
	if (fd >= 0 && (RSYS(r, node_of, fd, &node, &gen) ||
			node != dir->id || gen != dir->gen)) {
		RSYS(r, close, fd);
		fd = -ESTALE;
	}
	return fd;
}

int replay_dir_open(struct replay *r, const struct replay_node *dir)
{
	return dir_open(r, dir, REPLAY_DIR_DEPTH);
}

/*
 * Is the object the client sees as node under (parent, name) the one that
 * lives there on the backing store now? Then an event that says otherwise
 * is stale: a later change, already shown, overtook it. A ghost never is,
 * even with the live object's inode number (a stand-in made from the
 * event of a file since renamed): it has no backing object to stat.
 */
bool replay_name_is_live(struct replay *r, uint64_t parent,
			 const char *name, uint64_t node)
{
	struct stat nst, st;

	return !fs_node_stat(r->fs, node, &nst) &&
	       !fs_backing_statat(r->fs, parent, name, &st) &&
	       st.st_ino == nst.st_ino && st.st_dev == nst.st_dev;
}

/*
 * Attributes for an object that may already be gone from the backing store
 * by the time its event is replayed (a burst of creates and unlinks): the
 * client must still be shown it, or the pair of events would be lost.
 */
void replay_fake_stat(const struct replay *r, const struct rn_event *ev,
		      bool isdir, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = isdir ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_nlink = isdir ? 2 : 1;
	st->st_ino = ev->obj.ino;
	st->st_dev = ev->obj.dev;
	st->st_uid = r->uid;
	st->st_gid = r->gid;
	st->st_blksize = 4096;
}

/*
 * The attributes of the object at (parent, name) on the backing store if
 * it is the one the event is about (true), else a stand-in for it.
 */
bool replay_object_stat(struct replay *r, uint64_t parent,
			const struct rn_event *ev, const char *name,
			struct stat *st)
{
	if (!fs_backing_statat(r->fs, parent, name, st) &&
	    (!rn_id_known(&ev->obj) || st->st_ino == ev->obj.ino) &&
	    !!S_ISDIR(st->st_mode) == ev->isdir)
		return true;
	replay_fake_stat(r, ev, ev->isdir, st);
	return false;
}
