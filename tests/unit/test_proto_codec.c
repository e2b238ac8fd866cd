// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_proto_codec - every validation rule of the remote-fsnotify frames,
 * with exact lengths and exact bytes, and round trips through the codec.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/fuse.h>
#include <sys/stat.h>

#include "protocol/proto_codec.h"
#include "../peer/proto_peer.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

static struct proto_event ev_named(uint32_t mask, const char *name)
{
	struct proto_event ev = {
		.nodeid = 1, .generation = 7, .mask = mask,
		.namelen = name ? strlen(name) : 0, .name = name,
	};
	return ev;
}

static void test_encode_layout(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = ev_named(FUSE_FSNOTIFY_CREATE, "abc");
	struct fuse_out_header oh;
	struct fuse_notify_fsnotify_out out;
	int len;

	memset(buf, 0xaa, sizeof(buf));
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("encode: length is 16 + 32 + namelen", len == 51);
	memcpy(&oh, buf, sizeof(oh));
	memcpy(&out, buf + 16, sizeof(out));
	CHECK("encode: out-header len", oh.len == 51);
	CHECK("encode: notify code in error",
	      oh.error == FUSE_NOTIFY_FSNOTIFY);
	CHECK("encode: unique 0", oh.unique == 0);
	CHECK("encode: fields", out.nodeid == 1 && out.generation == 7 &&
	      out.mask == FUSE_FSNOTIFY_CREATE && out.cookie == 0 &&
	      out.namelen == 3 && out.flags == 0);
	CHECK("encode: name bytes, no NUL", !memcmp(buf + 48, "abc", 3) &&
	      buf[51] == 0xaa);
}

static void test_encode_rejects(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX + 8];
	char longname[FUSE_FSNOTIFY_NAME_MAX + 2];
	struct proto_event ev;

	memset(buf, 0x55, sizeof(buf));
	ev = ev_named(FUSE_FSNOTIFY_CREATE, "a/b");
	CHECK("encode: '/' in name", proto_encode_event(buf, sizeof(buf), &ev)
	      == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_CREATE, "ab");
	ev.namelen = 3;		/* includes the NUL */
	CHECK("encode: NUL in name",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_CREATE, "..");
	CHECK("encode: dot-dot", proto_encode_event(buf, sizeof(buf), &ev)
	      == -EINVAL);
	memset(longname, 'x', sizeof(longname));
	longname[FUSE_FSNOTIFY_NAME_MAX + 1] = '\0';
	ev = ev_named(FUSE_FSNOTIFY_CREATE, longname);
	CHECK("encode: 256-byte name", proto_encode_event(buf, sizeof(buf),
	      &ev) == -EINVAL);
	longname[FUSE_FSNOTIFY_NAME_MAX] = '\0';
	ev = ev_named(FUSE_FSNOTIFY_CREATE, longname);
	CHECK("encode: 255-byte name is 16 + 32 + 255 bytes",
	      proto_encode_event(buf, sizeof(buf), &ev) == 16 + 32 + 255);
	memset(buf, 0x55, sizeof(buf));
	CHECK("encode: short buffer", proto_encode_event(buf,
	      16 + 32 + 254, &ev) == -ENOSPC);
	ev = ev_named(FUSE_FSNOTIFY_DELETE_SELF, "a");
	CHECK("encode: self event with a name",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_MODIFY, "a");
	CHECK("encode: dirent and child event in one",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_CREATE, NULL);
	CHECK("encode: dirent event without a name",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_ISDIR, NULL);
	CHECK("encode: ISDIR alone", proto_encode_event(buf, sizeof(buf),
	      &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_EVENT_ON_CHILD | FUSE_FSNOTIFY_MODIFY,
		      NULL);
	CHECK("encode: EVENT_ON_CHILD not an event",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_CREATE, "a");
	ev.cookie = 5;
	CHECK("encode: cookie on a non-move", proto_encode_event(buf,
	      sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_MODIFY, NULL);
	ev.nodeid = 0;
	CHECK("encode: nodeid 0", proto_encode_event(buf, sizeof(buf), &ev)
	      == -EINVAL);
	CHECK("encode: rejected leaves buffer untouched", buf[0] == 0x55 &&
	      buf[15] == 0x55);
}

static void test_event_round_trip(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = ev_named(FUSE_FSNOTIFY_MOVED_TO |
					 FUSE_FSNOTIFY_ISDIR, "dir");
	struct proto_event got;
	int len;

	ev.cookie = 42;
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("round trip: decode", len > 0 &&
	      proto_decode_event(buf, len, &got) == 0);
	CHECK("round trip: fields", got.nodeid == 1 && got.generation == 7 &&
	      got.mask == (FUSE_FSNOTIFY_MOVED_TO | FUSE_FSNOTIFY_ISDIR) &&
	      got.cookie == 42 && got.namelen == 3 &&
	      !memcmp(got.name, "dir", 3));
	CHECK("decode: name past the frame",
	      proto_decode_event(buf, len - 1, &got) == -EINVAL);
	CHECK("decode: trailing byte",
	      proto_decode_event(buf, len + 1, &got) == -EINVAL);
	buf[4] = 0x01;		/* error field: another notify code */
	CHECK("decode: other notify code",
	      proto_decode_event(buf, len, &got) == -EINVAL);
}

/* An event on child "kid" (node 9) of directory 1: the push form. */
static struct proto_event ev_push(uint32_t mask)
{
	struct proto_event ev = ev_named(mask, "kid");
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = (mask & FUSE_FSNOTIFY_ISDIR ? S_IFDIR : S_IFREG) | 0640;
	st.st_ino = 1234;
	st.st_size = 5;
	st.st_nlink = 1;
	st.st_mtim.tv_sec = 100;
	st.st_mtim.tv_nsec = 7;
	ev.has_entry = true;
	proto_entry_fill(&ev.entry, 9, 3, &st, 1.5, 60);
	return ev;
}

static void test_push_layout(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX + 1];
	char longname[FUSE_FSNOTIFY_NAME_MAX];
	struct proto_event ev = ev_push(FUSE_FSNOTIFY_MODIFY), got;
	struct fuse_entry_out e;
	int len;

	memset(buf, 0xaa, sizeof(buf));
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("push: length is 16 + 32 + namelen + 128", len == 16 + 32 + 3 +
	      128);
	memcpy(&e, buf + 51, sizeof(e));
	CHECK("push: entry after the name", !memcmp(buf + 48, "kid", 3) &&
	      e.nodeid == 9 && e.generation == 3 && buf[len] == 0xaa);
	CHECK("push: validity as libfuse rounds it", e.entry_valid == 1 &&
	      e.entry_valid_nsec == 500000000 && e.attr_valid == 60 &&
	      e.attr_valid_nsec == 0);
	CHECK("push: attributes", e.attr.ino == 1234 && e.attr.size == 5 &&
	      e.attr.mode == (S_IFREG | 0640) && e.attr.nlink == 1 &&
	      e.attr.mtime == 100 && e.attr.mtimensec == 7);
	CHECK("push: round trip", proto_decode_event(buf, len, &got) == 0 &&
	      got.has_entry && got.namelen == 3 &&
	      !memcmp(&got.entry, &ev.entry, sizeof(e)));
	CHECK("push: decode without the entry's last byte",
	      proto_decode_event(buf, len - 1, &got) == -EINVAL);
	CHECK("push: decode with a trailing byte",
	      proto_decode_event(buf, len + 1, &got) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	memset(longname, 'n', sizeof(longname));
	ev.namelen = sizeof(longname);
	ev.name = longname;
	CHECK("push: 255-byte name, 16 + 32 + 255 + 128 bytes",
	      proto_encode_event(buf, PROTO_EVENT_FRAME_MAX, &ev) ==
	      16 + 32 + 255 + 128);
}

/* A child event by name alone (kernel fuse 6/9): no entry follows. */
static void test_by_name(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = ev_named(FUSE_FSNOTIFY_MODIFY, "kid");
	struct proto_event got;
	int len;

	memset(buf, 0xaa, sizeof(buf));
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("by name: 16 + 32 + 3 bytes", len == 16 + 32 + 3 &&
	      !memcmp(buf + 48, "kid", 3) && buf[len] == 0xaa);
	CHECK("by name: round trip", proto_decode_event(buf, len, &got) == 0 &&
	      !got.has_entry && got.mask == FUSE_FSNOTIFY_MODIFY &&
	      got.namelen == 3 && !memcmp(got.name, "kid", 3));
	CHECK("by name: a trailing byte is neither form",
	      proto_decode_event(buf, len + 1, &got) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_ISDIR, "d");
	CHECK("by name: ATTRIB on a directory",
	      proto_encode_event(buf, sizeof(buf), &ev) == 16 + 32 + 1);
	ev = ev_named(FUSE_FSNOTIFY_CLOSE_WRITE, "f");
	CHECK("by name: CLOSE_WRITE",
	      proto_encode_event(buf, sizeof(buf), &ev) == 16 + 32 + 1);
	ev = ev_named(FUSE_FSNOTIFY_MOVE_SELF, "f");
	CHECK("by name: not a self event",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_MODIFY, "f");
	ev.cookie = 3;
	CHECK("by name: no cookie",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
}

static void test_push_rejects(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev;

	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.entry.nodeid = 0;
	CHECK("push: entry nodeid 0", proto_event_validate(&ev) == -EINVAL);
	ev.entry.nodeid = 1;
	CHECK("push: entry is the root", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.nodeid = 9;
	CHECK("push: entry is the directory itself",
	      proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.entry.attr.mode = 0644;
	CHECK("push: no file type", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.entry.attr.size = (uint64_t)INT64_MAX + 1;
	CHECK("push: size past INT64_MAX", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.mask |= FUSE_FSNOTIFY_ISDIR;
	CHECK("push: ISDIR on a file", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_ISDIR);
	CHECK("push: ISDIR on a directory", proto_event_validate(&ev) == 0);
	ev = ev_push(FUSE_FSNOTIFY_DELETE);
	CHECK("push: entry with DELETE", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_MODIFY);
	CHECK("push: entry with CREATE and MODIFY",
	      proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.namelen = 0;
	ev.name = NULL;
	CHECK("push: entry without a name", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.name = "a/b";
	CHECK("push: '/' in name", proto_encode_event(buf, sizeof(buf), &ev)
	      == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.cookie = 3;
	CHECK("push: cookie", proto_event_validate(&ev) == -EINVAL);
}

/* CREATE and MOVED_TO with the new child's entry, or by name without it. */
static void test_new_entry(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = ev_push(FUSE_FSNOTIFY_MOVED_TO), got;
	int len;

	ev.cookie = 5;
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("new entry: MOVED_TO with the entry and a cookie encodes",
	      len == 16 + 32 + 3 + 128);
	CHECK("new entry: decodes with its entry", len > 0 &&
	      !proto_decode_event(buf, len, &got) && got.has_entry &&
	      got.entry.nodeid == 9 && got.cookie == 5);
	ev = ev_push(FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_ISDIR);
	CHECK("new entry: CREATE,ISDIR of a directory", !proto_event_validate(&ev));
	ev = ev_named(FUSE_FSNOTIFY_CREATE, "gone");
	ev.flags = FUSE_FSNOTIFY_NO_CHILD;
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("no child: CREATE by name encodes, flag and all",
	      len == 16 + 32 + 4 && !proto_decode_event(buf, len, &got) &&
	      got.flags == FUSE_FSNOTIFY_NO_CHILD && !got.has_entry);
	ev.mask = FUSE_FSNOTIFY_DELETE;
	CHECK("no child: not with DELETE", proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_CREATE);
	ev.flags = FUSE_FSNOTIFY_NO_CHILD;
	CHECK("no child: not with an entry", proto_event_validate(&ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_CREATE, "x");
	ev.flags = 4;
	CHECK("flags: unknown bit", proto_event_validate(&ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_ATTRIB, NULL);
	ev.flags = FUSE_FSNOTIFY_NO_CHILD;
	CHECK("no child: not on an object", proto_event_validate(&ev) == -EINVAL);
}

/* A link count change (kernel fuse 6/9) is on the object, for its own. */
static void test_no_parent(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = ev_named(FUSE_FSNOTIFY_ATTRIB, NULL), got;
	int len;

	ev.flags = FUSE_FSNOTIFY_NO_PARENT;
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("no parent: ATTRIB on the object encodes, flag and all",
	      len == 16 + 32 && !proto_decode_event(buf, len, &got) &&
	      got.flags == FUSE_FSNOTIFY_NO_PARENT && !got.namelen);
	ev.mask |= FUSE_FSNOTIFY_ISDIR;
	CHECK("no parent: ATTRIB,ISDIR", !proto_event_validate(&ev));
	ev = ev_named(FUSE_FSNOTIFY_ATTRIB, "x");
	ev.flags = FUSE_FSNOTIFY_NO_PARENT;
	CHECK("no parent: not on a child by name",
	      proto_event_validate(&ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_DELETE, "x");
	ev.flags = FUSE_FSNOTIFY_NO_PARENT;
	CHECK("no parent: not with a directory entry event",
	      proto_event_validate(&ev) == -EINVAL);
	ev = ev_push(FUSE_FSNOTIFY_MODIFY);
	ev.flags = FUSE_FSNOTIFY_NO_PARENT;
	CHECK("no parent: not with an entry", proto_event_validate(&ev) == -EINVAL);
}

/* An object's removal (kernel fuse 6/9) comes alone, or with ISDIR. */
static void test_removed(void)
{
	struct proto_event ev = ev_named(FUSE_FSNOTIFY_DELETE_SELF, NULL);

	CHECK("removed: DELETE_SELF alone", !proto_event_validate(&ev));
	ev.mask |= FUSE_FSNOTIFY_ISDIR;
	CHECK("removed: DELETE_SELF,ISDIR", !proto_event_validate(&ev));
	ev.mask |= FUSE_FSNOTIFY_ATTRIB;
	CHECK("removed: not with another event",
	      proto_event_validate(&ev) == -EINVAL);
}

static void test_overflow(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = ev_named(FUSE_FSNOTIFY_Q_OVERFLOW, NULL);
	struct proto_event got;
	int len;

	ev.generation = 0;
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("overflow: on the root", len == 48 &&
	      proto_decode_event(buf, len, &got) == 0 &&
	      got.nodeid == FUSE_ROOT_ID && got.generation == 0 &&
	      got.mask == FUSE_FSNOTIFY_Q_OVERFLOW);
	ev.nodeid = 2;
	CHECK("overflow: off the root", proto_encode_event(buf, sizeof(buf),
	      &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_Q_OVERFLOW, NULL);
	CHECK("overflow: root generation not 0",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_Q_OVERFLOW, "a");
	ev.generation = 0;
	CHECK("overflow: with a name", proto_encode_event(buf, sizeof(buf),
	      &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_Q_OVERFLOW, NULL);
	ev.generation = 0;
	ev.cookie = 3;
	CHECK("overflow: with a cookie", proto_encode_event(buf, sizeof(buf),
	      &ev) == -EINVAL);
	ev = ev_named(FUSE_FSNOTIFY_Q_OVERFLOW | FUSE_FSNOTIFY_MODIFY, NULL);
	ev.generation = 0;
	CHECK("overflow: with another event",
	      proto_encode_event(buf, sizeof(buf), &ev) == -EINVAL);
}

static void test_watch(void)
{
	unsigned char buf[PROTO_WATCH_FRAME_SIZE + 8];
	struct proto_watch w = {
		.unique = 9, .nodeid = 5, .generation = 3,
		.mask = FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_EVENT_ON_CHILD,
		.flags = FUSE_FSNOTIFY_INODE,
	};
	struct proto_watch got;
	struct fuse_in_header ih;
	int len;

	len = proto_encode_watch(buf, sizeof(buf), &w);
	CHECK("watch: frame size 64", len == 64);
	CHECK("watch: is_watch", proto_is_watch(buf, len));
	CHECK("watch: decode", proto_decode_watch(buf, len, &got) == 0 &&
	      got.unique == 9 && got.nodeid == 5 && got.mask == w.mask &&
	      got.generation == 3 &&
	      got.flags == FUSE_FSNOTIFY_INODE);
	CHECK("watch: short frame", proto_decode_watch(buf, len - 1, &got)
	      == -EINVAL);

	w.flags = FUSE_FSNOTIFY_INODE | FUSE_FSNOTIFY_FILESYSTEM;
	proto_encode_watch(buf, sizeof(buf), &w);
	CHECK("watch: two scopes", proto_decode_watch(buf, len, &got)
	      == -EINVAL);
	w.flags = FUSE_FSNOTIFY_FILESYSTEM;
	proto_encode_watch(buf, sizeof(buf), &w);
	CHECK("watch: filesystem scope off the root",
	      proto_decode_watch(buf, len, &got) == -EINVAL);
	w.nodeid = FUSE_ROOT_ID;
	proto_encode_watch(buf, sizeof(buf), &w);
	CHECK("watch: filesystem scope on the root",
	      proto_decode_watch(buf, len, &got) == 0 &&
	      got.flags == FUSE_FSNOTIFY_FILESYSTEM);
	w.mask = FUSE_FSNOTIFY_CREATE | 1ULL << 40 | 1ULL << 29;
	proto_encode_watch(buf, sizeof(buf), &w);
	CHECK("watch: unknown mask bits dropped, the others kept",
	      proto_decode_watch(buf, len, &got) == 0 &&
	      got.mask == FUSE_FSNOTIFY_CREATE);
	w.mask = 0;
	proto_encode_watch(buf, sizeof(buf), &w);
	CHECK("watch: mask 0 (stop watching)",
	      proto_decode_watch(buf, len, &got) == 0 && got.mask == 0);

	memcpy(&ih, buf, sizeof(ih));
	ih.opcode = FUSE_GETATTR;
	memcpy(buf, &ih, sizeof(ih));
	CHECK("watch: other opcode", !proto_is_watch(buf, len) &&
	      proto_decode_watch(buf, len, &got) == -EPROTO);
}

static void test_reply(void)
{
	unsigned char buf[16];
	struct fuse_out_header oh;

	CHECK("reply: length", proto_encode_reply(buf, sizeof(buf), 77,
	      -ENOENT) == 16);
	memcpy(&oh, buf, sizeof(oh));
	CHECK("reply: fields", oh.len == 16 && oh.error == -ENOENT &&
	      oh.unique == 77);
	CHECK("reply: positive error", proto_encode_reply(buf, sizeof(buf),
	      77, 1) == -EINVAL);
	CHECK("reply: unique 0", proto_encode_reply(buf, sizeof(buf), 0, 0)
	      == -EINVAL);
}

static size_t init_frame(unsigned char *buf, uint32_t len, uint64_t flags)
{
	struct fuse_in_header ih = { .len = len, .opcode = FUSE_INIT,
				     .unique = 5 };
	struct fuse_init_in in = { .major = 7, .minor = 41,
				   .flags = (uint32_t)flags,
				   .flags2 = (uint32_t)(flags >> 32) };

	memcpy(buf, &ih, sizeof(ih));
	memcpy(buf + sizeof(ih), &in, len - sizeof(ih));
	return len;
}

static void test_init(void)
{
	unsigned char buf[sizeof(struct fuse_in_header) +
			  sizeof(struct fuse_init_in)];
	size_t full = sizeof(buf), old = sizeof(struct fuse_in_header) + 16;
	uint64_t unique = 0, flags = 0;

	init_frame(buf, full, FUSE_INIT_EXT | FUSE_HAS_FSNOTIFY |
		   PROTO_FUSE_PASSTHROUGH);
	CHECK("init: offered, flags2 included",
	      !proto_decode_init(buf, full, &unique, &flags) &&
	      flags == (FUSE_INIT_EXT | FUSE_HAS_FSNOTIFY |
			PROTO_FUSE_PASSTHROUGH) && unique == 5);
	init_frame(buf, full, FUSE_HAS_FSNOTIFY | FUSE_ASYNC_READ);
	CHECK("init: flags2 ignored without FUSE_INIT_EXT",
	      !proto_decode_init(buf, full, &unique, &flags) &&
	      flags == FUSE_ASYNC_READ);
	init_frame(buf, old, FUSE_ASYNC_READ);
	CHECK("init: short form of old kernels: flags only",
	      !proto_decode_init(buf, old, &unique, &flags) &&
	      flags == FUSE_ASYNC_READ);
	CHECK("init: truncated", proto_decode_init(buf, old - 1, &unique,
	      &flags) == -EINVAL);
	init_frame(buf, full, 0);
	CHECK("init: length field disagrees", proto_decode_init(buf, old,
	      &unique, &flags) == -EINVAL);
	buf[4] = FUSE_LOOKUP;
	CHECK("init: other opcode", proto_decode_init(buf, full, &unique,
	      &flags) == -EPROTO);
}

static void test_accept_init_reply(void)
{
	struct fuse_out_header oh = { .len = sizeof(oh) +
				      sizeof(struct fuse_init_out),
				      .unique = 5 };
	struct fuse_init_out out = { .major = 7, .minor = 41,
				     .flags = FUSE_ASYNC_READ };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { &out, sizeof(out) } };
	uint64_t both = FUSE_HAS_FSNOTIFY | PROTO_FUSE_PASSTHROUGH;

	CHECK("init reply: other unique untouched",
	      !proto_init_reply_add(iov, 2, 6, both) &&
	      out.flags == FUSE_ASYNC_READ && !out.flags2);
	CHECK("init reply: no INIT seen yet (unique 0) untouched",
	      !proto_init_reply_add(iov, 2, 0, both) && !out.flags2);
	oh.error = -EPROTO;
	CHECK("init reply: error reply untouched",
	      !proto_init_reply_add(iov, 2, 5, both) && !out.flags2);
	oh.error = 0;
	iov[1].iov_len = 24;
	CHECK("init reply: short fuse_init_out untouched",
	      !proto_init_reply_add(iov, 2, 5, both) && !out.flags2);
	iov[1].iov_len = sizeof(out);
	CHECK("init reply: header alone untouched",
	      !proto_init_reply_add(iov, 1, 5, both) && !out.flags2);
	CHECK("init reply: remote fsnotify added",
	      proto_init_reply_add(iov, 2, 5, FUSE_HAS_FSNOTIFY) ==
	      FUSE_HAS_FSNOTIFY);
	CHECK("init reply: flag in flags2, with FUSE_INIT_EXT, rest kept",
	      out.flags == (FUSE_ASYNC_READ | FUSE_INIT_EXT) &&
	      ((uint64_t)out.flags2 << 32) == FUSE_HAS_FSNOTIFY &&
	      out.major == 7 && out.minor == 41 && !out.unused[0]);
	out.flags2 = 0;
	out.flags = FUSE_WRITEBACK_CACHE;
	CHECK("init reply: no passthrough with the writeback cache",
	      proto_init_reply_add(iov, 2, 5, both) == FUSE_HAS_FSNOTIFY &&
	      ((uint64_t)out.flags2 << 32) == FUSE_HAS_FSNOTIFY &&
	      !out.unused[0]);
	out.flags2 = 0;
	out.flags = 0;
	CHECK("init reply: passthrough added, max_stack_depth 1",
	      proto_init_reply_add(iov, 2, 5, PROTO_FUSE_PASSTHROUGH) ==
	      PROTO_FUSE_PASSTHROUGH &&
	      ((uint64_t)out.flags2 << 32) == PROTO_FUSE_PASSTHROUGH &&
	      out.unused[0] == 1 && out.flags == FUSE_INIT_EXT);
	out.flags2 = 0;
	CHECK("init reply: other flags never added",
	      proto_init_reply_add(iov, 2, 5, FUSE_ASYNC_READ) == 0 &&
	      !out.flags2);
}

int main(void)
{
	test_encode_layout();
	test_encode_rejects();
	test_event_round_trip();
	test_push_layout();
	test_by_name();
	test_push_rejects();
	test_new_entry();
	test_no_parent();
	test_removed();
	test_overflow();
	test_watch();
	test_reply();
	test_init();
	test_accept_init_reply();
	return check_exit();
}
