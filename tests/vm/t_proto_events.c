// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_events - fuse 6/9: FUSE_NOTIFY_FSNOTIFY reaches inotify, a
 * fanotify inode mark (FAN_REPORT_DFID_NAME) and a fanotify filesystem
 * mark, for every event type, with the name for a watched parent and one
 * cookie for both halves of a rename; local events still arrive once.
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
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_events"
#define IN_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)
#define FAN_EVENTS (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | \
		    FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_ONDIR)

static int in_dir, fan_inode, fan_fs;

/* One event, checked at all three watchers of the root. */
static void expect3(const char *what, uint32_t in_mask, uint64_t fan_mask,
		    const char *name)
{
	char label[128];

	snprintf(label, sizeof(label), "%s: inotify", what);
	CHECK(label, vm_inotify_expect(in_dir, in_mask, name, NULL));
	snprintf(label, sizeof(label), "%s: fanotify inode mark", what);
	CHECK(label, vm_fanotify_expect(fan_inode, fan_mask, name));
	snprintf(label, sizeof(label), "%s: fanotify filesystem mark", what);
	CHECK(label, vm_fanotify_expect(fan_fs, fan_mask, name));
}

static void test_dirent_events(void)
{
	uint64_t id;
	uint32_t c1 = 0, c2 = 0;

	CHECK("create: remote", vmfs_remote_create(1, "r1", S_IFREG | 0644,
	      &id) == 0);
	CHECK("create: notify", vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE, 0,
	      "r1") == 0);
	expect3("create", IN_CREATE, FAN_CREATE | FAN_REMOTE, "r1");

	CHECK("mkdir: notify", vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE |
	      FUSE_FSNOTIFY_ISDIR, 0, "rd") == 0);
	expect3("mkdir", IN_CREATE | IN_ISDIR,
		FAN_CREATE | FAN_ONDIR | FAN_REMOTE, "rd");

	CHECK("rename: MOVED_FROM", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_MOVED_FROM, 77, "r1") == 0);
	CHECK("rename: MOVED_TO", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_MOVED_TO, 77, "r2") == 0);
	CHECK("rename: inotify MOVED_FROM r1",
	      vm_inotify_expect(in_dir, IN_MOVED_FROM, "r1", &c1));
	CHECK("rename: inotify MOVED_TO r2",
	      vm_inotify_expect(in_dir, IN_MOVED_TO, "r2", &c2));
	CHECK("rename: one nonzero cookie", c1 && c1 == c2);
	CHECK("rename: fanotify inode FAN_MOVED_FROM",
	      vm_fanotify_expect(fan_inode, FAN_MOVED_FROM | FAN_REMOTE,
				 "r1"));
	CHECK("rename: fanotify inode FAN_MOVED_TO",
	      vm_fanotify_expect(fan_inode, FAN_MOVED_TO | FAN_REMOTE,
				 "r2"));
	CHECK("rename: fanotify fs FAN_MOVED_FROM",
	      vm_fanotify_expect(fan_fs, FAN_MOVED_FROM | FAN_REMOTE, "r1"));
	CHECK("rename: fanotify fs FAN_MOVED_TO",
	      vm_fanotify_expect(fan_fs, FAN_MOVED_TO | FAN_REMOTE, "r2"));
	CHECK("rename: second rename gets a new cookie",
	      vmfs_send_event(1, 0, FUSE_FSNOTIFY_MOVED_FROM, 78, "r2") == 0 &&
	      vm_inotify_expect(in_dir, IN_MOVED_FROM, "r2", &c2) && c2 != c1);
	vm_fanotify_expect(fan_inode, FAN_MOVED_FROM | FAN_REMOTE, "r2");
	vm_fanotify_expect(fan_fs, FAN_MOVED_FROM | FAN_REMOTE, "r2");

	CHECK("delete: notify", vmfs_send_event(1, 0, FUSE_FSNOTIFY_DELETE, 0,
	      "r2") == 0);
	expect3("delete", IN_DELETE, FAN_DELETE | FAN_REMOTE, "r2");
	CHECK("rmdir: notify", vmfs_send_event(1, 0, FUSE_FSNOTIFY_DELETE |
	      FUSE_FSNOTIFY_ISDIR, 0, "rd") == 0);
	expect3("rmdir", IN_DELETE | IN_ISDIR,
		FAN_DELETE | FAN_ONDIR | FAN_REMOTE, "rd");
}

/* Events on a child: to its own watch, and to the parent with the name. */
static void test_object_events(void)
{
	uint64_t id = 0, gen = 0;
	int in_file = inotify_init1(IN_CLOEXEC);
	static const struct { const char *what; uint32_t bit; uint64_t fan; }
	ev[] = {
		{ "modify", FUSE_FSNOTIFY_MODIFY, FAN_MODIFY },
		{ "attrib", FUSE_FSNOTIFY_ATTRIB, FAN_ATTRIB },
		{ "close_write", FUSE_FSNOTIFY_CLOSE_WRITE, FAN_CLOSE_WRITE },
	};
	unsigned int i;
	char label[64];

	CHECK("object: local mknod f", mknod(MNT "/f", S_IFREG | 0644, 0)
	      == 0);
	expect3("object: local create", IN_CREATE, FAN_CREATE, "f");
	vmfs_node(1, "f", &id, &gen);
	CHECK("object: watch f", inotify_add_watch(in_file, MNT "/f",
	      IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVE_SELF |
	      IN_DELETE_SELF) >= 0);
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		snprintf(label, sizeof(label), "%s: notify", ev[i].what);
		CHECK(label, vmfs_send_event(id, gen, ev[i].bit, 0, NULL) == 0);
		snprintf(label, sizeof(label), "%s: file watch", ev[i].what);
		CHECK(label, vm_inotify_expect(in_file, ev[i].bit, "", NULL));
		expect3(ev[i].what, ev[i].bit, ev[i].fan | FAN_REMOTE, "f");
	}
	CHECK("move_self: notify", vmfs_send_event(id, gen,
	      FUSE_FSNOTIFY_MOVE_SELF, 0, NULL) == 0);
	CHECK("move_self: file watch", vm_inotify_expect(in_file,
	      IN_MOVE_SELF, "", NULL));
	CHECK("delete_self: notify", vmfs_send_event(id, gen,
	      FUSE_FSNOTIFY_DELETE_SELF, 0, NULL) == 0);
	CHECK("delete_self: file watch", vm_inotify_expect(in_file,
	      IN_DELETE_SELF, "", NULL));
	CHECK("delete_self: the watch goes",
	      vm_inotify_expect(in_file, IN_IGNORED, "", NULL));
	close(in_file);
}

/* A local change: each watcher gets it once, the next event is ours. */
static void test_local_once(void)
{
	CHECK("local: mkdir", mkdir(MNT "/loc", 0755) == 0);
	expect3("local: mkdir", IN_CREATE | IN_ISDIR, FAN_CREATE | FAN_ONDIR,
		"loc");
	CHECK("local: sentinel", vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE,
	      0, "sentinel") == 0);
	expect3("local: once, then the sentinel", IN_CREATE,
		FAN_CREATE | FAN_REMOTE, "sentinel");
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("events: mount vmfs", 0);
		return check_exit();
	}
	in_dir = inotify_init1(IN_CLOEXEC);
	fan_inode = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				  O_RDONLY);
	fan_fs = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
			       O_RDONLY);
	CHECK("events: inotify watch on the root",
	      inotify_add_watch(in_dir, MNT, IN_EVENTS) >= 0);
	CHECK("events: fanotify inode mark on the root",
	      vm_fanotify_remote_mark(fan_inode, 0, FAN_EVENTS |
				      FAN_EVENT_ON_CHILD, MNT) == 0);
	CHECK("events: fanotify filesystem mark",
	      fanotify_mark(fan_fs, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
			    FAN_MARK_REMOTE,
			    FAN_EVENTS, AT_FDCWD, MNT) == 0);
	CHECK("events: protocol on", vmfs_fsnotify_on());
	test_dirent_events();
	test_object_events();
	test_local_once();
	vmfs_stop();
	return check_exit();
}
