// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the FORGET and BATCH_FORGET decoder
 * (src/session/forget_decode.c), which reads every request from
 * /dev/fuse before libfuse does. An accepted frame must be exactly as
 * long as its count says, and every pair handed out must be the bytes at
 * its place in the frame, in order; a refused frame must hand out none.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fuse.h>

#include "session/forget_decode.h"

struct walk {
	const uint8_t *data;
	size_t size;
	size_t at;	/* offset of the next pair expected */
	int calls;
};

static void check_pair(void *arg, uint64_t nodeid, uint64_t nlookup)
{
	struct walk *w = arg;
	struct fuse_forget_one one;
	struct fuse_in_header ih;

	memcpy(&ih, w->data, sizeof(ih));
	if (ih.opcode == FUSE_FORGET) {
		one.nodeid = ih.nodeid;
		memcpy(&one.nlookup, w->data + sizeof(ih), 8);
	} else {
		if (w->at + sizeof(one) > w->size)
			abort();
		memcpy(&one, w->data + w->at, sizeof(one));
		w->at += sizeof(one);
	}
	if (one.nodeid != nodeid || one.nlookup != nlookup)
		abort();
	w->calls++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk w = { data, size, 48, 0 };
	struct fuse_in_header ih;
	int n = forget_decode(data, size, check_pair, &w);

	if (n < 0 && w.calls)
		abort();
	if (size < sizeof(ih)) {
		if (n != -EINVAL)
			abort();
		return 0;
	}
	memcpy(&ih, data, sizeof(ih));
	if ((n == -EPROTO) != (ih.opcode != FUSE_FORGET &&
			       ih.opcode != FUSE_BATCH_FORGET))
		abort();
	if (n < 0)
		return 0;
	if (n != w.calls || ih.len != size)
		abort();
	if (ih.opcode == FUSE_FORGET ? size != 48 : w.at != size)
		abort();
	return 0;
}
