/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmfs - the in-memory FUSE server of the VM tests.  It runs in a thread
 * of the test program, so a test changes the file system "remotely" (not
 * through the mount) with a plain function call and then sends the kernel
 * the notification a real server would send.
 *
 * It talks to /dev/fuse through libfuse's custom I/O hooks so that it can
 * see every frame before libfuse does: it answers FUSE_FSNOTIFY itself
 * (libfuse 3.14 would answer ENOSYS; a test can have it hold the answers),
 * records each mask it gets, and turns
 * the remote-fsnotify extension on at INIT by setting FUSE_HAS_FSNOTIFY in
 * libfuse's INIT reply when the test asked for it and the kernel offered it.
 *
 * Locking: one mutex guards the node table and the watch log; the
 * condition variable is signalled on every recorded watch update.  No
 * function that writes to /dev/fuse is called with the mutex held (the
 * kernel may call back into the server while it handles a notification).
 */
#ifndef VMFS_H
#define VMFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vmfs_opts {
	bool fsnotify;		/* accept FUSE_HAS_FSNOTIFY at INIT */
	bool export_support;	/* FUSE_CAP_EXPORT_SUPPORT (sb marks) */
	/*
	 * mount without remote_events: inotify and dnotify get none (always
	 * so below posting 3, whose kernel has no such option: vm_posting())
	 */
	bool no_remote_events;
};

/*
 * Mount a fresh file system on mnt and serve it from a thread; returns
 * once INIT is answered.  The root is node 1 with generation 0 (the
 * kernel never learns the root's generation).
 */
int vmfs_start(const char *mnt, const struct vmfs_opts *opts);

/* Unmount, stop the thread, free everything. */
void vmfs_stop(void);

/* Remote changes: the table changes, the kernel is not told. */
int vmfs_remote_create(uint64_t parent, const char *name, mode_t mode,
		       uint64_t *nodeid);
int vmfs_remote_remove(uint64_t parent, const char *name, uint64_t *nodeid);

/* Node id and generation of parent/name, 0 if none. */
int vmfs_node(uint64_t parent, const char *name, uint64_t *nodeid,
	      uint64_t *generation);

/* FUSE_NOTIFY_DELETE through libfuse; returns 0 or -errno. */
int vmfs_notify_delete(uint64_t parent, uint64_t child, const char *name);

/*
 * Send one FUSE_NOTIFY_FSNOTIFY built by the codec; returns 0, the
 * codec's -EINVAL for a frame it refuses to build, or -errno of write().
 */
int vmfs_send_event(uint64_t nodeid, uint64_t generation, uint32_t mask,
		    uint32_t cookie, const char *name);

/*
 * An object event (mask) on child name of directory parent, pushed with
 * the child's entry (no LOOKUP); the child's lookup count goes up by one
 * unless the kernel refuses it.  Returns 0, -ENOENT if there is no such
 * child, the codec's -EINVAL, or -errno of write().
 */
int vmfs_send_push(uint64_t parent, uint64_t generation, uint32_t mask,
		   const char *name);

/*
 * For tests that need many nodes (up to 131,072): count new nodes named
 * prefix0, prefix1, ... in directory parent, with node ids from *first
 * on.  The names must be new: unlike vmfs_remote_create(), this does not
 * look (which would take time quadratic in the count).
 */
int vmfs_remote_create_many(uint64_t parent, const char *prefix,
			    unsigned int count, mode_t mode, uint64_t *first);

/* vmfs_send_push() for the node nodeid, found by id rather than by name. */
int vmfs_send_push_node(uint64_t nodeid, uint32_t mask);

/* Remote rename of parent/name to newparent/newname (replacing a file). */
int vmfs_remote_rename(uint64_t parent, const char *name,
		       uint64_t newparent, const char *newname);

/*
 * FUSE_FSNOTIFY_RENAME from (parent, name) to (newparent, newname), with
 * the entry of the child now at the new place; its lookup count goes up
 * by one unless the kernel refuses it. 0, -ENOENT if there is no such
 * child, the codec's -EINVAL, or -errno of write().
 */
int vmfs_send_rename(uint64_t parent, uint64_t generation, const char *name,
		     uint64_t newparent, uint64_t newgeneration,
		     const char *newname);

/*
 * The same frame, only encoded into buf (for tests that spoil it before
 * writing it with vmfs_write_frame()); nothing is counted. Its length or
 * a negative errno.
 */
int vmfs_encode_rename(uint64_t parent, uint64_t generation,
		       const char *name, uint64_t newparent,
		       uint64_t newgeneration, const char *newname,
		       void *buf, size_t size);

/*
 * The same two with the rename's MOVED_FROM and MOVED_TO in the frame
 * too, with cookie (kernel: fuse 7/9); cookie 0: as the two above.
 */
int vmfs_send_move(uint64_t parent, uint64_t generation, const char *name,
		   uint64_t newparent, uint64_t newgeneration,
		   const char *newname, uint32_t cookie);
int vmfs_encode_move(uint64_t parent, uint64_t generation, const char *name,
		     uint64_t newparent, uint64_t newgeneration,
		     const char *newname, uint32_t cookie, void *buf,
		     size_t size);

/* A remote change of a file's size: the table changes, nothing is sent. */
int vmfs_remote_resize(uint64_t nodeid, off_t size);

/* Number of LOOKUP requests answered so far. */
unsigned int vmfs_lookup_count(void);

/*
 * Wait up to timeout_ms for the lookups the kernel holds on nodeid
 * (entries replied or pushed, minus FORGETs) to be want; *got is the
 * count at the end.
 */
bool vmfs_wait_nlookup(uint64_t nodeid, uint64_t want, int timeout_ms,
		       uint64_t *got);

/* Write one raw frame to /dev/fuse; returns 0 or -errno of write(). */
int vmfs_write_frame(const void *buf, size_t len);

/* Did the kernel offer FUSE_HAS_FSNOTIFY, and is it on? */
bool vmfs_kernel_offered(void);
bool vmfs_fsnotify_on(void);

/* Number of FUSE_FSNOTIFY requests seen so far. */
unsigned int vmfs_watch_count(void);

/*
 * From now on, record FUSE_FSNOTIFY requests but leave them unanswered
 * (up to VMFS_HELD of them), until vmfs_release_watch_replies() answers
 * them, in order, and stops holding; false if a reply failed.
 */
#define VMFS_HELD 8
void vmfs_hold_watch_replies(void);
bool vmfs_release_watch_replies(void);

/*
 * From now on, record FUSE_FSNOTIFY requests and never answer them, however
 * many come: a stalled or hostile server (t_proto_stall).
 */
void vmfs_drop_watch_replies(void);

/*
 * Wait up to timeout_ms for the latest mask recorded for nodeid/flags to
 * satisfy (mask & want_set) == want_set and (mask & want_clear) == 0.
 * Returns true on success, with the mask in *mask.
 */
bool vmfs_wait_mask(uint64_t nodeid, uint32_t flags, uint64_t want_set,
		    uint64_t want_clear, int timeout_ms, uint64_t *mask);

#endif
