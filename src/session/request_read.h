/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the next request from /dev/fuse, polling for it for a while
 * before sleeping when requests have been coming close together.
 *
 * A client waits for each reply before it sends its next request, which
 * then comes 10 to 30 us after the reply. A worker that sleeps in read()
 * meanwhile lets its CPU go idle, and the request must wake it: on the
 * 2-CPU virtual machines here that costs more than the request (5,000
 * small files: 3.2 s through our mount and 3.0 s through bindfs, spread
 * over both CPUs; 0.7 to 1.4 s for either with everything on one CPU).
 * Polling for up to REQUEST_POLL_NS finds the request without a
 * wake-up: the bench's 50,000 went from 26.1 to 14.4 s, bindfs 24.5 s
 * (bench/PROFILE.md, fifteenth round). The poll yields the CPU between
 * looks, to whatever else is ready to run there.
 *
 * It polls only while this thread's last request came within that time
 * of its read's start, so an idle or quiet mount costs no CPU; and never
 * after a request made by one of the server's own threads (the
 * replayer's): polling then made a replayed write's event reach its
 * watcher 280 us after the change instead of 70.
 */
#ifndef RNOTIFY_SESSION_REQUEST_READ_H
#define RNOTIFY_SESSION_REQUEST_READ_H

#include <sys/types.h>

#define REQUEST_POLL_NS 50000L

/* read(fd, buf, len) of /dev/fuse, as above; per thread. */
ssize_t request_read(int fd, void *buf, size_t len);

/*
 * The calling thread makes requests to our own mount. Up to
 * REQUEST_SELF_MAX threads are remembered; later ones are not.
 */
#define REQUEST_SELF_MAX 4
void request_read_from_self(void);

#endif
