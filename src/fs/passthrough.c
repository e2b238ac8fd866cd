// SPDX-License-Identifier: GPL-2.0-or-later
/* FUSE passthrough for reading opens (passthrough.h). */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fs_internal.h"
#include "passthrough.h"

/* FUSE 7.40 (Linux 6.9) ABI that Debian 12's linux/fuse.h predates. */
#define PT_FOPEN_PASSTHROUGH (1U << 7)
struct pt_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};

#define PT_IOC_BACKING_OPEN _IOW(229, 1, struct pt_backing_map)
#define PT_IOC_BACKING_CLOSE _IOW(229, 2, uint32_t)

/* The open reply this thread is about to write, if it is passthrough. */
static __thread struct {
	bool armed;
	bool close_expected;	/* closes_expect()ed for this open */
	int32_t backing_id;
} reply;

/*
 * Objects at most: each is a file open by a writer beside a reader, and
 * past this many a writer's close goes unexpected (a duplicate event).
 */
#define PT_CLOSES_MAX 4096

void fs_passthrough_init(struct fs_passthrough *pt)
{
	pt->want = true;
	pt->fuse_fd = -1;
	pthread_mutex_init(&pt->lock, NULL);
}

void fs_passthrough_free(struct fs_passthrough *pt)
{
	free(pt->closes);
	pthread_mutex_destroy(&pt->lock);
}

void fs_passthrough_want(struct fs *fs, bool want)
{
	fs->pt.want = want;
}

bool fs_passthrough_wanted(const struct fs *fs)
{
	return fs->pt.want;
}

void fs_passthrough_start(struct fs *fs, int fuse_fd)
{
	fs->pt.fuse_fd = fuse_fd;
	atomic_store(&fs->pt.on, true);
	fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: passthrough: on\n");
}

static bool reads_only(const struct fuse_file_info *fi)
{
	return (fi->flags & O_ACCMODE) == O_RDONLY && !(fi->flags & O_TRUNC);
}

/*
 * Registers fd as in's backing file. Without CAP_SYS_ADMIN, or on a
 * kernel that turns out not to have it after all, passthrough goes off
 * for good; a file system stacked too deep (ELOOP) only fails this file.
 */
static bool backing_open(struct fs_passthrough *pt, struct fs_inode *in,
			 int fd)
{
	struct pt_backing_map map = { .fd = fd };
	int id = ioctl(pt->fuse_fd, PT_IOC_BACKING_OPEN, &map);

	if (id >= 0) {
		in->backing_id = id;
		return true;
	}
	/* Without the capability, as any unprivileged server is: no news. */
	if (errno != ELOOP && atomic_exchange(&pt->on, false))
		fuse_log(errno == EPERM ? FUSE_LOG_DEBUG : FUSE_LOG_WARNING,
			 "rnotifyfs: passthrough: off (%s)\n", strerror(errno));
	return false;
}

static void backing_close(struct fs_passthrough *pt, struct fs_inode *in)
{
	uint32_t id = in->backing_id;

	if (ioctl(pt->fuse_fd, PT_IOC_BACKING_CLOSE, &id))
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: passthrough: closing backing file %u: %s\n",
			 id, strerror(errno));
}

static struct fs_passthrough_close *closes_find(struct fs_passthrough *pt,
						const struct rn_id *id)
{
	size_t i;

	for (i = 0; i < pt->ncloses; i++)
		if (rn_id_equal(&pt->closes[i].id, id))
			return &pt->closes[i];
	return NULL;
}

/* One more close of id's backing file to come; false if out of memory. */
static bool closes_expect(struct fs_passthrough *pt, const struct rn_id *id)
{
	struct fs_passthrough_close *c = closes_find(pt, id), *more;

	if (c) {
		c->n++;
		return true;
	}
	if (pt->ncloses == PT_CLOSES_MAX)
		return false;
	if (pt->ncloses == pt->closes_cap) {
		more = realloc(pt->closes,
			       (pt->closes_cap * 2 + 4) * sizeof(*more));
		if (!more)
			return false;
		pt->closes = more;
		pt->closes_cap = pt->closes_cap * 2 + 4;
	}
	pt->closes[pt->ncloses++] = (struct fs_passthrough_close){ .id = *id, .n = 1 };
	return true;
}

static bool closes_take(struct fs_passthrough *pt, const struct rn_id *id)
{
	struct fs_passthrough_close *c = closes_find(pt, id);

	if (!c)
		return false;
	if (!--c->n)
		*c = pt->closes[--pt->ncloses];
	return true;
}

void fs_passthrough_open(struct fs *fs, struct fs_inode *in, int fd,
			 struct fuse_file_info *fi)
{
	struct fs_passthrough *pt = &fs->pt;
	bool pass;

	reply.armed = false;
	reply.close_expected = false;
	if (!in || pt->fuse_fd < 0)
		return;
	pthread_mutex_lock(&pt->lock);
	pass = in->io_opens < 0 ||
	       (!in->io_opens && reads_only(fi) && fd >= 0 &&
		atomic_load(&pt->on) && backing_open(pt, in, fd));
	in->io_opens += pass ? -1 : 1;
	reply.backing_id = in->backing_id;
	/*
	 * A writer joins, as it must: the kernel opens the backing file for
	 * writing too, and its close must not pass for a remote writer's.
	 * An object with no id cannot be told apart (a duplicate CLOSE_WRITE);
	 * a replay's open (no fd) is ours, and so is its close.
	 */
	if (pass && !reads_only(fi) && fd >= 0 && rn_id_known(&in->id) &&
	    atomic_load(&pt->closes_taken))
		reply.close_expected = closes_expect(pt, &in->id);
	pthread_mutex_unlock(&pt->lock);
	reply.armed = pass;
	if (pass && !reads_only(fi))
		fi->direct_io = 1;
	/* The kernel refuses a passthrough open that keeps the page cache. */
	if (pass)
		fi->keep_cache = 0;
}

void fs_passthrough_release(struct fs *fs, struct fs_inode *in)
{
	struct fs_passthrough *pt = &fs->pt;
	reply.armed = false;
	if (!in || pt->fuse_fd < 0)
		return;
	pthread_mutex_lock(&pt->lock);
	if (in->io_opens > 0)
		in->io_opens--;
	else if (in->io_opens < 0 && !++in->io_opens)
		backing_close(pt, in);
	pthread_mutex_unlock(&pt->lock);
}

void fs_passthrough_open_undo(struct fs *fs, struct fs_inode *in)
{
	struct fs_passthrough *pt = &fs->pt;
	bool expected = reply.close_expected;

	fs_passthrough_release(fs, in);
	reply.close_expected = false;
	if (!expected)
		return;
	pthread_mutex_lock(&pt->lock);
	closes_take(pt, &in->id);
	pthread_mutex_unlock(&pt->lock);
}

void fs_passthrough_closes_taken(struct fs *fs)
{
	atomic_store(&fs->pt.closes_taken, true);
}

bool fs_passthrough_backing_close(struct fs *fs, const struct rn_id *id)
{
	struct fs_passthrough *pt = &fs->pt;
	bool taken;

	if (!atomic_load(&pt->ncloses) || !rn_id_known(id))
		return false;
	pthread_mutex_lock(&pt->lock);
	taken = closes_take(pt, id);
	pthread_mutex_unlock(&pt->lock);
	return taken;
}

void fs_passthrough_patch(struct iovec *iov, int count)
{
	struct fuse_out_header oh;
	struct fuse_open_out out;
	struct iovec *last = &iov[count - 1];
	char *at;

	if (!reply.armed)
		return;
	reply.armed = false;
	if (count < 2 || iov[0].iov_len != sizeof(oh) ||
	    last->iov_len < sizeof(out))
		return;
	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	if (oh.error)
		return;
	/* An OPEN reply is a fuse_open_out; a CREATE reply ends with one. */
	at = (char *)last->iov_base + last->iov_len - sizeof(out);
	memcpy(&out, at, sizeof(out));
	out.open_flags |= PT_FOPEN_PASSTHROUGH;
	out.padding = (uint32_t)reply.backing_id;	/* 7.40's backing_id */
	memcpy(at, &out, sizeof(out));
}
