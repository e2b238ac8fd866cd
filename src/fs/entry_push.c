// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Entries pushed to the kernel without a LOOKUP: a notification that
 * carries the entry of a child the kernel never looked up (protocol mode,
 * include/rnotify_proto.h). The entry is the one a LOOKUP of (parent,
 * name) would reply, and it counts the same kernel reference; if the
 * kernel refuses the notification it took none, and the count is undone.
 */
#include <errno.h>

#include "fs_internal.h"
#include "name_validate.h"
#include "names_shown.h"

/*
 * Is child the event's object? By host id if the event has one, else by
 * the gen of its handle (an object the client did not hold has no id).
 */
static bool same_object(const struct fs_inode *child, const struct stat *st,
			const struct rn_id *id)
{
	if (rn_id_known(id))
		return st->st_dev == id->dev && st->st_ino == id->ino;
	return id->gen && id->gen == child->id.gen;
}

int fs_entry_push(struct fs *fs, uint64_t parent, const char *name,
		  const struct rn_id *id, struct fuse_entry_param *e)
{
	struct fs_inode *dir = fs_inode_get(fs, parent), *child;
	struct stat st;
	int err;

	if (!dir)
		return -ENOENT;
	err = dir->fd < 0 ? -ESTALE : fs_name_validate(name, false);
	if (!err)
		err = fs_entry_learn(fs, dir, name, &child, &st);
	/* The name was taken over by another object since the event. */
	if (!err && !same_object(child, &st, id)) {
		fs_table_forget(&fs->table, child->nodeid, 1);
		err = -ESTALE;
	}
	if (!err) {
		fs_names_show(&fs->table, parent, name, child->nodeid);
		fs_entry_param(fs, child, &st, e);
	}
	fs_inode_put(fs, dir);
	return err;
}

void fs_entry_push_undo(struct fs *fs, uint64_t parent, const char *name,
			uint64_t nodeid)
{
	fs_names_hide(&fs->table, parent, name);
	fs_table_forget(&fs->table, nodeid, 1);
}
