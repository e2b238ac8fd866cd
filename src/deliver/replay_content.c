// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays of changes to an object: MODIFY, ATTRIB, CLOSE_WRITE.
 *
 * Each one drops the client's cached attributes and pages for the object
 * before the syscall that makes the event (coherence: a reader woken by
 * the event must see the new state), and after any open the replay needs
 * (which would otherwise fetch the attributes just dropped); the kernel
 * then generates the event itself:
 *   MODIFY       a 1-byte write that the passthrough swallows, on a file
 *                opened with direct_io (a same-size truncate when the file
 *                is empty), through a file kept open until CLOSE_WRITE, so
 *                that watchers see OPEN, MODIFY, CLOSE_WRITE in that order;
 *   ATTRIB       chmod to the current mode (chown to the current owner
 *                for a symlink), answered with the current attributes;
 *   CLOSE_WRITE  closing that file, or an open for writing and a close.
 * The object is reached through its directory and name when the client
 * knows them, so that watchers of the directory get the name too.
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
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay_internal.h"

/* The object's directory and name on the mount, or the object itself. */
struct target {
	struct replay_node node;
	uint64_t parent;	/* node of dfd if a directory, else 0 */
	int dfd;		/* directory, or the object's own O_PATH fd */
	const char *name;	/* name in dfd, or "" for dfd itself */
	struct stat st;		/* what the gate answers with */
};

/*
 * Is the node the client shows as (dir, name) the event's object? A ghost
 * born of a create whose object was already gone has no host id: it is
 * the object the event names.
 */
static bool target_shown(struct replay *r, const struct replay_node *dir,
			 const struct rn_event *ev, struct replay_node *n)
{
	struct rn_id id;

	return replay_shown_node(r, dir->id, ev->name, n) &&
	       (!rn_id_known(&ev->obj) || !fs_id_of(r->fs, n->id, &id) ||
		rn_id_equal(&id, &ev->obj));
}

static bool target_from_name(struct replay *r, const struct rn_event *ev,
			     struct target *t)
{
	struct replay_node dir;
	struct stat st;

	if (!ev->name[0] || !replay_known_node(r, &ev->dir, &dir))
		return false;
	t->dfd = replay_node_open(r, &dir, O_PATH | O_DIRECTORY);
	if (t->dfd < 0)
		return false;
	/*
	 * A name already shown needs no request; else a lookup makes the
	 * client know the object.
	 */
	if (!target_shown(r, &dir, ev, &t->node) &&
	    (fstatat(t->dfd, ev->name, &st, AT_SYMLINK_NOFOLLOW) ||
	     !target_shown(r, &dir, ev, &t->node))) {
		close(t->dfd);
		return false;
	}
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
	if (!target_from_name(r, ev, t)) {
		if (!replay_known_node(r, &ev->obj, &t->node))
			return false;
		t->dfd = replay_node_open(r, &t->node, O_PATH);
		if (t->dfd < 0)
			return false;
		t->parent = 0;
		t->name = "";
	}
	target_stat(r, ev, t);
	/* A reused inode number must not turn a file's event into a dir's. */
	if (!!S_ISDIR(t->st.st_mode) != ev->isdir) {
		close(t->dfd);
		return false;
	}
	return true;
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

static int target_open_write(struct replay *r, const struct target *t)
{
	char path[32];
	int fd;

	if (t->name[0])
		fd = openat(t->dfd, t->name,
			    O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	else {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", t->dfd);
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
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
	fd = target_open_write(r, t);
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
		ret = pwrite(fd, "", 1, 0) == 1 ? 1 : -EIO;
	else
		ret = ftruncate(fd, 0) ? -errno : 1;
	replay_expect_clear(r);
	return ret;
}

int replay_modify(struct replay *r, const struct rn_event *ev)
{
	struct target t;
	bool merged;
	int fd, ret;

	if (!target_open(r, ev, &t))
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
	fs_inval_inode(r->fs, t.node.id);
	if (merged)
		ret = 0;
	else
		ret = fd < 0 ? fd : modify_through(r, fd, &t);
	/* After the event: one system call less before it. */
	close(t.dfd);
	if (ret > 0)
		r->last_modified = t.node.id;
	return ret;
}

static int attrib_through(struct replay *r, const struct target *t)
{
	struct replay_expect e = { 0 };
	const struct stat *st = &t->st;
	char path[32];
	int ret;

	target_expect(t, FS_GATE_SETATTR, &e);
	replay_expect_set(r, &e);
	if (S_ISLNK(st->st_mode))
		ret = fchownat(t->dfd, t->name, st->st_uid, st->st_gid,
			       AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
	else if (t->name[0])
		ret = fchmodat(t->dfd, t->name, st->st_mode & 07777, 0);
	else {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", t->dfd);
		ret = chmod(path, st->st_mode & 07777);
	}
	ret = ret ? -errno : 1;
	replay_expect_clear(r);
	return ret;
}

int replay_attrib(struct replay *r, const struct rn_event *ev)
{
	struct target t;
	int ret;

	if (!target_open(r, ev, &t))
		return 0;
	fs_inval_inode(r->fs, t.node.id);
	ret = attrib_through(r, &t);
	close(t.dfd);
	return ret;
}

int replay_close_write(struct replay *r, const struct rn_event *ev)
{
	struct target t;
	int fd;

	if (!target_open(r, ev, &t))
		return 0;
	fd = writer_get(r, &t);
	/* After the open, as for MODIFY; before the close, the event. */
	fs_inval_inode(r->fs, t.node.id);
	if (fd >= 0)
		replay_writer_close(r, t.node.id);
	close(t.dfd);
	return fd < 0 ? fd : 1;
}
