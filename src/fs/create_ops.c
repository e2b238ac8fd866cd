// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ops that make a new name without opening it: mknod, mkdir, symlink.
 * Each asks the gate first (a replayed create is answered, not done),
 * then creates with one *at() call under the parent's fd, as the caller
 * (caller.h: the object is born the caller's), and replies its entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caller.h"
#include "fs_internal.h"
#include "name_validate.h"

struct fs_make {
	enum fs_gate_op op;
	mode_t mode;
	dev_t rdev;
	const char *target;	/* symlink only */
};

static int make_backing(fuse_req_t req, const struct fs_make *m,
			struct fs_inode *dir, const char *name)
{
	mode_t mode = fs_create_mode(req, dir, m->mode);
	struct fs_caller who;
	int ret = fs_caller_enter(req, &who);

	if (ret)
		return ret;
	if (m->op == FS_GATE_MKDIR)
		ret = mkdirat(dir->fd, name, mode);
	else if (m->op == FS_GATE_SYMLINK)
		ret = symlinkat(m->target, dir->fd, name);
	else
		ret = mknodat(dir->fd, name, mode, m->rdev);
	ret = ret ? -errno : 0;
	fs_caller_leave(&who);
	return ret;
}

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name,
		      const struct fs_make *m)
{
	struct fs_gate_query q = { .op = m->op, .parent = parent, .name = name };
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_inode *dir, *child;
	struct stat st;
	int err;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR) {
		fuse_reply_err(req, a.err);
		return;
	}
	dir = fs_inode_get(fs, parent);
	err = dir ? fs_name_validate(name, false) : -ESTALE;
	if (!err && a.verdict == FS_GATE_ANSWER) {
		fs_answer_create(req, dir, name, &a.st);
		fs_inode_put(fs, dir);
		return;
	}
	if (!err && dir->fd < 0)
		err = -ESTALE;
	if (!err) {
		struct fs_change c;

		fs_change_begin(fs, &c, dir, name);
		err = make_backing(req, m, dir, name);
		fs_change_end(fs, &c);
	}
	if (!err)
		err = fs_entry_learn(fs, dir, name, &child, &st);
	if (err)
		fuse_reply_err(req, -err);
	else
		fs_reply_entry(req, dir, name, child, &st);
	fs_inode_put(fs, dir);
}

void fs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev)
{
	struct fs_make m = { .op = FS_GATE_MKNOD, .mode = mode, .rdev = rdev };

	make_node(req, parent, name, &m);
}

void fs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode)
{
	struct fs_make m = { .op = FS_GATE_MKDIR, .mode = mode };

	make_node(req, parent, name, &m);
}

void fs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		   const char *name)
{
	struct fs_make m = { .op = FS_GATE_SYMLINK, .target = link };

	make_node(req, parent, name, &m);
}
