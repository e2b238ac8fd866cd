// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "protocol/proto_codec.h"
#include "protocol/proto_watches.h"
#include "forget_decode.h"
#include "fs/fs.h"
#include "session_io.h"
#include "request_read.h"

struct session_io {
	bool want;
	uint64_t transport;	/* flags the transport needs besides ours */
	uint64_t offered;	/* the kernel's INIT flags */
	atomic_bool active;
	atomic_bool init_answered;
	uint64_t init_unique;	/* 0 until INIT was read */
	struct proto_watches *watches;
	struct request_self self;	/* request_read.h */
};

/*
 * INIT is the first request, read before any other thread reads. Over
 * virtiofs a guest's next mount sends it again (vhost_io.h): what it
 * takes is negotiated anew.
 */
static void note_init(struct session_io *pio, const void *buf, size_t len)
{
	uint64_t unique, flags;

	if (proto_decode_init(buf, len, &unique, &flags))
		return;
	pio->init_unique = unique;
	pio->offered = flags;
	atomic_store(&pio->active, false);
	atomic_store(&pio->init_answered, false);
}

static void handle_watch(struct session_io *pio, const void *buf,
			 size_t len, session_io_reply_fn *reply, void *ctx)
{
	unsigned char out[sizeof(struct fuse_out_header)];
	struct proto_watch w;
	struct fuse_in_header ih;
	int err, n;

	err = proto_decode_watch(buf, len, &w);
	if (!err)
		err = proto_watches_set(pio->watches, &w);
	if (err) {
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: FUSE_FSNOTIFY refused: %s\n",
			 strerror(-err));
		memcpy(&ih, buf, sizeof(ih));
		w.unique = ih.unique;
	}
	n = proto_encode_reply(out, sizeof(out), w.unique, err);
	if (n > 0)
		reply(ctx, out, n);
}

static void forget_node(void *fs, uint64_t nodeid, uint64_t nlookup)
{
	fs_forget(fs, nodeid, nlookup);
}

/*
 * True if buf was a FORGET or BATCH_FORGET and has been acted on. A
 * malformed one goes to libfuse, which answers it as it always did.
 */
static bool handled_forget(const void *buf, size_t len, struct fs *fs)
{
	return forget_decode(buf, len, forget_node, fs) >= 0;
}

bool session_io_take(struct session_io *pio, struct fs *fs, const void *buf,
		     size_t len, session_io_reply_fn *reply, void *ctx)
{
	struct fuse_in_header ih;

	if (len < sizeof(ih))
		return false;
	memcpy(&ih, buf, sizeof(ih));
	if (ih.opcode == FUSE_INIT)
		note_init(pio, buf, len);
	if (ih.opcode != FUSE_FSNOTIFY)
		return handled_forget(buf, len, fs);
	handle_watch(pio, buf, len, reply, ctx);
	return true;
}

static void reply_fd(void *ctx, const void *buf, size_t len)
{
	int fd = *(int *)ctx;

	/* The kernel may have aborted the request: ENOENT is expected. */
	if (write(fd, buf, len) != (ssize_t)len && errno != ENOENT)
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: reply to FUSE_FSNOTIFY: %s\n",
			 strerror(errno));
}

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
	struct session_io *pio = fs_session_state(userdata);
	ssize_t n;

	for (;;) {
		n = request_read(&pio->self, fd, buf, len);
		if (n < (ssize_t)sizeof(struct fuse_in_header) ||
		    !session_io_take(pio, userdata, buf, n, reply_fd, &fd))
			return n;
	}
}

/* Takes up what the kernel offered at INIT and we want, in its reply. */
static void answer_init(struct session_io *pio, struct fs *fs, int fd,
			struct iovec *iov, int count)
{
	uint64_t want = 0, added;

	if (!pio->init_unique)
		return;
	if (pio->want)
		want |= FUSE_HAS_FSNOTIFY | pio->transport;
	if (fs_passthrough_wanted(fs))
		want |= PROTO_FUSE_PASSTHROUGH;
	want &= pio->offered;
	/* Nothing to add: the first reply after INIT is INIT's, untouched. */
	added = want ? proto_init_reply_add(iov, count, pio->init_unique,
					    want) : 0;
	if (want && !added)
		return;
	atomic_store(&pio->init_answered, true);
	if ((added & FUSE_HAS_FSNOTIFY) &&
	    (added & pio->transport) == pio->transport)
		atomic_store(&pio->active, true);
	if (added & PROTO_FUSE_PASSTHROUGH)
		fs_passthrough_start(fs, fd);
}

void session_io_before_reply(struct session_io *pio, struct fs *fs, int fd,
			     struct iovec *iov, int count)
{
	if (!atomic_load(&pio->init_answered))
		answer_init(pio, fs, fd, iov, count);
}

static ssize_t io_writev(int fd, struct iovec *iov, int count,
			 void *userdata)
{
	session_io_before_reply(fs_session_state(userdata), userdata, fd, iov,
				count);
	fs_passthrough_patch(iov, count);
	return writev(fd, iov, count);
}

/* Without this hook libfuse would stop splicing read replies. */
static ssize_t io_splice_send(int fdin, off_t *offin, int fdout,
			      off_t *offout, size_t len, unsigned int flags,
			      void *userdata)
{
	return splice(fdin, offin, fdout, offout, len, flags);
}

static const struct fuse_custom_io session_io_hooks = {
	.read = io_read,
	.writev = io_writev,
	.splice_send = io_splice_send,
};

struct session_io *session_io_new(bool want, uint64_t transport)
{
	struct session_io *pio = calloc(1, sizeof(*pio));

	if (!pio)
		return NULL;
	pio->want = want;
	pio->transport = transport;
	pio->watches = proto_watches_new();
	if (!pio->watches) {
		free(pio);
		errno = ENOMEM;
		return NULL;
	}
	return pio;
}

struct session_io *session_io_install(struct fuse_session *se, struct fs *fs,
				     bool want)
{
	struct session_io *pio = session_io_new(want, 0);
	int err;

	if (!pio)
		return NULL;
	fs_set_session_state(fs, pio);
	err = fuse_session_custom_io(se, &session_io_hooks,
				     fuse_session_fd(se));
	if (err) {
		fs_set_session_state(fs, NULL);
		session_io_free(pio);
		errno = -err;
		return NULL;
	}
	return pio;
}

int session_io_serve_init(struct session_io *pio, struct fuse_session *se)
{
	struct fuse_buf buf = { 0 };
	int n;

	do {
		n = fuse_session_receive_buf(se, &buf);
	} while (n == -EINTR && !fuse_session_exited(se));
	if (n > 0)
		fuse_session_process_buf(se, &buf);
	free(buf.mem);
	if (n <= 0)
		return n ? n : -ENODEV;
	return pio->init_unique ? 0 : -EPROTO;
}

bool session_io_offered(const struct session_io *pio)
{
	return !!(pio->offered & FUSE_HAS_FSNOTIFY);
}

bool session_io_active(const struct session_io *pio)
{
	return atomic_load(&pio->active);
}

struct proto_watches *session_io_watches(struct session_io *pio)
{
	return pio->watches;
}

void session_io_from_self(struct session_io *pio)
{
	if (pio)
		request_self_add(&pio->self);
}

void session_io_free(struct session_io *pio)
{
	if (!pio)
		return;
	proto_watches_free(pio->watches);
	free(pio);
}
