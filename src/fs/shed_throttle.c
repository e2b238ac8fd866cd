// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holding lookups back while the shedder catches up.
 *
 * The bound is kept by one thread that asks the kernel to forget idle
 * inodes, while request handlers add inodes as fast as clients look them
 * up. Each of the shedder's notifications takes the directory's lock in
 * the kernel, which every lookup in that directory holds (shared) until
 * it is answered, so against a client looking up a big directory the
 * shedder sends at best one name per lookup, and every moment it is off
 * the CPU is lost for good: with busy loops on every CPU the table of
 * tests/stress/memcg.py grew to several times its bound, and the
 * server's memory to most of the cgroup's, where without them it stays
 * near the bound.
 *
 * So once the table is a quarter past its bound and the shedder has names
 * to send, a handler whose reply handed the kernel an inode it did not
 * hold (a lookup, a create: what adds inodes) waits, after its reply,
 * until the shedder has sent one. A lookup of an inode the kernel holds
 * adds nothing and does not wait.
 * The reply went first: the client's lookup ends and unlocks the
 * directory, so the shedder is not held up by the very lookup that waits
 * for it. The wait is bounded: another client's lookup in that
 * directory, queued behind this handler, would keep the shedder waiting
 * for the lock until this handler gives up.
 */
#include <errno.h>

#include "util/mono_wait.h"
#include "shed.h"

/* Table lock held. */
static bool throttle_needed(const struct fs_table *t)
{
	unsigned long max = t->max_inodes;

	if (!max || t->by_node.count - 1 <= max + max / FS_SHED_THROTTLE_OVER)
		return false;
	/* Names picked and not sent, or idle files left to pick. */
	return t->shed_unsent || fs_table_live_locked(t) > t->shed_at;
}

int fs_shed_throttle(struct fs_table *t, unsigned int ms)
{
	struct timespec ts;
	unsigned long sends;
	int err = 0;

	pthread_mutex_lock(&t->lock);
	if (throttle_needed(t)) {
		sends = t->shed_sends;
		mono_deadline(&ts, ms * 1000000L);
		t->throttled++;
		while (!err && t->shed_sends == sends && !t->shed_stop)
			err = pthread_cond_timedwait(&t->sent_cond, &t->lock,
						     &ts);
		t->throttled--;
	}
	pthread_mutex_unlock(&t->lock);
	return err ? -err : 0;
}

void fs_shed_picked_locked(struct fs_table *t, size_t n)
{
	t->shed_unsent = n;
}

void fs_shed_sent(struct fs_table *t)
{
	pthread_mutex_lock(&t->lock);
	if (t->shed_unsent)
		t->shed_unsent--;
	t->shed_sends++;
	if (t->throttled)
		pthread_cond_broadcast(&t->sent_cond);
	pthread_mutex_unlock(&t->lock);
}
