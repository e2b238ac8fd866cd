/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Notifications to a virtiofs guest, which fetches them (the kernel
 * series' FUSE_FETCH_NOTIFY, include/rnotify_proto.h): no VMM gives the
 * device a notification queue, so the guest keeps a request outstanding
 * on a request queue, and a notification is the answer to it.
 *
 * The guest's request is parked here until a notification is written
 * (libfuse's, or delivery's, through the transport's writev hook with
 * unique 0). The writer then waits for the guest's next request, which
 * says what became of the notification (what a write to /dev/fuse would
 * have returned), and returns that: the writer sees what it sees over
 * /dev/fuse. One notification is in flight at a time, in the writers'
 * order.
 *
 * Bounded: a notification waits at most VHOST_NOTIFY_WAIT_MS for the
 * guest to fetch it, and for its outcome. One the guest did not fetch in
 * time is dropped, counted and logged, and the guest's watchers get an
 * overflow notification before the next one: a guest that stops fetching
 * never stalls the server for long, and its watchers know they missed
 * events.
 *
 * Every call is made under the transport's lock, which waits release.
 */
#ifndef RNOTIFY_SESSION_VHOST_NOTIFY_H
#define RNOTIFY_SESSION_VHOST_NOTIFY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct vhost_io;
struct vhost_req;
struct vhost_notify;

#define VHOST_NOTIFY_WAIT_MS 2000

/* lock is the transport's. NULL with errno set. */
struct vhost_notify *vhost_notify_new(pthread_mutex_t *lock);

/*
 * A FUSE_FETCH_NOTIFY request (buf, len bytes) from the guest: parked,
 * or answered (the end, or malformed: refused with EINVAL and a log
 * line). allowed: the guest negotiated it at INIT (else ENOSYS).
 */
void vhost_notify_fetch(struct vhost_notify *vn, struct vhost_io *vio,
			struct vhost_req *req, const void *buf, size_t len,
			bool allowed);

/*
 * Sends the notification in iov (count entries, a fuse_out_header with
 * unique 0 first) to the guest: its length, or -1 with errno set to the
 * guest's error, ENOTCONN if the guest does not fetch notifications (not
 * allowed: it did not negotiate it; or not any more), EAGAIN if it was
 * dropped (not fetched in time).
 */
ssize_t vhost_notify_send(struct vhost_notify *vn, struct vhost_io *vio,
			  const struct iovec *iov, int count, bool allowed);

/* A new INIT: the guest (again) fetches, if it negotiated it. */
void vhost_notify_restart(struct vhost_notify *vn);

/* The device is gone: writers stop waiting, parked requests are freed. */
void vhost_notify_end(struct vhost_notify *vn);

/* Frees vn (NULL allowed), logging what was dropped. */
void vhost_notify_free(struct vhost_notify *vn);

#endif
