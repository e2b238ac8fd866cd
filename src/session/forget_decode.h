/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forget_decode - the kernel's FUSE_FORGET and FUSE_BATCH_FORGET requests,
 * byte for byte, as read from /dev/fuse.
 *
 * session_io.c consumes them before libfuse sees them: libfuse must
 * allocate a request for each, and when the server is at its memory limit
 * it cannot, answers ENOMEM and drops it (the kernel expects no answer to
 * a FORGET). A dropped FORGET is never sent again: the node, its fd and
 * its memory would stay held for as long as the mount lives. A pure
 * function, no allocation, so that it can be fuzzed.
 */
#ifndef RNOTIFY_SESSION_FORGET_DECODE_H
#define RNOTIFY_SESSION_FORGET_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* The kernel drops nlookup of its references to the node. */
typedef void forget_fn(void *arg, uint64_t nodeid, uint64_t nlookup);

/*
 * Calls fn for each (nodeid, nlookup) of a FORGET (one) or BATCH_FORGET
 * (count) request, in frame order, once the whole frame has been checked.
 * Returns the number of calls, -EPROTO if the frame is another opcode
 * (fn is not called), -EINVAL if it is truncated or its length disagrees
 * with its in-header or its count (fn is not called).
 */
int forget_decode(const void *buf, size_t len, forget_fn *fn, void *arg);

#endif
