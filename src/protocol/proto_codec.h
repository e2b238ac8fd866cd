/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proto_codec - encode, decode and validate the frames of the remote
 * fsnotify protocol (include/rnotify_proto.h).  Pure functions over
 * caller-owned buffers: no I/O, no allocation, no global state, so the
 * decoders can be fuzzed and every rule tested byte for byte.
 *
 * The validation rules for notifications are the kernel's own (see the
 * FUSE_NOTIFY_FSNOTIFY handler in kernel/patches): a server that encodes
 * with proto_encode_event() never sends a frame the kernel rejects as
 * malformed.  Every function returns 0 or a frame length on success and a
 * negative errno on bad input, and writes nothing to its output then.
 */
#ifndef RNOTIFY_PROTOCOL_PROTO_CODEC_H
#define RNOTIFY_PROTOCOL_PROTO_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/fuse.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "rnotify_proto.h"

/*
 * Largest notification frame, a rename's: out-header, fixed part, the
 * longest old name, the new place and longest new name, a child's entry.
 */
#define PROTO_EVENT_FRAME_MAX						\
	(16 + sizeof(struct fuse_notify_fsnotify_out) +		\
	 sizeof(struct fuse_fsnotify_rename_out) +			\
	 2 * FUSE_FSNOTIFY_NAME_MAX + sizeof(struct fuse_entry_out))

/* Size of a FUSE_FSNOTIFY request: in-header plus fuse_fsnotify_in. */
#define PROTO_WATCH_FRAME_SIZE						\
	(40 + sizeof(struct fuse_fsnotify_in))

/* A remote event, as the server describes it. */
struct proto_event {
	uint64_t nodeid;
	uint64_t generation;
	uint32_t mask;
	uint32_t cookie;
	uint32_t namelen;
	/*
	 * FUSE_FSNOTIFY_NO_CHILD: a CREATE or MOVED_TO by name whose child
	 * is gone, for every watcher (the kernel asked for the child).
	 */
	uint32_t flags;
	const char *name;	/* namelen bytes, no NUL; may be NULL if 0 */
	/*
	 * An object event with a name is on child name of directory nodeid
	 * and carries the child's entry, as a LOOKUP reply would, or, for a
	 * child event, may come by name alone (has_entry false).
	 */
	bool has_entry;
	struct fuse_entry_out entry;
	/*
	 * FUSE_FSNOTIFY_RENAME: nodeid and name are the old place, these the
	 * new one, and the entry (has_entry set) is the child's there.
	 */
	uint64_t newdir;
	uint64_t newdir_generation;
	uint32_t newnamelen;
	const char *newname;	/* newnamelen bytes, no NUL */
};

/* A watch-mask update, as the kernel sent it. */
struct proto_watch {
	uint64_t unique;	/* to answer with proto_encode_reply() */
	uint64_t nodeid;
	uint64_t generation;
	uint64_t mask;
	uint32_t flags;		/* FUSE_FSNOTIFY_INODE or _FILESYSTEM */
};

/* The kernel's rules for an event; 0 or -EINVAL. */
int proto_event_validate(const struct proto_event *ev);

/*
 * Fill a child's entry as libfuse fills a LOOKUP reply: node, generation,
 * attributes from st, validity in seconds (negative: 0).
 */
void proto_entry_fill(struct fuse_entry_out *e, uint64_t nodeid,
		      uint64_t generation, const struct stat *st,
		      double entry_timeout, double attr_timeout);

/*
 * Write a complete notification frame (fuse_out_header included) into
 * buf.  Returns the frame length, -EINVAL for an event the kernel would
 * reject, -ENOSPC if buf is too small.
 */
int proto_encode_event(void *buf, size_t size, const struct proto_event *ev);

/*
 * Parse a FUSE_FSNOTIFY request as read from /dev/fuse.  Returns 0,
 * -EPROTO if it is another opcode, -EINVAL if it is malformed (wrong
 * length, not exactly one scope flag, nonzero padding, a filesystem scope
 * on a nodeid other than the root).  Mask bits outside
 * FUSE_FSNOTIFY_WATCH_EVENTS are dropped from w->mask: a newer kernel may
 * forward events this server cannot deliver, and the others still count.
 */
int proto_decode_watch(const void *buf, size_t len, struct proto_watch *w);

/*
 * Parse a FUSE_INIT request as read from /dev/fuse: its unique and the
 * 64 flag bits the kernel offers (flags2 only with FUSE_INIT_EXT).
 * Returns 0, -EPROTO if it is another opcode, -EINVAL if it is truncated
 * or its length is wrong.
 */
int proto_decode_init(const void *buf, size_t len, uint64_t *unique,
		      uint64_t *flags);

/* FUSE_PASSTHROUGH (7.40), which Debian 12's linux/fuse.h predates. */
#define PROTO_FUSE_PASSTHROUGH (1ULL << 37)

/*
 * Turns flags of flags2 on in the INIT reply about to be written, iov[0]
 * the fuse_out_header and iov[1] the fuse_init_out (libfuse's layout),
 * hence with FUSE_INIT_EXT: FUSE_HAS_FSNOTIFY, FUSE_HAS_FETCH_NOTIFY
 * (virtiofs mode), and PROTO_FUSE_PASSTHROUGH
 * with a max_stack_depth of 1 unless the reply asks for the writeback
 * cache (the kernel takes no passthrough with it). Returns the flags
 * added, 0 if iov is not the successful reply to request init_unique
 * (it is then left as it is).
 */
uint64_t proto_init_reply_add(struct iovec *iov, int count,
			      uint64_t init_unique, uint64_t add);

/* Write the answer to request unique (error 0 or -errno); its length. */
int proto_encode_reply(void *buf, size_t size, uint64_t unique, int error);

#endif
