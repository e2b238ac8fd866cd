// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The shedder thread (see shed.h for what and why). It sleeps on the
 * table's shed_cond, with the table lock, until the table passes
 * t->shed_at; then it picks batches under the lock and sends their
 * invalidations without it, until the inodes not yet being shed are down
 * to t->shed_low (hysteresis: no notification per new inode).
 *
 * When a batch finds fewer idle files than it wanted (the rest are
 * directories, open, watched or in use), t->shed_at is raised by a
 * sixteenth of the bound, so that the thread does not wake for every new
 * inode to look at the same ones again; it drops back to the bound once
 * the table is down to t->shed_low (inode_table.c), or after
 * FS_SHED_RETRY_S seconds with no wake-up while the table is still over
 * the bound: without that, files in use at the last batch stayed past
 * the bound until more inodes came. The same wait finds the files asked
 * for that the kernel keeps (watched ones) and counts them again: left
 * out, one of them held the table at 1,001 of 1,000 for good
 * (tests/stress/bound.py, kept_counts).
 */
#include <errno.h>
#include <stdlib.h>

#include "util/mono_wait.h"
#include "fs_internal.h"
#include "shed.h"

#define FS_SHED_RETRY_S 1

struct fs_shed {
	struct fs *fs;
	pthread_t thread;
	unsigned long picked;	/* files asked for */
	unsigned long sent;	/* names the kernel dropped */
	unsigned long stale;	/* names it no longer held */
	struct fs_shed_batch batch;
};

/* Table lock held on entry and return; dropped while sending. */
static size_t shed_batch(struct fs_shed *s, struct fs_table *t)
{
	unsigned long live = fs_table_live_locked(t);
	size_t want = live - t->shed_low, picked, i;
	struct fs_shed_batch *b = &s->batch;

	if (want > FS_SHED_NAMES)
		want = FS_SHED_NAMES;
	picked = fs_shed_pick_locked(t, want, b);
	fs_shed_picked_locked(t, b->n);
	s->picked += picked;
	if (picked < want) {
		live = fs_table_live_locked(t) + t->max_inodes / 16;
		t->shed_at = live > t->max_inodes ? live : t->max_inodes;
	}
	pthread_mutex_unlock(&t->lock);
	for (i = 0; i < b->n; i++) {
		int err = fs_inval_entry(s->fs, b->name[i].parent,
					 b->buf + b->name[i].off);

		if (!err)
			s->sent++;
		else if (err == -ENOENT)
			s->stale++;
		fs_shed_sent(t);
	}
	pthread_mutex_lock(&t->lock);
	return picked < want ? 0 : picked;
}

/*
 * Table lock held; over the bound, counting the files asked for. The
 * files that were busy at the last batch (a lookup in flight, say) may
 * be idle a second later, and files still asked for by then are kept by
 * the kernel; nothing else would look again until more inodes come. So
 * after a second without a wake-up the threshold drops back to the
 * bound, and kept files count again. False when that found nothing to
 * do: the shedder then waits untimed until it is woken.
 */
static bool shed_wait_over_bound(struct fs_table *t)
{
	struct timespec ts;

	mono_deadline(&ts, FS_SHED_RETRY_S * 1000000000L);
	if (pthread_cond_timedwait(&t->shed_cond, &t->lock, &ts) != ETIMEDOUT)
		return true;
	t->shed_at = t->max_inodes;
	return fs_shed_keep_lingering_locked(t) ||
	       fs_table_live_locked(t) > t->max_inodes;
}

static void *shed_main(void *arg)
{
	struct fs_shed *s = arg;
	struct fs_table *t = &s->fs->table;
	bool retry = true;	/* a timed wait may find work */
	unsigned long live;

	pthread_mutex_lock(&t->lock);
	while (!t->shed_stop) {
		live = fs_table_live_locked(t);
		if (live <= t->shed_at) {
			if (retry && live + t->shed_pending > t->max_inodes) {
				retry = shed_wait_over_bound(t);
			} else {
				pthread_cond_wait(&t->shed_cond, &t->lock);
				retry = true;
			}
			continue;
		}
		while (!t->shed_stop && shed_batch(s, t) &&
		       fs_table_live_locked(t) > t->shed_low)
			;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int fs_shed_start(struct fs *fs)
{
	struct fs_shed *s;
	int err;

	if (!fs->table.max_inodes || fs->shed)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fs = fs;
	fs->table.shed_stop = false;
	err = pthread_create(&s->thread, NULL, shed_main, s);
	if (err) {
		free(s);
		return -err;
	}
	fs->shed = s;
	return 0;
}

void fs_shed_stop(struct fs *fs)
{
	struct fs_shed *s = fs->shed;
	struct fs_table *t = &fs->table;

	if (!s)
		return;
	pthread_mutex_lock(&t->lock);
	t->shed_stop = true;
	pthread_cond_signal(&t->shed_cond);
	pthread_cond_broadcast(&t->sent_cond);	/* no more sends to wait for */
	pthread_mutex_unlock(&t->lock);
	pthread_join(s->thread, NULL);
	fs->shed = NULL;
	if (fs->debug)
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: shed %lu inodes: %lu names dropped, %lu no longer held\n",
			 s->picked, s->sent, s->stale);
	free(s);
}
