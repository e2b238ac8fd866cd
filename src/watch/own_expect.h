/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server's own changes, for the inotify backend (inotify does not say
 * who changed a file). The file system brackets each change it makes to
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
 * A target also keeps a stamp (ctime and size) of what the server's last
 * change to it left: the object's, or the object's at the name. Once no
 * change to the target is in progress, a MODIFY, ATTRIB or CLOSE_WRITE
 * there is the server's own only if the object still has that stamp. An
 * outside write right after a local one, or to a file just created
 * through the mount, moves ctime (kernels with multigrain timestamps,
 * 6.13 on, give a change after a stat a new ctime) and is reported.
 *
 * Limitations: an outside change of the same kind to the same target
 * inside that window is still taken for the server's own when no stamp
 * tells them apart: a CREATE, DELETE or MOVE of the same name (never
 * compared, so that they are never reported twice); a kernel with coarse
 * timestamps that puts both in one tick at one size; an outside change
 * between two of the server's own to one object; an outside close of a
 * file that the server closes at about the same time, or of one opened
 * for writing but not written. A change of the server's
 * that moves an object's ctime but is not a change to that object's
 * target (a rename of it) can make an earlier own MODIFY, ATTRIB or
 * CLOSE_WRITE on it look remote: a duplicate, never a loss.
 *
 * Bounded: OWN_EXPECT_MAX targets; when full, the oldest finished one is
 * reused (at worst an own event is then reported as remote: a duplicate).
 * Not locked here: the caller serialises all calls.
 */
#ifndef RNOTIFY_WATCH_OWN_EXPECT_H
#define RNOTIFY_WATCH_OWN_EXPECT_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "event/event.h"

#define OWN_EXPECT_MAX 256

/* What the object looked like: a change moves ctime, or size. */
struct own_stamp {
	bool set;
	struct timespec ctime;
	off_t size;
};

struct own_target {
	bool used;
	struct rn_id id;		/* the directory, or the object */
	char name[NAME_MAX + 1];	/* "" for the object itself */
	unsigned int kinds;		/* RN_EV_BIT()s it can cause */
	unsigned int active;		/* changes begun, not yet ended */
	unsigned long ended_at;		/* drains begun when the last ended */
	struct own_stamp stamp;		/* after the last change ended */
};

struct own_expect {
	unsigned long begun;		/* drains of the queue begun */
	unsigned long done;		/* drains of the queue completed */
	struct own_target t[OWN_EXPECT_MAX];
};

/* A name longer than NAME_MAX or with '/' is ignored: no host event has it. */
void own_expect_begin(struct own_expect *x, const struct rn_id *id,
		      const char *name, unsigned int kinds);
/*
 * after: the stamp of the object (or of the object at the name) once the
 * change ended, or NULL (unknown).
 */
void own_expect_end(struct own_expect *x, const struct rn_id *id,
		    const char *name, unsigned int kinds,
		    const struct own_stamp *after);

/*
 * Is a host event of kind on (id, name) the server's own? now: the stamp
 * of the object it is about when the event was read, or NULL. Not
 * consumed.
 */
bool own_expect_match(const struct own_expect *x, const struct rn_id *id,
		      const char *name, enum rn_event_kind kind,
		      const struct own_stamp *now);

void own_stamp_of(struct own_stamp *s, const struct stat *st);

/* The reader begins to drain the queue. */
void own_expect_drain_begin(struct own_expect *x);

/* The reader drained the queue: count it, forget targets past their window. */
void own_expect_drained(struct own_expect *x);

#endif
