// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events' fanotify checks: an inode mark on a directory and a
 * filesystem mark on the mount (the series gives FUSE a real fsid), each
 * getting a remote create with the directory's handle, and the
 * filesystem mark a remote write with the file's own handle (the server
 * sends the child's entry for it: the mark's mask reached the server).
 * Both marks take remote events with FAN_MARK_REMOTE (kernel: fsnotify 2/7), and
 * every remote event carries FAN_REMOTE; a mark without it gets none,
 * though the mount has remote_events (that is inotify's and dnotify's).
 */
#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
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

/*
 * Two inode marks on ev, one without FAN_MARK_REMOTE: the remote mkdir
 * reaches the other, so the guest's kernel has had it; then a local
 * mkdir is the first event of the mark without it, and comes to both
 * without FAN_REMOTE.
 */
static void test_mark_not_remote(void)
{
	int plain = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				  O_RDONLY);
	int remote = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				   O_RDONLY);

	VCHECK("fan_plain_marks", plain >= 0 && remote >= 0 &&
	       !fanotify_mark(plain, FAN_MARK_ADD, FAN_CREATE | FAN_ONDIR,
			      AT_FDCWD, at("ev")) &&
	       !vm_fanotify_remote_mark(remote, 0, FAN_CREATE | FAN_ONDIR,
					at("ev")));
	VCHECK("fan_plain_remote_to_other", host_cmd("mkdir %s ev/nr",
						      tag) == 0 &&
	       vm_fanotify_expect_dir(remote,
				      FAN_CREATE | FAN_ONDIR | FAN_REMOTE,
				      "nr", at("ev")));
	VCHECK("fan_plain_no_remote_event", mkdir(at("ev/nl"), 0755) == 0 &&
	       vm_fanotify_expect_dir(plain, FAN_CREATE | FAN_ONDIR, "nl",
				      at("ev")));
	VCHECK("fan_plain_local_unmarked",
	       vm_fanotify_expect_dir(remote, FAN_CREATE | FAN_ONDIR, "nl",
				      at("ev")));
	close(plain);
	close(remote);
	VCHECK("fan_plain_cleanup", host_cmd("rmdir %s ev/nr", tag) == 0 &&
	       rmdir(at("ev/nl")) == 0);
}

void test_marks(int root)
{
	test_inode_mark();
	test_filesystem_mark();
	test_mark_not_remote();
}
