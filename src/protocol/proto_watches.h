/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The client kernel's watches, as its FUSE_FSNOTIFY requests describe
 * them: the combined mask of every inotify/fanotify mark on a node
 * (nodeid + generation), and the combined mask of the filesystem-wide
 * fanotify marks on the mount. A mask of 0 removes a node's entry.
 *
 * Written by the FUSE reader threads (each request replaces the node's
 * mask: the kernel coalesces updates, the latest is the truth), read by
 * the protocol sender; all calls take the table's own lock.
 */
#ifndef RNOTIFY_PROTOCOL_PROTO_WATCHES_H
#define RNOTIFY_PROTOCOL_PROTO_WATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "proto_codec.h"

struct proto_watches;

struct proto_watches *proto_watches_new(void);
void proto_watches_free(struct proto_watches *t);

/* Applies one decoded request: 0, or -ENOMEM (the table is unchanged). */
int proto_watches_set(struct proto_watches *t, const struct proto_watch *w);

/*
 * The mask the kernel wants for node id with this generation (the low 32
 * bits are compared, as the kernel keeps them); 0 if it has none.
 */
uint64_t proto_watches_mask(struct proto_watches *t, uint64_t nodeid,
			    uint32_t generation);

/* The combined mask of the filesystem-wide marks. */
uint64_t proto_watches_fs_mask(struct proto_watches *t);

/*
 * How many requests were applied: a new value means some mark changed
 * since, and with it maybe what the kernel wants of an event.
 */
uint64_t proto_watches_epoch(struct proto_watches *t);


#endif
