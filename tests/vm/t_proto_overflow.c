// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_overflow - fsnotify 5/7, fuse 8/9: a server that lost events says so with
 * one FUSE_FSNOTIFY_Q_OVERFLOW notification on the root, and every group
 * watching the mount gets one overflow event, ahead of what follows: an
 * inotify group with marks on the root and on a file (one event for the
 * group, not one per mark) and a fanotify filesystem mark. An overflow
 * still unread is not queued twice; a group watching another file system
 * gets nothing. Malformed overflow frames are in t_proto_bad.
 */
#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_ovf"
#define OTHER "/mnt/proto_ovf_other"

static int in, fan, other;

static int overflow(void)
{
	return vmfs_send_event(1, 0, FUSE_FSNOTIFY_Q_OVERFLOW, 0, NULL);
}

/* A remote create the kernel is told about: the sentinel after it. */
static bool remote_create(const char *name)
{
	uint64_t node;

	return !vmfs_remote_create(1, name, S_IFREG | 0644, &node) &&
	       !vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE, 0, name);
}

static void set_up_watches(void)
{
	CHECK("overflow: inotify watch on the root",
	      inotify_add_watch(in, MNT, IN_CREATE) >= 0);
	CHECK("overflow: local mknod f", mknod(MNT "/f", S_IFREG | 0644,
	      0) == 0);
	CHECK("overflow: inotify watch on f, same group",
	      inotify_add_watch(in, MNT "/f", IN_ATTRIB) >= 0);
	CHECK("overflow: fanotify filesystem mark",
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
			    FAN_MARK_REMOTE,
			    FAN_CREATE, AT_FDCWD, MNT) == 0);
	CHECK("overflow: inotify watch on another file system",
	      inotify_add_watch(other, OTHER, IN_CREATE) >= 0);
	CHECK("overflow: local create seen", vm_inotify_expect(in, IN_CREATE,
	      "f", NULL));
}

static void test_overflow_once(void)
{
	CHECK("overflow: notification accepted", overflow() == 0);
	CHECK("overflow: a second one while unread", overflow() == 0);
	CHECK("overflow: remote sentinel s1", remote_create("s1"));
	CHECK("overflow: inotify: one IN_Q_OVERFLOW for two marks",
	      vm_inotify_expect(in, IN_Q_OVERFLOW, "", NULL));
	CHECK("overflow: inotify: then the sentinel, no second overflow",
	      vm_inotify_expect(in, IN_CREATE, "s1", NULL));
	CHECK("overflow: fanotify: FAN_Q_OVERFLOW",
	      vm_fanotify_expect(fan, FAN_Q_OVERFLOW, ""));
	CHECK("overflow: fanotify: then the sentinel",
	      vm_fanotify_expect(fan, FAN_CREATE | FAN_REMOTE, "s1"));
	CHECK("overflow: other file system: local mkdir",
	      mkdir(OTHER "/s", 0755) == 0);
	CHECK("overflow: other file system: the mkdir, no overflow",
	      vm_inotify_expect(other, IN_CREATE | IN_ISDIR, "s", NULL));
}

/* Once read, the next loss is reported again. */
static void test_overflow_again(void)
{
	CHECK("overflow: again after reading", overflow() == 0);
	CHECK("overflow: remote sentinel s2", remote_create("s2"));
	CHECK("overflow: inotify: IN_Q_OVERFLOW again",
	      vm_inotify_expect(in, IN_Q_OVERFLOW, "", NULL));
	CHECK("overflow: inotify: then s2",
	      vm_inotify_expect(in, IN_CREATE, "s2", NULL));
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };

	mkdir(MNT, 0755);
	mkdir(OTHER, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("overflow: mount vmfs", 0);
		return check_exit();
	}
	in = inotify_init1(IN_CLOEXEC);
	other = inotify_init1(IN_CLOEXEC);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, O_RDONLY);
	CHECK("overflow: protocol on", vmfs_fsnotify_on());
	set_up_watches();
	test_overflow_once();
	test_overflow_again();
	close(in);
	close(other);
	close(fan);
	vmfs_stop();
	return check_exit();
}
