/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wire format between a virtiofs backend and its guest agent
 * (rnotifyfs --agent): one message a line of text, so that a reader that
 * starts in the middle of a stream (an agent restarted while the host
 * had written to the port) finds the next message at the next newline.
 *
 *   agent -> host   H <nonce> <tid> <uid>     hello: who will replay
 *   host  -> agent  A <nonce>                 accepted: commands follow
 *   host  -> agent  C <seq> <OP> <arg>...     one system call on the mount
 *   agent -> host   R <seq> <ret> [<id> <gen>]  its result (NODE_OF: the node)
 *
 * Numbers are decimal (ret may be negative: an errno); names are hex,
 * 1 to 255 bytes, never "/", "." or "..". Both sides decode everything
 * they read with agent_wire_decode(), which refuses what is not exactly
 * this, so that a hostile peer's frame changes nothing but a log line.
 */
#ifndef RNOTIFY_PROTOCOL_AGENT_WIRE_H
#define RNOTIFY_PROTOCOL_AGENT_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* A line, newline included, is never longer. */
#define AGENT_LINE_MAX 1280
#define AGENT_NAME_MAX 255

enum agent_op {
	AGENT_OPEN_NODE,	/* id gen how */
	AGENT_OPENAT,		/* dfd name how mode */
	AGENT_REOPEN,		/* fd how */
	AGENT_NODE_OF,		/* fd */
	AGENT_MKNOD,		/* dfd name mode rdev */
	AGENT_MKDIR,		/* dfd name mode */
	AGENT_SYMLINK,		/* dfd name */
	AGENT_LINK,		/* fd dfd name */
	AGENT_UNLINK,		/* dfd name rmdir */
	AGENT_RENAME,		/* sfd name dfd name2 */
	AGENT_WRITE_BYTE,	/* fd */
	AGENT_TRUNCATE0,	/* fd */
	AGENT_CHOWN_LINK,	/* fd uid gid */
	AGENT_CHMOD,		/* fd mode */
	AGENT_TOUCH,		/* fd */
	AGENT_CLOSE,		/* fd */
	AGENT_OP_COUNT
};

enum agent_kind {
	AGENT_HELLO = 'H',
	AGENT_ACCEPT = 'A',
	AGENT_CALL = 'C',
	AGENT_RESULT = 'R',
};

#define AGENT_ARGS_MAX 4

struct agent_msg {
	enum agent_kind kind;
	uint64_t seq;			/* CALL, RESULT; the nonce: HELLO, ACCEPT */
	enum agent_op op;		/* CALL */
	uint64_t arg[AGENT_ARGS_MAX];	/* CALL: its numbers, in order */
	char name[AGENT_NAME_MAX + 1];	/* CALL: its names, in order */
	char name2[AGENT_NAME_MAX + 1];
	int64_t ret;			/* RESULT */
	uint64_t id;			/* RESULT of NODE_OF, ret 0 */
	uint32_t gen;
	uint32_t tid;			/* HELLO */
	uint32_t uid;
};

/* "OPEN_NODE", ...; "?" for a number out of range. */
const char *agent_op_name(enum agent_op op);

/* How many numbers and names a CALL of op carries. */
int agent_op_nargs(enum agent_op op);

/*
 * Writes m as one line, newline included, into buf: its length, or
 * -EINVAL (a name that is not one, an unknown op) or -ENOSPC.
 */
int agent_wire_encode(const struct agent_msg *m, char *buf, size_t size);

/*
 * Decodes one line (len bytes, without its newline): 0, or -EINVAL for
 * anything but a well-formed message of the format above.
 */
int agent_wire_decode(const char *line, size_t len, struct agent_msg *m);

#endif
