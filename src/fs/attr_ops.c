// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Attribute ops: getattr, setattr, statfs. Attributes always come fresh
 * from the backing store, except for a ghost, which has only those it
 * was born with. A change is made as the caller (caller.h): the backing
 * kernel applies the chown, chmod and utimes rules for that user.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "caller.h"
#include "fs_internal.h"

static void reply_attr_st(fuse_req_t req, const struct fs_inode *in,
			  const struct stat *st)
{
	double entry, attr;

	fs_cache_timeouts(fs_of(req), in, st, &entry, &attr);
	fuse_reply_attr(req, st, attr);
}

static void reply_attr(fuse_req_t req, struct fs_inode *in)
{
	struct stat st;
	int err = in ? fs_table_stat(in, &st) : -ESTALE;

	if (err)
		fuse_reply_err(req, -err);
	else
		reply_attr_st(req, in, &st);
}

/*
 * The gate's SETATTR: the node's attributes, unchanged; or, when the
 * object is already gone (a change replayed just before its removal),
 * those the gate gave.
 */
static void reply_answer(fuse_req_t req, struct fs_inode *in,
			 const struct stat *given)
{
	struct stat st;

	if (fs_table_stat(in, &st))
		st = *given;
	reply_attr_st(req, in, &st);
}

void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);

	reply_attr(req, in);
	fs_inode_put(fs, in);
}

static struct timespec time_of(int valid, int set, int now,
			       const struct timespec *ts)
{
	struct timespec t = { .tv_nsec = UTIME_OMIT };

	if (valid & now)
		t.tv_nsec = UTIME_NOW;
	else if (valid & set)
		t = *ts;
	return t;
}

static int set_times(struct fs_inode *in, const struct stat *attr, int valid,
		     struct fuse_file_info *fi)
{
	struct timespec tv[2];

	tv[0] = time_of(valid, FUSE_SET_ATTR_ATIME, FUSE_SET_ATTR_ATIME_NOW,
			&attr->st_atim);
	tv[1] = time_of(valid, FUSE_SET_ATTR_MTIME, FUSE_SET_ATTR_MTIME_NOW,
			&attr->st_mtim);
	if (fi)
		return futimens(fi->fh, tv);
	return utimensat(in->fd, "", tv, AT_EMPTY_PATH);
}

static int set_mode(struct fs_inode *in, mode_t mode,
		    struct fuse_file_info *fi)
{
	char path[64];

	if (fi)
		return fchmod(fi->fh, mode);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", in->fd);
	return chmod(path, mode);
}

static int set_size(struct fs_inode *in, off_t size,
		    struct fuse_file_info *fi)
{
	char path[64];

	if (fi)
		return ftruncate(fi->fh, size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", in->fd);
	return truncate(path, size);
}

static int set_attrs(struct fs_inode *in, const struct stat *attr, int valid,
		     struct fuse_file_info *fi)
{
	uid_t uid = valid & FUSE_SET_ATTR_UID ? attr->st_uid : (uid_t)-1;
	gid_t gid = valid & FUSE_SET_ATTR_GID ? attr->st_gid : (gid_t)-1;
	int times = FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME |
		    FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW;

	if ((valid & FUSE_SET_ATTR_MODE) && set_mode(in, attr->st_mode, fi))
		return -errno;
	if ((valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) &&
	    fchownat(in->fd, "", uid, gid,
		     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return -errno;
	if ((valid & FUSE_SET_ATTR_SIZE) && set_size(in, attr->st_size, fi))
		return -errno;
	if ((valid & times) && set_times(in, attr, valid, fi))
		return -errno;
	return 0;
}

/*
 * A mode change that only drops set-user-ID or set-group-ID bits. The
 * kernel sends one before a write, truncate or chown by any user allowed
 * to make those (file_remove_privs()), who need not own the file; it
 * gives nobody a right, so the server makes it with its own.
 */
static bool only_drops_privs(struct fs_inode *in, const struct stat *attr,
			     int valid)
{
	const mode_t privs = S_ISUID | S_ISGID;
	struct stat st;

	if (!(valid & FUSE_SET_ATTR_MODE) || fs_table_stat(in, &st))
		return false;
	return ((attr->st_mode ^ st.st_mode) & 07777 & ~privs) == 0 &&
	       !(attr->st_mode & privs & ~st.st_mode);
}

/* The changes asked for: the caller's, but a drop of privileges (above). */
static int change_attrs(fuse_req_t req, struct fs_inode *in,
			const struct stat *attr, int valid,
			struct fuse_file_info *fi)
{
	struct fs_caller who;
	int err;

	if (only_drops_privs(in, attr, valid)) {
		if (set_mode(in, attr->st_mode, fi))
			return -errno;
		valid &= ~FUSE_SET_ATTR_MODE;
	}
	err = fs_caller_enter(req, &who);
	if (err)
		return err;
	err = set_attrs(in, attr, valid, fi);
	fs_caller_leave(&who);
	return err;
}

void fs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		   int valid, struct fuse_file_info *fi)
{
	struct fs_gate_query q = { .op = FS_GATE_SETATTR, .nodeid = ino };
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_inode *in;
	int err = 0;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR) {
		fuse_reply_err(req, a.err);
		return;
	}
	in = fs_inode_get(fs, ino);
	if (!in || (a.verdict != FS_GATE_ANSWER && in->fd < 0))
		err = -ESTALE;
	if (!err && a.verdict != FS_GATE_ANSWER) {
		struct fs_change c;

		fs_change_begin(fs, &c, in, "");
		err = change_attrs(req, in, attr, valid, fi);
		fs_change_end(fs, &c);
	}
	if (err)
		fuse_reply_err(req, -err);
	else if (a.verdict == FS_GATE_ANSWER)
		reply_answer(req, in, &a.st);
	else
		reply_attr(req, in);
	fs_inode_put(fs, in);
}

void fs_op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);
	struct statvfs sv;
	int fd = in && in->fd >= 0 ? in->fd : fs->root_fd;

	if (fstatvfs(fd, &sv))
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
	fs_inode_put(fs, in);
}
