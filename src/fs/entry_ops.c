// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Name ops: lookup, forget, readlink, link, unlink, rmdir, rename.
 *
 * Lookup also answers "." (the node itself) and ".." (its parent; the
 * root's parent is the root), which the kernel asks for when it decodes a
 * file handle of the mount (export support). A ".." that would lead out
 * of the export (a directory moved out of it on the host) is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "caller.h"
#include "fs_internal.h"
#include "name_validate.h"
#include "names_shown.h"

#define FS_MAX_DEPTH 4096	/* bound on the walk up to the root */

static bool same_id(const struct stat *a, const struct rn_id *id)
{
	return a->st_dev == id->dev && a->st_ino == id->ino;
}

/* Is the directory open as fd inside the export? Walks up to the root. */
static bool inside_export(struct fs *fs, int fd)
{
	struct fs_inode *root = fs_inode_get(fs, FUSE_ROOT_ID);
	struct stat st, up;
	int cur = dup(fd), next, depth;
	bool inside = false;

	for (depth = 0; cur >= 0 && depth < FS_MAX_DEPTH; depth++) {
		if (fs_stat_fd(cur, &st))
			break;
		if (same_id(&st, &root->id)) {
			inside = true;
			break;
		}
		next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		cur = next;
		if (cur < 0 || fs_stat_fd(cur, &up) ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino))
			break;	/* the file system's own root: outside */
	}
	if (cur >= 0)
		close(cur);
	fs_inode_put(fs, root);
	return inside;
}

static int lookup_dotdot(struct fs *fs, struct fs_inode *dir,
			 struct fs_inode **child, struct stat *st)
{
	int fd;

	if (dir->nodeid == FUSE_ROOT_ID) {
		fs_table_lookup_again(&fs->table, dir);
		*child = dir;
		return fs_stat_fd(dir->fd, st) ? -errno : 0;
	}
	fd = openat(dir->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!inside_export(fs, fd) || fs_stat_fd(fd, st)) {
		close(fd);
		return -ESTALE;
	}
	*child = fs_table_learn(&fs->table, fd, st);
	return *child ? 0 : -ENOMEM;
}

static int lookup_name(struct fs *fs, struct fs_inode *dir, const char *name,
		       struct fs_inode **child, struct stat *st)
{
	int err;

	if (dir->fd < 0)
		return -ESTALE;
	if (!strcmp(name, ".")) {
		fs_table_lookup_again(&fs->table, dir);
		*child = dir;
		return fs_stat_fd(dir->fd, st) ? -errno : 0;
	}
	if (!strcmp(name, ".."))
		return lookup_dotdot(fs, dir, child, st);
	err = fs_name_validate(name, false);
	if (err)
		return err;
	return fs_entry_learn(fs, dir, name, child, st);
}

/*
 * A missing name, kept by the kernel as a negative entry where every
 * change that could make it exist is seen (cache_policy.c); else ENOENT,
 * which it keeps for no time.
 */
static void reply_missing(fuse_req_t req, struct fs_inode *dir)
{
	struct fuse_entry_param e = { .ino = 0 };

	e.entry_timeout = fs_cache_negative(fs_of(req), dir);
	if (e.entry_timeout > 0)
		fuse_reply_entry(req, &e);
	else
		fuse_reply_err(req, ENOENT);
}

void fs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs_gate_query q = {
		.op = FS_GATE_LOOKUP, .parent = parent, .name = name,
	};
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_inode *dir, *child;
	struct stat st;
	int err;

	fs_gate_ask(fs, req, &q, &a);
	dir = fs_inode_get(fs, parent);
	if (!dir) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	if (a.verdict == FS_GATE_ANSWER) {
		fs_answer_lookup(req, dir, name, &a);
		fs_inode_put(fs, dir);
		return;
	}
	err = a.verdict == FS_GATE_ERR ? -a.err :
	      lookup_name(fs, dir, name, &child, &st);
	if (err == -ENOENT && !a.keeps_shown)
		fs_names_hide(&fs->table, parent, name);
	/* The gate's ENOENT is a replay's, about to create the name. */
	if (err == -ENOENT && a.verdict == FS_GATE_PASS && !a.replayed_name &&
	    !a.keeps_shown && strcmp(name, ".") && strcmp(name, ".."))
		reply_missing(req, dir);
	else if (err)
		fuse_reply_err(req, -err);
	else if (!strcmp(name, ".") || !strcmp(name, ".."))
		fs_reply_entry(req, dir, NULL, child, &st);
	else
		fs_reply_entry(req, dir, name, child, &st);
	fs_inode_put(fs, dir);
}

void fs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	fs_forget(fs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

void fs_op_forget_multi(fuse_req_t req, size_t count,
			struct fuse_forget_data *forgets)
{
	struct fs *fs = fs_of(req);
	size_t i;

	for (i = 0; i < count; i++)
		fs_forget(fs, forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

void fs_op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);
	char buf[PATH_MAX + 1];
	ssize_t n = -1;

	errno = ESTALE;
	if (in && in->fd >= 0)
		n = readlinkat(in->fd, "", buf, sizeof(buf));
	if (n >= (ssize_t)sizeof(buf))
		errno = ENAMETOOLONG;
	if (n < 0 || n >= (ssize_t)sizeof(buf)) {
		fuse_reply_err(req, errno);
	} else {
		buf[n] = '\0';
		fuse_reply_readlink(req, buf);
	}
	fs_inode_put(fs, in);
}

static int link_node(fuse_req_t req, struct fs_inode *in,
		     struct fs_inode *dir, const char *name, struct stat *st)
{
	struct fs *fs = fs_of(req);
	char path[64];
	int err = fs_name_validate(name, false);
	struct fs_caller who;
	struct fs_change c;

	if (err)
		return err;
	if (in->fd < 0 || dir->fd < 0)
		return -ESTALE;
	fs_change_begin(fs, &c, dir, name);
	/* linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; /proc does not. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", in->fd);
	err = fs_caller_enter(req, &who);
	if (!err) {
		err = linkat(AT_FDCWD, path, dir->fd, name, AT_SYMLINK_FOLLOW) ?
		      -errno : 0;
		fs_caller_leave(&who);
	}
	fs_change_end(fs, &c);
	if (err)
		return err;
	if (fs_stat_fd(in->fd, st))
		return -errno;
	return fs_table_lookup_again(&fs->table, in) ? 0 : -ESTALE;
}

/* A replayed link: the name exists on the backing store already. */
static int link_shown(struct fs *fs, struct fs_inode *in, struct stat *st)
{
	if (in->fd < 0 || fs_stat_fd(in->fd, st))
		return -ESTALE;
	return fs_table_lookup_again(&fs->table, in) ? 0 : -ESTALE;
}

void fs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		const char *newname)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);
	struct fs_inode *dir = fs_inode_get(fs, newparent);
	struct fs_gate_query q = { .op = FS_GATE_LINK, .nodeid = ino,
				   .parent = newparent, .name = newname };
	struct fs_gate_answer a;
	struct stat st;
	int err = -ESTALE;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR)
		err = -a.err;
	else if (in && dir && a.verdict == FS_GATE_ANSWER)
		err = link_shown(fs, in, &st);
	else if (in && dir)
		err = link_node(req, in, dir, newname, &st);
	if (err)
		fuse_reply_err(req, -err);
	else
		fs_reply_entry(req, dir, newname, in, &st);
	fs_inode_put(fs, dir);
	fs_inode_put(fs, in);
}

static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name,
			enum fs_gate_op op)
{
	struct fs_gate_query q = { .op = op, .parent = parent, .name = name };
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_inode *dir;
	int err;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR) {
		fuse_reply_err(req, a.err);
		return;
	}
	if (a.verdict == FS_GATE_ANSWER) {
		fs_names_hide(&fs->table, parent, name);
		fuse_reply_err(req, 0);
		return;
	}
	dir = fs_inode_get(fs, parent);
	err = dir ? fs_name_validate(name, false) : -ESTALE;
	if (!err && dir->fd < 0)
		err = -ESTALE;
	if (!err) {
		struct fs_change c;

		struct fs_caller who;

		fs_change_begin(fs, &c, dir, name);
		err = fs_caller_enter(req, &who);
		if (!err) {
			if (unlinkat(dir->fd, name, op == FS_GATE_RMDIR ?
				     AT_REMOVEDIR : 0))
				err = -errno;
			fs_caller_leave(&who);
		}
		fs_change_end(fs, &c);
	}
	if (!err)
		fs_names_hide(&fs->table, parent, name);
	fuse_reply_err(req, -err);
	fs_inode_put(fs, dir);
}

void fs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, FS_GATE_UNLINK);
}

void fs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, FS_GATE_RMDIR);
}

static int rename_backing(fuse_req_t req, struct fs_inode *dir,
			  const char *name, struct fs_inode *newdir,
			  const char *newname, unsigned int flags)
{
	struct fs *fs = fs_of(req);
	struct fs_change from, to;
	struct fs_caller who;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	err = fs_name_validate(name, false);
	if (!err)
		err = fs_name_validate(newname, false);
	if (err)
		return err;
	if (dir->fd < 0 || newdir->fd < 0)
		return -ESTALE;
	fs_change_begin(fs, &from, dir, name);
	fs_change_begin(fs, &to, newdir, newname);
	err = fs_caller_enter(req, &who);
	if (!err) {
		err = renameat2(dir->fd, name, newdir->fd, newname, flags) ?
		      -errno : 0;
		fs_caller_leave(&who);
	}
	fs_change_end(fs, &to);
	fs_change_end(fs, &from);
	return err;
}

void fs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		  fuse_ino_t newparent, const char *newname,
		  unsigned int flags)
{
	struct fs_gate_query q = {
		.op = FS_GATE_RENAME, .parent = parent, .name = name,
		.newparent = newparent, .newname = newname, .flags = flags,
	};
	struct fs *fs = fs_of(req);
	struct fs_inode *dir = NULL, *newdir = NULL;
	struct fs_gate_answer a;
	int err = 0;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR) {
		fuse_reply_err(req, a.err);
		return;
	}
	if (a.verdict != FS_GATE_ANSWER) {
		dir = fs_inode_get(fs, parent);
		newdir = fs_inode_get(fs, newparent);
		err = dir && newdir ? rename_backing(req, dir, name, newdir,
						     newname, flags) : -ESTALE;
	}
	if (!err)
		fs_names_rename(&fs->table, parent, name, newparent, newname,
				flags);
	fuse_reply_err(req, -err);
	fs_inode_put(fs, newdir);
	fs_inode_put(fs, dir);
}
