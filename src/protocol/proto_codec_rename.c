// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proto_codec_rename - the FUSE_FSNOTIFY_RENAME frame (kernel fuse
 * 7/9): out-header, fixed part, old name, struct
 * fuse_fsnotify_rename_out, new name, the child's entry at its new place.
 * Each part follows the one before without padding, as the kernel reads
 * them, and the frame ends exactly after the entry.
 */
#include <errno.h>
#include <string.h>

#include "proto_codec_internal.h"

/* FS_RENAME alone, or with both moves and their cookie (fuse 7/9). */
static bool rename_mask_ok(uint32_t mask, uint32_t cookie)
{
	uint32_t moves = FUSE_FSNOTIFY_MOVED_FROM | FUSE_FSNOTIFY_MOVED_TO;

	mask &= ~FUSE_FSNOTIFY_ISDIR;
	if (mask == (FUSE_FSNOTIFY_RENAME | moves))
		return cookie;
	return mask == FUSE_FSNOTIFY_RENAME && !cookie;
}

int proto_rename_validate(const struct proto_event *ev)
{
	if (!rename_mask_ok(ev->mask, ev->cookie) || !ev->nodeid ||
	    !ev->newdir || !ev->has_entry || ev->flags)
		return -EINVAL;
	/* Both places have a name: the "no name" of other frames is not one. */
	if (!ev->namelen || !ev->newnamelen)
		return -EINVAL;
	if (proto_entry_validate(ev) || ev->entry.nodeid == ev->newdir)
		return -EINVAL;
	if (proto_name_validate(ev->name, ev->namelen))
		return -EINVAL;
	return proto_name_validate(ev->newname, ev->newnamelen);
}

size_t proto_rename_len(uint32_t namelen, uint32_t newnamelen)
{
	return sizeof(struct fuse_out_header) +
	       sizeof(struct fuse_notify_fsnotify_out) + namelen +
	       sizeof(struct fuse_fsnotify_rename_out) + newnamelen +
	       sizeof(struct fuse_entry_out);
}

int proto_rename_encode(void *buf, size_t size, const struct proto_event *ev)
{
	size_t len = proto_rename_len(ev->namelen, ev->newnamelen);
	struct fuse_fsnotify_rename_out rn = {
		.newdir = ev->newdir, .newdir_generation = ev->newdir_generation,
		.namelen = ev->newnamelen,
	};
	int err = proto_rename_validate(ev);
	char *p;

	if (err)
		return err;
	if (size < len)
		return -ENOSPC;
	p = proto_put_head(buf, len, ev);
	p = mempcpy(p, &rn, sizeof(rn));
	p = mempcpy(p, ev->newname, ev->newnamelen);
	memcpy(p, &ev->entry, sizeof(ev->entry));
	return len;
}
