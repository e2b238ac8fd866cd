/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The end-to-end test library: everything a tests/e2e/t_*.c needs to run
 * one check against a real rnotifyfs mount.
 *
 *   mount    e2e_mount() makes BACKING and MNT on a tmpfs of their own
 *            (on a directory under /tmp), starts the server, waits until
 *            MNT is a fuse.rnotifyfs mount *and* a remote change reaches
 *            a watcher on MNT. Teardown runs at exit and on fatal
 *            signals. With RNOTIFY_NATIVE=1 there is no server: MNT is
 *            BACKING, so every expected event sequence is checked against
 *            the kernel's own truth.
 *   ops      a table of file operations (struct e2e_op) applied either by
 *            a forked "remote" child on BACKING (another pid, not through
 *            the mount) or by the test itself through MNT (a local change).
 *   events   inotify and fanotify readers that turn events into text by
 *            name: "CREATE|ISDIR d", "MOVED_FROM a", "f: ATTRIB" (the
 *            "f: " prefix is the label of the watch, when it has one).
 *   expect   e2e_expect() first reads as many events as the scenario
 *            expects, waiting up to 10 s for them to come by themselves
 *            (a last event held back until a next change fails here),
 *            then ends the scenario with a remote sentinel create and
 *            reads up to its CREATE: remote events are replayed in host
 *            order and local events are synchronous, so everything before
 *            the sentinel is the complete set. No sleeps: every wait is a
 *            poll() on a condition with a bound.
 *
 * Single-threaded. A forked child never runs the teardown (it checks the
 * owner pid), so the remote actor may exit any way it likes.
 */
#ifndef RNOTIFY_E2E_H
#define RNOTIFY_E2E_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/types.h>

#include "check.h"

/* Per-event wait before a check gives up and prints what did arrive. */
#define E2E_EVENT_TIMEOUT_MS 5000
/* The wait for a check's expected events, before its sentinel is made. */
#define E2E_EXPECT_WAIT_MS 10000

/*
 * The watch mask a typical watcher uses: every event except the read-side
 * noise (OPEN, ACCESS, CLOSE_NOWRITE), which issue 2 makes optional.
 */
#define E2E_MASK_DEFAULT (IN_ALL_EVENTS & ~(IN_OPEN | IN_ACCESS | \
					   IN_CLOSE_NOWRITE))

/* ---- checks (one output line each, counted by tests/run-all) ---- */

void e2e_pass(const char *check);
void e2e_fail(const char *check, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints an "INFO ..." line: figures, not counted as a check. */
void e2e_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- mount fixture ---- */

/*
 * Mounts (or, native, just makes the dirs); on failure prints FAIL, exits.
 * BACKING and the directory it is in are a tmpfs of their own, where
 * nothing changes but what the test changes: the fanotify watcher marks
 * the backing store's whole file system, and on /tmp's any change of
 * anyone wakes the server and would carry along an event that waits for
 * a next one. e2e_backing()'s parent is the test's, on the same tmpfs.
 */
void e2e_mount(const char *opts);
bool e2e_native(void);
/* The server's pid; 0 in native mode. */
pid_t e2e_server_pid(void);
const char *e2e_backing(void);
const char *e2e_mnt(void);
/* BACKING/rel and MNT/rel in one of 16 rotating static buffers. */
const char *e2e_bpath(const char *rel);
const char *e2e_mpath(const char *rel);
/* Waits until every earlier remote change has reached the mount. */
void e2e_sync(void);

/* ---- operations, remote (child on BACKING) or local (through MNT) ---- */

enum e2e_op_kind {
	E2E_END = 0,
	E2E_MKNOD,	/* path: mknod S_IFREG 0644 */
	E2E_CREAT,	/* path: open O_CREAT|O_EXCL|O_WRONLY, write arg, close */
	E2E_WRITE,	/* path: open O_WRONLY|O_TRUNC, write arg, close */
	E2E_APPEND,	/* path: open O_WRONLY|O_APPEND, write arg, close */
	E2E_OVERWRITE,	/* path: open O_WRONLY, write arg at 0, close */
	E2E_MKDIR,	/* path: mkdir 0755 */
	E2E_UNLINK,	/* path */
	E2E_RMDIR,	/* path */
	E2E_RENAME,	/* path -> arg */
	E2E_CHMOD,	/* path, num = mode */
	E2E_CHOWN,	/* path, num = uid and gid */
	E2E_UTIMES,	/* path, num = atime and mtime in seconds */
	E2E_TRUNCATE,	/* path, num = length */
	E2E_SYMLINK,	/* path = new link, arg = target */
	E2E_LINK,	/* path = existing, arg = new name */
	E2E_TOUCH,	/* path: as touch(1) makes a file (open, futimens) */
};

struct e2e_op {
	enum e2e_op_kind kind;
	const char *path;
	const char *arg;
	long num;
};

#define OP_END			{ E2E_END, NULL, NULL, 0 }
#define OP_MKNOD(p)		{ E2E_MKNOD, (p), NULL, 0 }
#define OP_CREAT(p, data)	{ E2E_CREAT, (p), (data), 0 }
#define OP_WRITE(p, data)	{ E2E_WRITE, (p), (data), 0 }
#define OP_APPEND(p, data)	{ E2E_APPEND, (p), (data), 0 }
#define OP_OVERWRITE(p, data)	{ E2E_OVERWRITE, (p), (data), 0 }
#define OP_MKDIR(p)		{ E2E_MKDIR, (p), NULL, 0 }
#define OP_UNLINK(p)		{ E2E_UNLINK, (p), NULL, 0 }
#define OP_RMDIR(p)		{ E2E_RMDIR, (p), NULL, 0 }
#define OP_RENAME(from, to)	{ E2E_RENAME, (from), (to), 0 }
#define OP_CHMOD(p, mode)	{ E2E_CHMOD, (p), NULL, (mode) }
#define OP_CHOWN(p, id)		{ E2E_CHOWN, (p), NULL, (id) }
#define OP_UTIMES(p, secs)	{ E2E_UTIMES, (p), NULL, (secs) }
#define OP_TRUNCATE(p, len)	{ E2E_TRUNCATE, (p), NULL, (len) }
#define OP_SYMLINK(p, target)	{ E2E_SYMLINK, (p), (target), 0 }
#define OP_LINK(p, newname)	{ E2E_LINK, (p), (newname), 0 }
#define OP_TOUCH(p)		{ E2E_TOUCH, (p), NULL, 0 }

/* Applies ops (up to E2E_END) under root/base; 0 or -errno of the first. */
int e2e_ops_apply(const char *root, const char *base,
		  const struct e2e_op *ops);
/* The same in a forked child on BACKING: a remote actor. */
int e2e_remote(const char *base, const struct e2e_op *ops);
/* The same in this process through MNT: a local change. */
int e2e_local(const char *base, const struct e2e_op *ops);
/* Starts fn(arg) in a forked child (the remote actor); returns its pid. */
pid_t e2e_remote_start(int (*fn)(void *arg), void *arg);
/* Waits (bounded) for a child from e2e_remote_start; 0 if it returned 0. */
int e2e_remote_wait(pid_t pid);

/* ---- event readers ---- */

#define E2E_EV_TEXT (NAME_MAX + 96)

struct e2e_ev {
	char text[E2E_EV_TEXT];	/* "label: MASK name", masks by name */
	char name[NAME_MAX + 1];
	uint64_t mask;		/* raw inotify or fanotify mask */
	uint32_t cookie;	/* inotify only; fanotify has none */
	int watch;		/* index of the watch, in order of adding */
};

struct e2e_reader;

struct e2e_reader *e2e_inotify_new(void);
/* Adds an inotify watch on path; label "" or NULL prints no prefix. */
int e2e_inotify_watch(struct e2e_reader *r, const char *label,
		      const char *path, uint32_t mask);
/* FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID reader. */
struct e2e_reader *e2e_fanotify_new(void);
/* Adds an inode mark on path; events are matched to it by dir handle. */
int e2e_fanotify_mark(struct e2e_reader *r, const char *label,
		      const char *path, uint64_t mask);
bool e2e_is_fanotify(const struct e2e_reader *r);
/* A mask by name, as in an event's text ("CREATE|ISDIR"), into buf. */
const char *e2e_mask_str(uint64_t mask, bool fanotify, char *buf,
			 size_t len);
/* 1: *ev filled; 0: nothing within timeout_ms; -1: read error. */
int e2e_next(struct e2e_reader *r, struct e2e_ev *ev, int timeout_ms);
void e2e_reader_free(struct e2e_reader *r);

/* ---- expectations ---- */

/* A growable list of events, for collecting up to a sentinel. */
struct e2e_evlist {
	struct e2e_ev *ev;
	int n, cap;
};

void e2e_evlist_free(struct e2e_evlist *l);
/* "[a, b, c]" into buf, for failure messages. */
const char *e2e_evlist_str(const struct e2e_evlist *l, char *buf,
			   size_t len);

/*
 * Creates a sentinel remotely in BACKING/sentinel_dir (a directory that r
 * watches) and collects every event before its CREATE into *got.
 * Returns 0, or -1 with a reason in why if the sentinel never came.
 */
int e2e_collect(struct e2e_reader *r, const char *sentinel_dir,
		struct e2e_evlist *got, char *why, size_t whylen);
/*
 * Reads events into *got until it holds n, with no sentinel: the caller
 * changes nothing meanwhile, so the last of them must come by itself.
 * Waits timeout_ms at most in all; 0 once n are there, else -1.
 */
int e2e_collect_n(struct e2e_reader *r, int n, int timeout_ms,
		  struct e2e_evlist *got);
/*
 * First reads n more events into *got, with no sentinel: up to
 * E2E_EXPECT_WAIT_MS for the n a check expects to come by themselves.
 * Then e2e_collect(): a sentinel, and every event before its CREATE.
 * Returns 0, or -1 with a reason in why: the sentinel never came, or
 * fewer than n events came before it was made (a held-back event that
 * only a later change released); *got holds every event read either way.
 */
int e2e_collect_expected(struct e2e_reader *r, const char *sentinel_dir,
			 int n, struct e2e_evlist *got, char *why,
			 size_t whylen);
/*
 * One check: want[] (a NULL-terminated list of texts) came by itself
 * (e2e_collect_expected()), the events up to the sentinel are exactly
 * want[], in order, and the rename cookies are right.
 */
bool e2e_expect(struct e2e_reader *r, const char *sentinel_dir,
		const char *check, const char *const *want);
/* Rename halves share a fresh non-zero cookie; NULL if fine, else why. */
const char *e2e_cookies_check(const struct e2e_evlist *l);
/* Waits for the event with this text; earlier events are kept in *seen. */
bool e2e_wait_for(struct e2e_reader *r, const char *text,
		  struct e2e_evlist *seen);

#endif
