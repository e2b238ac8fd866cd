/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shedding: keeping the inode table near its bound (t->max_inodes) by
 * asking the kernel to forget idle inodes, least recently used first.
 *
 * The kernel forgets an inode once its last dentry goes: a
 * FUSE_NOTIFY_INVAL_ENTRY for each name it was shown under drops an
 * unused dentry, the inode is evicted and its FORGET frees ours. Only
 * files are shed (invalidating a directory's dentry detaches mounts below
 * it and strands working directories), and only idle ones: an open file
 * holds a reference (file_ops.c), and an unhashed open file would show as
 * "(deleted)" in /proc/PID/fd. A watched file keeps its inode in the
 * kernel, so no FORGET comes: once the shedder has waited for it, it
 * counts again, marked shed_kept, and is not asked for again until it is
 * looked up again.
 *
 * The notification takes the directory's lock in the kernel, so it is
 * never sent from a request handler: one thread, started when the session
 * is served and stopped while it still serves, sends them in batches.
 * When that thread falls behind, handlers that gave the kernel a new inode
 * wait for it after their reply (shed_throttle.c).
 */
#ifndef RNOTIFY_FS_SHED_H
#define RNOTIFY_FS_SHED_H

#include <stddef.h>
#include <stdint.h>

#include "inode_table.h"

#define FS_SHED_NAMES 256	/* names a batch */
#define FS_SHED_BYTES 16384	/* their bytes, NULs included */
#define FS_SHED_WALK 4096	/* idle inodes looked at a batch */

struct fs_shed_name {
	uint64_t parent;
	uint32_t off;		/* in buf */
};

struct fs_shed_batch {
	size_t n;		/* names */
	size_t used;		/* bytes of buf */
	struct fs_shed_name name[FS_SHED_NAMES];
	char buf[FS_SHED_BYTES];
};

/*
 * Table lock held: picks up to want idle files, least recently used
 * first, marks them shed_sent and puts their names in b. Idle inodes
 * looked at and passed over go to the head of their list, so that the
 * next batch looks at others. Returns the number of files picked.
 */
size_t fs_shed_pick_locked(struct fs_table *t, size_t want,
			   struct fs_shed_batch *b);

/*
 * After a reply with an entry the kernel did not hold: waits, at most ms,
 * until the shedder sends a name if the table is past its bound by
 * 1/FS_SHED_THROTTLE_OVER of it and the shedder has names to send. 0
 * (also if no wait was needed) or -ETIMEDOUT.
 */
int fs_shed_throttle(struct fs_table *t, unsigned int ms);
/*
 * Table lock held, called once the shedder has waited a while with
 * nothing new: the idle files asked for whose FORGET has still not come
 * are kept by the kernel (a watch holds the inode). They count again
 * (t->shed_pending no longer has them) and are marked shed_kept, so that
 * they are not asked for again until a lookup hands them out. Returns
 * how many. A FORGET that was only late still frees its inode.
 */
unsigned long fs_shed_keep_lingering_locked(struct fs_table *t);

/* The shedder picked n names (table lock held), sent one (not held). */
void fs_shed_picked_locked(struct fs_table *t, size_t n);
void fs_shed_sent(struct fs_table *t);

#define FS_SHED_THROTTLE_OVER 4		/* a quarter of the bound */
/*
 * Under serve_loop.c's 5 ms tick: a longer wait counts there as a stalled
 * request and starts another worker. Twice as long a wait made the
 * loaded memcg test start up to ten workers, and the memory they took
 * outweighed what the wait saved.
 */
#define FS_SHED_THROTTLE_MS 4

struct fs;

/* The shedder thread of fs; 0 or a negative errno. */
int fs_shed_start(struct fs *fs);
/* Stops it (if running); the session must still be served. */
void fs_shed_stop(struct fs *fs);

#endif
