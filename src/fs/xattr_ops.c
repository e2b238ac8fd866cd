// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extended attribute ops. The *xattr() calls do not take O_PATH fds, so
 * they go through /proc/self/fd/N, which names the inode itself. For a
 * symlink, a path-based *xattr() call might resolve on to the target,
 * which may lie outside the export: symlinks (and ghosts) get EOPNOTSUPP,
 * so the client sees none on them. Every call is made as the caller
 * (caller.h): the backing kernel checks who may read and set which
 * attribute, an ACL's among them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/xattr.h>

#include "caller.h"
#include "fs_internal.h"

struct xattr_node {
	struct fs_inode *in;
	char path[64];
};

static int node_get(fuse_req_t req, fuse_ino_t ino, struct xattr_node *x)
{
	struct fs *fs = fs_of(req);

	x->in = fs_inode_get(fs, ino);
	if (!x->in || x->in->fd < 0)
		return -ESTALE;
	if (S_ISLNK(x->in->type))
		return -EOPNOTSUPP;
	snprintf(x->path, sizeof(x->path), "/proc/self/fd/%d", x->in->fd);
	return 0;
}

/*
 * Replies a size query (size 0) or the value/list read into a buffer;
 * n is the size read or -errno.
 */
static void reply_sized(fuse_req_t req, ssize_t n, const char *buf,
			size_t size)
{
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else if (!size)
		fuse_reply_xattr(req, n);
	else
		fuse_reply_buf(req, buf, n);
}

/* getxattr(name), or listxattr when name is NULL: the same dance. */
static void xattr_read(fuse_req_t req, fuse_ino_t ino, const char *name,
		       size_t size)
{
	struct fs *fs = fs_of(req);
	struct fs_caller who;
	struct xattr_node x;
	char *buf = NULL;
	ssize_t n;
	int err = node_get(req, ino, &x);

	if (!err && size && !(buf = malloc(size)))
		err = -ENOMEM;
	if (err) {
		fuse_reply_err(req, -err);
	} else if (!(err = fs_caller_enter(req, &who))) {
		n = name ? getxattr(x.path, name, buf, size) :
			   listxattr(x.path, buf, size);
		n = n < 0 ? -errno : n;
		fs_caller_leave(&who);
		reply_sized(req, n, buf, size);
	} else {
		fuse_reply_err(req, -err);
	}
	free(buf);
	fs_inode_put(fs, x.in);
}

void fs_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    size_t size)
{
	xattr_read(req, ino, name, size);
}

void fs_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	xattr_read(req, ino, NULL, size);
}

/* setxattr(name, value), or removexattr(name) when value is NULL. */
static void xattr_change(fuse_req_t req, fuse_ino_t ino, const char *name,
			 const char *value, size_t size, int flags)
{
	struct fs *fs = fs_of(req);
	struct xattr_node x;
	int err = node_get(req, ino, &x);

	if (!err) {
		struct fs_caller who;
		struct fs_change c;

		fs_change_begin(fs, &c, x.in, "");
		err = fs_caller_enter(req, &who);
		if (!err) {
			if (value ? setxattr(x.path, name, value, size, flags) :
				    removexattr(x.path, name))
				err = -errno;
			fs_caller_leave(&who);
		}
		fs_change_end(fs, &c);
	}
	fuse_reply_err(req, -err);
	fs_inode_put(fs, x.in);
}

void fs_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    const char *value, size_t size, int flags)
{
	/* An empty value may come as NULL: never a removal. */
	xattr_change(req, ino, name, value ? value : "", size, flags);
}

void fs_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	xattr_change(req, ino, name, NULL, 0, 0);
}
