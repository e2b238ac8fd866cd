/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session's second transport: a vhost-user-fs device backend, so a
 * VM guest's virtiofs driver is the FUSE client instead of the local
 * kernel. QEMU (vhost-user-fs-pci) hands us the guest's memory and
 * virtqueues over a unix socket; each request is a chain of descriptors
 * in guest memory, the request ("out") followed by room for its reply
 * ("in").
 *
 * libfuse still runs the session (low-level API, unforked) through its
 * I/O hooks (fuse_session_custom_io): the read hook takes the next popped
 * request and copies it into libfuse's buffer; the writev hook copies the
 * reply into the in-buffers of the request with the same unique id and
 * returns the chain to the guest (vu_queue_push + notify). Nothing is
 * spliced. Requests that get no reply (FORGET, BATCH_FORGET, INTERRUPT)
 * are acted on in the read hook, as over /dev/fuse (session_io.h), and
 * returned to the guest at once.
 *
 * Threads: one device thread polls the socket (vu_dispatch: memory maps,
 * queue set-up) and the queues' kick eventfds (popping requests onto a
 * list); the session's workers read from that list. Every call into
 * libvhost-user, and every copy to or from guest memory, is made under
 * one lock, so a memory table the guest replaces is never unmapped under
 * a copy. Notifications (unique 0) go to a guest that fetches them (the
 * kernel series' FUSE_FETCH_NOTIFY, vhost_notify.h); the read hook also
 * does what session_io does over /dev/fuse (session_io_take(): INIT's
 * offer, FUSE_FSNOTIFY, FORGET), and the writev hook adds our flags to
 * INIT's reply (session_io_before_reply()).
 *
 * Each mount of the guest's is a session of its own, as each mount is
 * over /dev/fuse: the guest's unmount (DESTROY) or a rebooted guest's
 * INIT ends the session, and the caller starts the next one on the same
 * device. When the guest's VMM disconnects, the session is ended (the
 * workers' reads fail ENODEV), as virtiofsd ends with its VMM.
 */
#ifndef RNOTIFY_SESSION_VHOST_IO_H
#define RNOTIFY_SESSION_VHOST_IO_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "fs/fs.h"

struct session_io;
struct vhost_io;

/* Built with libvhost-user (scripts/setup-vhost), so the mode exists. */
bool vhost_io_available(void);

/*
 * Listens on socket_path (made anew, owner-only), or on listen_fd if
 * socket_path is NULL, and waits for the VMM to connect. NULL with errno
 * set on failure.
 */
struct vhost_io *vhost_io_accept(const char *socket_path, int listen_fd);

/*
 * Installs the hooks on se, whose userdata is fs, and starts the device
 * thread; sio is the protocol's state (session_io_new()). The session
 * owns the fd it is given from now on. 0 or -errno.
 */
int vhost_io_start(struct vhost_io *vio, struct fuse_session *se,
		   struct fs *fs, struct session_io *sio);

/*
 * Sends a notification (iov: a fuse_out_header with unique 0 first) to
 * the guest, as a write of it to /dev/fuse would: its length, or -1 with
 * errno set (vhost_notify_send()).
 */
ssize_t vhost_io_notify(struct vhost_io *vio, const struct iovec *iov,
			int count);

/*
 * The session's loop ended because the guest ended the session (it
 * unmounted, or rebooted and sent INIT again), not with the device: the
 * guest's next requests are for a new session (vhost_io_next_session()).
 */
bool vhost_io_guest_ended(struct vhost_io *vio);

/*
 * Installs the hooks on se, a new session (userdata the same fs), which
 * reads the guest's requests from now on; the caller destroys the old
 * one once this returns. 0 or -errno.
 */
int vhost_io_next_session(struct vhost_io *vio, struct fuse_session *se);

/* Stops the device thread; the session's loop must have ended. */
void vhost_io_stop(struct vhost_io *vio);

/* Frees what is left; after fuse_session_destroy(). vio may be NULL. */
void vhost_io_free(struct vhost_io *vio);

#endif
