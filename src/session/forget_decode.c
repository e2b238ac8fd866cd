// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * forget_decode - FUSE_FORGET and FUSE_BATCH_FORGET, byte for byte.
 *
 * Fields are copied with memcpy into local structs: a buffer read from
 * /dev/fuse or handed in by a fuzzer has no alignment promise. The whole
 * length is checked before the first call, so a bad frame changes nothing.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <linux/fuse.h>

#include "forget_decode.h"

_Static_assert(sizeof(struct fuse_in_header) == 40, "in-header size");
_Static_assert(sizeof(struct fuse_forget_in) == 8, "forget size");
_Static_assert(sizeof(struct fuse_batch_forget_in) == 8, "batch size");
_Static_assert(sizeof(struct fuse_forget_one) == 16, "batch entry size");

static int forget_one(const struct fuse_in_header *ih, const char *body,
		      size_t len, forget_fn *fn, void *arg)
{
	struct fuse_forget_in in;

	if (len != sizeof(*ih) + sizeof(in))
		return -EINVAL;
	memcpy(&in, body, sizeof(in));
	fn(arg, ih->nodeid, in.nlookup);
	return 1;
}

static int forget_batch(const char *body, size_t len, forget_fn *fn,
			void *arg)
{
	struct fuse_batch_forget_in in;
	struct fuse_forget_one one;
	size_t room;
	uint32_t i;

	if (len < sizeof(struct fuse_in_header) + sizeof(in))
		return -EINVAL;
	memcpy(&in, body, sizeof(in));
	room = len - sizeof(struct fuse_in_header) - sizeof(in);
	/* Divided, not multiplied: a huge count cannot wrap around. */
	if (in.count > INT_MAX || room % sizeof(one) ||
	    room / sizeof(one) != in.count)
		return -EINVAL;
	body += sizeof(in);
	for (i = 0; i < in.count; i++) {
		memcpy(&one, body + i * sizeof(one), sizeof(one));
		fn(arg, one.nodeid, one.nlookup);
	}
	return in.count;
}

int forget_decode(const void *buf, size_t len, forget_fn *fn, void *arg)
{
	struct fuse_in_header ih;
	const char *body;

	if (len < sizeof(ih))
		return -EINVAL;
	memcpy(&ih, buf, sizeof(ih));
	body = (const char *)buf + sizeof(ih);
	if (ih.opcode != FUSE_FORGET && ih.opcode != FUSE_BATCH_FORGET)
		return -EPROTO;
	if (ih.len != len)
		return -EINVAL;
	if (ih.opcode == FUSE_FORGET)
		return forget_one(&ih, body, len, fn, arg);
	return forget_batch(body, len, fn, arg);
}
