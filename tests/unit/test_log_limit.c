// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the per-message log rate limit (src/util/log_limit.c): the
 * first line of a message passes, the same message within the interval is
 * held back and counted, the next one due says how many were held back,
 * other messages are limited apart, and the flush reports what is left.
 * Time is given, never waited for.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/check.h"
#include "util/log_limit.h"

CHECK_MAIN_DEFS;

static const char msg_a[] = "fuse: failed to allocate request\n";
static const char msg_b[] = "fuse: error creating thread: %s\n";

static int said;
static unsigned long said_held;

static void say(const char *fmt, unsigned long held)
{
	said++;
	said_held += held;
}

static void test_one_message(void)
{
	struct log_limit l = LOG_LIMIT_INIT;
	unsigned long held;
	double t = 50.0;
	int i, passed = 0;

	CHECK("log_limit_first_passes",
	      log_limit_pass(&l, msg_a, t, &held) && held == 0);
	for (i = 1; i <= 1000; i++)
		passed += log_limit_pass(&l, msg_a, t + i * 0.001, &held);
	CHECK("log_limit_burst_held", passed == 0);
	CHECK("log_limit_due_passes_with_count",
	      log_limit_pass(&l, msg_a, t + LOG_LIMIT_INTERVAL, &held) &&
	      held == 1000);
	CHECK("log_limit_count_reset",
	      log_limit_pass(&l, msg_a, t + 3 * LOG_LIMIT_INTERVAL, &held) &&
	      held == 0);
}

static void test_two_messages(void)
{
	struct log_limit l = LOG_LIMIT_INIT;
	unsigned long held;
	double t = 10.0;

	log_limit_pass(&l, msg_a, t, &held);
	CHECK("log_limit_other_message_passes",
	      log_limit_pass(&l, msg_b, t + 0.1, &held) && held == 0);
	log_limit_pass(&l, msg_a, t + 0.2, &held);
	log_limit_pass(&l, msg_a, t + 0.3, &held);
	log_limit_pass(&l, msg_b, t + 0.4, &held);
	said = 0;
	said_held = 0;
	log_limit_flush(&l, say);
	CHECK("log_limit_flush_reports_held", said == 2 && said_held == 3);
	said = 0;
	log_limit_flush(&l, say);
	CHECK("log_limit_flush_once", said == 0);
}

/* Past LOG_LIMIT_SLOTS messages nothing is held back. */
static void test_slots_full(void)
{
	struct log_limit l = LOG_LIMIT_INIT;
	char fmts[LOG_LIMIT_SLOTS + 1][8];
	unsigned long held;
	int i;

	for (i = 0; i <= LOG_LIMIT_SLOTS; i++) {
		snprintf(fmts[i], sizeof(fmts[i]), "m%d", i);
		log_limit_pass(&l, fmts[i], 1.0, &held);
	}
	CHECK("log_limit_tracked_held",
	      !log_limit_pass(&l, fmts[0], 1.1, &held));
	CHECK("log_limit_untracked_passes",
	      log_limit_pass(&l, fmts[LOG_LIMIT_SLOTS], 1.1, &held));
}

int main(void)
{
	test_one_message();
	test_two_messages();
	test_slots_full();
	return check_exit();
}
