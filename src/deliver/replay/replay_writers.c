// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Files the replayer keeps open for writing.
 *
 * A remote writer's open, writes and close reach us as MODIFY ...
 * CLOSE_WRITE. Replaying MODIFY by opening the file on the mount and
 * keeping it open until the host's CLOSE_WRITE gives watchers the native
 * order OPEN, MODIFY, CLOSE_WRITE, once. The table is small and owned by
 * the replayer thread; when it is full the oldest file is closed early.
 */
#include <errno.h>
#include <string.h>

#include "replay_internal.h"

int replay_writer_find(struct replay *r, uint64_t node)
{
	for (int i = 0; i < r->nwriters; i++)
		if (r->writers[i].node == node)
			return r->writers[i].fd;
	return -ENOENT;
}

static void writer_remove(struct replay *r, int i)
{
	RSYS(r, close, r->writers[i].fd);
	memmove(&r->writers[i], &r->writers[i + 1],
		(r->nwriters - i - 1) * sizeof(r->writers[0]));
	r->nwriters--;
}

int replay_writer_hold(struct replay *r, uint64_t node, int fd)
{
	if (r->nwriters == REPLAY_MAX_WRITERS)
		writer_remove(r, 0);
	r->writers[r->nwriters].node = node;
	r->writers[r->nwriters].fd = fd;
	r->nwriters++;
	return fd;
}

void replay_writer_close(struct replay *r, uint64_t node)
{
	for (int i = 0; i < r->nwriters; i++) {
		if (r->writers[i].node == node) {
			writer_remove(r, i);
			return;
		}
	}
}

void replay_writer_close_all(struct replay *r)
{
	while (r->nwriters)
		writer_remove(r, r->nwriters - 1);
}
