/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RNOTIFY_SESSION_SERVE_LOOP_H
#define RNOTIFY_SESSION_SERVE_LOOP_H

#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include "util/cpu_pin.h"

/* A worker was still inside a request 2 s after the session exited. */
#define SERVE_LOOP_STUCK 1

/*
 * Answers the session's requests until it exits: one worker, more (up to
 * max_workers) while requests stall. The caller must have a SIGUSR1
 * handler installed without SA_RESTART and must not block SIGUSR1.
 * Every worker is a member of pin (may be NULL) while it lives.
 * Returns 0, a negative errno if reading the device failed, or
 * SERVE_LOOP_STUCK: the stuck worker is left running, so the caller must
 * free nothing a request uses (the session, the file system, pin) and
 * should end the process.
 */
int serve_loop_run(struct fuse_session *se, unsigned int max_workers,
		   struct cpu_pin *pin);

#endif
