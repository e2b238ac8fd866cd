// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's side of the protocol, for tests and fuzzers (proto_peer.h). */
#include <errno.h>
#include <linux/fuse.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/proto_codec_internal.h"
#include "proto_peer.h"

/* ev from a notification's fixed part and its name; the rest zeroed. */
static void proto_head_of(const struct fuse_notify_fsnotify_out *out,
			  const char *name, struct proto_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->nodeid = out->nodeid;
	ev->generation = out->generation;
	ev->mask = out->mask;
	ev->cookie = out->cookie;
	ev->namelen = out->namelen;
	ev->flags = out->flags;
	ev->name = out->namelen ? name : NULL;
}

/* out is the frame's fixed part, already read; len is checked there. */
static int proto_rename_decode(const void *buf, size_t len,
			       const struct fuse_notify_fsnotify_out *out,
			       struct proto_event *ev)
{
	const char *p = (const char *)buf + sizeof(struct fuse_out_header) +
			sizeof(*out);
	struct fuse_fsnotify_rename_out rn;
	struct proto_event tmp;

	if (out->flags || out->namelen > FUSE_FSNOTIFY_NAME_MAX ||
	    len < proto_rename_len(out->namelen, 0))
		return -EINVAL;
	memcpy(&rn, p + out->namelen, sizeof(rn));
	if (rn.padding || rn.namelen > FUSE_FSNOTIFY_NAME_MAX ||
	    len != proto_rename_len(out->namelen, rn.namelen))
		return -EINVAL;

	proto_head_of(out, p, &tmp);
	tmp.newdir = rn.newdir;
	tmp.newdir_generation = rn.newdir_generation;
	tmp.newnamelen = rn.namelen;
	tmp.newname = p + out->namelen + sizeof(rn);
	tmp.has_entry = true;
	memcpy(&tmp.entry, tmp.newname + rn.namelen, sizeof(tmp.entry));
	if (proto_rename_validate(&tmp))
		return -EINVAL;
	*ev = tmp;
	return 0;
}

int proto_decode_event(const void *buf, size_t len, struct proto_event *ev)
{
	struct fuse_out_header oh;
	struct fuse_notify_fsnotify_out out;
	struct proto_event tmp;
	size_t fixed = sizeof(oh) + sizeof(out), extra;

	if (len < fixed || len > PROTO_EVENT_FRAME_MAX)
		return -EINVAL;
	memcpy(&oh, buf, sizeof(oh));
	memcpy(&out, (const char *)buf + sizeof(oh), sizeof(out));
	if (oh.len != len || oh.unique != 0 ||
	    oh.error != FUSE_NOTIFY_FSNOTIFY)
		return -EINVAL;
	if (out.mask & FUSE_FSNOTIFY_RENAME)
		return proto_rename_decode(buf, len, &out, ev);
	/* The name (and the entry, if any) end exactly where the frame does. */
	if (out.namelen > FUSE_FSNOTIFY_NAME_MAX ||
	    out.namelen > len - fixed)
		return -EINVAL;
	proto_head_of(&out, (const char *)buf + fixed, &tmp);
	extra = len - fixed - out.namelen;
	tmp.has_entry = extra == sizeof(tmp.entry) &&
			proto_may_have_entry(out.mask, out.namelen);
	if (extra && !tmp.has_entry)
		return -EINVAL;
	if (tmp.has_entry)
		memcpy(&tmp.entry, (const char *)buf + fixed + out.namelen,
		       sizeof(tmp.entry));
	if (proto_event_validate(&tmp))
		return -EINVAL;
	*ev = tmp;
	return 0;
}

int proto_is_watch(const void *buf, size_t len)
{
	struct fuse_in_header ih;

	if (len < sizeof(ih))
		return 0;
	memcpy(&ih, buf, sizeof(ih));
	return ih.opcode == FUSE_FSNOTIFY;
}

int proto_encode_watch(void *buf, size_t size, const struct proto_watch *w)
{
	struct fuse_in_header ih;
	struct fuse_fsnotify_in in;

	if (size < PROTO_WATCH_FRAME_SIZE)
		return -ENOSPC;
	memset(&ih, 0, sizeof(ih));
	memset(&in, 0, sizeof(in));
	ih.len = PROTO_WATCH_FRAME_SIZE;
	ih.opcode = FUSE_FSNOTIFY;
	ih.unique = w->unique;
	ih.nodeid = w->nodeid;
	in.mask = w->mask;
	in.generation = w->generation;
	in.flags = w->flags;
	memcpy(buf, &ih, sizeof(ih));
	memcpy((char *)buf + sizeof(ih), &in, sizeof(in));
	return PROTO_WATCH_FRAME_SIZE;
}

size_t proto_build_raw_event(void *buf, size_t size, int code,
			     uint64_t nodeid, uint64_t gen, uint32_t mask,
			     uint32_t cookie, uint32_t namelen,
			     const void *name, size_t name_bytes)
{
	struct fuse_out_header oh = { .error = code };
	struct fuse_notify_fsnotify_out out = {
		.nodeid = nodeid, .generation = gen, .mask = mask,
		.cookie = cookie, .namelen = namelen,
	};
	size_t len = sizeof(oh) + sizeof(out) + name_bytes;
	char *p = buf;

	if (len > size)
		abort();
	oh.len = len;
	memcpy(p, &oh, sizeof(oh));
	memcpy(p + sizeof(oh), &out, sizeof(out));
	if (name_bytes)
		memcpy(p + sizeof(oh) + sizeof(out), name, name_bytes);
	return len;
}
