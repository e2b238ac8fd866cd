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
	int dfd;		/* directory, or the object's own O_PATH fd */
	const char *name;	/* name in dfd, or "" for dfd itself */
};

/* Is the node the client shows as (dir, name) the event's object? */
static bool target_shown(struct replay *r, const struct replay_node *dir,
			 const struct rn_event *ev, struct replay_node *n)
{
	struct rn_id id;

	return replay_shown_node(r, dir->id, ev->name, n) &&
	       (!rn_id_known(&ev->obj) ||
		(fs_id_of(r->fs, n->id, &id) && id.ino == ev->obj.ino));
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
	t->name = ev->name;
	return true;
}

static bool target_open(struct replay *r, const struct rn_event *ev,
			struct target *t)
{
	if (target_from_name(r, ev, t))
		return true;
	if (!replay_known_node(r, &ev->obj, &t->node))
		return false;
	t->dfd = replay_node_open(r, &t->node, O_PATH);
	t->name = "";
	return t->dfd >= 0;
}

/*
 * The target's attributes from the backing store: asking through the mount
 * would cost a GETATTR, as the client's copy was just invalidated.
 */
static int target_stat(struct replay *r, const struct target *t,
		       struct stat *st)
{
	return fs_node_stat(r->fs, t->node.id, st);
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
	struct replay_expect e = { .op = FS_GATE_WRITE };
	struct stat st;
	int fd = replay_writer_find(r, t->node.id);

	if (fd >= 0)
		return fd;
	if (target_stat(r, t, &st) || !S_ISREG(st.st_mode))
		return -EINVAL;
	e.node = t->node.id;
	replay_expect_set(r, &e);
	fd = target_open_write(r, t);
	replay_expect_clear(r);
	return fd < 0 ? fd : replay_writer_hold(r, t->node.id, fd);
}

static int modify_through(struct replay *r, int fd, uint64_t node)
{
	struct replay_expect e = { .node = node };
	struct stat st;
	int ret = fs_node_stat(r->fs, node, &st);

	if (ret)
		return ret;
	e.op = st.st_size ? FS_GATE_WRITE : FS_GATE_SETATTR;
	replay_expect_set(r, &e);
	if (st.st_size)
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
	close(t.dfd);
	/*
	 * After the open (which would otherwise need a GETATTR), before the
	 * write that makes the event.
	 */
	fs_inval_inode(r->fs, t.node.id);
	if (merged)
		return 0;
	ret = fd < 0 ? fd : modify_through(r, fd, t.node.id);
	if (ret > 0)
		r->last_modified = t.node.id;
	return ret;
}

static int attrib_through(struct replay *r, const struct target *t)
{
	struct replay_expect e = { .op = FS_GATE_SETATTR };
	struct stat st;
	char path[32];
	int ret;

	ret = target_stat(r, t, &st);
	if (ret)
		return ret;
	e.node = t->node.id;
	replay_expect_set(r, &e);
	if (S_ISLNK(st.st_mode))
		ret = fchownat(t->dfd, t->name, st.st_uid, st.st_gid,
			       AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
	else if (t->name[0])
		ret = fchmodat(t->dfd, t->name, st.st_mode & 07777, 0);
	else {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", t->dfd);
		ret = chmod(path, st.st_mode & 07777);
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
	close(t.dfd);
	/* After the open, as for MODIFY; before the close, the event. */
	fs_inval_inode(r->fs, t.node.id);
	if (fd < 0)
		return fd;
	replay_writer_close(r, t.node.id);
	return 1;
}
