/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chain that carries remote changes to the mount:
 *   host watcher -> event pump -> event queue -> delivery backend.
 */
#ifndef RNOTIFY_DELIVER_DELIVERY_H
#define RNOTIFY_DELIVER_DELIVERY_H

#include "daemon/cli.h"
#include "util/cpu_pin.h"
#include "fs/fs.h"

struct delivery;

/*
 * Opens the host watcher for fs, before the mount and before the process
 * daemonizes, so that a refusal (a per-user watch limit, say) is said on
 * the terminal and nothing is mounted. NULL when delivery=none, or after
 * printing why it failed, with *fatal set.
 */
struct delivery *delivery_new(const struct cli *cli, struct fs *fs,
			      bool *fatal);

/*
 * Starts the chain of d (from delivery_new, may be NULL) once INIT was
 * answered: the kernel's protocol when it was negotiated, replay
 * otherwise; fuse_fd is the session's, for notifications; pin holds the
 * threads that answer requests, for replay (replay.h). Returns NULL
 * after printing why delivery is off when it cannot work here and was not
 * explicitly asked for (d is freed), with *fatal set when it was asked
 * for and failed.
 */
struct delivery *delivery_start(struct delivery *d, const struct cli *cli,
				struct fs *fs, int fuse_fd,
				struct cpu_pin *pin, bool *fatal);

/*
 * Stops the chain (or frees what delivery_new() opened); a started chain
 * needs the FUSE session still serving requests.
 */
void delivery_stop(struct delivery *d);

#endif
