/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the vhost-user-fs transport (vhost_io.c, vhost_notify.c): one
 * request popped from a guest's virtqueue, and how it goes back. Every
 * call is made under the transport's lock (vhost_io.c).
 */
#ifndef RNOTIFY_SESSION_VHOST_REQ_H
#define RNOTIFY_SESSION_VHOST_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <libvhost-user.h>

struct vhost_io;

struct vhost_req {
	VuVirtqElement elem;	/* first: libvhost-user allocates it */
	int qidx;
	uint64_t unique;
	bool ends_session;	/* a DESTROY: answered, the session ends */
	struct vhost_req *next;
};

/* The bytes the guest gave for the reply. */
size_t vhost_req_room(const struct vhost_req *req);

/*
 * Writes iov (count entries, at most vhost_req_room() bytes; none for a
 * request that gets no reply) into req's reply buffers, gives req back
 * to the guest and frees it.
 */
void vhost_req_answer(struct vhost_io *vio, struct vhost_req *req,
		      const struct iovec *iov, int count);

/* Gives req back to the guest with the reply header alone: error. */
void vhost_req_answer_error(struct vhost_io *vio, struct vhost_req *req,
			    int error);

#endif
