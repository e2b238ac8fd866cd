/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server's own changes, for the inotify backend (inotify does not say
 * who changed a file). The passthrough brackets each change it makes to
 * the backing store with begin and end, naming its target: (dir, name) for
 * a change to a name, or (object, "") for a change to an object's content
 * or attributes. Host events on a target are the server's own while a
 * change to it is in progress, and until the reader has completed a drain
 * of the inotify queue (reading until EAGAIN) that began after the change
 * ended: inotify queues an event inside the syscall, so by then every
 * event the change caused has been read, however many there were and
 * however inotify merged them. No clock, no counting.
 *
 * A target also names the kinds of event the change can cause: closing a
 * file the server wrote causes only CLOSE_WRITE, and must not hide a
 * MODIFY that an outside writer makes at that moment.
 *
 * Limitation: an outside change of the same kind to the same target
 * inside that window is taken for the server's own and not reported.
 *
 * Bounded: OWN_EXPECT_MAX targets; when full, the oldest finished one is
 * reused (at worst an own event is then reported as remote: a duplicate).
 * Not locked here: the caller serialises all calls.
 */
#ifndef RNOTIFY_OWN_EXPECT_H
#define RNOTIFY_OWN_EXPECT_H

#include <limits.h>
#include <stdbool.h>

#include "../event.h"

#define OWN_EXPECT_MAX 256

struct own_target {
	bool used;
	struct rn_id id;		/* the directory, or the object */
	char name[NAME_MAX + 1];	/* "" for the object itself */
	unsigned int kinds;		/* RN_EV_BIT()s it can cause */
	unsigned int active;		/* changes begun, not yet ended */
	unsigned long ended_at;		/* drains begun when the last ended */
};

struct own_expect {
	unsigned long begun;		/* drains of the queue begun */
	unsigned long done;		/* drains of the queue completed */
	struct own_target t[OWN_EXPECT_MAX];
};

/* A name longer than NAME_MAX or with '/' is ignored: no host event has it. */
void own_expect_begin(struct own_expect *x, const struct rn_id *id,
		      const char *name, unsigned int kinds);
void own_expect_end(struct own_expect *x, const struct rn_id *id,
		    const char *name, unsigned int kinds);

/* Is a host event of kind on (id, name) the server's own? Not consumed. */
bool own_expect_match(const struct own_expect *x, const struct rn_id *id,
		      const char *name, enum rn_event_kind kind);

/* The reader begins to drain the queue. */
void own_expect_drain_begin(struct own_expect *x);

/* The reader drained the queue: count it, forget targets past their window. */
void own_expect_drained(struct own_expect *x);

#endif
