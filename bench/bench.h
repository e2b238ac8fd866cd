// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shared by the bench/ helpers: a monotonic clock in nanoseconds, a
 * fatal-error exit, and an inotify reader that waits a bounded time for
 * one event kind on one name. Header only: each helper is one .c file.
 */
#ifndef BENCH_H
#define BENCH_H

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noreturn, format(printf, 1, 2)))
static inline void bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* One read(2) worth of inotify events, walked event by event. */
struct bench_ibuf {
	char buf[256 * 1024] __attribute__((aligned(8)));
	ssize_t len;
	ssize_t off;
};

/*
 * Next event from FD, reading more when the buffer is used up; waits at
 * most TIMEOUT_MS for data. NULL on timeout.
 */
static inline struct inotify_event *bench_next_event(int fd,
						     struct bench_ibuf *b,
						     int timeout_ms)
{
	struct inotify_event *ev;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (b->off >= b->len) {
		if (poll(&p, 1, timeout_ms) <= 0)
			return NULL;
		b->len = read(fd, b->buf, sizeof(b->buf));
		if (b->len <= 0)
			bench_die("read inotify: %s", strerror(errno));
		b->off = 0;
	}
	ev = (struct inotify_event *)(b->buf + b->off);
	b->off += sizeof(*ev) + ev->len;
	return ev;
}

#endif
