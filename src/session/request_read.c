// SPDX-License-Identifier: GPL-2.0-or-later
#include <linux/fuse.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/mono_wait.h"
#include "request_read.h"

/* Did this thread's last request come within REQUEST_POLL_NS? */
static __thread bool requests_close = true;

void request_self_add(struct request_self *self)
{
	pid_t tid = gettid();
	int i;

	for (i = 0; i < REQUEST_SELF_MAX; i++) {
		int free_slot = 0;

		if (atomic_compare_exchange_strong(&self->tids[i], &free_slot,
						   tid) || free_slot == tid)
			return;
	}
}

static bool from_self(struct request_self *self, const void *buf,
		      ssize_t n)
{
	struct fuse_in_header ih;
	int i;

	if (n < (ssize_t)sizeof(ih))
		return false;
	memcpy(&ih, buf, sizeof(ih));
	for (i = 0; i < REQUEST_SELF_MAX; i++)
		if (atomic_load(&self->tids[i]) == (pid_t)ih.pid)
			return true;
	return false;
}

/*
 * Until fd has a request (or an error, which read() then reports), or
 * REQUEST_POLL_NS have passed since *t0. A signal that stops the worker
 * is not lost: the loop sends it again until the worker has seen it.
 */
static void poll_briefly(int fd, const struct timespec *t0)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	do {
		if (poll(&p, 1, 0) > 0)
			return;
		sched_yield();
	} while (mono_ns_since(t0) < REQUEST_POLL_NS);
}

ssize_t request_read(struct request_self *self, int fd, void *buf,
		     size_t len)
{
	struct timespec t0;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (requests_close)
		poll_briefly(fd, &t0);
	n = read(fd, buf, len);
	requests_close = mono_ns_since(&t0) < REQUEST_POLL_NS &&
			 !from_self(self, buf, n);
	return n;
}
