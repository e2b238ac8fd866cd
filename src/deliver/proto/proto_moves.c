// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proto_moves - a remote rename as notifications: MOVED_FROM and MOVED_TO
 * with one cookie (or one notification with FS_RENAME, proto_rename.c),
 * MOVE_SELF to the moved object, and ATTRIB and DELETE_SELF to an object
 * the rename replaced, in vfs_rename()'s order.
 */
#include <sys/stat.h>

#include "proto_internal.h"

/*
 * MOVED_FROM and MOVED_TO with one cookie, each if its directory is held;
 * MOVED_TO as a new entry (proto_send_new_entry()).
 */
static int send_moves(struct proto_send *s, const struct rn_event *ev,
		      const struct proto_node *from,
		      const struct proto_node *to, uint32_t cookie)
{
	int ret = 0;

	if (from)
		ret = proto_notify(s, from, FUSE_FSNOTIFY_MOVED_FROM |
				   proto_isdir_bit(ev), cookie, ev->name);
	if (to && ret >= 0)
		ret = proto_send_new_entry(s, to, ev, ev->name2,
					   FUSE_FSNOTIFY_MOVED_TO, cookie);
	return ret;
}

/*
 * MOVE_SELF to the moved object. A watched one gets its new name in the
 * kernel first, so that its removal can later go by FUSE_NOTIFY_DELETE
 * (DELETE_SELF and IN_IGNORED, as for a local unlink); a RENAME gave it
 * that. Others need no lookup.
 */
static int send_moved_self(struct proto_send *s, const struct rn_event *ev,
			   const struct proto_node *to, bool renamed,
			   const struct proto_node *obj)
{
	if (to && !renamed &&
	    proto_watches_mask(s->cfg.watches, obj->id, obj->gen))
		proto_lookup_child(s, to, ev->name2);
	return proto_notify(s, obj, FUSE_FSNOTIFY_MOVE_SELF |
			    proto_isdir_bit(ev), 0, NULL);
}

/*
 * The object a rename replaced at the new name, if the kernel holds it
 * and it has no link left (isdir: a directory). One with links left (a
 * hard link elsewhere, or a RENAME_EXCHANGE's other half) is left alone:
 * the host's events do not say which it is.
 */
static bool replaced_node(struct proto_send *s, const struct proto_node *to,
			  const struct rn_event *ev, struct proto_node *n,
			  bool *isdir)
{
	struct stat st;

	if (!to || !fs_name_shown(s->cfg.fs, to->id, ev->name2, &n->id) ||
	    !fs_node_live(s->cfg.fs, n->id, &n->gen) ||
	    fs_node_stat(s->cfg.fs, n->id, &st) || st.st_nlink)
		return false;
	*isdir = S_ISDIR(st.st_mode);
	return true;
}

/*
 * RENAME (for FAN_RENAME and DN_RENAME watchers), MOVED_FROM and MOVED_TO
 * with one cookie, then MOVE_SELF, as vfs_rename() reports them. The
 * first three go as one notification (kernel fuse 7/9) if a watcher
 * wants the RENAME and both directories are held: a RENAME of its own
 * could not come first, since MOVED_TO drops any dentry of its name, and
 * would take the child the RENAME links there (evicted, its node
 * forgotten, the fid in the event stale). If the kernel refuses it, the
 * moves go alone. from and to: NULL if the kernel holds no node.
 */
static int send_move(struct proto_send *s, const struct rn_event *ev,
		     const struct proto_node *from,
		     const struct proto_node *to)
{
	uint32_t cookie = proto_next_cookie(s);
	bool has_obj, renamed = false, replaced, isdir = false;
	struct proto_node obj, old;
	int ret = 0;

	/* Known before MOVED_TO forgets the name it had. */
	replaced = replaced_node(s, to, ev, &old, &isdir);
	if (from)
		fs_name_forget(s->cfg.fs, from->id, ev->name);
	if (to)
		fs_name_forget(s->cfg.fs, to->id, ev->name2);
	/* Known before the RENAME, which may make the kernel hold it. */
	has_obj = proto_node_known(s, &ev->obj, &obj);
	if (from && to)
		ret = proto_send_rename(s, from, to, ev, cookie);
	renamed = ret > 0;
	if (!renamed) {
		ret = send_moves(s, ev, from, to, cookie);
		if (ret < 0)
			return ret;
	}
	/*
	 * As a local rename over it, the replaced object gets ATTRIB for its
	 * lost link before the moved object's MOVE_SELF, then DELETE_SELF,
	 * which with kernel fuse 6/9 ends its watches, as the replaced
	 * dentry's last reference does.
	 */
	replaced = replaced && (!has_obj || old.id != obj.id);
	if (replaced)
		proto_notify_link_count(s, &old, isdir);
	if (has_obj)
		ret = send_moved_self(s, ev, to, renamed, &obj);
	if (replaced)
		proto_notify(s, &old, FUSE_FSNOTIFY_DELETE_SELF |
			     (isdir ? FUSE_FSNOTIFY_ISDIR : 0), 0, NULL);
	return ret;
}

/* Does a mark on the directory the kernel holds want FAN_RENAME? */
static bool rename_marked(struct proto_send *s, bool known,
			  const struct proto_node *n)
{
	return known && (proto_watches_mask(s->cfg.watches, n->id, n->gen) &
			 FUSE_FSNOTIFY_RENAME);
}

/*
 * A directory the kernel does not hold is looked up for a filesystem
 * mark that wants its half of the rename, or for a FAN_RENAME mark
 * anywhere: that event needs both directories.
 */
int proto_deliver_move(struct proto_send *s, const struct rn_event *ev)
{
	int held_from = -1, held_to = -1, ret;
	struct proto_node from, to;
	bool has_from, has_to, rename;

	has_from = proto_node_known(s, &ev->dir, &from);
	has_to = proto_node_known(s, &ev->dir2, &to);
	rename = proto_fs_wants(s, FUSE_FSNOTIFY_RENAME) ||
		 rename_marked(s, has_from, &from) ||
		 rename_marked(s, has_to, &to);
	if (!has_from &&
	    (rename || proto_fs_wants(s, FUSE_FSNOTIFY_MOVED_FROM)))
		has_from = proto_hold(s, ev, 0, &from, &held_from);
	if (!has_to && (rename || proto_fs_wants(s, FUSE_FSNOTIFY_MOVED_TO)))
		has_to = proto_hold(s, ev, 1, &to, &held_to);
	ret = send_move(s, ev, has_from ? &from : NULL, has_to ? &to : NULL);
	proto_unhold(held_to, 0);
	return proto_unhold(held_from, ret);
}
