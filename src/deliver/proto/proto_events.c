// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One remote change -> notifications (include/rnotify_proto.h), in the
 * order the kernel would emit them for the same change made locally.
 *
 * The kernel drops what an event makes stale before delivering it (the
 * object's attributes and pages, the directory's attributes and the
 * name's dentry), so a watcher woken by the event reads the new state and
 * one notification per event is enough. What is left here is our record
 * of the names the kernel holds: a name an event is about is forgotten
 * before the event goes out (the kernel drops its dentry then), so that a
 * lookup racing with the event records it again.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "deliver/common/overflow_log.h"
#include "proto_internal.h"

bool proto_node_known(struct proto_send *s, const struct rn_id *id,
		      struct proto_node *n)
{
	if (!rn_id_known(id) || !fs_node_of(s->cfg.fs, id, &n->id, &n->gen))
		return false;
	/* The kernel never looks the root up: its generation is 0. */
	if (n->id == FUSE_ROOT_ID)
		n->gen = 0;
	return true;
}

int proto_send_frame(struct proto_send *s, const struct proto_event *ev)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	int len = proto_encode_event(buf, sizeof(buf), ev);

	if (len < 0)
		return len;
	if ((s->cfg.notify ? s->cfg.notify(s->cfg.notify_ctx, buf, len) :
	     write(s->cfg.fuse_fd, buf, len)) != len)
		return -errno;
	return 1;
}

int proto_notify(struct proto_send *s, const struct proto_node *n,
		 uint32_t mask, uint32_t cookie, const char *name)
{
	struct proto_event ev = {
		.nodeid = n->id,
		.generation = n->gen,
		.mask = mask,
		.cookie = cookie,
		.namelen = name ? strlen(name) : 0,
		.name = name,
	};

	return proto_send_frame(s, &ev);
}

/*
 * A name of n removed or replaced changed its link count: ATTRIB to its own
 * watchers only (kernel fuse 6/9), as fsnotify_link_count() reports it.
 */
int proto_notify_link_count(struct proto_send *s, const struct proto_node *n,
			    bool isdir)
{
	struct proto_event ev = {
		.nodeid = n->id,
		.generation = n->gen,
		.mask = FUSE_FSNOTIFY_ATTRIB | (isdir ? FUSE_FSNOTIFY_ISDIR : 0),
		.flags = FUSE_FSNOTIFY_NO_PARENT,
	};

	return proto_send_frame(s, &ev);
}

/* Does a filesystem mark on the mount want this kind of event? */
bool proto_fs_wants(struct proto_send *s, uint32_t mask)
{
	return proto_watches_fs_mask(s->cfg.watches) & mask &
	       ~FUSE_FSNOTIFY_ISDIR;
}

/*
 * Makes the kernel hold ev's directory (which 0: dir, 1: dir2), which it
 * did not, by a lookup through the mount (proto_hold.c): *held is the fd
 * that keeps it, for proto_unhold() once the event is sent.
 */
bool proto_hold(struct proto_send *s, const struct rn_event *ev, int which,
		struct proto_node *n, int *held)
{
	const struct rn_id *id = which ? &ev->dir2 : &ev->dir;

	if (!rn_id_known(id))
		return false;
	*held = proto_hold_dir(s, ev, which, id, n);
	return *held >= 0;
}

/*
 * The node of ev's directory as the kernel holds it; if it holds none,
 * only a filesystem mark can want the event (mask), and for it the
 * kernel is made to hold the directory.
 */
static bool dir_known(struct proto_send *s, const struct rn_event *ev,
		      uint32_t mask, struct proto_node *n, int *held)
{
	if (proto_node_known(s, &ev->dir, n))
		return true;
	return proto_fs_wants(s, mask) && proto_hold(s, ev, 0, n, held);
}

int proto_unhold(int held, int ret)
{
	if (held >= 0)
		close(held);
	return ret;
}

/* A nonzero cookie no earlier rename used, as the kernel gives each. */
uint32_t proto_next_cookie(struct proto_send *s)
{
	return ++s->cookie ? s->cookie : ++s->cookie;
}

/*
 * The kernel refused pe by name (ENODATA): a watcher of the directory
 * wants the child itself, unless the kernel holds the name after all (we
 * showed it). Only the former holds for the next such event there.
 */
static void note_refusal(struct proto_send *s, const struct proto_event *pe,
			 uint32_t kind, uint64_t epoch)
{
	uint64_t child;

	if (!fs_name_shown(s->cfg.fs, pe->nodeid, pe->name, &child))
		proto_asked_note(&s->asked, pe->nodeid, pe->generation, kind,
				 epoch);
}

/*
 * A new entry goes by name. If a watcher reports the child itself
 * (fanotify's FAN_REPORT_TARGET_FID), the kernel asks for it (ENODATA,
 * kernel fuse 6/9): it goes again with the child's entry, or, if the name
 * no longer leads to that object here, by name with NO_CHILD, which the
 * kernel delivers to every watcher without the child. Once asked, the
 * next ones in that directory go with the entry at once (proto_asked.h).
 * A kernel with an early v1 of the series never asks.
 */
int proto_send_new_entry(struct proto_send *s, const struct proto_node *dir,
			 const struct rn_event *ev, const char *name,
			 uint32_t kind, uint32_t cookie)
{
	struct proto_event pe = {
		.nodeid = dir->id,
		.generation = dir->gen,
		.mask = kind | proto_isdir_bit(ev),
		.cookie = cookie,
		.namelen = strlen(name),
		.name = name,
	};
	uint64_t epoch = proto_watches_epoch(s->cfg.watches);
	int ret;

	if (!proto_asked(&s->asked, dir->id, dir->gen, kind, epoch)) {
		ret = proto_send_frame(s, &pe);
		if (ret != -ENODATA)
			return ret;
		note_refusal(s, &pe, kind, epoch);
		s->stats.new_refused++;
	}
	pe.mask = kind;
	ret = proto_send_pushed(s, dir->id, name, &ev->obj, &pe);
	if (ret)
		return ret;
	pe.mask = kind | proto_isdir_bit(ev);
	pe.flags = FUSE_FSNOTIFY_NO_CHILD;
	return proto_send_frame(s, &pe);
}

/*
 * A name renamed in from outside the export is, for watchers of the
 * mount, a rename from a place none of them can see: MOVED_TO alone, with
 * a cookie nothing pairs, as a local rename from an unwatched directory.
 */
static int deliver_create(struct proto_send *s, const struct rn_event *ev)
{
	uint32_t kind = ev->moved ? FUSE_FSNOTIFY_MOVED_TO :
				    FUSE_FSNOTIFY_CREATE;
	struct proto_node dir;
	uint32_t cookie;
	int held = -1;

	if (!dir_known(s, ev, kind | proto_isdir_bit(ev), &dir, &held))
		return 0;
	fs_name_forget(s->cfg.fs, dir.id, ev->name);
	cookie = ev->moved ? proto_next_cookie(s) : 0;
	return proto_unhold(held, proto_send_new_entry(s, &dir, ev, ev->name,
						       kind, cookie));
}

/*
 * A name the kernel holds goes with FUSE_NOTIFY_DELETE, which with the
 * series reports DELETE to the directory and DELETE_SELF to the object
 * (its link count drops to 0): sending DELETE as well would double it. An
 * object with links left only loses the name (and, as a local unlink
 * reports first, its link count changed: ATTRIB, unless the host watcher
 * reported that change itself). False if the kernel no longer
 * holds the name after all; if it still holds the object (a watch keeps
 * the inode, not the dentry), the object goes as removed first (kernel
 * fuse 6/9: DELETE_SELF, and its marks go), after the ATTRIB of its lost
 * link for a file, as a local unlink reports them.
 */
static bool delete_shown(struct proto_send *s, const struct proto_node *dir,
			 const struct rn_event *ev, uint64_t child)
{
	struct proto_node n = { .id = child };
	struct stat st;

	if (!ev->isdir && !fs_node_stat(s->cfg.fs, child, &st) &&
	    st.st_nlink > 0 && fs_node_live(s->cfg.fs, child, &n.gen)) {
		fs_name_forget(s->cfg.fs, dir->id, ev->name);
		if (!s->cfg.link_counts)
			proto_notify_link_count(s, &n, false);
		proto_notify(s, dir, FUSE_FSNOTIFY_DELETE, 0, ev->name);
		return true;
	}
	if (!fs_notify_delete(s->cfg.fs, dir->id, child, ev->name))
		return true;
	if (fs_node_live(s->cfg.fs, child, &n.gen)) {
		if (!ev->isdir)
			proto_notify_link_count(s, &n, false);
		proto_notify(s, &n, FUSE_FSNOTIFY_DELETE_SELF |
			     proto_isdir_bit(ev), 0, NULL);
	}
	return false;
}

/*
 * The node the kernel holds under the name that left, if it was shown
 * one: a deleted object comes without its id (delivery.c).
 */
static bool moved_node(struct proto_send *s, const struct proto_node *dir,
		       const struct rn_event *ev, struct proto_node *n)
{
	return fs_name_shown(s->cfg.fs, dir->id, ev->name, &n->id) &&
	       fs_node_live(s->cfg.fs, n->id, &n->gen);
}

/*
 * A name renamed out of the export: MOVED_FROM alone, with a cookie
 * nothing pairs, then MOVE_SELF if the kernel holds the object, as a
 * local rename into an unwatched directory reports it. The object was
 * not removed: no DELETE_SELF, and its watches stay (nothing outside the
 * export reaches them).
 */
static int deliver_moved_out(struct proto_send *s, const struct rn_event *ev)
{
	uint32_t mask = FUSE_FSNOTIFY_MOVED_FROM | proto_isdir_bit(ev);
	struct proto_node dir, obj;
	int held = -1, ret;
	bool held_obj;

	if (!dir_known(s, ev, mask, &dir, &held))
		return 0;
	held_obj = moved_node(s, &dir, ev, &obj);
	fs_name_forget(s->cfg.fs, dir.id, ev->name);
	ret = proto_notify(s, &dir, mask, proto_next_cookie(s), ev->name);
	if (ret >= 0 && held_obj)
		ret = proto_notify(s, &obj, FUSE_FSNOTIFY_MOVE_SELF |
				   proto_isdir_bit(ev), 0, NULL);
	return proto_unhold(held, ret);
}

static int deliver_delete(struct proto_send *s, const struct rn_event *ev)
{
	uint32_t mask = FUSE_FSNOTIFY_DELETE | proto_isdir_bit(ev);
	struct proto_node dir;
	uint64_t child;
	int held = -1;

	if (!dir_known(s, ev, mask, &dir, &held))
		return 0;
	if (fs_name_shown(s->cfg.fs, dir.id, ev->name, &child) &&
	    delete_shown(s, &dir, ev, child))
		return proto_unhold(held, 1);
	/* The kernel never looked the name up (or no longer holds it). */
	fs_name_forget(s->cfg.fs, dir.id, ev->name);
	return proto_unhold(held, proto_notify(s, &dir, mask, 0, ev->name));
}

/*
 * Would anyone on the mount want this event about a child of dir? A
 * lookup of a child the kernel never saw costs a round trip: only for a
 * watcher of the directory's children or of the filesystem that asked
 * for this kind of event.
 */
static bool child_wanted(struct proto_send *s, const struct proto_node *dir,
			 uint32_t mask)
{
	uint64_t dir_mask = proto_watches_mask(s->cfg.watches, dir->id,
					       dir->gen);

	if ((dir_mask & FUSE_FSNOTIFY_EVENT_ON_CHILD) && (dir_mask & mask))
		return true;
	return proto_watches_fs_mask(s->cfg.watches) & mask;
}

/*
 * The notification carries the entry a LOOKUP would reply, so the kernel
 * instantiates the child without a round trip. The reference the entry
 * counts is undone if the kernel refuses it (it took none then).
 */
int proto_send_pushed(struct proto_send *s, uint64_t dir, const char *name,
		      const struct rn_id *obj, struct proto_event *pe)
{
	struct fuse_entry_param e;
	int ret;

	if (fs_entry_push(s->cfg.fs, dir, name, obj, &e))
		return 0;
	if (S_ISDIR(e.attr.st_mode))
		pe->mask |= FUSE_FSNOTIFY_ISDIR;
	pe->has_entry = true;
	proto_entry_fill(&pe->entry, e.ino, e.generation, &e.attr,
			 e.entry_timeout, e.attr_timeout);
	ret = proto_send_frame(s, pe);
	if (ret < 0)
		fs_entry_push_undo(s->cfg.fs, dir, name, e.ino);
	return ret;
}

/*
 * A child event by name; true if the kernel refused it and the entry must
 * go (ENODATA, or EINVAL from an early v1 of the series), else *ret is
 * the answer.
 */
static bool refused_by_name(struct proto_send *s, struct proto_event *pe,
			    uint32_t kind, uint64_t epoch, int *ret)
{
	*ret = proto_send_frame(s, pe);
	s->stats.by_name++;
	if (*ret != -ENODATA && *ret != -EINVAL)
		return false;
	if (*ret == -ENODATA)
		note_refusal(s, pe, kind, epoch);
	s->stats.with_entry++;
	return true;
}

/*
 * An event on a child the kernel holds no inode for: by name alone, which
 * inotify and dnotify watchers of the directory need no more than, and
 * with the child's entry only if the kernel asks for it (ENODATA: a
 * fanotify watcher needs the child itself, or the kernel holds the name
 * after all). An early v1 of the series refuses the name alone (EINVAL).
 * A filesystem mark that wants the event is fanotify's, which the kernel
 * always refuses the name alone for: then the entry goes at once, as it
 * does where the kernel asked for it before (proto_asked.h).
 */
static int send_child(struct proto_send *s, const struct proto_node *dir,
		      const struct rn_event *ev, uint32_t mask)
{
	struct proto_event pe = {
		.nodeid = dir->id,
		.generation = dir->gen,
		.mask = mask | proto_isdir_bit(ev),
		.namelen = strlen(ev->name),
		.name = ev->name,
	};
	uint64_t epoch = proto_watches_epoch(s->cfg.watches);
	bool fs = proto_fs_wants(s, mask);
	bool asked = !fs &&
		     proto_asked(&s->asked, dir->id, dir->gen, mask, epoch);
	int ret;

	if (!fs && !asked && !refused_by_name(s, &pe, mask, epoch, &ret))
		return ret;
	pe.mask = mask;
	ret = proto_send_pushed(s, dir->id, ev->name, &ev->obj, &pe);
	if (ret || !asked)
		return ret;
	/* Asked for here before, but the name no longer leads to that file */
	pe.mask = mask | proto_isdir_bit(ev);
	refused_by_name(s, &pe, mask, epoch, &ret);
	return ret;
}

/*
 * An object the kernel holds goes by its node: the kernel reports it to
 * the object's watchers and, through its dentry, to its parent's. A watch
 * keeps the inode but not the dentry, which the dcache may have dropped,
 * and the parent's watchers would miss the event. So an object with a
 * watch of its own, in a directory whose watchers want this event on a
 * child, goes as a child pushed with its entry, which links it again
 * first; if its name no longer leads to it, by its node after all.
 */
static int deliver_held(struct proto_send *s, const struct rn_event *ev,
			const struct proto_node *obj, uint32_t mask)
{
	struct proto_node dir;
	struct proto_event pe = {
		.mask = mask,
		.namelen = strlen(ev->name),
		.name = ev->name,
	};
	int ret;

	if (pe.namelen &&
	    proto_watches_mask(s->cfg.watches, obj->id, obj->gen) &&
	    proto_node_known(s, &ev->dir, &dir) &&
	    child_wanted(s, &dir, mask)) {
		pe.nodeid = dir.id;
		pe.generation = dir.gen;
		ret = proto_send_pushed(s, dir.id, ev->name, &ev->obj, &pe);
		if (ret > 0)
			return ret;
	}
	return proto_notify(s, obj, mask | proto_isdir_bit(ev), 0, NULL);
}

/*
 * A held file's link count changed: a link made, or one removed or
 * renamed over while others are left. Sent whether or not a mark wants
 * it: the kernel drops the file's cached attributes (its link count) on
 * the way. Its last link's removal is not sent here: the removal's own
 * notifications carry that ATTRIB, in a local removal's order
 * (delete_shown(), send_move()).
 */
static int deliver_link_count(struct proto_send *s, const struct rn_event *ev)
{
	struct proto_node obj;
	struct stat st;

	if (!proto_node_known(s, &ev->obj, &obj) ||
	    fs_node_stat(s->cfg.fs, obj.id, &st) || !st.st_nlink)
		return 0;
	return proto_notify_link_count(s, &obj, false);
}

static int deliver_object(struct proto_send *s, const struct rn_event *ev,
			  uint32_t mask)
{
	struct proto_node obj, dir;
	int held = -1;

	if (ev->link_count)
		return deliver_link_count(s, ev);
	if (proto_node_known(s, &ev->obj, &obj))
		return deliver_held(s, ev, &obj, mask);
	if (!ev->name[0] || !dir_known(s, ev, mask, &dir, &held))
		return 0;
	if (!child_wanted(s, &dir, mask))
		return proto_unhold(held, 0);
	return proto_unhold(held, send_child(s, &dir, ev, mask));
}

/*
 * The host watcher lost events, so we did too: every watcher of the mount
 * gets an overflow event and knows to rescan. Logged as well, for whoever
 * reads the log rather than the events.
 */
static int deliver_overflow(struct proto_send *s)
{
	struct proto_node root = { .id = FUSE_ROOT_ID };

	/* What the lost events made stale is not known: drop it all. */
	fs_cache_drop_all(s->cfg.fs);
	s->stats.overflows++;
	overflow_log_warn(&s->overflows, 0);
	return proto_notify(s, &root, FUSE_FSNOTIFY_Q_OVERFLOW, 0, NULL);
}

int proto_deliver(struct proto_send *s, const struct rn_event *ev)
{
	switch (ev->kind) {
	case RN_EV_CREATE:
		return deliver_create(s, ev);
	case RN_EV_DELETE:
		if (ev->moved)
			return deliver_moved_out(s, ev);
		return deliver_delete(s, ev);
	case RN_EV_MOVE:
		return proto_deliver_move(s, ev);
	case RN_EV_MODIFY:
		return deliver_object(s, ev, FUSE_FSNOTIFY_MODIFY);
	case RN_EV_ATTRIB:
		return deliver_object(s, ev, FUSE_FSNOTIFY_ATTRIB);
	case RN_EV_CLOSE_WRITE:
		return deliver_object(s, ev, FUSE_FSNOTIFY_CLOSE_WRITE);
	case RN_EV_OVERFLOW:
		return deliver_overflow(s);
	}
	return 0;
}
