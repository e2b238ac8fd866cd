// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * proto_codec - the remote-fsnotify frames, byte for byte.
 *
 * Frames are read and written with memcpy into local structs, never by
 * casting the caller's buffer: a buffer read from /dev/fuse or handed in
 * by a fuzzer has no alignment promise.  Multi-byte fields are in host
 * order, as everywhere in FUSE.  Each decoder checks the length before it
 * reads a field and checks every field before it writes its output.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/fuse.h>

#include "proto_codec_internal.h"

_Static_assert(sizeof(struct fuse_out_header) == 16, "out-header size");
_Static_assert(sizeof(struct fuse_in_header) == 40, "in-header size");
_Static_assert(sizeof(struct fuse_fsnotify_in) == 24, "request size");
_Static_assert(sizeof(struct fuse_notify_fsnotify_out) == 32,
	       "notification size");
_Static_assert(sizeof(struct fuse_entry_out) == 128, "entry size");
_Static_assert(sizeof(struct fuse_fsnotify_rename_out) == 24,
	       "rename size");

int proto_name_validate(const char *name, uint32_t namelen)
{
	if (namelen > FUSE_FSNOTIFY_NAME_MAX)
		return -EINVAL;
	if (!namelen)
		return 0;
	if (!name)
		return -EINVAL;
	/* "." and ".." are never directory entries of an event. */
	if ((namelen == 1 && name[0] == '.') ||
	    (namelen == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	if (memchr(name, '/', namelen) || memchr(name, '\0', namelen))
		return -EINVAL;
	return 0;
}

/* Lost events concern the whole mount: the root, nothing else. */
static int proto_overflow_validate(const struct proto_event *ev)
{
	if (ev->nodeid != FUSE_ROOT_ID || ev->generation || ev->cookie ||
	    ev->namelen || ev->flags)
		return -EINVAL;
	return 0;
}

/*
 * The frame form: a name with an object event or a new entry's event may
 * carry the child's entry; the frame's length says whether it does.
 */
bool proto_may_have_entry(uint32_t mask, uint32_t namelen)
{
	return namelen && (mask & (FUSE_FSNOTIFY_OBJECT_EVENTS |
				   FUSE_FSNOTIFY_NEW_ENTRY_EVENTS));
}

/* The events a frame may carry: on the object, in a directory, on a child. */
static uint32_t proto_allowed(const struct proto_event *ev)
{
	if (!ev->namelen)
		return FUSE_FSNOTIFY_OBJECT_EVENTS;
	if (ev->mask & FUSE_FSNOTIFY_DIRENT_EVENTS)
		return ev->has_entry ? FUSE_FSNOTIFY_NEW_ENTRY_EVENTS :
				       FUSE_FSNOTIFY_DIRENT_EVENTS;
	return ev->has_entry ? FUSE_FSNOTIFY_OBJECT_EVENTS :
			       FUSE_FSNOTIFY_CHILD_EVENTS;
}

/*
 * "No child" is for a new entry's event by name alone, "no parent" for an
 * event on the object itself.
 */
static bool proto_flags_ok(const struct proto_event *ev, uint32_t events)
{
	if (ev->flags & ~(FUSE_FSNOTIFY_NO_CHILD | FUSE_FSNOTIFY_NO_PARENT))
		return false;
	if ((ev->flags & FUSE_FSNOTIFY_NO_PARENT) && ev->namelen)
		return false;
	return !(ev->flags & FUSE_FSNOTIFY_NO_CHILD) ||
	       (!ev->has_entry && ev->namelen &&
		!(events & ~FUSE_FSNOTIFY_NEW_ENTRY_EVENTS));
}

static bool proto_valid_type(uint32_t mode)
{
	return S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode) ||
	       S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) ||
	       S_ISSOCK(mode);
}

int proto_entry_validate(const struct proto_event *ev)
{
	const struct fuse_entry_out *e = &ev->entry;
	bool isdir = ev->mask & FUSE_FSNOTIFY_ISDIR;

	if (!e->nodeid || e->nodeid == FUSE_ROOT_ID ||
	    e->nodeid == ev->nodeid)
		return -EINVAL;
	if (!proto_valid_type(e->attr.mode) || e->attr.size > INT64_MAX)
		return -EINVAL;
	if (isdir != S_ISDIR(e->attr.mode))
		return -EINVAL;
	return 0;
}

int proto_event_validate(const struct proto_event *ev)
{
	uint32_t events = ev->mask & ~FUSE_FSNOTIFY_ISDIR;
	uint32_t moves = FUSE_FSNOTIFY_MOVED_FROM | FUSE_FSNOTIFY_MOVED_TO;

	if (ev->mask == FUSE_FSNOTIFY_Q_OVERFLOW)
		return proto_overflow_validate(ev);
	if (ev->mask & FUSE_FSNOTIFY_RENAME)
		return proto_rename_validate(ev);
	if (!events || (events & ~proto_allowed(ev)))
		return -EINVAL;
	/* An object's removal comes alone (kernel fuse 6/9). */
	if (!ev->namelen && (events & FUSE_FSNOTIFY_DELETE_SELF) &&
	    events != FUSE_FSNOTIFY_DELETE_SELF)
		return -EINVAL;
	if (ev->cookie && !(events & moves))
		return -EINVAL;
	if (!proto_flags_ok(ev, events))
		return -EINVAL;
	if (!ev->nodeid)
		return -EINVAL;
	if (ev->has_entry && !proto_may_have_entry(ev->mask, ev->namelen))
		return -EINVAL;
	if (ev->has_entry && proto_entry_validate(ev))
		return -EINVAL;
	return proto_name_validate(ev->name, ev->namelen);
}

/* libfuse's rounding: whole seconds, then nanoseconds below one. */
static void proto_timeout(double t, uint64_t *sec, uint32_t *nsec)
{
	double ns;

	if (!(t > 0)) {
		*sec = 0;
		*nsec = 0;
		return;
	}
	*sec = t >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)t;
	ns = (t - (double)*sec) * 1.0e9;
	*nsec = ns < 0 ? 0 : ns > 999999999.0 ? 999999999 : (uint32_t)ns;
}

void proto_entry_fill(struct fuse_entry_out *e, uint64_t nodeid,
		      uint64_t generation, const struct stat *st,
		      double entry_timeout, double attr_timeout)
{
	memset(e, 0, sizeof(*e));
	e->nodeid = nodeid;
	e->generation = generation;
	proto_timeout(entry_timeout, &e->entry_valid, &e->entry_valid_nsec);
	proto_timeout(attr_timeout, &e->attr_valid, &e->attr_valid_nsec);
	e->attr.ino = st->st_ino;
	e->attr.mode = st->st_mode;
	e->attr.nlink = st->st_nlink;
	e->attr.uid = st->st_uid;
	e->attr.gid = st->st_gid;
	e->attr.rdev = st->st_rdev;
	e->attr.size = st->st_size;
	e->attr.blksize = st->st_blksize;
	e->attr.blocks = st->st_blocks;
	e->attr.atime = st->st_atim.tv_sec;
	e->attr.mtime = st->st_mtim.tv_sec;
	e->attr.ctime = st->st_ctim.tv_sec;
	e->attr.atimensec = st->st_atim.tv_nsec;
	e->attr.mtimensec = st->st_mtim.tv_nsec;
	e->attr.ctimensec = st->st_ctim.tv_nsec;
}

char *proto_put_head(void *buf, size_t len, const struct proto_event *ev)
{
	struct fuse_out_header oh = { .len = len,
				      .error = FUSE_NOTIFY_FSNOTIFY };
	struct fuse_notify_fsnotify_out out = {
		.nodeid = ev->nodeid, .generation = ev->generation,
		.mask = ev->mask, .cookie = ev->cookie, .namelen = ev->namelen,
		.flags = ev->flags,
	};
	char *p = buf;

	p = mempcpy(p, &oh, sizeof(oh));
	p = mempcpy(p, &out, sizeof(out));
	/* No name may be NULL, which mempcpy() must not get even for 0. */
	return ev->namelen ? mempcpy(p, ev->name, ev->namelen) : p;
}

int proto_encode_event(void *buf, size_t size, const struct proto_event *ev)
{
	size_t len;
	char *p;
	int err;

	err = proto_event_validate(ev);
	if (err)
		return err;
	if (ev->mask & FUSE_FSNOTIFY_RENAME)
		return proto_rename_encode(buf, size, ev);
	len = sizeof(struct fuse_out_header) +
	      sizeof(struct fuse_notify_fsnotify_out) + ev->namelen +
	      (ev->has_entry ? sizeof(ev->entry) : 0);
	if (size < len)
		return -ENOSPC;
	p = proto_put_head(buf, len, ev);
	if (ev->has_entry)
		memcpy(p, &ev->entry, sizeof(ev->entry));
	return len;
}

int proto_decode_init(const void *buf, size_t len, uint64_t *unique,
		      uint64_t *flags)
{
	struct fuse_in_header ih;
	struct fuse_init_in in;

	if (len < sizeof(ih))
		return -EINVAL;
	memcpy(&ih, buf, sizeof(ih));
	if (ih.opcode != FUSE_INIT)
		return -EPROTO;
	/* Kernels before 7.36 send the short form, without flags2. */
	if (len < sizeof(ih) + offsetof(struct fuse_init_in, flags2) ||
	    ih.len != len)
		return -EINVAL;
	memset(&in, 0, sizeof(in));
	memcpy(&in, (const char *)buf + sizeof(ih),
	       len - sizeof(ih) < sizeof(in) ? len - sizeof(ih) : sizeof(in));
	*flags = in.flags;
	if (in.flags & FUSE_INIT_EXT)
		*flags |= (uint64_t)in.flags2 << 32;
	*unique = ih.unique;
	return 0;
}

uint64_t proto_init_reply_add(struct iovec *iov, int count,
			      uint64_t init_unique, uint64_t add)
{
	struct fuse_out_header oh;
	struct fuse_init_out out;

	if (count < 2 || iov[0].iov_len != sizeof(oh) ||
	    iov[1].iov_len < sizeof(out))
		return 0;
	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	if (!init_unique || oh.unique != init_unique || oh.error)
		return 0;
	memcpy(&out, iov[1].iov_base, sizeof(out));
	add &= FUSE_HAS_FSNOTIFY | FUSE_HAS_FETCH_NOTIFY | PROTO_FUSE_PASSTHROUGH;
	if (out.flags & FUSE_WRITEBACK_CACHE)
		add &= ~PROTO_FUSE_PASSTHROUGH;
	/* unused[0] is 7.40's max_stack_depth: the backing file's depth + 1. */
	if (add & PROTO_FUSE_PASSTHROUGH)
		out.unused[0] = 1;
	out.flags |= FUSE_INIT_EXT;
	out.flags2 |= (uint32_t)(add >> 32);
	memcpy(iov[1].iov_base, &out, sizeof(out));
	return add;
}

int proto_decode_watch(const void *buf, size_t len, struct proto_watch *w)
{
	struct fuse_in_header ih;
	struct fuse_fsnotify_in in;
	uint32_t scope;

	if (len < sizeof(ih))
		return -EINVAL;
	memcpy(&ih, buf, sizeof(ih));
	if (ih.opcode != FUSE_FSNOTIFY)
		return -EPROTO;
	if (len != PROTO_WATCH_FRAME_SIZE || ih.len != len)
		return -EINVAL;
	memcpy(&in, (const char *)buf + sizeof(ih), sizeof(in));

	scope = in.flags;
	if (scope != FUSE_FSNOTIFY_INODE && scope != FUSE_FSNOTIFY_FILESYSTEM)
		return -EINVAL;
	if (scope == FUSE_FSNOTIFY_FILESYSTEM && ih.nodeid != FUSE_ROOT_ID)
		return -EINVAL;
	if (in.padding)
		return -EINVAL;
	if (!ih.nodeid || !ih.unique)
		return -EINVAL;

	w->unique = ih.unique;
	w->nodeid = ih.nodeid;
	w->mask = in.mask & FUSE_FSNOTIFY_WATCH_EVENTS;
	w->generation = in.generation;
	w->flags = scope;
	return 0;
}

int proto_encode_reply(void *buf, size_t size, uint64_t unique, int error)
{
	struct fuse_out_header oh;

	if (size < sizeof(oh))
		return -ENOSPC;
	if (!unique || error > 0 || error <= -512)
		return -EINVAL;
	oh.len = sizeof(oh);
	oh.error = error;
	oh.unique = unique;
	memcpy(buf, &oh, sizeof(oh));
	return sizeof(oh);
}
