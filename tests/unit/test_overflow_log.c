// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the overflow warnings (src/deliver/overflow_log.c): the
 * first overflow is logged at once, a burst gives one line per interval
 * at most, and each later line counts the overflows and dropped events
 * since the line before. Time is given, never waited for.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FUSE_USE_VERSION 34
#include <fuse_log.h>

#include "../lib/check.h"
#include "deliver/common/overflow_log.h"

CHECK_MAIN_DEFS;

static int lines;
static char last[512];

static void capture(enum fuse_log_level level, const char *fmt, va_list ap)
{
	lines++;
	vsnprintf(last, sizeof(last), fmt, ap);
}

static void test_burst(void)
{
	struct overflow_log l = { 0 };
	double t = 100.0;
	int i;

	lines = 0;
	CHECK("overflow_first_logged_at_once",
	      overflow_log_note(&l, t, 10) && lines == 1 &&
	      strstr(last, "overflowed") && strstr(last, "10 events dropped"));
	for (i = 0; i < 1000; i++)
		overflow_log_note(&l, t + i * 0.001, 10 + i);
	CHECK("overflow_burst_within_interval_silent", lines == 1);
	CHECK("overflow_not_due_not_flushed",
	      !overflow_log_pending(&l, t + 1.5, 2000, false) && lines == 1);
	CHECK("overflow_due_logs_counts",
	      overflow_log_note(&l, t + OVERFLOW_LOG_INTERVAL, 2010) &&
	      lines == 2 && strstr(last, "1001 overflows") &&
	      strstr(last, "2000 more events dropped"));
	CHECK("overflow_nothing_pending_nothing_logged",
	      !overflow_log_pending(&l, t + 100, 2010, true) && lines == 2);
	overflow_log_note(&l, t + OVERFLOW_LOG_INTERVAL + 1, 2015);
	CHECK("overflow_forced_flush_logs_rest",
	      overflow_log_pending(&l, t + OVERFLOW_LOG_INTERVAL + 2, 2020,
				   true) &&
	      lines == 3 && strstr(last, "1 overflows") &&
	      strstr(last, "10 more events dropped"));
}

/* On the monotonic clock: the first overflow is logged too. */
static void test_process(void)
{
	struct overflow_log l = { 0 };

	lines = 0;
	overflow_log_warn(&l, 3);
	overflow_log_warn(&l, 4);
	CHECK("overflow_process_log_first_only", lines == 1 &&
	      strstr(last, "3 events dropped"));
	overflow_log_flush(&l, 5, true);
	CHECK("overflow_process_flush_forced", lines == 2 &&
	      strstr(last, "1 overflows") &&
	      strstr(last, "2 more events dropped"));
}

int main(void)
{
	fuse_set_log_func(capture);
	test_burst();
	test_process();
	return check_exit();
}
