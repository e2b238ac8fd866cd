/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's side of the remote-fsnotify protocol, for the tests and
 * the fuzzers only (the server never decodes a notification nor encodes
 * a FUSE_FSNOTIFY request): the decoders check every rule the kernel
 * checks, and a frame they accept must re-encode to the same bytes.
 * Also the builder of the malformed notifications the tests send to a
 * kernel, which the codec refuses to build.
 */
#ifndef RNOTIFY_TESTS_PEER_PROTO_PEER_H
#define RNOTIFY_TESTS_PEER_PROTO_PEER_H

#include "protocol/proto_codec.h"

/*
 * Parse a complete notification frame.  ev->name points into buf.
 * Returns 0, or -EINVAL for any frame the kernel would reject.
 */
int proto_decode_event(const void *buf, size_t len, struct proto_event *ev);

/* True if buf (len bytes, as read from /dev/fuse) is a FUSE_FSNOTIFY. */
int proto_is_watch(const void *buf, size_t len);

/* Encode a FUSE_FSNOTIFY request; frame length. */
int proto_encode_watch(void *buf, size_t size, const struct proto_watch *w);

/*
 * Build a notification frame as given, valid or not: code in the
 * out-header's error field, namelen as declared and name_bytes of name
 * actually there.  Returns the frame's length; aborts if it does not fit
 * in size (a test that sent a cut frame would check the wrong thing).
 */
size_t proto_build_raw_event(void *buf, size_t size, int code,
			     uint64_t nodeid, uint64_t gen, uint32_t mask,
			     uint32_t cookie, uint32_t namelen,
			     const void *name, size_t name_bytes);

#endif
