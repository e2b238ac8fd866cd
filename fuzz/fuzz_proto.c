// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the remote-fsnotify frame decoders (the kernel's
 * side in tests/peer/proto_peer.c, the server's in
 * src/protocol/proto_codec.c). Every frame a decoder accepts must obey
 * the kernel's rules and re-encode to exactly the same bytes: a decoder
 * that accepts more than the encoder can produce is a bug. The first
 * byte picks the decoder; the rest is the frame.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/proto_codec.h"
#include "../tests/peer/proto_peer.h"

static void fuzz_event(const uint8_t *data, size_t size)
{
	unsigned char out[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev;
	int len;

	if (proto_decode_event(data, size, &ev))
		return;
	if (proto_event_validate(&ev) || ev.namelen > FUSE_FSNOTIFY_NAME_MAX)
		abort();
	if (ev.namelen && (memchr(ev.name, '/', ev.namelen) ||
			   memchr(ev.name, 0, ev.namelen)))
		abort();
	/* A pushed entry is never the root, nothing or the directory. */
	if (ev.has_entry && (ev.entry.nodeid <= FUSE_ROOT_ID ||
			     ev.entry.nodeid == ev.nodeid || !ev.namelen))
		abort();
	/* A rename's new place: another name, never the entry's own node. */
	if ((ev.mask & FUSE_FSNOTIFY_RENAME) &&
	    (!ev.newnamelen || ev.newnamelen > FUSE_FSNOTIFY_NAME_MAX ||
	     memchr(ev.newname, '/', ev.newnamelen) ||
	     memchr(ev.newname, 0, ev.newnamelen) ||
	     ev.entry.nodeid == ev.newdir))
		abort();
	len = proto_encode_event(out, sizeof(out), &ev);
	if (len < 0 || (size_t)len != size || memcmp(out, data, size))
		abort();
}

static void fuzz_watch(const uint8_t *data, size_t size)
{
	unsigned char out[PROTO_WATCH_FRAME_SIZE], want[PROTO_WATCH_FRAME_SIZE];
	struct proto_watch w;
	int len, err;

	err = proto_decode_watch(data, size, &w);
	if (err == -EPROTO && proto_is_watch(data, size))
		abort();
	if (err)
		return;
	if (w.mask & ~(uint64_t)FUSE_FSNOTIFY_WATCH_EVENTS)
		abort();
	len = proto_encode_watch(out, sizeof(out), &w);
	if (len != (int)size)
		abort();
	/* The input with the mask bits the decoder drops (after the header). */
	memcpy(want, data, size);
	memcpy(want + 40, &w.mask, sizeof(w.mask));
	/* The in-header's uid/gid/pid are not part of the request. */
	if (memcmp(out, want, 24) || memcmp(out + 40, want + 40, size - 40))
		abort();
}

/* INIT is read by the server before libfuse sees it: any bytes. */
static void fuzz_init(const uint8_t *data, size_t size)
{
	uint64_t unique = 0, flags = 0;

	if (!proto_decode_init(data, size, &unique, &flags) &&
	    size < 40 + 16)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_event(data + 1, size - 1);
		break;
	case 1:
		fuzz_watch(data + 1, size - 1);
		break;
	default:
		fuzz_init(data + 1, size - 1);
	}
	return 0;
}
