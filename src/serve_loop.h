/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RNOTIFY_SERVE_LOOP_H
#define RNOTIFY_SERVE_LOOP_H

#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

/*
 * Answers the session's requests until it exits: one worker, more (up to
 * max_workers) while requests stall. The caller must have a SIGUSR1
 * handler installed without SA_RESTART and must not block SIGUSR1.
 * Returns 0, or a negative errno if reading the device failed.
 */
int serve_loop_run(struct fuse_session *se, unsigned int max_workers);

#endif
