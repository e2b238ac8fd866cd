// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events' fanotify checks: an inode mark on a directory and a
 * filesystem mark on the mount (the series gives FUSE a real fsid), each
 * getting a remote create with the directory's handle, and the
 * filesystem mark a remote write with the file's own handle (the server
 * sends the child's entry for it: the mark's mask reached the server).
 * Both marks take remote events with FAN_MARK_REMOTE (patch 22), and
 * every remote event carries FAN_REMOTE.
 */
#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../vm/vmwatch.h"
#include "rnotify_proto.h"
#include "guest_cmd.h"
#include "vfs_events.h"

static void test_inode_mark(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	VCHECK("fan_inode_mark", fan >= 0 &&
	       !vm_fanotify_remote_mark(fan, 0, FAN_CREATE | FAN_DELETE |
					FAN_EVENT_ON_CHILD, at("ev")));
	VCHECK("fan_inode_create", host_cmd("create %s ev/g1", tag) == 0 &&
	       vm_fanotify_expect_dir(fan, FAN_CREATE | FAN_REMOTE, "g1",
				      at("ev")));
	VCHECK("fan_inode_delete", host_cmd("unlink %s ev/g1", tag) == 0 &&
	       vm_fanotify_expect_dir(fan, FAN_DELETE | FAN_REMOTE, "g1",
				      at("ev")));
	close(fan);
}

static void test_filesystem_mark(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
				FAN_REPORT_FID, O_RDONLY);

	VCHECK("fan_fs_mark", fan >= 0 &&
	       !vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM,
					FAN_CREATE | FAN_MODIFY | FAN_ONDIR,
					mnt));
	VCHECK("fan_fs_create", host_cmd("write %s ev/g2 data", tag) == 0 &&
	       vm_fanotify_expect_dir(fan, FAN_CREATE | FAN_REMOTE, "g2",
				      at("ev")));
	VCHECK("fan_fs_modify_own_fid",
	       vm_fanotify_expect_fid(fan, FAN_MODIFY | FAN_REMOTE, "g2",
				      at("ev/g2")));
	VCHECK("fan_fs_read", reads("ev/g2", "data"));
	VCHECK("fan_fs_mkdir", host_cmd("mkdir %s ev/gd", tag) == 0 &&
	       vm_fanotify_expect_dir(fan, FAN_CREATE | FAN_ONDIR | FAN_REMOTE,
				      "gd", at("ev")));
	close(fan);
	VCHECK("fan_cleanup", host_cmd("unlink %s ev/g2", tag) == 0 &&
	       host_cmd("rmdir %s ev/gd", tag) == 0);
}

void test_marks(int root)
{
	test_inode_mark();
	test_filesystem_mark();
}
