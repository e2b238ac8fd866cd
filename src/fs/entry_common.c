// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers shared by the ops that hand the client an entry: find the
 * backing object under a directory, give the kernel a reference to it and
 * record the name it was shown under; the mode of a new object.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fs_internal.h"
#include "names_shown.h"
#include "passthrough.h"
#include "shed.h"

int fs_stat_fd(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

/* Takes fd (O_PATH) into the table, or closes it. */
static int entry_learn_fd(struct fs *fs, int fd, struct fs_inode **child,
			  struct stat *st)
{
	int err;

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

int fs_entry_learn(struct fs *fs, struct fs_inode *dir, const char *name,
		   struct fs_inode **child, struct stat *st)
{
	return entry_learn_fd(fs, openat(dir->fd, name,
					 O_PATH | O_NOFOLLOW | O_CLOEXEC),
			      child, st);
}

/*
 * The object a create just opened as open_fd, by that fd and not by its
 * name, which a writer of the directory may already have replaced.
 */
int fs_entry_learn_open(struct fs *fs, int open_fd, struct fs_inode **child,
			struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", open_fd);
	return entry_learn_fd(fs, open(path, O_PATH | O_CLOEXEC), child, st);
}

void fs_entry_param(struct fs *fs, struct fs_inode *child,
		    const struct stat *st, struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->ino = child->nodeid;
	e->generation = child->generation;
	e->attr = *st;
	fs_cache_timeouts(fs, child, st, &e->entry_timeout, &e->attr_timeout);
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
	fs_passthrough_open_undo(fs, child);
	fs_inode_put(fs, child);
	fs_table_forget(&fs->table, child->nodeid, 1);
	return false;
}

/*
 * The mode a new object is made with. The kernel applies the caller's
 * umask itself unless the mount has POSIX ACLs: then it is asked not to
 * (FUSE_CAP_DONT_MASK) and sends the umask beside the mode, for the
 * server to apply unless the directory has a default ACL, which takes
 * the umask's place (the backing kernel applies that ACL: the server's
 * own umask is 0).
 */
mode_t fs_create_mode(fuse_req_t req, struct fs_inode *dir, mode_t mode)
{
	char path[64];

	if (!fs_of(req)->posix_acl)
		return mode;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", dir->fd);
	if (getxattr(path, "system.posix_acl_default", NULL, 0) > 0)
		return mode;
	return mode & ~fuse_req_ctx(req)->umask;
}
