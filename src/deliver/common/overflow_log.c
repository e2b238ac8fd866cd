// SPDX-License-Identifier: GPL-2.0-or-later
/* Overflow warnings (see overflow_log.h). */
#include <time.h>

#define FUSE_USE_VERSION 34
#include <fuse_log.h>

#include "overflow_log.h"

static void log_first(size_t dropped_total)
{
	fuse_log(FUSE_LOG_WARNING,
		 "rnotifyfs: host event queue overflowed; some remote changes were not delivered (%zu events dropped by the server's queue so far; further overflows are counted, one line per %.0f s at most)\n",
		 dropped_total, OVERFLOW_LOG_INTERVAL);
}

static void log_more(struct overflow_log *l, double now, size_t dropped_total)
{
	fuse_log(FUSE_LOG_WARNING,
		 "rnotifyfs: host event queue overflowed again: %lu overflows in the last %.0f s, %zu more events dropped by the server's queue\n",
		 l->pending, now - l->last, dropped_total - l->dropped_logged);
}

static bool due(const struct overflow_log *l, double now)
{
	return now - l->last >= OVERFLOW_LOG_INTERVAL;
}

static void logged(struct overflow_log *l, double now, size_t dropped_total)
{
	l->started = true;
	l->last = now;
	l->pending = 0;
	l->dropped_logged = dropped_total;
}

bool overflow_log_pending(struct overflow_log *l, double now,
			  size_t dropped_total, bool force)
{
	if (!l->pending || (!force && !due(l, now)))
		return false;
	log_more(l, now, dropped_total);
	logged(l, now, dropped_total);
	return true;
}

bool overflow_log_note(struct overflow_log *l, double now,
		       size_t dropped_total)
{
	if (!l->started) {
		log_first(dropped_total);
		logged(l, now, dropped_total);
		return true;
	}
	l->pending++;
	return overflow_log_pending(l, now, dropped_total, false);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void overflow_log_warn(struct overflow_log *l, size_t dropped_total)
{
	overflow_log_note(l, now_s(), dropped_total);
}

void overflow_log_flush(struct overflow_log *l, size_t dropped_total,
			bool force)
{
	overflow_log_pending(l, now_s(), dropped_total, force);
}
