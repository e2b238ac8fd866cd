/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals shared by the replay files.
 *
 * Threads: the replayer is whichever pump thread holds the event queue's
 * consumer role (event_queue_claim()); it alone performs replays, one at
 * a time, and alone writes r->expect, r->writers, r->last_modified and
 * r->stats. The role passes between threads under the queue's lock, which
 * orders these fields between one holder and the next. FUSE worker
 * threads read r->expect from the gate while the replayer is blocked in
 * the syscall that caused their request; r->lock orders the two. The gate
 * returns at once, without the lock, for any request that is not the
 * replayer's: r->tid (and r->gate_uid, unless (uid_t)-1) is whom the table of
 * system calls names as their caller (replay_sys.h), written when a
 * thread takes the role and before its first call; r->refresh_tid, the
 * caller of a refresh after a turn, under r->refresh_lock.
 *
 * The replayer never runs inside a FUSE handler, and a handler never waits
 * for the replayer: a client request may hold a directory lock that a
 * replay needs, and the replay's request must then still be served.
 */
#ifndef RNOTIFY_DELIVER_REPLAY_REPLAY_INTERNAL_H
#define RNOTIFY_DELIVER_REPLAY_REPLAY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "deliver/common/mount_cwd.h"
#include "deliver/common/overflow_log.h"
#include "replay.h"
#include "replay_sys.h"

/* One of the replay's system calls, through r's table (replay_sys.h). */
#define RSYS(r, call, ...) ((r)->sys->call((r)->sys_arg, ##__VA_ARGS__))

/* What the replay in flight will ask of the file system. */
struct replay_expect {
	bool active;
	enum fs_gate_op op;	/* the changing op; LOOKUP/OPEN: none */
	uint64_t parent;
	char name[NAME_MAX + 1];
	uint64_t newparent;
	char newname[NAME_MAX + 1];
	uint64_t node;		/* SETATTR, OPEN, WRITE target */
	int name_lookup_err;	/* 0: answer the old entry, else this error */
	int newname_lookup_err;	/* 0: answer the shown entry, else this */
	/* What name and newname name if not shown: a known node, or 0. */
	uint64_t name_node;
	uint64_t newname_node;
	struct stat st;		/* answer for lookups and creations */
};

/* An object on the mount, named by its FUSE node. */
struct replay_node {
	uint64_t id;		/* FUSE node id */
	uint32_t gen;
};

/* Directories whose attributes the client must fetch again. */
#define REPLAY_STALE_MAX 3
struct replay_stale {
	struct replay_node nodes[REPLAY_STALE_MAX];
	int n;
};

/* A file the replayer keeps open for writing until the host writer closes. */
struct replay_writer {
	uint64_t node;
	int fd;
};

#define REPLAY_MAX_WRITERS 64

struct replay {
	struct fs *fs;
	struct event_queue *queue;
	struct cpu_pin *pin;
	char *mountpoint;		/* NULL for another machine's */
	const struct replay_sys *sys;	/* the system calls, on sys_arg */
	void *sys_arg;
	struct mount_cwd mount;		/* replay_sys_local's arg: path, dev */
	bool no_notify;			/* replay_config's */
	bool private_mounts;
	struct session_io *session;
	uid_t uid;			/* ours, for stand-in attributes */
	gid_t gid;
	_Atomic pid_t tid;		/* the replayer thread */
	_Atomic pid_t refresh_tid;	/* a refresh's (replay_stale.c), or -1 */
	_Atomic uid_t gate_uid;		/* and their requests' uid, or -1 */
	pthread_mutex_t lock;		/* orders expect with the gate */
	struct replay_expect expect;
	struct replay_writer writers[REPLAY_MAX_WRITERS];
	int nwriters;
	uint64_t last_modified;		/* node of the last replay if a MODIFY */
	struct replay_stale stale;	/* dirs the replay just done changed */
	/*
	 * Held by a refresh of stale dirs, which runs after its turn and
	 * holds them open, and by the replay of a directory's removal:
	 * removed while another holds it, a directory tells its watchers
	 * DELETE_SELF only once that one lets go, after the parent's
	 * DELETE instead of before it.
	 */
	pthread_mutex_t refresh_lock;
	struct replay_stats stats;	/* replayer only until the pump stops */
	struct overflow_log overflows;	/* as stats */
	atomic_bool abandon;		/* replay_abandon() was called */
	atomic_ulong read_at_stop;	/* read after it: dropped at once */
};

/* Cache invalidations, unless the client takes none. */
static inline void replay_inval_inode(struct replay *r, uint64_t node)
{
	if (!r->no_notify)
		fs_inval_inode(r->fs, node);
}

static inline void replay_inval_entry(struct replay *r, uint64_t parent,
				      const char *name)
{
	if (!r->no_notify)
		fs_inval_entry(r->fs, parent, name);
}

/*
 * A replay's syscall on a name the host removed after it (an unlink,
 * rmdir or rename of it, or an open of what it named) failed with
 * ENOENT: the gate answers every lookup of the name a replay announces,
 * so the kernel answered by itself, from a missing name it keeps
 * (fs/cache_policy.c). That entry came from a lookup made after the host
 * had removed the name but before this replay, while the kernel held no
 * entry for it (its dentry reclaimed, or a stand-in's timed out).
 * Whether it is gone now, for the syscall to be made once more: dropped
 * here, or already pruned by the kernel (an unused entry can go at any
 * time, and the drop then finds nothing). Meanwhile no lookup leaves a
 * new one, as the gate keeps no missing name a replay announces
 * (replay_gate.c).
 */
static inline bool replay_drop_kept_missing(struct replay *r,
					    uint64_t parent, const char *name)
{
	if (r->no_notify)
		return false;
	fs_inval_entry(r->fs, parent, name);
	return true;
}

/* replay_gate.c */
void replay_gate(void *arg, const struct fs_gate_query *q,
		 struct fs_gate_answer *a);
void replay_expect_set(struct replay *r, const struct replay_expect *e);
void replay_expect_clear(struct replay *r);

/* replay_writers.c */
/* The fd held open for writing node, or -ENOENT if none is. */
int replay_writer_find(struct replay *r, uint64_t node);
int replay_writer_hold(struct replay *r, uint64_t node, int fd);
void replay_writer_close(struct replay *r, uint64_t node);
void replay_writer_close_all(struct replay *r);

/* replay_stale.c */
void replay_stale_add(struct replay_stale *s, const struct replay_node *dir);
void replay_stale_move(struct replay_stale *to, struct replay_stale *from);
/*
 * Stats each node of s through the mount (the working directory), under
 * r->refresh_lock, as r->refresh_tid.
 */
void replay_stale_refresh(struct replay *r, struct replay_stale *s);

/* replay_target.c: naming objects on the mount */
bool replay_known_node(struct replay *r, const struct rn_id *id,
		       struct replay_node *n);
bool replay_shown_node(struct replay *r, uint64_t parent, const char *name,
		       struct replay_node *n);
/* how: REPLAY_OPEN_* */
int replay_node_open(struct replay *r, const struct replay_node *n,
		     int how);
/*
 * A directory, to replay in, while the turn is this thread's (it may
 * announce a lookup to the gate); not for the refresh after a turn.
 */
int replay_dir_open(struct replay *r, const struct replay_node *dir);
bool replay_name_is_live(struct replay *r, uint64_t parent,
			 const char *name, uint64_t node);
void replay_fake_stat(const struct replay *r, const struct rn_event *ev,
		      bool isdir, struct stat *st);
bool replay_object_stat(struct replay *r, uint64_t parent,
			const struct rn_event *ev, const char *name,
			struct stat *st);

/*
 * One function per event kind (replay_names.c, replay_content.c): 1
 * replayed, 0 skipped, a negative errno on failure. opens: the next
 * event is the first MODIFY or CLOSE_WRITE of the file ev creates
 * (replay.c knows the queue).
 */
int replay_create(struct replay *r, const struct rn_event *ev, bool opens);
int replay_delete(struct replay *r, const struct rn_event *ev);
int replay_move(struct replay *r, const struct rn_event *ev);
int replay_modify(struct replay *r, const struct rn_event *ev);
int replay_attrib(struct replay *r, const struct rn_event *ev);
int replay_close_write(struct replay *r, const struct rn_event *ev);

#endif
