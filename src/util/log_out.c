// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuse_log's output (log_out.h). The output function is set before the
 * server starts its threads and switched once, by the only thread, when
 * it daemonizes; log_debug is set before either. The rate limit has its
 * own lock: any thread may log. The state is this file's, the process's:
 * fuse_set_log_func() gives its output function no argument.
 */
#include <fuse_log.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log_limit.h"
#include "log_out.h"

static bool log_debug;
static struct log_limit fuse_lines = LOG_LIMIT_INIT;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* *held is set for a line that passes after others like it were held. */
static bool log_wanted(enum fuse_log_level level, const char *fmt,
		       unsigned long *held)
{
	*held = 0;
	if (log_debug)
		return true;
	if (level >= FUSE_LOG_DEBUG)
		return false;
	if (strncmp(fmt, "fuse: ", 6) &&
	    strncmp(fmt, LOG_PER_REQUEST, strlen(LOG_PER_REQUEST)) &&
	    strncmp(fmt, LOG_PER_EVENT, strlen(LOG_PER_EVENT)))
		return true;
	return log_limit_pass(&fuse_lines, fmt, now_seconds(), held);
}

typedef void log_out_fn(int level, const char *fmt, va_list ap);

static void out_stderr(int level, const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

static void out_syslog(int level, const char *fmt, va_list ap)
{
	vsyslog(level, fmt, ap);
}

static void log_say(log_out_fn *out, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out(level, fmt, ap);
	va_end(ap);
}

static void log_limited(log_out_fn *out, enum fuse_log_level level,
			const char *fmt, va_list ap)
{
	unsigned long held;

	if (!log_wanted(level, fmt, &held))
		return;
	out(level, fmt, ap);
	if (held)
		log_say(out, level,
			"rnotifyfs: the line above came %lu more times since it was last logged\n",
			held);
}

static void log_to_stderr(enum fuse_log_level level, const char *fmt,
			  va_list ap)
{
	log_limited(out_stderr, level, fmt, ap);
}

static void log_to_syslog(enum fuse_log_level level, const char *fmt,
			  va_list ap)
{
	log_limited(out_syslog, level, fmt, ap);
}

/* Lines still held back at exit: said once, as counts. */
static void log_held(const char *fmt, unsigned long held)
{
	fuse_log(FUSE_LOG_WARNING, "rnotifyfs: %lu more lines \"%.*s\" not logged\n",
		 held, (int)strcspn(fmt, "\n"), fmt);
}

void log_out_stderr(bool debug)
{
	log_debug = debug;
	fuse_set_log_func(log_to_stderr);
}

void log_out_syslog(void)
{
	openlog("rnotifyfs", LOG_PID, LOG_DAEMON);
	fuse_set_log_func(log_to_syslog);
}

void log_out_flush(void)
{
	log_limit_flush(&fuse_lines, log_held);
}
