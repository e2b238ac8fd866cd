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
