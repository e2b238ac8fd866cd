// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The two calls out of the file system: the gate (is this request a
 * replay, and what is its answer?) and the change hook (the file system is
 * about to change a name on the backing store).
 *
 * Both are installed from outside request handlers and called from them;
 * fs->hooks_lock makes the (function, argument) pair atomic. Handlers take
 * it for reading only, so they never wait for each other; fs_set_gate()
 * waits for calls in progress, after which the old gate is never called.
 * The callees must not block on anything a request handler holds.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_internal.h"

void fs_gate_ask(struct fs *fs, fuse_req_t req, struct fs_gate_query *q,
		 struct fs_gate_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->verdict = FS_GATE_PASS;
	q->tid = fuse_req_ctx(req)->pid;
	q->uid = fuse_req_ctx(req)->uid;
	pthread_rwlock_rdlock(&fs->hooks_lock);
	if (fs->gate)
		fs->gate(fs->gate_arg, q, a);
	pthread_rwlock_unlock(&fs->hooks_lock);
}

static void change_note(struct fs *fs, const struct fs_change *c,
			bool ended)
{
	const struct stat *after = NULL;
	struct stat st;

	if (!rn_id_known(&c->id))
		return;
	pthread_rwlock_rdlock(&fs->hooks_lock);
	if (fs->change) {
		/* Only a hook (inotify's) pays for the stat. */
		if (ended && c->fd >= 0 &&
		    !fstatat(c->fd, c->name, &st,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			after = &st;
		fs->change(fs->change_arg, &c->id, c->name, c->kinds, ended,
			   after);
	}
	pthread_rwlock_unlock(&fs->hooks_lock);
}

void fs_change_begin(struct fs *fs, struct fs_change *c,
		     const struct fs_inode *in, const char *name)
{
	c->id = in->id;
	c->name = name;
	c->kinds = RN_EV_ALL;
	c->fd = in->fd;
	change_note(fs, c, false);
}

void fs_change_begin_close(struct fs *fs, struct fs_change *c,
			   const struct fs_inode *in)
{
	c->id = in->id;
	c->name = "";
	c->kinds = RN_EV_BIT(RN_EV_CLOSE_WRITE);
	c->fd = -1;	/* a close leaves the stamp as it was */
	change_note(fs, c, false);
}

void fs_change_end(struct fs *fs, const struct fs_change *c)
{
	change_note(fs, c, true);
}

void fs_set_gate(struct fs *fs, fs_gate_fn fn, void *arg)
{
	pthread_rwlock_wrlock(&fs->hooks_lock);
	fs->gate = fn;
	fs->gate_arg = arg;
	pthread_rwlock_unlock(&fs->hooks_lock);
}

void fs_set_change_hook(struct fs *fs, fs_change_fn fn, void *arg)
{
	pthread_rwlock_wrlock(&fs->hooks_lock);
	fs->change = fn;
	fs->change_arg = arg;
	pthread_rwlock_unlock(&fs->hooks_lock);
}
