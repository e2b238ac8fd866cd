/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * rnotify_proto.h - the remote-fsnotify extension of the FUSE protocol,
 * as the server sees it.  This is the single source of truth for the
 * server; kernel/patches declare the same numbers and structures in
 * include/uapi/linux/fuse.h, and tests/unit/test_proto_header.c fails if
 * the two ever disagree.
 *
 * The exchange:
 *
 *  1. INIT: a patched kernel offers FUSE_HAS_FSNOTIFY in the 64-bit INIT
 *     flags (it lives in flags2, so FUSE_INIT_EXT must be set too).  The
 *     server turns the extension on by returning the flag; otherwise the
 *     kernel behaves exactly as a stock one.
 *
 *  2. FUSE_FSNOTIFY request (kernel -> server), nodeid in the in-header:
 *     the combined mask of every local inotify/fanotify mark on that
 *     object (FUSE_FSNOTIFY_INODE), or of every filesystem-wide mark on the
 *     mount (FUSE_FSNOTIFY_FILESYSTEM, nodeid = FUSE_ROOT_ID).  A mask of 0
 *     means "stop watching".  Updates are coalesced: only the latest mask
 *     per object matters.  The generation is the node's, so that a mask
 *     that arrives after the node was forgotten (mask 0 from an eviction
 *     races with FORGET) cannot touch a new object that reused the nodeid.
 *     The server answers with an empty reply (or an error, which the
 *     kernel ignores).  Mask bits it does not know, from a newer kernel
 *     (as FUSE_FSNOTIFY_RENAME was once new), it ignores and keeps the
 *     rest: refusing the update would lose the node's whole mask.
 *
 *  3. FUSE_NOTIFY_FSNOTIFY notification (server -> kernel; out-header
 *     unique = 0, error = FUSE_NOTIFY_FSNOTIFY), a struct
 *     fuse_notify_fsnotify_out followed by exactly namelen bytes of name,
 *     not NUL-terminated (the frame length says where it ends, so a NUL
 *     would only be a second, conflicting length).
 *     - namelen == 0: an event on the object nodeid itself (MODIFY, ATTRIB,
 *       CLOSE_WRITE, DELETE_SELF, MOVE_SELF, ...); the kernel also reports
 *       it to watchers of the object's parent, with the name, as it does
 *       for a local event.  With FUSE_FSNOTIFY_NO_PARENT in flags (kernel
 *       fuse 6/9) it goes to the object's own watchers only, as a local
 *       change of the link count does (a link made or removed, a file
 *       renamed over); the flag with a name is EINVAL.
 *     - namelen > 0: a directory-entry event (CREATE, DELETE, MOVED_FROM,
 *       MOVED_TO, optionally with ISDIR) in directory nodeid.
 *     - namelen > 0 with an object event (MODIFY, ATTRIB, CLOSE_WRITE,
 *       ...): the event is on child NAME of directory nodeid, which the
 *       kernel need not hold, and the name is followed by a struct
 *       fuse_entry_out for the child (128 bytes: nodeid, generation,
 *       validity, attributes), exactly as a LOOKUP reply gives it; ISDIR
 *       must match the entry's mode.  The kernel links the child as
 *       READDIRPLUS does (a dentry that already names that inode just
 *       gets the attributes) and delivers the event on it as for a
 *       local one, so inotify, fanotify FID/DFID_NAME and filesystem
 *       marks see the child itself.  No LOOKUP round trip.
 *       Reference counting: the server counts one lookup of the child
 *       before sending.  If the notification succeeds (write() returns
 *       the length) the kernel holds that lookup and will FORGET it; if
 *       it fails, with any error, the kernel took none and the server
 *       drops its count again.  An entry nodeid of 0, the root or the
 *       directory itself, an entry with no valid file type or a size
 *       past INT64_MAX, ISDIR not matching, or a frame whose length is
 *       neither fixed part + namelen + 128 nor, for a child event,
 *       fixed part + namelen: EINVAL.
 *     - namelen > 0 with a child event (FUSE_FSNOTIFY_CHILD_EVENTS) and
 *       no entry (kernel fuse 6/9): the same event by name alone, for a
 *       child the kernel does not hold.  No lookup is counted.  The
 *       kernel reports it to the directory's watchers that need only the
 *       name (inotify, dnotify) as a local event on an unheld child
 *       reaches them.  If a watcher needs the child itself (fanotify
 *       reports its fid) or the kernel holds a dentry of the name, it
 *       delivers nothing and answers ENODATA: send it again with the
 *       entry.  Sending by name first costs fanotify watchers one more
 *       write and spares everyone else the lookup and an inode.
 *     generation must match the kernel's inode, so a recycled nodeid never
 *     receives another object's events.  The kernel keeps the low 32 bits
 *     of a generation, and the root's generation is always 0 (the kernel
 *     never looks the root up).  A rename is two notifications
 *     (MOVED_FROM, then MOVED_TO) sent back to back with the same nonzero
 *     cookie; the kernel maps it to one cookie of its own.
 *     - mask == FUSE_FSNOTIFY_Q_OVERFLOW alone, on the root (nodeid
 *       FUSE_ROOT_ID, generation 0), no name, no cookie: the server lost
 *       events; every watcher of the mount gets an overflow event
 *       (IN_Q_OVERFLOW, FAN_Q_OVERFLOW) and knows it must rescan.
 *     - mask == FUSE_FSNOTIFY_RENAME (ISDIR allowed), no cookie (kernel
 *       fuse 7/9): a rename as fanotify FAN_RENAME and dnotify DN_RENAME
 *       watchers see it, both places in one event.  nodeid is the old
 *       directory and the name the old name; then a struct
 *       fuse_fsnotify_rename_out (the new directory, its generation and
 *       the new name's length), the new name, and the child's struct
 *       fuse_entry_out at its new place.  The kernel links the child
 *       there (the lookup counted as for an entry above) and reports the
 *       event to watchers of either directory and of the filesystem.
 *       Send it after the MOVED_FROM/MOVED_TO pair, although
 *       vfs_rename() reports it first: MOVED_TO drops any dentry of the
 *       new name, and would drop the child linked here with it (evicted,
 *       its node forgotten, the event's fid stale).  Both directories
 *       must be known to the kernel (ENOENT); the entry's nodeid may be
 *       neither directory (EINVAL).
 *     - mask == FUSE_FSNOTIFY_RENAME | MOVED_FROM | MOVED_TO (ISDIR
 *       allowed) with a nonzero cookie (kernel fuse 7/9): the same frame
 *       is the whole rename, instead of the three notifications.  The
 *       kernel drops what both names make stale, links the child at its
 *       new name, and reports FS_RENAME, then MOVED_FROM and MOVED_TO
 *       (one cookie of its own, the child as their object), in
 *       vfs_rename()'s order.  One move alone, or the moves without a
 *       cookie: EINVAL.  The server sends this form.
 *     Before delivering, the kernel drops what the event makes stale:
 *     the object's attributes (ATTRIB) and pages too (MODIFY,
 *     CLOSE_WRITE); for a directory-entry event the directory's
 *     attributes and any dentry of the name.  No separate invalidation
 *     is needed.  A directory-entry event locks the directory, as
 *     FUSE_NOTIFY_INVAL_ENTRY does: never send one from the thread
 *     answering a request on that directory.
 *     For a removed name, send FUSE_NOTIFY_DELETE first (it updates the
 *     kernel's caches and, with the series, reports DELETE and
 *     DELETE_SELF); send a DELETE notification only if that returned
 *     ENOENT (the kernel never looked the name up), or events double.
 *     The kernel rejects a bad frame with EINVAL (wrong size, namelen >
 *     NAME_MAX, '/' or NUL in the name, unknown mask bits, a name where
 *     none belongs, a bad entry) and an unknown nodeid or stale generation
 *     with ENOENT, an entry on a nodeid that is not a directory with
 *     ENOTDIR; either way nothing is delivered.
 *
 * Numbers are chosen far from upstream FUSE growth: upstream allocates
 * opcodes, notify codes and INIT flags sequentially from the bottom (7.45:
 * opcodes <= 53, notify codes <= 9, INIT flags <= 1ULL << 42).
 *  - FUSE_HAS_FSNOTIFY is the top INIT bit: upstream would need 21 more
 *    flags to reach it, and a top-down private allocation never meets a
 *    bottom-up public one without a visible collision first.
 *  - Opcode and notify code live in 0x7f000000-0x7fffffff, a private range
 *    that stays positive as an int (the notify code travels in the signed
 *    error field), far above CUSE_INIT (4096) and the byte-swap sentinels
 *    (FUSE_INIT << 24 = 0x1a000000, CUSE_INIT << 8 = 0x100000), and whose
 *    byte-swapped forms (0x0100007f, 0x0200007f) are none of them either.
 */
#ifndef RNOTIFY_PROTO_H
#define RNOTIFY_PROTO_H

#include <stdint.h>

/* INIT flag (bit 31 of flags2). */
#define FUSE_HAS_FSNOTIFY		(1ULL << 63)

/*
 * INIT flag (bit 30 of flags2): the kernel fetches notifications with
 * FUSE_FETCH_NOTIFY requests (a virtio-fs guest: no VMM gives the device
 * a notification queue).  The kernel keeps one request outstanding; the
 * server answers it with a struct fuse_fetch_notify_out, whose code is
 * the notify code, followed by the notification's body (what follows
 * the fuse_out_header of a notification written to /dev/fuse).  The next
 * request's seq and error say what became of it: what a write of it to
 * /dev/fuse would have returned.  FUSE_FETCH_NOTIFY_END: the kernel is
 * going away; answer the outstanding request with -ECANCELED, then this
 * one, and any later one at once with -ECANCELED.
 */
#define FUSE_HAS_FETCH_NOTIFY		(1ULL << 62)

/* Opcode of the notification fetch. */
#define FUSE_FETCH_NOTIFY		0x7f000003

/* fuse_fetch_notify_in.flags */
#define FUSE_FETCH_NOTIFY_END		(1 << 0)

/* Opcode of the watch-mask request. */
#define FUSE_FSNOTIFY			0x7f000001

/* Notify code of the remote-event notification. */
#define FUSE_NOTIFY_FSNOTIFY		0x7f000002

/* fuse_fsnotify_in.flags: exactly one of these. */
#define FUSE_FSNOTIFY_INODE		(1 << 0)
#define FUSE_FSNOTIFY_FILESYSTEM	(1 << 1)

/*
 * Event bits of both messages.  They equal the kernel's FS_* values (and,
 * for bits 0-11 and ISDIR, the inotify IN_* values).  EVENT_ON_CHILD is
 * only meaningful in a request: the directory watches its children.
 */
#define FUSE_FSNOTIFY_ACCESS		0x00000001
#define FUSE_FSNOTIFY_MODIFY		0x00000002
#define FUSE_FSNOTIFY_ATTRIB		0x00000004
#define FUSE_FSNOTIFY_CLOSE_WRITE	0x00000008
#define FUSE_FSNOTIFY_CLOSE_NOWRITE	0x00000010
#define FUSE_FSNOTIFY_OPEN		0x00000020
#define FUSE_FSNOTIFY_MOVED_FROM	0x00000040
#define FUSE_FSNOTIFY_MOVED_TO		0x00000080
#define FUSE_FSNOTIFY_CREATE		0x00000100
#define FUSE_FSNOTIFY_DELETE		0x00000200
#define FUSE_FSNOTIFY_DELETE_SELF	0x00000400
#define FUSE_FSNOTIFY_MOVE_SELF		0x00000800
#define FUSE_FSNOTIFY_Q_OVERFLOW	0x00004000
#define FUSE_FSNOTIFY_EVENT_ON_CHILD	0x08000000
#define FUSE_FSNOTIFY_RENAME		0x10000000
#define FUSE_FSNOTIFY_ISDIR		0x40000000

/* Event bits that take a name (directory-entry events). */
#define FUSE_FSNOTIFY_DIRENT_EVENTS					\
	(FUSE_FSNOTIFY_MOVED_FROM | FUSE_FSNOTIFY_MOVED_TO |		\
	 FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_DELETE)

/* Event bits that do not (events on the object itself). */
#define FUSE_FSNOTIFY_OBJECT_EVENTS					\
	(FUSE_FSNOTIFY_ACCESS | FUSE_FSNOTIFY_MODIFY |			\
	 FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_CLOSE_WRITE |		\
	 FUSE_FSNOTIFY_CLOSE_NOWRITE | FUSE_FSNOTIFY_OPEN |		\
	 FUSE_FSNOTIFY_DELETE_SELF | FUSE_FSNOTIFY_MOVE_SELF)

/*
 * Object events that watchers of the parent hear of, with the name: they
 * may come by name alone (kernel fuse 6/9).
 */
#define FUSE_FSNOTIFY_CHILD_EVENTS					\
	(FUSE_FSNOTIFY_ACCESS | FUSE_FSNOTIFY_MODIFY |			\
	 FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_CLOSE_WRITE |		\
	 FUSE_FSNOTIFY_CLOSE_NOWRITE | FUSE_FSNOTIFY_OPEN)

/*
 * Directory entry events that make a new child: they may carry its entry
 * (kernel fuse 6/9).
 */
#define FUSE_FSNOTIFY_NEW_ENTRY_EVENTS					\
	(FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_MOVED_TO)

/* Bits the kernel may put in a FUSE_FSNOTIFY mask. */
#define FUSE_FSNOTIFY_WATCH_EVENTS					\
	(FUSE_FSNOTIFY_OBJECT_EVENTS | FUSE_FSNOTIFY_DIRENT_EVENTS |	\
	 FUSE_FSNOTIFY_RENAME | FUSE_FSNOTIFY_EVENT_ON_CHILD |		\
	 FUSE_FSNOTIFY_ISDIR)

/* Longest name in a notification (the kernel's NAME_MAX). */
#define FUSE_FSNOTIFY_NAME_MAX		255

struct fuse_fetch_notify_in {
	uint64_t	seq;
	int32_t		error;
	uint32_t	flags;
};

struct fuse_fetch_notify_out {
	uint64_t	seq;
	int32_t		code;
	uint32_t	padding;
};

struct fuse_fsnotify_in {
	uint64_t	mask;
	uint64_t	generation;
	uint32_t	flags;
	uint32_t	padding;
};

struct fuse_notify_fsnotify_out {
	uint64_t	nodeid;
	uint64_t	generation;
	uint32_t	mask;
	uint32_t	cookie;
	uint32_t	namelen;
	uint32_t	flags;
};

/* The new child of a CREATE or MOVED_TO by name is gone: no entry */
#define FUSE_FSNOTIFY_NO_CHILD		(1 << 0)
/* An event on the object for its own watchers only: a link count change */
#define FUSE_FSNOTIFY_NO_PARENT		(1 << 1)

/* The new place of a FUSE_FSNOTIFY_RENAME, after the old name. */
struct fuse_fsnotify_rename_out {
	uint64_t	newdir;
	uint64_t	newdir_generation;
	uint32_t	namelen;
	uint32_t	padding;
};

/*
 * fanotify (the series' uapi/linux/fanotify.h): a mark added with
 * FAN_MARK_REMOTE takes the remote events the filesystem reports, and
 * reports them with FAN_REMOTE in their mask; local events never carry it.
 */
#define FAN_MARK_REMOTE			0x40000000
#define FAN_REMOTE			0x00800000

#endif /* RNOTIFY_PROTO_H */
