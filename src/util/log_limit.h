/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Repeated log lines, rate-limited per message and counted.
 *
 * libfuse logs one line per request it cannot allocate and per worker
 * thread it cannot start ("fuse: failed to allocate request", "fuse:
 * error creating thread: ..."): out of memory, a minute of lookups gave
 * 27,921 such lines. A message, told apart by its format string, is
 * logged the first time, then at most once per LOG_LIMIT_INTERVAL
 * seconds, with the number held back since it was last logged.
 *
 * The caller gives the time. Any thread may call; LOG_LIMIT_SLOTS
 * messages are tracked, others are never held back.
 */
#ifndef RNOTIFY_UTIL_LOG_LIMIT_H
#define RNOTIFY_UTIL_LOG_LIMIT_H

#include <pthread.h>
#include <stdbool.h>

#define LOG_LIMIT_INTERVAL 5.0	/* seconds between lines of one message */
#define LOG_LIMIT_SLOTS 8

struct log_limit_slot {
	const char *fmt;	/* NULL: free */
	double last;		/* when it was last logged */
	unsigned long held;	/* held back since */
};

struct log_limit {
	pthread_mutex_t lock;
	struct log_limit_slot slot[LOG_LIMIT_SLOTS];
};

#define LOG_LIMIT_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/*
 * Whether the message fmt, at time now, is to be logged; if so, *held is
 * how many were held back since it was last logged.
 */
bool log_limit_pass(struct log_limit *l, const char *fmt, double now,
		    unsigned long *held);

/* Calls say() for each message with lines held back, and forgets them. */
void log_limit_flush(struct log_limit *l,
		     void (*say)(const char *fmt, unsigned long held));

#endif
