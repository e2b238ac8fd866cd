/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Timed waits on a condition variable that keep their length when the
 * wall clock is set: a handler's 4 ms throttle or the request loop's tick
 * must not turn into hours because the time of day jumped back. Elapsed
 * times on the same clock.
 */
#ifndef RNOTIFY_UTIL_MONO_WAIT_H
#define RNOTIFY_UTIL_MONO_WAIT_H

#include <pthread.h>
#include <time.h>

/* A condition whose timed waits run on CLOCK_MONOTONIC. */
static inline void mono_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(c, &ca);
	pthread_condattr_destroy(&ca);
}

/* *ts = now + ns, for pthread_cond_timedwait() on such a condition. */
static inline void mono_deadline(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ns / 1000000000L;
	ts->tv_nsec += ns % 1000000000L;
	ts->tv_sec += ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

/* Nanoseconds since *t0, a CLOCK_MONOTONIC reading. */
static inline long mono_ns_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000L + t.tv_nsec - t0->tv_nsec;
}

#endif
