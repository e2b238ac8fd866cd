/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the next request from /dev/fuse, polling for it for a while
 * before sleeping when requests have been coming close together.
 *
 * A client waits for each reply before it sends its next request, which
 * then comes a few tens of microseconds after the reply. A worker that
 * sleeps in read() meanwhile lets its CPU go idle, and the request must
 * wake it: on small virtual machines that wake-up costs more than the
 * request itself. Polling for up to REQUEST_POLL_NS finds the request
 * without a wake-up (bench/PROFILE.md, fifteenth round, has the
 * measurements). The poll yields the CPU between looks, to whatever else
 * is ready to run there.
 *
 * It polls only while this thread's last request came within that time
 * of its read's start, so an idle or quiet mount costs no CPU; and never
 * after a request made by one of the server's own threads (the
 * replayer's): polling then delayed a replayed write's event several
 * times over.
 */
#ifndef RNOTIFY_SESSION_REQUEST_READ_H
#define RNOTIFY_SESSION_REQUEST_READ_H

#include <stdatomic.h>
#include <sys/types.h>

#define REQUEST_POLL_NS 50000L
#define REQUEST_SELF_MAX 4

/* The server's threads that make requests to its own mount; 0: free. */
struct request_self {
	atomic_int tids[REQUEST_SELF_MAX];
};

/* read(fd, buf, len) of /dev/fuse, as above; per thread. */
ssize_t request_read(struct request_self *self, int fd, void *buf,
		     size_t len);

/*
 * The calling thread makes requests to our own mount. Up to
 * REQUEST_SELF_MAX threads are remembered; later ones are not.
 */
void request_self_add(struct request_self *self);

#endif
