// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory attributes a replay left for the client to fetch again.
 *
 * The kernel drops a directory's attributes after every create, delete
 * or rename reply in it, so the next path walk there must fetch them
 * (default_permissions checks the directory's mode): a GETATTR round
 * trip before the next replayed event in that directory, or before a
 * woken watcher's lookup there is answered.
 *
 * So when a turn ends (the queue is empty), the replayer stats through
 * the mount the directories its last replays changed: the client fetches
 * their attributes while nothing waits for them, and the next change
 * there is replayed without that round trip. Changes cluster in
 * directories, so the fetch is usually one the next event would have
 * made. The attributes fetched are the backing store's of that moment,
 * newer than any event delivered, and a change racing the fetch makes
 * the kernel drop its answer (attr_version). An O_PATH open and fstat()
 * make no event; attributes still valid cost no request.
 *
 * Files are left alone: a file's attributes (dropped by the replay of a
 * write) only help a later change of that same file, and a GETATTR per
 * replayed write slowed the next write's replay, in another file, more
 * than it saved (bench/build/lat on a loaded 2-CPU machine).
 */
#include <string.h>

#include "replay_internal.h"

void replay_stale_add(struct replay_stale *s, const struct replay_node *dir)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->nodes[i].id == dir->id)
			return;
	/* Full: the oldest goes, the latest replays matter most. */
	if (s->n == REPLAY_STALE_MAX) {
		memmove(&s->nodes[0], &s->nodes[1],
			(s->n - 1) * sizeof(s->nodes[0]));
		s->n--;
	}
	s->nodes[s->n++] = *dir;
}

void replay_stale_move(struct replay_stale *to, struct replay_stale *from)
{
	int i;

	for (i = 0; i < from->n; i++)
		replay_stale_add(to, &from->nodes[i]);
	from->n = 0;
}

void replay_stale_refresh(struct replay *r, struct replay_stale *s)
{
	pid_t tid;
	uid_t uid;
	int i, fd;

	pthread_mutex_lock(&r->refresh_lock);
	/* Its lookups hide no name (replay_gate.c), whoever's turn it is. */
	RSYS(r, caller, &tid, &uid);
	atomic_store(&r->refresh_tid, tid);
	for (i = 0; i < s->n; i++) {
		/* Gone since: nothing to refresh. */
		fd = replay_node_open(r, &s->nodes[i],
				      REPLAY_OPEN_PATH | REPLAY_OPEN_DIR);
		if (fd < 0)
			continue;
		/* The client's fetch is the point, not the answer. */
		RSYS(r, touch, fd);
		RSYS(r, close, fd);
	}
	atomic_store(&r->refresh_tid, -1);
	pthread_mutex_unlock(&r->refresh_lock);
	s->n = 0;
}
