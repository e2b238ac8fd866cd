// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays of namespace changes: create, delete, rename.
 *
 * The kernel looks a name up before it asks the server to act on it, so
 * each replay announces (replay_expect) what those lookups must answer:
 * ENOENT for a name being created or a fresh rename target, the entry the
 * client was shown (or, if it never was, one made from the event) for a
 * name being removed or renamed. The answers come from what the client has
 * been shown, never from the live backing store, which is already ahead:
 * in a burst of creates and unlinks the file is often gone before its
 * create is replayed, and it must still be created in the client's view.
 */
#include <errno.h>
#include <string.h>

#include "replay_internal.h"

/*
 * A new name for an inode the client already knows is a hard link: link
 * it, so that watchers of the inode get ATTRIB (its link count) as they
 * would natively, and the client sees one inode under both names.
 */
static int link_as(struct replay *r, int dfd, struct replay_expect *e,
		   const struct replay_node *known)
{
	int fd, ret;

	fd = replay_node_open(r, known, REPLAY_OPEN_PATH);
	if (fd < 0)
		return fd;
	e->op = FS_GATE_LINK;
	e->node = known->id;
	replay_expect_set(r, e);
	ret = RSYS(r, linkat, fd, dfd, e->name);
	replay_expect_clear(r);
	RSYS(r, close, fd);
	return ret < 0 ? ret : 1;
}

/*
 * A file whose writer's first MODIFY or CLOSE_WRITE comes next: created
 * by an open (one FUSE_CREATE where mknod and then the writer's open are
 * two requests), kept as that writer's file (replay_writers.c). Watchers
 * see CREATE then OPEN, as from the two.
 */
static int create_open(struct replay *r, int dfd, struct replay_expect *e)
{
	uint64_t node;
	uint32_t gen;
	int fd;

	e->op = FS_GATE_CREATE;
	replay_expect_set(r, e);
	fd = RSYS(r, openat, dfd, e->name, REPLAY_OPEN_CREATE,
		  e->st.st_mode & 07777);
	replay_expect_clear(r);
	if (fd < 0)
		return fd;
	/* Its own fd: a handle encoded from it cannot fail but by a bug. */
	if (RSYS(r, node_of, fd, &node, &gen))
		node = 0;
	replay_writer_hold(r, node, fd);
	return 1;
}

static int create_as(struct replay *r, int dfd, struct replay_expect *e,
		     bool opens)
{
	struct rn_id id = { .dev = e->st.st_dev, .ino = e->st.st_ino };
	struct replay_node known;

	mode_t perm = e->st.st_mode & 07777;
	int ret;

	/*
	 * Only a live object with several links can be a hard link: inode
	 * numbers are reused at once, so a known node with a single link may
	 * be a deleted file's, on its way to being forgotten.
	 */
	if (!S_ISDIR(e->st.st_mode) && e->st.st_nlink > 1 &&
	    replay_known_node(r, &id, &known)) {
		ret = link_as(r, dfd, e, &known);
		if (ret != -ESTALE)
			return ret;
	}
	if (opens && S_ISREG(e->st.st_mode))
		return create_open(r, dfd, e);
	if (S_ISDIR(e->st.st_mode))
		e->op = FS_GATE_MKDIR;
	else if (S_ISLNK(e->st.st_mode))
		e->op = FS_GATE_SYMLINK;
	else
		e->op = FS_GATE_MKNOD;
	replay_expect_set(r, e);
	if (e->op == FS_GATE_MKDIR)
		ret = RSYS(r, mkdirat, dfd, e->name, perm);
	else if (e->op == FS_GATE_SYMLINK)
		ret = RSYS(r, symlinkat, dfd, e->name);
	else
		ret = RSYS(r, mknodat, dfd, e->name,
			   (e->st.st_mode & S_IFMT) | perm, e->st.st_rdev);
	ret = ret < 0 ? ret : 1;
	replay_expect_clear(r);
	return ret;
}

/*
 * After a replay, the client's entry for name must not hide the live
 * object: a stand-in shown for an object that is still live, or the
 * negative entry a replayed delete left where the name lives again, is
 * dropped, so that the next lookup finds the live object.
 */
static void settle_name(struct replay *r, uint64_t parent, const char *name)
{
	struct replay_node n;
	struct stat st;

	if (fs_backing_statat(r->fs, parent, name, &st))
		return;
	if (!replay_shown_node(r, parent, name, &n) ||
	    !replay_name_is_live(r, parent, name, n.id))
		replay_inval_entry(r, parent, name);
}

/*
 * A replay that did not change the directory through the mount: the
 * kernel kept its listing (fs/cache_policy.c), which the change made
 * stale. One that did moved the directory's change counter on, and the
 * kernel reads the listing again at its next open.
 */
static void listing_drop(struct replay *r, uint64_t dir)
{
	replay_inval_inode(r, dir);
}

static int create_in(struct replay *r, const struct replay_node *dir,
		     const struct rn_event *ev, const char *name, bool opens)
{
	struct replay_expect e = { .name_lookup_err = ENOENT };
	struct replay_node shown;
	int dfd, ret;

	dfd = replay_dir_open(r, dir);
	if (dfd < 0)
		return dfd;
	/* A name the client already shows would make the create EEXIST. */
	if (replay_shown_node(r, dir->id, name, &shown))
		replay_inval_entry(r, dir->id, name);
	e.parent = dir->id;
	strcpy(e.name, name);
	replay_object_stat(r, dir->id, ev, name, &e.st);
	ret = create_as(r, dfd, &e, opens);
	RSYS(r, close, dfd);
	if (ret > 0)
		replay_stale_add(&r->stale, dir);
	else
		listing_drop(r, dir->id);
	settle_name(r, dir->id, name);
	return ret;
}

int replay_create(struct replay *r, const struct rn_event *ev, bool opens)
{
	struct replay_node dir;

	if (!replay_known_node(r, &ev->dir, &dir))
		return 0;
	return create_in(r, &dir, ev, ev->name, opens);
}

/*
 * The node a name not shown to the client names, if the host says which
 * object it was: a file the client holds under another name (a hard
 * link). The kernel forgets names it does not use, and can then look
 * the file up again by one name only; its removal through the mount
 * must still remove a link of that file, for its watchers' ATTRIB. Only
 * while the file lives on: the gate then answers with its attributes,
 * never with a stand-in's, whose file type could differ.
 */
static uint64_t unshown_node(struct replay *r, const struct rn_id *obj,
			     bool isdir)
{
	struct replay_node known;
	struct stat st;

	if (isdir || !replay_known_node(r, obj, &known) ||
	    fs_node_stat(r->fs, known.id, &st))
		return 0;
	return known.id;
}

static int delete_in(struct replay *r, const struct replay_node *dir,
		     const struct rn_event *ev, const char *name)
{
	struct replay_expect e = { 0 };
	struct replay_node shown;
	int dfd, ret;

	/*
	 * Replay the delete even if the name is live again: in create and
	 * delete churn the next file often has the same inode number, so
	 * "live" cannot tell a re-created name from the deleted one, and
	 * skipping lost DELETEs. settle_name() then shows the live object.
	 */
	if (replay_shown_node(r, dir->id, name, &shown))
		replay_writer_close(r, shown.id);
	else
		e.name_node = unshown_node(r, &ev->obj, ev->isdir);
	dfd = replay_dir_open(r, dir);
	if (dfd < 0)
		return dfd;
	e.op = ev->isdir ? FS_GATE_RMDIR : FS_GATE_UNLINK;
	e.parent = dir->id;
	strcpy(e.name, name);
	replay_fake_stat(r, ev, ev->isdir, &e.st);
	replay_expect_set(r, &e);
	if (ev->isdir)
		pthread_mutex_lock(&r->refresh_lock);
	ret = RSYS(r, unlinkat, dfd, name, ev->isdir);
	if (ret == -ENOENT && replay_drop_kept_missing(r, dir->id, name))
		ret = RSYS(r, unlinkat, dfd, name, ev->isdir);
	ret = ret < 0 ? ret : 1;
	if (ev->isdir)
		pthread_mutex_unlock(&r->refresh_lock);
	replay_expect_clear(r);
	RSYS(r, close, dfd);
	if (ret < 0) {
		replay_inval_entry(r, dir->id, name);
		listing_drop(r, dir->id);
	} else {
		replay_stale_add(&r->stale, dir);
	}
	settle_name(r, dir->id, name);
	return ret;
}

int replay_delete(struct replay *r, const struct rn_event *ev)
{
	struct replay_node dir;

	if (!replay_known_node(r, &ev->dir, &dir))
		return 0;
	return delete_in(r, &dir, ev, ev->name);
}

static int rename_between(struct replay *r, const struct replay_node *from,
			  const struct replay_node *to,
			  const struct rn_event *ev)
{
	struct replay_expect e = { .op = FS_GATE_RENAME };
	struct replay_node src, dst;
	int sfd, dfd, ret;
	bool has_src = replay_shown_node(r, from->id, ev->name, &src);

	if (has_src)
		replay_writer_close(r, src.id);
	/*
	 * The target keeps the entry the client was shown (an overwrite),
	 * else names the file the host says the move replaced, or answers
	 * ENOENT; if it already shows the moved object itself, the kernel
	 * would see a rename onto itself and say nothing.
	 */
	e.newname_lookup_err = ENOENT;
	if (replay_shown_node(r, to->id, ev->name2, &dst)) {
		if (has_src && dst.id == src.id)
			replay_inval_entry(r, to->id, ev->name2);
		else
			e.newname_lookup_err = 0;
	} else {
		e.newname_node = unshown_node(r, &ev->replaced, ev->isdir);
		if (e.newname_node)
			e.newname_lookup_err = 0;
	}
	sfd = replay_dir_open(r, from);
	if (sfd < 0)
		return sfd;
	dfd = replay_dir_open(r, to);
	if (dfd < 0) {
		RSYS(r, close, sfd);
		return dfd;
	}
	e.parent = from->id;
	strcpy(e.name, ev->name);
	e.newparent = to->id;
	strcpy(e.newname, ev->name2);
	replay_object_stat(r, to->id, ev, ev->name2, &e.st);
	replay_expect_set(r, &e);
	/* It may replace a directory (refresh_lock). */
	if (ev->isdir)
		pthread_mutex_lock(&r->refresh_lock);
	ret = RSYS(r, renameat, sfd, ev->name, dfd, ev->name2);
	if (ret == -ENOENT && replay_drop_kept_missing(r, from->id, ev->name))
		ret = RSYS(r, renameat, sfd, ev->name, dfd, ev->name2);
	ret = ret < 0 ? ret : 1;
	if (ev->isdir)
		pthread_mutex_unlock(&r->refresh_lock);
	replay_expect_clear(r);
	RSYS(r, close, sfd);
	RSYS(r, close, dfd);
	if (ret < 0) {
		replay_inval_entry(r, from->id, ev->name);
		replay_inval_entry(r, to->id, ev->name2);
		listing_drop(r, from->id);
		listing_drop(r, to->id);
	} else {
		replay_stale_add(&r->stale, from);
		replay_stale_add(&r->stale, to);
	}
	settle_name(r, to->id, ev->name2);
	return ret;
}

/*
 * A rename whose source directory the client never saw is, to the client,
 * a create; one whose target directory it never saw is a delete.
 */
int replay_move(struct replay *r, const struct rn_event *ev)
{
	struct replay_node from, to;
	bool has_from = replay_known_node(r, &ev->dir, &from);
	bool has_to = replay_known_node(r, &ev->dir2, &to);

	if (has_from && has_to)
		return rename_between(r, &from, &to, ev);
	if (has_to)
		return create_in(r, &to, ev, ev->name2, false);
	if (has_from)
		return delete_in(r, &from, ev, ev->name);
	return 0;
}
