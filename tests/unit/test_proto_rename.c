// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_proto_rename - the FUSE_FSNOTIFY_RENAME frame (kernel fuse 7/9),
 * byte for byte: its layout, a round trip, and every rule the kernel
 * enforces, on encode and on decode.
 */
#include <errno.h>
#include <string.h>
#include <linux/fuse.h>
#include <sys/stat.h>

#include "protocol/proto_codec.h"
#include "../peer/proto_peer.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

/* "old" in directory 5 (gen 6) becomes "newer" in 7 (gen 8); child 9. */
static struct proto_event ev_rename(void)
{
	struct proto_event ev = {
		.nodeid = 5, .generation = 6, .mask = FUSE_FSNOTIFY_RENAME,
		.namelen = 3, .name = "old",
		.newdir = 7, .newdir_generation = 8,
		.newnamelen = 5, .newname = "newer",
		.has_entry = true,
	};
	struct stat st = { .st_ino = 1234, .st_mode = S_IFREG | 0644 };

	proto_entry_fill(&ev.entry, 9, 3, &st, 1, 1);
	return ev;
}

static void test_layout(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX + 1];
	struct proto_event ev = ev_rename(), got;
	struct fuse_notify_fsnotify_out out;
	struct fuse_fsnotify_rename_out rn;
	struct fuse_out_header oh;
	struct fuse_entry_out e;
	int len;

	memset(buf, 0xaa, sizeof(buf));
	len = proto_encode_event(buf, sizeof(buf), &ev);
	CHECK("rename: length 16 + 32 + 3 + 24 + 5 + 128",
	      len == 16 + 32 + 3 + 24 + 5 + 128 && buf[len] == 0xaa);
	memcpy(&oh, buf, sizeof(oh));
	memcpy(&out, buf + 16, sizeof(out));
	memcpy(&rn, buf + 51, sizeof(rn));
	memcpy(&e, buf + 80, sizeof(e));
	CHECK("rename: out-header", oh.len == (uint32_t)len &&
	      oh.error == FUSE_NOTIFY_FSNOTIFY && oh.unique == 0);
	CHECK("rename: old place first", out.nodeid == 5 &&
	      out.generation == 6 && out.mask == FUSE_FSNOTIFY_RENAME &&
	      !out.cookie && out.namelen == 3 && !out.flags &&
	      !memcmp(buf + 48, "old", 3));
	CHECK("rename: then the new place", rn.newdir == 7 &&
	      rn.newdir_generation == 8 && rn.namelen == 5 && !rn.padding &&
	      !memcmp(buf + 75, "newer", 5));
	CHECK("rename: then the child's entry", e.nodeid == 9 &&
	      e.generation == 3 && e.attr.ino == 1234);
	CHECK("rename: round trip", !proto_decode_event(buf, len, &got) &&
	      got.nodeid == 5 && got.newdir == 7 &&
	      got.newdir_generation == 8 && got.newnamelen == 5 &&
	      !memcmp(got.newname, "newer", 5) && got.has_entry &&
	      !memcmp(&got.entry, &ev.entry, sizeof(e)));
	CHECK("rename: decode without the last byte",
	      proto_decode_event(buf, len - 1, &got) == -EINVAL);
	CHECK("rename: decode with a trailing byte",
	      proto_decode_event(buf, len + 1, &got) == -EINVAL);
	rn.padding = 1;
	memcpy(buf + 51, &rn, sizeof(rn));
	CHECK("rename: decode with padding set",
	      proto_decode_event(buf, len, &got) == -EINVAL);
	CHECK("rename: short buffer", proto_encode_event(buf, len - 1, &ev) ==
	      -ENOSPC);
}

/* Both names at NAME_MAX: the largest frame there is. */
static void test_longest(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	char a[FUSE_FSNOTIFY_NAME_MAX], b[FUSE_FSNOTIFY_NAME_MAX];
	struct proto_event ev = ev_rename(), got;

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	ev.name = a;
	ev.namelen = sizeof(a);
	ev.newname = b;
	ev.newnamelen = sizeof(b);
	CHECK("rename: two 255-byte names fill PROTO_EVENT_FRAME_MAX",
	      proto_encode_event(buf, sizeof(buf), &ev) ==
	      (int)PROTO_EVENT_FRAME_MAX &&
	      !proto_decode_event(buf, sizeof(buf), &got));
	ev.newnamelen = sizeof(b) + 1;
	CHECK("rename: 256-byte new name", proto_event_validate(&ev) == -EINVAL);
}

static void test_rejects(void)
{
	struct proto_event ev;

	ev = ev_rename();
	CHECK("rename: valid", proto_event_validate(&ev) == 0);
	ev.cookie = 1;
	CHECK("rename: cookie", proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.mask |= FUSE_FSNOTIFY_MOVED_FROM;
	CHECK("rename: with another event", proto_event_validate(&ev) == -EINVAL);
	ev.cookie = 1;
	CHECK("rename: with one move and a cookie",
	      proto_event_validate(&ev) == -EINVAL);
	ev.mask |= FUSE_FSNOTIFY_MOVED_TO;
	CHECK("rename: with both moves and a cookie (fuse 7/9)",
	      proto_event_validate(&ev) == 0);
	ev.cookie = 0;
	CHECK("rename: with both moves, no cookie",
	      proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.mask |= FUSE_FSNOTIFY_MOVED_FROM | FUSE_FSNOTIFY_MOVED_TO |
		   FUSE_FSNOTIFY_CREATE;
	ev.cookie = 1;
	CHECK("rename: with both moves and another event",
	      proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.mask |= FUSE_FSNOTIFY_ISDIR;
	CHECK("rename: ISDIR on a file", proto_event_validate(&ev) == -EINVAL);
	ev.entry.attr.mode = S_IFDIR | 0755;
	CHECK("rename: ISDIR on a directory", proto_event_validate(&ev) == 0);
	ev = ev_rename();
	ev.namelen = 0;
	CHECK("rename: no old name", proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.newnamelen = 0;
	CHECK("rename: no new name", proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.newname = "a/b";
	ev.newnamelen = 3;
	CHECK("rename: '/' in the new name", proto_event_validate(&ev) ==
	      -EINVAL);
	ev.newname = "..";
	ev.newnamelen = 2;
	CHECK("rename: new name ..", proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.newdir = 0;
	CHECK("rename: no new directory", proto_event_validate(&ev) == -EINVAL);
	ev = ev_rename();
	ev.entry.nodeid = 7;
	CHECK("rename: entry is the new directory", proto_event_validate(&ev) ==
	      -EINVAL);
	ev.entry.nodeid = 5;
	CHECK("rename: entry is the old directory", proto_event_validate(&ev) ==
	      -EINVAL);
	ev = ev_rename();
	ev.has_entry = false;
	CHECK("rename: no entry", proto_event_validate(&ev) == -EINVAL);
}

int main(void)
{
	test_layout();
	test_longest();
	test_rejects();
	return check_exit();
}
