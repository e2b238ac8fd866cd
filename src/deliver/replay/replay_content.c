// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays of changes to an object: MODIFY, ATTRIB, CLOSE_WRITE.
 *
 * Each one drops the client's cached attributes and pages for the object
 * before the syscall that makes the event (coherence: a reader woken by
 * the event must see the new state), and after any open the replay needs
 * (which would otherwise fetch the attributes just dropped); the kernel
 * then generates the event itself:
 *   MODIFY       a 1-byte write that the file system swallows, on a file
 *                opened with direct_io (a same-size truncate when the file
 *                is empty), through a file kept open until CLOSE_WRITE, so
 *                that watchers see OPEN, MODIFY, CLOSE_WRITE in that order;
 *   ATTRIB       chmod to the current mode (chown to the current owner
 *                for a symlink), answered with the current attributes;
 *   CLOSE_WRITE  closing that file, or an open for writing and a close.
 * The object is reached through its directory and name when the client
 * knows the directory (shown again if the kernel forgot it, see
 * target_from_name()), so that watchers of the directory get the name too.
 *
 * The object may be gone from the backing store by the time its change is
 * replayed (written, then unlinked or replaced at once): the client still
 * shows it, as a ghost or as a node whose backing file is deleted, and
 * must get the change before the DELETE. Nothing here needs the backing
 * object: the gate answers the replay's requests from the attributes the
 * client was last shown (or, gone and unknown, those of a plain file), and
 * the name's lookups from the node it shows.
 */
#include <errno.h>
#include <string.h>

#include "replay_internal.h"

/*
 * The object on the mount, held open (O_PATH, or by the file the replayer
 * keeps open for writing: target_writing()) while its change is
 * replayed: the kernel forgets a node nothing holds whenever it prunes its
 * caches, and a node id read before the hold may be gone by the syscall.
 * Held through its directory and name when the client knows the
 * directory, so that the object's dentry is the named one and watchers of
 * the directory get the name too.
 */
struct target {
	struct replay_node node;	/* the node fd is, from its handle */
	uint64_t parent;	/* node of its directory if held by name */
	const char *name;	/* that name, or "" */
	int fd;			/* the object, O_PATH; -1 if a writer's */
	struct stat st;		/* what the gate answers with */
};

/*
 * Is the node the event's object? A ghost born of a create whose object
 * was already gone has no host id: it is the object the event names.
 */
static bool target_is(struct replay *r, const struct rn_event *ev,
		      const struct replay_node *n)
{
	struct rn_id id;

	return !rn_id_known(&ev->obj) || !fs_id_of(r->fs, n->id, &id) ||
	       rn_id_equal(&id, &ev->obj);
}

/* Holds the object behind fd (consumed) if it is the event's. */
static bool target_hold(struct replay *r, const struct rn_event *ev,
			struct target *t, int fd)
{
	if (fd < 0)
		return false;
	if (RSYS(r, node_of, fd, &t->node.id, &t->node.gen) ||
	    !target_is(r, ev, &t->node)) {
		RSYS(r, close, fd);
		return false;
	}
	t->fd = fd;
	return true;
}

/*
 * Holds (dir, name) by a lookup that the gate answers with the node the
 * client shows there or, if it shows none, as a replayed create's: with
 * the live object if the name still holds the event's object, else with
 * a stand-in (a ghost once the file is gone). The name is in the client's
 * view until the rename or delete that comes later in the queue is
 * replayed, but the kernel may have forgotten it: it forgets a file
 * nothing holds whenever it prunes its caches (memory reclaim,
 * drop_caches), a watch on the directory does not hold the files in it,
 * and the server forgets the name with the file. Served from the backing
 * store, the lookup found nothing and the change was lost.
 * False, without a lookup, if the client shows no object there, the name
 * no longer holds the event's object and the client knows that object
 * under another name: target_open() holds it as itself, so that watches
 * on the object get the event.
 */
static bool target_from_name(struct replay *r, const struct rn_event *ev,
			     struct target *t)
{
	struct replay_expect e = { .op = FS_GATE_LOOKUP };
	struct replay_node dir, n;
	int dfd, fd;

	if (!ev->name[0] || !replay_known_node(r, &ev->dir, &dir))
		return false;
	if (!replay_object_stat(r, dir.id, ev, ev->name, &e.st) &&
	    !replay_shown_node(r, dir.id, ev->name, &n) &&
	    replay_known_node(r, &ev->obj, &n))
		return false;
	dfd = replay_dir_open(r, &dir);
	if (dfd < 0)
		return false;
	e.parent = dir.id;
	strcpy(e.name, ev->name);
	/* A name already shown, and still valid, needs no request. */
	replay_expect_set(r, &e);
	fd = RSYS(r, openat, dfd, ev->name,
		  REPLAY_OPEN_PATH | REPLAY_OPEN_NOFOLLOW, 0);
	if (fd == -ENOENT && replay_drop_kept_missing(r, dir.id, ev->name))
		fd = RSYS(r, openat, dfd, ev->name,
			  REPLAY_OPEN_PATH | REPLAY_OPEN_NOFOLLOW, 0);
	replay_expect_clear(r);
	RSYS(r, close, dfd);
	if (!target_hold(r, ev, t, fd))
		return false;
	t->parent = dir.id;
	t->name = ev->name;
	return true;
}

/*
 * The target's attributes from the backing store (asking through the
 * mount would cost a GETATTR, as the client's copy was just invalidated),
 * or, once it is gone, a stand-in: a ghost's are that already. A deleted
 * file still shows its name until the DELETE is replayed: one link.
 */
static void target_stat(struct replay *r, const struct rn_event *ev,
			struct target *t)
{
	if (fs_node_stat(r->fs, t->node.id, &t->st))
		replay_fake_stat(r, ev, ev->isdir, &t->st);
	else if (!t->st.st_nlink)
		t->st.st_nlink = 1;
}

static bool target_open(struct replay *r, const struct rn_event *ev,
			struct target *t)
{
	struct replay_node n;

	if (!target_from_name(r, ev, t)) {
		if (!replay_known_node(r, &ev->obj, &n) ||
		    !target_hold(r, ev, t,
				 replay_node_open(r, &n, REPLAY_OPEN_PATH)))
			return false;
		t->parent = 0;
		t->name = "";
	}
	target_stat(r, ev, t);
	/* A reused inode number must not turn a file's event into a dir's. */
	if (!!S_ISDIR(t->st.st_mode) != ev->isdir) {
		RSYS(r, close, t->fd);
		return false;
	}
	return true;
}

/*
 * The target without an open by name, if the replayer holds it open for
 * writing (a replayed create's or MODIFY's file) under the event's name:
 * that file pins the name, and its write or close makes the event. After
 * a replayed create, the open's walk would fetch the attributes of the
 * directory, which the create dropped: the GETATTR then comes with the
 * next walk there (the next change's replay, a watcher's), after this
 * event instead of before it. fd is then -1.
 */
static bool target_writing(struct replay *r, const struct rn_event *ev,
			   struct target *t)
{
	struct replay_node dir;

	if (ev->isdir || !ev->name[0] ||
	    !replay_known_node(r, &ev->dir, &dir) ||
	    !replay_shown_node(r, dir.id, ev->name, &t->node) ||
	    replay_writer_find(r, t->node.id) < 0 ||
	    !target_is(r, ev, &t->node))
		return false;
	t->parent = dir.id;
	t->name = ev->name;
	t->fd = -1;
	target_stat(r, ev, t);
	return true;
}

/* The target of a MODIFY or CLOSE_WRITE, which a writer's file may be. */
static bool target_get(struct replay *r, const struct rn_event *ev,
		       struct target *t)
{
	return target_writing(r, ev, t) || target_open(r, ev, t);
}

static void target_close(struct replay *r, const struct target *t)
{
	if (t->fd >= 0)
		RSYS(r, close, t->fd);
}

/*
 * What the replay in flight answers: op on the target; a lookup of its
 * name (the client's entry may need revalidating) gets the node shown.
 */
static void target_expect(const struct target *t, enum fs_gate_op op,
			  struct replay_expect *e)
{
	e->op = op;
	e->node = t->node.id;
	e->parent = t->parent;
	strcpy(e->name, t->name);
	e->st = t->st;
}


/* A regular file of the client's, opened for writing with direct_io. */
static int writer_get(struct replay *r, const struct target *t)
{
	struct replay_expect e = { 0 };
	int fd = replay_writer_find(r, t->node.id);

	if (fd >= 0)
		return fd;
	if (!S_ISREG(t->st.st_mode))
		return -EINVAL;
	target_expect(t, FS_GATE_WRITE, &e);
	replay_expect_set(r, &e);
	fd = RSYS(r, reopen, t->fd, REPLAY_OPEN_WRITE);
	replay_expect_clear(r);
	return fd < 0 ? fd : replay_writer_hold(r, t->node.id, fd);
}

static int modify_through(struct replay *r, int fd, const struct target *t)
{
	struct replay_expect e = { 0 };
	int ret;

	target_expect(t, t->st.st_size ? FS_GATE_WRITE : FS_GATE_SETATTR, &e);
	replay_expect_set(r, &e);
	if (t->st.st_size)
		ret = RSYS(r, write_byte, fd);
	else
		ret = RSYS(r, truncate0, fd);
	ret = ret < 0 ? ret : 1;
	replay_expect_clear(r);
	return ret;
}

int replay_modify(struct replay *r, const struct rn_event *ev)
{
	struct target t;
	bool merged;
	int fd, ret;

	if (!target_get(r, ev, &t))
		return 0;
	/*
	 * inotify merges identical consecutive events; the host's MODIFYs
	 * of one write burst (truncate, then writes) reach us as one or
	 * several depending on when they were read. Merge them here, so
	 * that a burst shows one MODIFY as it natively would.
	 */
	merged = r->last_modified == t.node.id &&
		 replay_writer_find(r, t.node.id) >= 0;
	fd = merged ? 0 : writer_get(r, &t);
	/*
	 * After the open (which would otherwise need a GETATTR), before the
	 * write that makes the event.
	 */
	replay_inval_inode(r, t.node.id);
	if (merged)
		ret = 0;
	else
		ret = fd < 0 ? fd : modify_through(r, fd, &t);
	/* After the event: one system call less before it. */
	target_close(r, &t);
	if (ret > 0)
		r->last_modified = t.node.id;
	return ret;
}

static int attrib_through(struct replay *r, const struct target *t)
{
	struct replay_expect e = { 0 };
	const struct stat *st = &t->st;
	int ret;

	target_expect(t, FS_GATE_SETATTR, &e);
	replay_expect_set(r, &e);
	if (S_ISLNK(st->st_mode))
		ret = RSYS(r, chown_link, t->fd, st->st_uid, st->st_gid);
	else
		ret = RSYS(r, chmod, t->fd, st->st_mode & 07777);
	ret = ret < 0 ? ret : 1;
	replay_expect_clear(r);
	return ret;
}

int replay_attrib(struct replay *r, const struct rn_event *ev)
{
	struct target t;
	int ret;

	if (!target_open(r, ev, &t))
		return 0;
	replay_inval_inode(r, t.node.id);
	ret = attrib_through(r, &t);
	RSYS(r, close, t.fd);
	return ret;
}

int replay_close_write(struct replay *r, const struct rn_event *ev)
{
	struct target t;
	int fd;

	if (!target_get(r, ev, &t))
		return 0;
	fd = writer_get(r, &t);
	/* After the open, as for MODIFY; before the close, the event. */
	replay_inval_inode(r, t.node.id);
	if (fd >= 0)
		replay_writer_close(r, t.node.id);
	target_close(r, &t);
	return fd < 0 ? fd : 1;
}
