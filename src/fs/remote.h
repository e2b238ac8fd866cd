/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seam between delivery and the file system: all that deliver/ uses
 * of fs/. The file system knows nothing of delivery. It asks one
 * question of the outside world, through the gate below, for requests
 * that might be a replay: "is this request yours, and what is its
 * answer?" Everything else it serves from the backing store. Delivery in
 * turn asks what the client was shown, tells the kernel what changed,
 * and hears of the file system's own changes (the change hook).
 */
#ifndef RNOTIFY_FS_REMOTE_H
#define RNOTIFY_FS_REMOTE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "event/event.h"
#include "fs.h"

/* Requests the gate is asked about, and only when they carry these ops. */
enum fs_gate_op {
	FS_GATE_LOOKUP,		/* parent, name */
	FS_GATE_MKNOD,		/* parent, name (mknod of any type) */
	FS_GATE_MKDIR,		/* parent, name */
	FS_GATE_SYMLINK,	/* parent, name */
	FS_GATE_LINK,		/* nodeid (existing), parent, name (new) */
	FS_GATE_UNLINK,		/* parent, name */
	FS_GATE_RMDIR,		/* parent, name */
	FS_GATE_RENAME,		/* parent, name, newparent, newname, flags */
	FS_GATE_SETATTR,	/* nodeid (any setattr) */
	FS_GATE_OPEN,		/* nodeid */
	FS_GATE_WRITE,		/* nodeid */
	FS_GATE_CREATE,		/* parent, name (an open that creates) */
};

struct fs_gate_query {
	enum fs_gate_op op;
	pid_t tid;		/* fuse_req_ctx(req)->pid: the caller's thread */
	uid_t uid;		/* fuse_req_ctx(req)->uid */
	uint64_t parent;	/* node id */
	const char *name;
	uint64_t newparent;	/* node id, RENAME only */
	const char *newname;	/* RENAME only */
	unsigned int flags;	/* RENAME only */
	uint64_t nodeid;	/* SETATTR, OPEN, WRITE */
};

enum fs_gate_verdict {
	/* Not the gate's request: serve it normally. */
	FS_GATE_PASS,
	/* Reply with error answer.err; change nothing. */
	FS_GATE_ERR,
	/*
	 * LOOKUP: reply with the node the client was last shown under
	 * (parent, name) if it still has one, else with an entry built from
	 * answer.st (a "ghost" when the backing object is gone).
	 * MKNOD, MKDIR, SYMLINK: reply with an entry for the backing object
	 * (parent, name) if it exists, has the file type of answer.st and
	 * (when answer.st.st_ino is not 0) that inode number; else a ghost
	 * built from answer.st (st_ino 0: a fresh ghost of its own).
	 * CREATE: the same entry, opened with no backing file and direct_io,
	 * as for OPEN_DIRECT below.
	 * LINK: reply with an entry for node id under (parent, name); the
	 * backing store is not touched.
	 * UNLINK, RMDIR, RENAME: reply success and update what the client has
	 * been shown; the backing store is not touched.
	 * SETATTR: reply the node's current attributes (answer.st if the
	 * backing object is gone); change nothing.
	 * WRITE: reply that all bytes were written; write nothing.
	 */
	FS_GATE_ANSWER,
	/*
	 * OPEN: open normally, but with direct_io so writes come to us; a
	 * node whose backing object is gone is opened with no backing file
	 * (the gate answers whatever the opener does with it).
	 */
	FS_GATE_OPEN_DIRECT,
};

struct fs_gate_answer {
	enum fs_gate_verdict verdict;
	int err;
	struct stat st;
	/*
	 * LOOKUP answered: the replayed op removes this name (an unlink, or
	 * a rename over it). The kernel drops one link of what it was shown
	 * when the op succeeds, so a file still alive on the host is shown
	 * with one link more than it has now, and keeps the right count.
	 */
	bool removes;
	/*
	 * LOOKUP answered, where the client holds no entry for the name: the
	 * node it names (a hard link of one the client holds under another
	 * name), 0 if none is known. The kernel may have forgotten every
	 * name of a file it then looked up again by one of them only.
	 */
	uint64_t node;
	/*
	 * LOOKUP passed: a replay in flight acts on this name, so an answer
	 * that it is missing must not be kept (entry_ops.c).
	 */
	bool replayed_name;
	/*
	 * LOOKUP served normally for the replayer, outside what a replay
	 * announced (a path walk, the kernel reconnecting a directory's
	 * handle): ENOENT leaves the name shown, and is not kept as
	 * missing. The name goes with the replay of the event that removed
	 * it, which reaches the object by that name.
	 */
	bool keeps_shown;
};

typedef void (*fs_gate_fn)(void *arg, const struct fs_gate_query *q,
			   struct fs_gate_answer *a);

/* Installs the gate; without one every request is served normally. */
void fs_set_gate(struct fs *fs, fs_gate_fn fn, void *arg);

/*
 * Brackets each change the file system itself makes to the backing store:
 * called with ended false before the syscall and true after it, naming
 * (dir, name) for a change to a name or (object, "") for one to an
 * object, and the kinds of event it can cause (RN_EV_BIT()s), so that a
 * watcher which cannot filter by pid (inotify) can skip the host events it
 * causes. after: once a change ended, the stat of the object (or of the
 * object now at the name), so that a later outside change can be told
 * from it; else NULL. Optional.
 */
typedef void (*fs_change_fn)(void *arg, const struct rn_id *id,
			     const char *name, unsigned int kinds,
			     bool ended, const struct stat *after);
void fs_set_change_hook(struct fs *fs, fs_change_fn fn, void *arg);

/* The export root, open O_PATH|O_DIRECTORY on the backing store. */
int fs_backing_fd(const struct fs *fs);

/*
 * The node id and generation the kernel knows for a host object; false if
 * the kernel holds no reference to it (it was never looked up, or it has
 * been forgotten). The root is FUSE_ROOT_ID.
 */
bool fs_node_of(struct fs *fs, const struct rn_id *id, uint64_t *nodeid,
		uint32_t *generation);

/*
 * fstatat() of (parent node, name) on the backing store, without following
 * a symlink: 0 or a negative errno.
 */
int fs_backing_statat(struct fs *fs, uint64_t parent, const char *name,
		      struct stat *st);

/* The host id behind a node id; false if unknown. */
bool fs_id_of(struct fs *fs, uint64_t nodeid, struct rn_id *id);

/*
 * Does the kernel still hold a reference to the node, and with which
 * generation? Also for a ghost, which has no host id.
 */
bool fs_node_live(struct fs *fs, uint64_t nodeid, uint32_t *generation);

/*
 * Was the client shown (parent, name), and as which node? A positive
 * answer means the kernel may hold a dentry for it.
 */
bool fs_name_shown(struct fs *fs, uint64_t parent, const char *name,
		   uint64_t *nodeid);

/* A name the client was shown: (parent, name). */
struct fs_name_buf {
	uint64_t parent;
	char name[NAME_MAX + 1];
};

/*
 * One name the client was shown for the node, in a directory the kernel
 * still knows; false if none.
 */
bool fs_name_of(struct fs *fs, uint64_t nodeid, struct fs_name_buf *b);

/*
 * Cache coherence, called from outside FUSE request handlers only (they
 * write to /dev/fuse and the kernel may take inode locks).
 * Return 0 or a negative errno (-ENOENT when the kernel never knew it).
 */
int fs_inval_inode(struct fs *fs, uint64_t nodeid);
int fs_inval_entry(struct fs *fs, uint64_t parent, const char *name);

/*
 * Whether the host watch sees every change of the export, and each is
 * invalidated before its event is delivered: the kernel then keeps names
 * and attributes until invalidated, where cache_policy.c allows. Set
 * before the session serves its first request after INIT; logs which
 * timeouts apply, and why (the file system's name, or why not).
 */
void fs_cache_coherent(struct fs *fs, bool coherent, const char *why);

/*
 * Remote events were lost: the kernel drops every name, attribute and
 * page it holds (as fs_inval_*(), from outside request handlers).
 */
void fs_cache_drop_all(struct fs *fs);

/*
 * Tells the kernel that (parent, name), which it knows as child, is gone
 * (FUSE_NOTIFY_DELETE: dentry dropped, nlink cleared; a kernel with the
 * rnotify series reports DELETE and DELETE_SELF). 0, or a negative errno:
 * -ENOENT when the kernel holds no such entry.
 */
int fs_notify_delete(struct fs *fs, uint64_t parent, uint64_t child,
		     const char *name);

/* The kernel dropped (parent, name): it is no longer shown. */
void fs_name_forget(struct fs *fs, uint64_t parent, const char *name);

/*
 * The entry a LOOKUP of (parent, name) would reply, for a notification
 * that pushes it to the kernel: counts one kernel reference to the child
 * and records the name as shown. Only if the name still leads to the
 * object id names (by host id, or by the gen of its handle if it has
 * none). 0, or a negative errno and nothing counted.
 */
int fs_entry_push(struct fs *fs, uint64_t parent, const char *name,
		  const struct rn_id *id, struct fuse_entry_param *e);

/* The kernel refused a pushed entry: it took no reference after all. */
void fs_entry_push_undo(struct fs *fs, uint64_t parent, const char *name,
			uint64_t nodeid);

/* fstat() of the backing object behind a node id: 0 or a negative errno. */
int fs_node_stat(struct fs *fs, uint64_t nodeid, struct stat *st);

/*
 * Maps a host file handle (as fanotify reports it) of a directory the
 * client knows to its host id, even after the directory has been removed
 * from the backing store. False if it was never known, or known only
 * through a mount inside the export (another file system's handles may
 * look alike).
 */
bool fs_resolve_dir_handle(struct fs *fs, const void *handle, size_t len,
			   int type, struct rn_id *id);

/*
 * The host moved a directory out of the export: each object the client
 * holds is placed again before it is next served, and one that is now
 * outside is answered ESTALE (boundary.c).
 */
void fs_boundary_moved(struct fs *fs);

/*
 * Does the client hold the object with this host file handle? 1 with its
 * host id; 0 if it does not; -EAGAIN if the server cannot tell without
 * decoding the handle. No syscall.
 */
int fs_held_handle(struct fs *fs, const void *handle, size_t len, int type,
		   struct rn_id *id);

/*
 * Is a host CLOSE_WRITE of object id the close of a backing file that
 * the kernel opened for a writer on the mount (passthrough.h)? Counts it.
 * fs_passthrough_closes_taken(): the caller will ask this of every host
 * CLOSE_WRITE from now on; until then no close is expected.
 */
void fs_passthrough_closes_taken(struct fs *fs);
bool fs_passthrough_backing_close(struct fs *fs, const struct rn_id *id);

#endif
