// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory ops: opendir, readdir, readdirplus, releasedir, fsyncdir.
 * fi->fh points to a struct fs_dir owned by the open directory until
 * releasedir; the kernel serialises readdir on one open directory, so it
 * needs no lock.
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_internal.h"
#include "names_shown.h"

#define FS_PLUS_SMALL 32

struct fs_dir {
	DIR *dp;
	off_t offset;		/* where dp is, as telldir() said */
	struct dirent *entry;	/* read but not yet replied, or NULL */
};

static struct fs_dir *dir_of(struct fuse_file_info *fi)
{
	return (struct fs_dir *)(uintptr_t)fi->fh;
}

static struct fs_dir *dir_open(struct fs_inode *in)
{
	struct fs_dir *d;
	int fd;

	if (in->fd < 0) {
		errno = ESTALE;
		return NULL;
	}
	fd = openat(in->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d)
		d->dp = fdopendir(fd);
	if (!d || !d->dp) {
		free(d);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *in = fs_inode_get(fs, ino);
	struct fs_dir *d = NULL;

	errno = ESTALE;
	if (in)
		d = dir_open(in);
	fs_inode_put(fs, in);
	if (!d) {
		fuse_reply_err(req, errno);
		return;
	}
	fi->fh = (uintptr_t)d;
	if (fuse_reply_open(req, fi)) {
		closedir(d->dp);
		free(d);
	}
}

static bool is_dots(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* A plus entry with no node id: the kernel takes only its name. */
static size_t add_plus_bare(fuse_req_t req, struct dirent *de, char *p,
			    size_t rem)
{
	struct fuse_entry_param e = { 0 };

	e.attr.st_ino = de->d_ino;
	e.attr.st_mode = de->d_type << 12;
	return fuse_add_direntry_plus(req, p, rem, de->d_name, &e, de->d_off);
}

/* Adds one entry; 0 if it did not fit, else its size. */
static size_t add_plus(fuse_req_t req, struct fs_inode *dir,
		       struct dirent *de, char *p, size_t rem, bool attrs)
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

static size_t add_plain(fuse_req_t req, struct dirent *de, char *p,
			size_t rem)
{
	struct stat st = { .st_ino = de->d_ino, .st_mode = de->d_type << 12 };

	return fuse_add_direntry(req, p, rem, de->d_name, &st, de->d_off);
}

/*
 * Does the directory have at most FS_PLUS_SMALL entries? Reads that far
 * ahead (from the buffer of the first getdents, for a big directory) and
 * goes back to the start.
 */
static bool dir_is_small(struct fs_dir *d)
{
	int n = 0;

	rewinddir(d->dp);
	errno = 0;
	while (n <= FS_PLUS_SMALL && readdir(d->dp))
		n++;
	rewinddir(d->dp);
	d->entry = NULL;
	d->offset = 0;
	return n <= FS_PLUS_SMALL && !errno;
}

static void do_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi, bool plus)
{
	struct fs *fs = fs_of(req);
	struct fs_dir *d = dir_of(fi);
	struct fs_inode *dir = fs_inode_get(fs, ino);
	char *buf = malloc(size);
	size_t used = 0, n;
	bool attrs;
	int err = 0;

	if (!buf || !dir) {
		err = buf ? ESTALE : ENOMEM;
		goto out;
	}
	/* Only a plus batch from offset 0 needs to look ahead. */
	attrs = !plus || off || dir_is_small(d);
	if (off != d->offset) {
		seekdir(d->dp, off);
		d->entry = NULL;
		d->offset = off;
	}
	for (;;) {
		if (!d->entry) {
			errno = 0;
			d->entry = readdir(d->dp);
			if (!d->entry) {
				err = errno;
				break;
			}
		}
		n = plus ? add_plus(req, dir, d->entry, buf + used,
				    size - used, attrs) :
			   add_plain(req, d->entry, buf + used, size - used);
		if (n > size - used)
			break;
		used += n;
		d->offset = d->entry->d_off;
		d->entry = NULL;
	}
out:
	/* An error after some entries: reply them; the next call retries. */
	if (err && !used)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, used);
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
	struct fs_dir *d = dir_of(fi);

	closedir(d->dp);
	free(d);
	fuse_reply_err(req, 0);
}

void fs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi)
{
	int fd = dirfd(dir_of(fi)->dp);
	int ret = datasync ? fdatasync(fd) : fsync(fd);

	fuse_reply_err(req, ret ? errno : 0);
}
