// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File ops: open, create, read, write, flush, release, fsync, fallocate,
 * lseek, copy_file_range, flock. fi->fh is a plain fd on the backing
 * file, owned by the open file until release, or FS_NO_FILE for a
 * replay's open (the gate answers its writes and truncates, and it is
 * never flushed).
 *
 * An open file holds a reference on its inode until release, so that the
 * inode is not idle: the shedder (shed.h) must not make the kernel drop
 * an open file's dentry. The kernel holds the inode until the release is
 * answered, so release still finds it.
 *
 * Files are opened through /proc/self/fd/N of the inode's O_PATH fd: the
 * magic link names exactly that inode, so no path is walked and no
 * symlink followed. POSIX byte-range locks are not implemented: without
 * getlk/setlk the kernel keeps them locally, which is right for one
 * client; flock() locks are passed to the backing file so that they hold
 * against other users of the backing store too.
 *
 * FLUSH (sent at every close() on the mount, and waited for) only makes
 * sense where close() of the backing file can do work and fail: NFS,
 * FUSE, f2fs have a ->flush. Files on the local file systems known to
 * have none are opened noflush: a close on the mount then costs no round
 * trip (a create-close waits for three: LOOKUP, CREATE, FLUSH; bindfs has
 * no flush at all). Dirty mmap pages are still written at munmap
 * (fuse_vma_close).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "caller.h"
#include "fs_internal.h"
#include "name_validate.h"
#include "names_shown.h"
#include "passthrough.h"

static int open_node(struct fs_inode *in, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", in->fd);
	fd = open(path, (flags & ~(O_NOFOLLOW | O_CREAT)) | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Whether close() on this file system type is known to do nothing. */
static bool type_closes_quietly(long type)
{
	switch (type) {
	case EXT4_SUPER_MAGIC:	/* also ext2 and ext3 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
		return true;
	}
	return false;
}

/*
 * Whether close() of fd, open on in, does nothing (no ->flush). A node on
 * the root's file system has its type: no fstatfs() per open and create.
 */
static bool close_does_nothing(struct fs *fs, const struct fs_inode *in,
			       int fd)
{
	struct statfs sfs;

	if (in && in->root_mount && fs->table.root_fs_known)
		return type_closes_quietly(fs->table.root_fs.type);
	return !fstatfs(fd, &sfs) && type_closes_quietly(sfs.f_type);
}

/*
 * Whether the kernel keeps the pages of in, open as fd, from its last
 * open (cache_policy.c): a remote write or truncate drops them before
 * its event.
 */
static bool keeps_pages(struct fs *fs, const struct fs_inode *in, int fd)
{
	struct stat st;

	return in && fd >= 0 && in->type == S_IFREG && !fstat(fd, &st) &&
	       fs_cache_keeps_pages(fs, in, &st);
}

void fs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_gate_query q = { .op = FS_GATE_OPEN, .nodeid = ino };
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_inode *in;
	int fd = -ESTALE;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR) {
		fuse_reply_err(req, a.err);
		return;
	}
	in = fs_inode_get(fs, ino);
	/*
	 * A replay's open needs no backing file (the gate answers what it
	 * does), and opening one for writing would make an OPEN and a
	 * CLOSE_WRITE on the host for the event pump to read and drop.
	 */
	if (a.verdict == FS_GATE_OPEN_DIRECT) {
		fd = FS_NO_FILE;
	} else if (in && in->fd >= 0) {
		struct fs_change c = { .name = "" };
		struct fs_caller who;

		/* Only a truncating open changes anything (MODIFY). */
		if (fi->flags & O_TRUNC)
			fs_change_begin(fs, &c, in, "");
		fd = fs_caller_enter(req, &who);
		if (!fd) {
			fd = open_node(in, fi->flags);
			fs_caller_leave(&who);
		}
		fs_change_end(fs, &c);
	}
	if (fd < 0 && a.verdict != FS_GATE_OPEN_DIRECT) {
		fs_inode_put(fs, in);
		fuse_reply_err(req, -fd);
		return;
	}
	fi->fh = fd;
	/* A replay's open writes nothing: its close needs no FLUSH. */
	fi->direct_io = a.verdict == FS_GATE_OPEN_DIRECT;
	fi->noflush = a.verdict == FS_GATE_OPEN_DIRECT ||
		      close_does_nothing(fs, in, fd);
	fi->keep_cache = a.verdict == FS_GATE_PASS && keeps_pages(fs, in, fd);
	fs_passthrough_open(fs, in, fd, fi);
	if (fuse_reply_open(req, fi)) {
		fs_passthrough_open_undo(fs, in);
		if (fd >= 0)
			close(fd);
		fs_inode_put(fs, in);
	}
}

static int create_backing(fuse_req_t req, struct fs_inode *dir,
			  const char *name, mode_t mode, int flags)
{
	struct fs *fs = fs_of(req);
	int fd, err = fs_name_validate(name, false);
	struct fs_caller who;
	struct fs_change c;

	if (err)
		return err;
	if (dir->fd < 0)
		return -ESTALE;
	mode = fs_create_mode(req, dir, mode);
	fs_change_begin(fs, &c, dir, name);
	fd = fs_caller_enter(req, &who);
	if (!fd) {
		/*
		 * As the caller: an existing name opens only as the caller
		 * could open it. O_NOFOLLOW: never through a dangling symlink.
		 */
		fd = openat(dir->fd, name,
			    flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
		fs_caller_leave(&who);
	}
	fs_change_end(fs, &c);
	return fd;
}

/* A replayed create that opens is answered, not done. */
static bool create_answered(fuse_req_t req, fuse_ino_t parent,
			    const char *name, struct fuse_file_info *fi)
{
	struct fs_gate_query q = { .op = FS_GATE_CREATE, .parent = parent,
				   .name = name };
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_inode *dir;
	int err;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_PASS)
		return false;
	dir = fs_inode_get(fs, parent);
	err = a.verdict == FS_GATE_ERR ? a.err :
	      dir ? -fs_name_validate(name, false) : ESTALE;
	if (err)
		fuse_reply_err(req, err);
	else
		fs_answer_create_open(req, dir, name, &a.st, fi);
	fs_inode_put(fs, dir);
	return true;
}

void fs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		  mode_t mode, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *dir, *child;
	struct stat st;
	int fd, err;

	if (create_answered(req, parent, name, fi))
		return;
	dir = fs_inode_get(fs, parent);
	fd = dir ? create_backing(req, dir, name, mode, fi->flags) : -ESTALE;
	err = fd < 0 ? fd : fs_entry_learn_open(fs, fd, &child, &st);
	if (err) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, -err);
		fs_inode_put(fs, dir);
		return;
	}
	fi->fh = fd;
	fi->noflush = close_does_nothing(fs, child, fd);
	fs_passthrough_open(fs, child, fd, fi);
	if (!fs_reply_create(req, dir, name, child, &st, fi))
		close(fd);
	fs_inode_put(fs, dir);
}

void fs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);

	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = fi->fh;
	buf.buf[0].pos = off;
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
}

/*
 * Begins a change to node ino's content (c->name must be ""); the node is
 * held until note_end(), which the change's fd needs (fs_internal.h).
 */
static struct fs_inode *note_begin(fuse_req_t req, fuse_ino_t ino,
				   struct fs_change *c)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);

	if (in)
		fs_change_begin(fs, c, in, "");
	return in;
}

static void note_end(fuse_req_t req, const struct fs_change *c,
		     struct fs_inode *in)
{
	fs_change_end(fs_of(req), c);
	fs_inode_put(fs_of(req), in);
}

void fs_op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv,
		     off_t off, struct fuse_file_info *fi)
{
	struct fs_gate_query q = { .op = FS_GATE_WRITE, .nodeid = ino };
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(fuse_buf_size(bufv));
	struct fs *fs = fs_of(req);
	struct fs_gate_answer a;
	struct fs_change c = { .name = "" };
	struct fs_inode *in;
	ssize_t n;

	fs_gate_ask(fs, req, &q, &a);
	if (a.verdict == FS_GATE_ERR) {
		fuse_reply_err(req, a.err);
		return;
	}
	if (a.verdict == FS_GATE_ANSWER) {
		fuse_reply_write(req, fuse_buf_size(bufv));
		return;
	}
	in = note_begin(req, ino, &c);
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = fi->fh;
	out.buf[0].pos = off;
	n = fuse_buf_copy(&out, bufv, 0);
	note_end(req, &c, in);
	if (n < 0)
		fuse_reply_err(req, -n);
	else
		fuse_reply_write(req, n);
}

void fs_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	/*
	 * close() of a duplicate reports write-back errors, as close would.
	 * Out of fds, there is nothing to duplicate with: release closes the
	 * file itself, so report no error rather than a bogus EBADF.
	 */
	int fd = dup(fi->fh);

	if (fd < 0) {
		fuse_reply_err(req, errno == EMFILE || errno == ENFILE ?
			       0 : errno);
		return;
	}
	fuse_reply_err(req, close(fd) ? errno : 0);
}

void fs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs_change c = { .name = "" };
	struct fs *fs = fs_of(req);
	struct fs_inode *in = NULL;

	in = fs_inode_get(fs, ino);
	/* Closing a file open for writing makes CLOSE_WRITE on the host. */
	if (in && (int)fi->fh != FS_NO_FILE &&
	    (fi->flags & O_ACCMODE) != O_RDONLY)
		fs_change_begin_close(fs, &c, in);
	fs_inode_put(fs, in);
	if ((int)fi->fh != FS_NO_FILE)
		close(fi->fh);
	fs_change_end(fs, &c);
	fs_passthrough_release(fs, in);
	fs_inode_put(fs, in);	/* the open file's, taken at open */
	fuse_reply_err(req, 0);
}

void fs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi)
{
	int ret = datasync ? fdatasync(fi->fh) : fsync(fi->fh);

	fuse_reply_err(req, ret ? errno : 0);
}

void fs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		     off_t length, struct fuse_file_info *fi)
{
	struct fs_change c = { .name = "" };
	struct fs_inode *in = note_begin(req, ino, &c);
	int err;

	err = fallocate(fi->fh, mode, offset, length) ? errno : 0;
	note_end(req, &c, in);
	fuse_reply_err(req, err);
}

void fs_op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		 struct fuse_file_info *fi)
{
	off_t res = lseek(fi->fh, off, whence);

	if (res < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_lseek(req, res);
}

void fs_op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			   struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			   off_t off_out, struct fuse_file_info *fi_out,
			   size_t len, int flags)
{
	struct fs_change c = { .name = "" };
	struct fs_inode *in = note_begin(req, ino_out, &c);
	ssize_t n;
	int err;

	n = copy_file_range(fi_in->fh, &off_in, fi_out->fh, &off_out, len,
			    flags);
	err = n < 0 ? errno : 0;
	note_end(req, &c, in);
	if (n < 0)
		fuse_reply_err(req, err);
	else
		fuse_reply_write(req, n);
}

void fs_op_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		 int op)
{
	fuse_reply_err(req, flock(fi->fh, op) ? errno : 0);
}
