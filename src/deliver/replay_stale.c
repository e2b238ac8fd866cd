// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Attributes a replay left for the client to fetch again.
 *
 * Each replay invalidates the client's attributes of what it changed:
 * the kernel does it for a directory after a create, delete or rename
 * reply, and the replay itself (fs_inval_inode) for a file whose content
 * changed. The next path walk or open there must then fetch them
 * (default_permissions checks modes), a GETATTR round trip before the
 * next replayed event, or before a woken watcher's stat() is answered.
 *
 * So when a turn ends (the queue is empty), the replayer stats through
 * the mount what its last replays left stale: the client fetches the
 * attributes while nothing waits for them, and the next change there is
 * replayed without that round trip. The attributes fetched are the
 * backing store's of that moment, newer than any event delivered, so no
 * reader sees an older state; a change racing the fetch makes the kernel
 * drop its answer (attr_version). An O_PATH open and fstat() make no
 * event. Attributes already valid cost no request, only three system
 * calls; stale ones nobody would have asked for before they expired cost
 * one GETATTR each (a few per turn, never more than REPLAY_STALE_MAX).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay_internal.h"

void replay_stale_add(struct replay_stale *s, const struct replay_node *n,
		      const struct replay_node *dir, const char *name)
{
	struct replay_stale_node *e;
	int i;

	for (i = 0; i < s->n; i++)
		if (s->nodes[i].node.id == n->id)
			return;
	/* Full: the oldest goes, the latest replays matter most. */
	if (s->n == REPLAY_STALE_MAX) {
		memmove(&s->nodes[0], &s->nodes[1],
			(s->n - 1) * sizeof(s->nodes[0]));
		s->n--;
	}
	e = &s->nodes[s->n++];
	e->node = *n;
	e->dir = dir ? *dir : (struct replay_node){ 0 };
	strcpy(e->name, name ? name : "");
}

void replay_stale_move(struct replay_stale *to, struct replay_stale *from)
{
	const struct replay_stale_node *e;
	int i;

	for (i = 0; i < from->n; i++) {
		e = &from->nodes[i];
		replay_stale_add(to, &e->node, e->dir.id ? &e->dir : NULL,
				 e->name);
	}
	from->n = 0;
}

/*
 * A file through its directory and the name it is shown under: decoding
 * a file's own handle would make the client revalidate its name (the
 * kernel drops a decoded alias's entry timeout), a LOOKUP before the next
 * replay there. A name no longer shown as that file is left alone: no
 * lookup may show the client a name before its event.
 */
static void refresh_named(struct replay *r, const struct replay_stale_node *e)
{
	struct replay_node shown;
	struct stat st;
	int dfd;

	if (!replay_shown_node(r, e->dir.id, e->name, &shown) ||
	    shown.id != e->node.id)
		return;
	dfd = replay_node_open(r, &e->dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return;
	/* The client's fetch is the point, not the answer. */
	fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW);
	close(dfd);
}

void replay_stale_refresh(struct replay *r, struct replay_stale *s)
{
	const struct replay_stale_node *e;
	struct stat st;
	int i, fd;

	for (i = 0; i < s->n; i++) {
		e = &s->nodes[i];
		if (e->dir.id) {
			refresh_named(r, e);
			continue;
		}
		/* Gone since: nothing to refresh. */
		fd = replay_node_open(r, &e->node, O_PATH);
		if (fd < 0)
			continue;
		fstat(fd, &st);
		close(fd);
	}
	s->n = 0;
}
