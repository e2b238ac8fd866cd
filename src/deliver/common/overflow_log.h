/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Overflow warnings, rate-limited and counted.
 *
 * A stock kernel gives the server no way to tell watchers that remote
 * events were lost (no IN_Q_OVERFLOW for a FUSE mount), so the log is the
 * only place it shows. A burst that outruns delivery overflows over and
 * over (1 to 490 times per 40,000 changes with queue=1024): the first
 * overflow is logged at once, later ones are counted and logged at most
 * once per OVERFLOW_LOG_INTERVAL seconds, as one line saying how many
 * overflows and how many events dropped by the server's queue there were
 * since the line before.
 *
 * The delivery backend that runs owns one (zeroed) and calls it from the
 * thread that delivers, one at a time. overflow_log_note() and
 * overflow_log_pending() take the time from the caller;
 * overflow_log_warn() and overflow_log_flush() read the monotonic clock.
 */
#ifndef RNOTIFY_DELIVER_COMMON_OVERFLOW_LOG_H
#define RNOTIFY_DELIVER_COMMON_OVERFLOW_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define OVERFLOW_LOG_INTERVAL 5.0	/* seconds between lines, at least */

struct overflow_log {
	bool started;		/* a line has been logged */
	double last;		/* when, in seconds (any monotonic origin) */
	unsigned long pending;	/* overflows since that line */
	size_t dropped_logged;	/* the queue's dropped total at that line */
};

/*
 * One overflow at time now; dropped_total is the queue's count of dropped
 * events since it was created (0 if there is no queue). Logs a line if
 * one is due; returns whether it did.
 */
bool overflow_log_note(struct overflow_log *l, double now,
		       size_t dropped_total);

/*
 * Logs the overflows counted since the last line, if any and if a line is
 * due (or always, if force); returns whether it logged.
 */
bool overflow_log_pending(struct overflow_log *l, double now,
			  size_t dropped_total, bool force);

/* As _note() and _pending(), at the monotonic clock's time. */
void overflow_log_warn(struct overflow_log *l, size_t dropped_total);
void overflow_log_flush(struct overflow_log *l, size_t dropped_total,
			bool force);

#endif
