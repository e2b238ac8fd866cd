// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfs_ops - vmfs's answers to the kernel's requests: one short
 * function per FUSE op, the lowlevel ops table at the end.  An op that
 * reads or changes the table holds vmfs.lock while it does and replies
 * only once it has dropped it (vmfs_reply_entry() drops it for the
 * entry replies): nothing writes to /dev/fuse with the lock held.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vmfs_state.h"

static void vmfs_reply_entry(fuse_req_t req, int err, uint64_t nodeid)
{
	struct fuse_entry_param e;

	if (err) {
		pthread_mutex_unlock(&vmfs.lock);
		fuse_reply_err(req, -err);
		return;
	}
	vmfs_entry(nodeid, &e);
	vmfs_get(nodeid)->nlookup++;
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_entry(req, &e);
}

static void vmfs_init(void *userdata, struct fuse_conn_info *conn)
{
	if (vmfs.opts.export_support)
		conn->want |= FUSE_CAP_EXPORT_SUPPORT;
}

static void vmfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t id;

	pthread_mutex_lock(&vmfs.lock);
	vmfs.lookups++;
	id = vmfs_find(parent, name);
	vmfs_reply_entry(req, id ? 0 : -ENOENT, id);
}

/* Removed nodes stay in the table: count their FORGETs too. */
static void vmfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	pthread_mutex_lock(&vmfs.lock);
	if (ino >= 1 && ino <= vmfs.nnodes)
		vmfs.node[ino - 1].nlookup -= nlookup;
	pthread_cond_broadcast(&vmfs.changed);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_none(req);
}

static void vmfs_getattr(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	struct vmfs_node *n;
	struct stat st;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(ino);
	if (n)
		vmfs_stat(ino, n, &st);
	pthread_mutex_unlock(&vmfs.lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, VMFS_TIMEOUT);
}

static void vmfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			 int to_set, struct fuse_file_info *fi)
{
	struct vmfs_node *n;
	struct stat st;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(ino);
	if (n && (to_set & FUSE_SET_ATTR_MODE))
		n->mode = (n->mode & S_IFMT) | (attr->st_mode & 07777);
	if (n && (to_set & FUSE_SET_ATTR_SIZE))
		n->size = attr->st_size;
	if (n)
		vmfs_stat(ino, n, &st);
	pthread_mutex_unlock(&vmfs.lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, VMFS_TIMEOUT);
}

static void vmfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode, dev_t rdev)
{
	uint64_t id = 0;
	int err;

	if (!S_ISREG(mode)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, mode, &id);
	vmfs_reply_entry(req, err, id);
}

static void vmfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode)
{
	uint64_t id = 0;
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, S_IFDIR | (mode & 07777), &id);
	vmfs_reply_entry(req, err, id);
}

static void vmfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
			mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	uint64_t id = 0;
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, S_IFREG | (mode & 07777), &id);
	if (!err) {
		vmfs_entry(id, &e);
		vmfs_get(id)->nlookup++;
	}
	pthread_mutex_unlock(&vmfs.lock);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_create(req, &e, fi);
}

static void vmfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_remove(parent, name, false, NULL);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_err(req, -err);
}

static void vmfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_remove(parent, name, true, NULL);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_err(req, -err);
}

static void vmfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
			fuse_ino_t newparent, const char *newname,
			unsigned int flags)
{
	int err;

	if (flags) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_move(parent, name, newparent, newname);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_err(req, -err);
}

static void vmfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		       size_t size, off_t off, struct fuse_file_info *fi)
{
	struct vmfs_node *n;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(ino);
	if (n && off + (off_t)size > n->size)
		n->size = off + size;
	pthread_mutex_unlock(&vmfs.lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_write(req, size);
}

/* File contents are not kept: reads see zeros up to the size. */
static void vmfs_read(fuse_req_t req, fuse_ino_t ino, size_t size,
		      off_t off, struct fuse_file_info *fi)
{
	fuse_reply_buf(req, NULL, 0);
}

static void vmfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			 off_t off, struct fuse_file_info *fi)
{
	char *buf = calloc(1, size);
	size_t used = 0, len;
	unsigned int i;
	struct stat st;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	for (i = off; i < vmfs.nnodes; i++) {
		struct vmfs_node *n = &vmfs.node[i];

		if (!n->used || n->parent != ino || i == 0)
			continue;
		vmfs_stat(i + 1, n, &st);
		len = fuse_add_direntry(req, buf + used, size - used, n->name,
					&st, i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_buf(req, buf, used);
	free(buf);
}

const struct fuse_lowlevel_ops vmfs_ops = {
	.init		= vmfs_init,
	.lookup		= vmfs_lookup,
	.forget		= vmfs_forget,
	.getattr	= vmfs_getattr,
	.setattr	= vmfs_setattr,
	.mknod		= vmfs_mknod,
	.mkdir		= vmfs_mkdir,
	.create		= vmfs_create,
	.unlink		= vmfs_unlink,
	.rmdir		= vmfs_rmdir,
	.rename		= vmfs_rename,
	.read		= vmfs_read,
	.write		= vmfs_write,
	.readdir	= vmfs_readdir,
};

