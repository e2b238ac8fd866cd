// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers shared by the ops that hand the client an entry: find the
 * backing object under a directory, give the kernel a reference to it and
 * record the name it was shown under, and give new objects to the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fs_internal.h"
#include "names_shown.h"
#include "passthrough.h"
#include "shed.h"

int fs_stat_fd(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

int fs_entry_learn(struct fs *fs, struct fs_inode *dir, const char *name,
		   struct fs_inode **child, struct stat *st)
{
	int fd, err;

	fd = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fs_stat_fd(fd, st)) {
		err = -errno;
		close(fd);
		return err;
	}
	*child = fs_table_learn(&fs->table, fd, st);
	return *child ? 0 : -ENOMEM;
}

void fs_entry_param(struct fs *fs, struct fs_inode *child,
		    const struct stat *st, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = child->nodeid;
	e->generation = child->generation;
	e->attr = *st;
	e->attr_timeout = fs->attr_timeout;
	e->entry_timeout = fs->entry_timeout;
}

/*
 * Replies the entry for child, whose kernel reference the caller took,
 * shown as (dir, name) when name is given. If the reply cannot be
 * delivered (the request was interrupted) the kernel never got the
 * reference, so it is dropped here.
 */
void fs_reply_entry(fuse_req_t req, struct fs_inode *dir, const char *name,
		    struct fs_inode *child, const struct stat *st)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;
	bool added = fs_table_first_ref(&fs->table, child);

	if (name)
		fs_names_show(&fs->table, dir->nodeid, name, child->nodeid);
	fs_entry_param(fs, child, st, &e);
	if (fuse_reply_entry(req, &e))
		fs_table_forget(&fs->table, child->nodeid, 1);
	else if (added)
		fs_shed_throttle(&fs->table, FS_SHED_THROTTLE_MS);
}

/*
 * As fs_reply_entry(), for an entry opened as fi (fh and flags set by the
 * caller, and counted by fs_passthrough_open()): the open file takes a
 * reference of its own. False if the reply was not delivered: both
 * references and the count are dropped, and the caller closes what
 * fi->fh holds.
 */
bool fs_reply_create(fuse_req_t req, struct fs_inode *dir, const char *name,
		     struct fs_inode *child, const struct stat *st,
		     struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;
	bool added = fs_table_first_ref(&fs->table, child);

	fs_names_show(&fs->table, dir->nodeid, name, child->nodeid);
	fs_entry_param(fs, child, st, &e);
	fs_inode_get(fs, child->nodeid);	/* the open file's */
	if (!fuse_reply_create(req, &e, fi)) {
		if (added)
			fs_shed_throttle(&fs->table, FS_SHED_THROTTLE_MS);
		return true;
	}
	fs_passthrough_open_undo(child);
	fs_inode_put(fs, child);
	fs_table_forget(&fs->table, child->nodeid, 1);
	return false;
}

/*
 * The server runs as root: a new object must belong to the caller, with
 * the directory's group when the directory is set-group-ID (the kernel
 * already gave it that group).
 */
void fs_own_new(fuse_req_t req, struct fs_inode *dir, const char *name)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct fs *fs = fs_of(req);
	struct stat dst;
	gid_t gid = ctx->gid;

	if (!fs->as_root || (ctx->uid == 0 && ctx->gid == 0))
		return;
	if (!fs_table_stat(dir, &dst) && (dst.st_mode & S_ISGID))
		gid = (gid_t)-1;
	if (fchownat(dir->fd, name, ctx->uid, gid, AT_SYMLINK_NOFOLLOW) &&
	    fs->debug)
		fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: chown %s: %s\n", name,
			 strerror(errno));
}
