// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proto_rename - a remote rename as fanotify FAN_RENAME and dnotify
 * DN_RENAME watchers see it (FS_RENAME, kernel fuse 7/9): one event with
 * the old directory and name and the new ones. The same notification
 * carries the MOVED_FROM and MOVED_TO that inotify sees (kernel patch
 * 16), and the kernel reports the three in a local rename's order.
 * The kernel reports FS_RENAME on the moved dentry at its new place, so
 * the notification carries the child's entry there, as an event pushed
 * on a child does: a lookup counted here, undone if the kernel refuses
 * it. That costs a lookup of the backing object, so it is sent only if a
 * watch on either directory or on the filesystem asked for FS_RENAME.
 */
#include <string.h>

#include "proto_internal.h"

static bool rename_wanted(struct proto_send *s, const struct proto_node *from,
			  const struct proto_node *to)
{
	struct proto_watches *w = s->cfg.watches;

	return (proto_watches_mask(w, from->id, from->gen) |
		proto_watches_mask(w, to->id, to->gen) |
		proto_watches_fs_mask(w)) & FUSE_FSNOTIFY_RENAME;
}

int proto_send_rename(struct proto_send *s, const struct proto_node *from,
		      const struct proto_node *to, const struct rn_event *ev,
		      uint32_t cookie)
{
	struct proto_event pe = {
		.nodeid = from->id,
		.generation = from->gen,
		.mask = FUSE_FSNOTIFY_RENAME | FUSE_FSNOTIFY_MOVED_FROM |
			FUSE_FSNOTIFY_MOVED_TO,
		.cookie = cookie,
		.namelen = strlen(ev->name),
		.name = ev->name,
		.newdir = to->id,
		.newdir_generation = to->gen,
		.newnamelen = strlen(ev->name2),
		.newname = ev->name2,
	};
	int ret;

	if (!rename_wanted(s, from, to))
		return 0;
	/* Not sent if the new name no longer leads to the moved object. */
	ret = proto_send_pushed(s, to->id, ev->name2, &ev->obj, &pe);
	if (ret < 0)
		fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: notify RENAME %s: %s\n",
			 ev->name2, strerror(-ret));
	return ret;
}
