/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the server's lines go: every part logs with fuse_log(), and this
 * is fuse_log's output. On stderr until the server daemonizes (its stderr
 * is /dev/null then), on syslog after. Debug lines are logged only with
 * -d. libfuse's own lines ("fuse: ...") come once per request it cannot
 * allocate, the server's lines that begin LOG_PER_REQUEST once per
 * request it cannot serve, and those that begin LOG_PER_EVENT once per
 * remote change it could not deliver: they are rate-limited and counted
 * (log_limit.h), except with -d.
 */
#ifndef RNOTIFY_UTIL_LOG_OUT_H
#define RNOTIFY_UTIL_LOG_OUT_H

#include <stdbool.h>

/* Begins a line the server may log once per request: rate-limited. */
#define LOG_PER_REQUEST "rnotifyfs: request: "
/* Begins a line the server may log once per remote change: rate-limited. */
#define LOG_PER_EVENT "rnotifyfs: lost: "

/* Logs to stderr from now on; debug: -d was given. */
void log_out_stderr(bool debug);

/* Logs to syslog (daemon facility, with the pid) from now on. */
void log_out_syslog(void);

/* Says, once each, how many lines are still held back: call at exit. */
void log_out_flush(void);

#endif
