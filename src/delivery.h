/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The chain that carries remote changes to the mount:
 *   host watcher -> event pump -> event queue -> delivery backend.
 */
#ifndef RNOTIFY_DELIVERY_H
#define RNOTIFY_DELIVERY_H

#include "cli.h"
#include "fs/fs.h"

struct delivery;

/*
 * Starts the chain for a mounted fs whose INIT was answered (the kernel's
 * protocol when it was negotiated, replay otherwise; fuse_fd is the
 * session's, for notifications), or returns NULL after printing why
 * delivery is off (delivery=none, or it cannot work here and was not
 * explicitly asked for). *fatal is set when it was asked for and failed.
 */
struct delivery *delivery_start(const struct cli *cli, struct fs *fs,
				int fuse_fd, bool *fatal);

/* Stops the chain; the FUSE session must still be serving requests. */
void delivery_stop(struct delivery *d);

#endif
