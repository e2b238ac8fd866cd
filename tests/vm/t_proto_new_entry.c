// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_new_entry - fsnotify 7/7, fuse 6/9: a remote CREATE or MOVED_TO by
 * name stands the directory in for the new child, which is all that
 * inotify and fanotify groups without FAN_REPORT_TARGET_FID use.  While a
 * TARGET_FID group wants the event, nothing is delivered and the answer
 * is ENODATA; the event pushed with the child's entry then reaches every
 * group, the TARGET_FID one with the child's own fid, and the kernel
 * counts one lookup and sends no LOOKUP (a directory, which fanotify
 * reports without a child record, goes by name).  A name already gone on
 * the server goes by name with FUSE_FSNOTIFY_NO_CHILD, to every group.  A
 * DELETE by name of a name the kernel holds reports that child.
 * "Nothing delivered" is checked with a sentinel event (MODIFY of s by
 * name), which must be the next one.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "protocol/proto_codec.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_new_entry"
#define FAN_TARGET (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | \
		    FAN_REPORT_FID | FAN_REPORT_TARGET_FID)
#define FAN_DFID (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID)
#define DIRENT (FAN_CREATE | FAN_MOVED_TO | FAN_DELETE | FAN_ONDIR)
/* Where the mask and flags of a frame are (after the out-header) */
#define AT_MASK (16 + 16)
#define AT_FLAGS (16 + 28)

static int in_root;

/* The next inotify event on the root is MODIFY of the sentinel s. */
static bool nothing_before(void)
{
	return vmfs_send_event(1, 0, FUSE_FSNOTIFY_MODIFY, 0, "s") == 0 &&
	       vm_inotify_expect(in_root, IN_MODIFY, "s", NULL);
}

static uint64_t remote_child(const char *name, mode_t mode)
{
	uint64_t id = 0;

	if (vmfs_remote_create(1, name, mode, &id))
		return 0;
	return id;
}

/* A frame by name on the root, with flags; its length, or -EINVAL. */
static int by_name_frame(unsigned char *buf, uint32_t mask, uint32_t cookie,
			 uint32_t flags, const char *name)
{
	struct proto_event ev = {
		.nodeid = 1, .mask = mask, .cookie = cookie, .flags = flags,
		.namelen = strlen(name), .name = name,
	};

	return proto_encode_event(buf, PROTO_EVENT_FRAME_MAX, &ev);
}

/* Without a TARGET_FID group: by name, to inotify and a plain FID group. */
static void test_by_name(void)
{
	int fan = fanotify_init(FAN_DFID, O_RDONLY);
	unsigned int lookups = vmfs_lookup_count();

	CHECK("by name: remote create n1", remote_child("n1", S_IFREG | 0644));
	CHECK("by name: DFID_NAME,FID group marks the root", fan >= 0 &&
	      vm_fanotify_remote_mark(fan, 0, DIRENT, MNT) == 0);
	CHECK("by name: CREATE n1 accepted", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_CREATE, 0, "n1") == 0);
	CHECK("by name: IN_CREATE n1", vm_inotify_expect(in_root, IN_CREATE,
	      "n1", NULL));
	CHECK("by name: FAN_CREATE n1 in the root",
	      vm_fanotify_expect_dir(fan, FAN_CREATE | FAN_REMOTE, "n1", MNT));
	CHECK("by name: no LOOKUP", vmfs_lookup_count() == lookups);
	close(fan);
}

/* An event of fan: mask and name, and the child record's fid. */
static bool child_fid_is(int fan, uint64_t mask, const char *name,
			 const struct vm_event *want)
{
	struct vm_event ev;

	if (!vm_fanotify_next(fan, &ev) || ev.mask != mask ||
	    strcmp(ev.name, name))
		return false;
	if (!want)
		return ev.fid_len == 0;
	return ev.fid_type == want->fid_type && ev.fid_len == want->fid_len &&
	       !memcmp(ev.fid, want->fid, ev.fid_len);
}

/* The file handle of path, as fanotify reports it. */
static bool handle_of(const char *path, struct vm_event *h)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[128];
	} fh = { .fh.handle_bytes = 128 };
	int mnt;

	if (name_to_handle_at(AT_FDCWD, path, &fh.fh, &mnt, 0))
		return false;
	h->fid_type = fh.fh.handle_type;
	h->fid_len = fh.fh.handle_bytes;
	memcpy(h->fid, fh.fh.f_handle, h->fid_len);
	return true;
}

/*
 * A TARGET_FID group: CREATE by name refused, pushed instead; the child
 * is then held, and its DELETE by name reports it.
 */
static void test_target(int mark_flags, const char *what)
{
	const char *v = mark_flags & FAN_MARK_FILESYSTEM ?
			"filesystem mark" : "inode mark";
	int fan = fanotify_init(FAN_TARGET, O_RDONLY);
	unsigned int lookups = vmfs_lookup_count();
	uint64_t id = remote_child(what, S_IFREG | 0644), n = 0;
	char path[64], dname[32];
	struct vm_event h;

	snprintf(path, sizeof(path), MNT "/%s", what);
	CHECK_IN(v, "target: remote create", id != 0);
	CHECK_IN(v, "target: TARGET_FID group marks", fan >= 0 &&
	      vm_fanotify_remote_mark(fan, mark_flags, DIRENT, MNT) == 0);
	CHECK_IN(v, "target: CREATE by name is ENODATA", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_CREATE, 0, what) == -ENODATA);
	CHECK_IN(v, "target: nothing delivered", nothing_before());
	/* fanotify reports no child of its own for a directory */
	snprintf(dname, sizeof(dname), "d%s", what);
	CHECK_IN(v, "target: remote mkdir, CREATE,ISDIR by name accepted",
	      remote_child(dname, S_IFDIR | 0755) && !vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_ISDIR, 0, dname));
	CHECK_IN(v, "target: inotify IN_CREATE|IN_ISDIR",
	      vm_inotify_expect(in_root, IN_CREATE | IN_ISDIR, dname, NULL));
	CHECK_IN(v, "target: FAN_CREATE|FAN_ONDIR without a child record",
	      child_fid_is(fan, FAN_REMOTE | FAN_CREATE | FAN_ONDIR, dname,
			   NULL));
	CHECK_IN(v, "target: CREATE pushed", vmfs_send_push(1, 0,
	      FUSE_FSNOTIFY_CREATE, what) == 0);
	CHECK_IN(v, "target: inotify IN_CREATE", vm_inotify_expect(in_root,
	      IN_CREATE, what, NULL));
	CHECK_IN(v, "target: FAN_CREATE with the child's own fid",
	      vm_fanotify_expect_fid(fan, FAN_CREATE | FAN_REMOTE, what, path));
	CHECK_IN(v, "target: one lookup counted, no LOOKUP sent",
	      vmfs_wait_nlookup(id, 1, VM_WAIT_MS, &n) &&
	      vmfs_lookup_count() == lookups);
	CHECK_IN(v, "target: the child's handle", handle_of(path, &h));
	CHECK_IN(v, "target: remote remove",
	      vmfs_remote_remove(1, what, &n) == 0);
	CHECK_IN(v, "target: DELETE by name of the held name",
	      vmfs_send_event(1, 0, FUSE_FSNOTIFY_DELETE, 0, what) == 0);
	CHECK_IN(v, "target: inotify IN_DELETE", vm_inotify_expect(in_root,
	      IN_DELETE, what, NULL));
	CHECK_IN(v, "target: FAN_DELETE with the child's fid",
	      child_fid_is(fan, FAN_REMOTE | FAN_DELETE, what, &h));
	close(fan);
}

/* Gone on the server: NO_CHILD by name, to every group, no child record. */
static void test_no_child(void)
{
	int fan = fanotify_init(FAN_TARGET, O_RDONLY);
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	int len;

	CHECK("no child: TARGET_FID group marks the root", fan >= 0 &&
	      vm_fanotify_remote_mark(fan, 0, DIRENT, MNT) == 0);
	CHECK("no child: MOVED_TO g1 by name is ENODATA", (len = by_name_frame(
	      buf, FUSE_FSNOTIFY_MOVED_TO, 3, 0, "g1")) > 0 &&
	      vmfs_write_frame(buf, len) == -ENODATA);
	len = by_name_frame(buf, FUSE_FSNOTIFY_MOVED_TO, 3,
			    FUSE_FSNOTIFY_NO_CHILD, "g1");
	CHECK("no child: MOVED_TO g1 with NO_CHILD accepted", len > 0 &&
	      vmfs_write_frame(buf, len) == 0);
	CHECK("no child: inotify IN_MOVED_TO g1", vm_inotify_expect(in_root,
	      IN_MOVED_TO, "g1", NULL));
	CHECK("no child: FAN_MOVED_TO g1 without a child record",
	      child_fid_is(fan, FAN_REMOTE | FAN_MOVED_TO, "g1", NULL));
	close(fan);
}

/* CREATE of child name of the root with its entry, built here */
static int push_frame(unsigned char *buf, const char *name)
{
	uint64_t id = 0, gen = 0;
	struct proto_event ev = {
		.nodeid = 1, .mask = FUSE_FSNOTIFY_CREATE,
		.namelen = strlen(name), .name = name, .has_entry = true,
		.entry = { .entry_valid = 60, .attr_valid = 60,
			   .attr = { .mode = S_IFREG | 0644, .nlink = 1 } },
	};

	if (vmfs_node(1, name, &id, &gen))
		return -ENOENT;
	ev.entry.nodeid = id;
	ev.entry.generation = gen;
	ev.entry.attr.ino = id;
	return proto_encode_event(buf, PROTO_EVENT_FRAME_MAX, &ev);
}

/* Frames refused whatever the watchers, nothing delivered. */
static void test_refused(void)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	uint32_t v;
	int len;

	len = by_name_frame(buf, FUSE_FSNOTIFY_CREATE, 0, 0, "r1");
	v = 2;
	memcpy(buf + AT_FLAGS, &v, sizeof(v));
	CHECK("refused: unknown flag", len > 0 &&
	      vmfs_write_frame(buf, len) == -EINVAL);
	len = by_name_frame(buf, FUSE_FSNOTIFY_CREATE, 0,
			    FUSE_FSNOTIFY_NO_CHILD, "r1");
	v = FUSE_FSNOTIFY_DELETE;
	memcpy(buf + AT_MASK, &v, sizeof(v));
	CHECK("refused: NO_CHILD with DELETE", len > 0 &&
	      vmfs_write_frame(buf, len) == -EINVAL);
	v = FUSE_FSNOTIFY_ATTRIB;
	memcpy(buf + AT_MASK, &v, sizeof(v));
	CHECK("refused: NO_CHILD with an event on a child", len > 0 &&
	      vmfs_write_frame(buf, len) == -EINVAL);
	CHECK("refused: remote create r2", remote_child("r2", S_IFREG | 0644));
	len = push_frame(buf, "r2");
	v = FUSE_FSNOTIFY_DELETE;
	memcpy(buf + AT_MASK, &v, sizeof(v));
	CHECK("refused: DELETE with an entry", len > 0 &&
	      vmfs_write_frame(buf, len) == -EINVAL);
	len = push_frame(buf, "r2");
	v = FUSE_FSNOTIFY_NO_CHILD;
	memcpy(buf + AT_FLAGS, &v, sizeof(v));
	CHECK("refused: NO_CHILD with an entry", len > 0 &&
	      vmfs_write_frame(buf, len) == -EINVAL);
	CHECK("refused with an entry: nothing delivered", nothing_before());
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("new entry: mount vmfs", 0);
		return check_exit();
	}
	in_root = inotify_init1(IN_CLOEXEC);
	CHECK("new entry: inotify watch on the root",
	      inotify_add_watch(in_root, MNT, IN_CREATE | IN_MOVED_TO |
				IN_DELETE | IN_MODIFY) >= 0);
	CHECK("new entry: protocol on", vmfs_fsnotify_on());
	CHECK("new entry: sentinel s", remote_child("s", S_IFREG | 0644));
	test_by_name();
	test_target(0, "t1");
	test_target(FAN_MARK_FILESYSTEM, "t2");
	test_no_child();
	test_refused();
	close(in_root);
	vmfs_stop();
	return check_exit();
}
