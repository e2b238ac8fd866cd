/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host-side watcher: reports changes to the backing store that this
 * process did not make, as normalised events (event/event.h).
 *
 * It prefers one fanotify filesystem mark with file handles and the pid of
 * the changer (own changes dropped by pid), scoped to the export subtree,
 * and falls back to recursive inotify where fanotify is refused. It knows
 * nothing of FUSE.
 */
#ifndef RNOTIFY_WATCH_WATCH_H
#define RNOTIFY_WATCH_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "event/event.h"

struct watch;

enum watch_backend {
	WATCH_AUTO,		/* fanotify, else inotify */
	WATCH_FANOTIFY,
	WATCH_INOTIFY,
};

/*
 * Resolves a directory file handle that open_by_handle_at() can no longer
 * decode (the directory is gone). Optional.
 */
typedef bool (*watch_resolve_fn)(void *arg, const void *handle, size_t len,
				 int type, struct rn_id *id);

/*
 * Is the object with this file handle one the consumer holds? 1 with its
 * *id; 0 if not; -EAGAIN if it cannot tell (then the watcher decodes the
 * handle). See watch_objects().
 */
typedef int (*watch_held_fn)(void *arg, const void *handle, size_t len,
			     int type, struct rn_id *id);

typedef void (*watch_emit_fn)(void *arg, const struct rn_event *ev);

struct watch_config {
	int backing_fd;		/* O_PATH|O_DIRECTORY fd of the export root */
	enum watch_backend backend;
	watch_resolve_fn resolve;
	void *resolve_arg;
};

/* NULL with errno set and a message (fuse_log) on failure. */
struct watch *watch_open(const struct watch_config *cfg);
void watch_close(struct watch *w);

/* Which backend was chosen: "fanotify" or "inotify". */
const char *watch_backend_name(const struct watch *w);

/*
 * The same in a phrase for --check and the log, starting with the
 * backend's name: what is marked, and what the host pays for.
 */
const char *watch_describe(const struct watch *w);

/*
 * Does the host keep the events not read yet, however many (fanotify's
 * FAN_UNLIMITED_QUEUE, until its memory runs out: then an overflow)?
 * inotify's queue is bounded: its reader had better read.
 */
bool watch_keeps_unread(const struct watch *w);

/*
 * Does w see every change made to the export on the host (a fanotify
 * filesystem mark on a local file system)? *why: the file system's name
 * if so, else why not. w may be NULL. See watch_coverage.c.
 */
bool watch_sees_all(const struct watch *w, int backing_fd, const char **why);

/* Poll this for POLLIN. */
int watch_fd(const struct watch *w);

/*
 * Reads what is ready without blocking and emits each event in host order.
 * Returns the number emitted, or a negative errno on a fatal error.
 */
int watch_read(struct watch *w, watch_emit_fn emit, void *arg);

/*
 * inotify fallback only: the file system brackets each change it makes to
 * the backing store (ended false before the syscall, true after), naming
 * (dir, name) or (object, ""), and the kinds of event it can cause
 * (RN_EV_BIT()s); host events it causes are not reported (own_expect.h).
 * fanotify ignores this: it filters by pid.
 */
/*
 * Which object ids the consumer reads. skip_kinds (RN_EV_BIT()s): kinds of
 * event whose object it names by no more than the gen of its handle
 * (rn_handle_gen()), so no id is looked for. held: the
 * consumer only reads the ids of objects it holds, and says which those
 * are: an object it holds gets the id held() gives (even once deleted
 * from the host), one it does not gets no id, only the gen of its handle
 * (rn_handle_gen()), and neither costs a syscall; the handle is opened
 * only when held() cannot tell. Without held (the default), every handle
 * is opened and an object already gone has no id, which replay relies
 * on. fanotify only: inotify's own-change filter needs every id. Called
 * before the first watch_read().
 *
 * A file's link count changes (a link made or removed, the file renamed
 * over), which the host reports to the file's own watchers only and so
 * with no directory, come as ATTRIB with link_count set: to such a
 * consumer for a file it holds, to any other for a file whose handle
 * still opens. True if it does (fanotify); an inotify watch of the
 * directories never sees them.
 */
bool watch_objects(struct watch *w, unsigned int skip_kinds,
		   watch_held_fn held, void *arg);

/*
 * For a consumer that acts on link counts of held files only (replay
 * drops their cached attributes, nothing else) but needs every other
 * object's id: a link count of a file held() says it does not hold is
 * dropped as it is read. A file unlinked outside the export, which the
 * filesystem mark reports, then costs no open_by_handle_at() and no
 * hand-over. fanotify only; not with watch_objects(), which covers it.
 */
void watch_link_counts(struct watch *w, watch_held_fn held, void *arg);

void watch_own_change(struct watch *w, const struct rn_id *id,
		      const char *name, unsigned int kinds, bool ended,
		      const struct stat *after);

#endif
