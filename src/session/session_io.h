/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server's side of the remote-fsnotify protocol negotiation
 * (include/rnotify_proto.h), wedged between libfuse and /dev/fuse.
 *
 * libfuse 3.14 answers opcodes it does not know with ENOSYS and builds
 * the INIT reply itself, so the session's I/O goes through our read and
 * writev hooks (fuse_session_custom_io): the read hook notes what the
 * kernel offered at INIT and consumes FUSE_FSNOTIFY requests (into a
 * watch table, answered at once, never seen by libfuse) and FUSE_FORGET
 * and FUSE_BATCH_FORGET (acted on with fs_forget, never answered: libfuse
 * could drop them at the memory limit, forget_decode.h); the writev hook
 * adds FUSE_HAS_FSNOTIFY to libfuse's INIT reply when the kernel offered
 * it and we want it. Everything else passes through untouched.
 *
 * The hooks are installed in every delivery mode. They receive only the
 * session's userdata, the fs, which keeps their state for them
 * (fs_session_state()).
 */
#ifndef RNOTIFY_SESSION_SESSION_IO_H
#define RNOTIFY_SESSION_SESSION_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "fs/fs.h"

struct proto_watches;
struct session_io;

/*
 * The state alone, for a transport with hooks of its own (vhost_io.h):
 * want as below; transport, INIT flags the transport needs too, offered
 * and taken with ours (FUSE_HAS_FETCH_NOTIFY), or the extension is off.
 * NULL with errno set on failure.
 */
struct session_io *session_io_new(bool want, uint64_t transport);

typedef void session_io_reply_fn(void *ctx, const void *buf, size_t len);

/*
 * What the read hook does with a request (buf, len bytes) before
 * libfuse sees it: notes INIT's offer; acts on FUSE_FSNOTIFY, answering
 * it through reply(ctx, ...), and on FUSE_FORGET and FUSE_BATCH_FORGET
 * (for fs): true for those, which libfuse must not see.
 */
bool session_io_take(struct session_io *sio, struct fs *fs, const void *buf,
		     size_t len, session_io_reply_fn *reply, void *ctx);

/*
 * What the writev hook does first with a reply: adds the flags we take
 * to INIT's (fd: the session's, for FUSE passthrough).
 */
void session_io_before_reply(struct session_io *sio, struct fs *fs, int fd,
			     struct iovec *iov, int count);

/*
 * Installs the hooks on a mounted session whose userdata is fs; want
 * says whether to accept the extension if offered. NULL with errno set
 * on failure.
 */
struct session_io *session_io_install(struct fuse_session *se, struct fs *fs,
				     bool want);

/*
 * Reads and processes the session's first request, INIT, so that the
 * outcome is known before delivery starts. 0, or a negative errno if the
 * session ended first.
 */
int session_io_serve_init(struct session_io *sio, struct fuse_session *se);

/* The kernel offered the extension at INIT. */
bool session_io_offered(const struct session_io *sio);

/* The extension is on: FUSE_HAS_FSNOTIFY went back in the INIT reply. */
bool session_io_active(const struct session_io *sio);

/* The kernel's watches (valid until session_io_free). */
struct proto_watches *session_io_watches(struct session_io *sio);

/*
 * The calling thread will make requests to the mount (the replayer, the
 * protocol sender's lookups): its requests are not polled for
 * (request_read.h). sio may be NULL.
 */
void session_io_from_self(struct session_io *sio);

/* Frees the hooks' state; the session must be destroyed already. */
void session_io_free(struct session_io *sio);

#endif
