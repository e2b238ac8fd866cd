/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inotify backend's state, shared by its two files: inotify_watch.c
 * reads the queue and turns records into events, inotify_tree.c keeps a
 * watch on every directory of the export.
 *
 * Locks: expect_lock protects expect, the only state FUSE worker threads
 * touch (inotify_watch_own_change()). Everything else belongs to the
 * thread that calls inotify_watch_read() (and to inotify_watch_open()
 * before it).
 */
#ifndef RNOTIFY_WATCH_INOTIFY_WATCH_INTERNAL_H
#define RNOTIFY_WATCH_INOTIFY_WATCH_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/inotify.h>

#include "inotify_decode.h"
#include "inotify_dirs.h"
#include "own_expect.h"
#include "watch.h"

#define INOTIFY_SCANNED_MAX 1024
#define INOTIFY_BUF 65536

struct inotify_name {
	int wd;
	uint32_t cookie;
	bool isdir;
	char name[NAME_MAX + 1];
};

struct inotify_watch {
	int fd;
	int root_fd;		/* not owned */
	int root_wd;
	struct inotify_dirs dirs;
	pthread_mutex_t expect_lock;
	struct own_expect expect;	/* under expect_lock */
	bool from_set;
	bool from_waited;	/* its partner was waited for */
	struct inotify_name from;	/* a held IN_MOVED_FROM */
	size_t nscanned;	/* names a scan reported: inotify_tree.c */
	struct inotify_name scanned[INOTIFY_SCANNED_MAX];
	watch_emit_fn emit;
	void *arg;
	int emitted;
	unsigned int errors;
	struct inotify_record recs[INOTIFY_BUF / sizeof(struct inotify_event)];
	char buf[INOTIFY_BUF] __attribute__((aligned(8)));
};

/* inotify_watch.c */
void inotify_emit(struct inotify_watch *w, struct rn_event *ev,
		  enum rn_event_kind kind);
/* Is an event of kind on (dir, name) one of the server's own changes? */
bool inotify_own(struct inotify_watch *w, const struct rn_id *dir,
		 const char *name, enum rn_event_kind kind);

/* inotify_tree.c */
/*
 * Watches the directory name in parent_wd ("" in -1: the export root)
 * and everything below it; report: emit CREATE for what is found there.
 * Returns the top's wd, or a negative errno if the top could not be
 * opened or watched.
 */
int inotify_add_tree(struct inotify_watch *w, int parent_wd, const char *name,
		     bool report);
/* The directory name in wd left the export: stop watching its subtree. */
void inotify_dir_left(struct inotify_watch *w, int wd, const char *name);
/*
 * Was (wd, name) reported as CREATE by a scan since the queue was last
 * drained? Forgets it if so: its queued IN_CREATE is not news.
 */
bool inotify_scanned_consume(struct inotify_watch *w, int wd, const char *name);

#endif
