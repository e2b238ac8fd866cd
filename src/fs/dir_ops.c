// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory ops: opendir, readdir, readdirplus, releasedir, fsyncdir.
 * fi->fh points to a struct fs_dir owned by the open directory until
 * releasedir; fs->dirs lists them, so that the file system closes those
 * whose releasedir never came when it is destroyed.
 *
 * readdirplus gives the kernel a reference to each entry but "." and
 * "..", and records the names shown; an entry that no longer fits in the
 * reply gives its reference back.
 *
 * The kernel (READDIRPLUS_AUTO) asks for the first batch of a listing in
 * plus mode whether or not anyone will stat the entries, and for later
 * batches only when lookups followed. Attributes cost a read of each
 * entry's inode, which a plain listing of a big cold directory pays for
 * nothing (bindfs gives none). So a batch from offset 0 carries
 * attributes only if the whole directory has at most FS_PLUS_SMALL
 * entries (ls -l of it then needs no lookup); a bigger one's first batch
 * is plain (no node id: the kernel looks entries up if asked), and the
 * lookups of an ls -l make the kernel ask for the following batches in
 * plus.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caller.h"
#include "dir_stream.h"
#include "fs_internal.h"
#include "names_shown.h"

#define FS_PLUS_SMALL 32

/*
 * lock: the kernel sends one READDIR of an open directory at a time, but
 * the reply goes before the batch after it is read ahead, and the next
 * READDIR or the RELEASEDIR can come meanwhile.
 */
struct fs_dir {
	pthread_mutex_t lock;
	struct dir_stream *entries;
	struct fs_list link;	/* fs->dirs_lock */
};

static struct fs_dir *dir_of(struct fuse_file_info *fi)
{
	return (struct fs_dir *)(uintptr_t)fi->fh;
}

/* Opened as the caller (caller.h): listing needs the caller's read right. */
static struct fs_dir *dir_open(fuse_req_t req, struct fs_inode *in)
{
	struct fs_caller who;
	struct fs_dir *d;
	int fd;

	if (in->fd < 0) {
		errno = ESTALE;
		return NULL;
	}
	fd = fs_caller_enter(req, &who);
	if (fd) {
		errno = -fd;
		return NULL;
	}
	fd = openat(in->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	fs_caller_leave(&who);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->entries = dir_stream_open(fd);
	if (!d || !d->entries) {
		free(d);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_mutex_lock(&fs_of(req)->dirs_lock);
	fs_list_add(&fs_of(req)->dirs, &d->link);
	pthread_mutex_unlock(&fs_of(req)->dirs_lock);
	return d;
}

static void dir_close(struct fs *fs, struct fs_dir *d)
{
	pthread_mutex_lock(&fs->dirs_lock);
	fs_list_del(&d->link);
	pthread_mutex_unlock(&fs->dirs_lock);
	/* Waits for a read ahead still under way. */
	pthread_mutex_lock(&d->lock);
	pthread_mutex_unlock(&d->lock);
	pthread_mutex_destroy(&d->lock);
	dir_stream_close(d->entries);
	free(d);
}

void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);
	struct fs_dir *d = NULL;

	errno = ESTALE;
	if (in)
		d = dir_open(req, in);
	/*
	 * The kernel keeps the listing from one open to the next, and drops
	 * it when the directory's entries change (cache_policy.c).
	 */
	if (d && fs_cache_keeps_listing(fs, in))
		fi->cache_readdir = fi->keep_cache = 1;
	fs_inode_put(fs, in);
	if (!d) {
		fuse_reply_err(req, errno);
		return;
	}
	fi->fh = (uintptr_t)d;
	if (fuse_reply_open(req, fi))
		dir_close(fs, d);
}

static bool is_dots(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* A plus entry with no node id: the kernel takes only its name. */
static size_t add_plus_bare(fuse_req_t req, const struct dirent64 *de, char *p,
			    size_t rem)
{
	struct fuse_entry_param e = { 0 };

	e.attr.st_ino = de->d_ino;
	e.attr.st_mode = de->d_type << 12;
	return fuse_add_direntry_plus(req, p, rem, de->d_name, &e, de->d_off);
}

/* Adds one entry; 0 if it did not fit, else its size. */
static size_t add_plus(fuse_req_t req, struct fs_inode *dir,
		       const struct dirent64 *de, char *p, size_t rem, bool attrs)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;
	struct fs_inode *child;
	struct stat st;
	size_t size;

	/*
	 * Dots, entries past those with attributes, and entries gone
	 * since readdir saw them: bare, no reference.
	 */
	if (!attrs || is_dots(de->d_name) ||
	    fs_entry_learn(fs, dir, de->d_name, &child, &st))
		return add_plus_bare(req, de, p, rem);
	fs_entry_param(fs, child, &st, &e);
	size = fuse_add_direntry_plus(req, p, rem, de->d_name, &e, de->d_off);
	if (size > rem)
		fs_table_forget(&fs->table, child->nodeid, 1);
	else
		fs_names_show(&fs->table, dir->nodeid, de->d_name,
			      child->nodeid);
	return size;
}

static size_t add_plain(fuse_req_t req, const struct dirent64 *de, char *p,
			size_t rem)
{
	struct stat st = { .st_ino = de->d_ino, .st_mode = de->d_type << 12 };

	return fuse_add_direntry(req, p, rem, de->d_name, &st, de->d_off);
}

/* Fills buf from the directory's offset off on; the bytes used. */
static size_t fill_batch(fuse_req_t req, struct fs_dir *d,
			 struct fs_inode *dir, char *buf, size_t size, off_t off,
			 bool plus, int *err)
{
	const struct dirent64 *de;
	size_t used = 0, n;
	bool attrs;

	*err = 0;
	if (off != dir_stream_tell(d->entries))
		*err = -dir_stream_seek(d->entries, off);
	if (*err)
		return 0;
	/* Only a plus batch from offset 0 needs to look ahead. */
	attrs = !plus || off ||
		dir_stream_at_most(d->entries, FS_PLUS_SMALL);
	while ((de = dir_stream_peek(d->entries))) {
		n = plus ? add_plus(req, dir, de, buf + used, size - used,
				    attrs) :
			   add_plain(req, de, buf + used, size - used);
		if (n > size - used)
			return used;
		used += n;
		dir_stream_next(d->entries);
	}
	*err = errno;
	return used;
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi, bool plus)
{
	struct fs *fs = fs_of(req);
	struct fs_dir *d = dir_of(fi);
	struct fs_inode *dir = fs_inode_get(fs, ino);
	char *buf = malloc(size);
	size_t used = 0;
	int err;

	pthread_mutex_lock(&d->lock);
	if (buf && dir)
		used = fill_batch(req, d, dir, buf, size, off, plus, &err);
	else
		err = buf ? ESTALE : ENOMEM;
	/* An error after some entries: reply them; the next call retries. */
	if (err && !used)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, used);
	/* The client is listing on: read its next batch meanwhile. */
	if (used)
		dir_stream_prefetch(d->entries, size);
	pthread_mutex_unlock(&d->lock);
	free(buf);
	fs_inode_put(fs, dir);
}

void fs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, false);
}

void fs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	do_readdir(req, ino, size, off, fi, true);
}

void fs_op_releasedir(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi)
{
	dir_close(fs_of(req), dir_of(fi));
	fuse_reply_err(req, 0);
}

unsigned long fs_dirs_close_all(struct fs *fs)
{
	unsigned long n = 0;

	for (; !fs_list_empty(&fs->dirs); n++)
		dir_close(fs, fs_container_of(fs->dirs.next, struct fs_dir,
					      link));
	return n;
}

void fs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi)
{
	int fd = dir_stream_fd(dir_of(fi)->entries);
	int ret = datasync ? fdatasync(fd) : fsync(fd);

	fuse_reply_err(req, ret ? errno : 0);
}
