// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_fsid - fixes 2/2: a FUSE mount reports a nonzero fsid, so fanotify
 * accepts a filesystem mark on it and reports local and (fixes 1/2)
 * FUSE_NOTIFY_DELETE events through it, with the name.  Runs at every
 * posting (vm_posting()): the mark takes remote events from posting 2
 * (FAN_MARK_REMOTE, refused before), and FUSE_NOTIFY_DELETE's events
 * are remote (FAN_REMOTE) from posting 3.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/fsid"

int main(void)
{
	struct vmfs_opts opts = { .export_support = true };
	int posting = vm_posting();
	struct statfs sfs;
	uint64_t id = 0;
	int fd;

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("fsid: mount vmfs", 0);
		return check_exit();
	}
	CHECK("fsid: statfs", statfs(MNT, &sfs) == 0);
	CHECK("fsid: nonzero", sfs.f_fsid.__val[0] || sfs.f_fsid.__val[1]);

	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, O_RDONLY);
	CHECK("fsid: fanotify_init", fd >= 0);
	if (posting < 2)
		CHECK("fsid: FAN_MARK_REMOTE unknown before posting 2",
		      fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
				    FAN_MARK_REMOTE, FAN_CREATE, AT_FDCWD,
				    MNT) == -1 && errno == EINVAL);
	CHECK("fsid: FAN_MARK_FILESYSTEM accepted",
	      fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
			    (posting >= 2 ? FAN_MARK_REMOTE : 0),
			    FAN_CREATE | FAN_DELETE | FAN_ONDIR,
			    AT_FDCWD, MNT) == 0);
	CHECK("fsid: local mkdir", mkdir(MNT "/sub", 0755) == 0);
	CHECK("fsid: FAN_CREATE|FAN_ONDIR sub",
	      vm_fanotify_expect(fd, FAN_CREATE | FAN_ONDIR, "sub"));
	CHECK("fsid: local mknod in a subdirectory",
	      mknod(MNT "/sub/x", S_IFREG | 0644, 0) == 0);
	CHECK("fsid: FAN_CREATE x (whole filesystem)",
	      vm_fanotify_expect(fd, FAN_CREATE, "x"));
	CHECK("fsid: remote remove", vmfs_remote_remove(2, "x", &id) == 0);
	CHECK("fsid: FUSE_NOTIFY_DELETE accepted",
	      vmfs_notify_delete(2, id, "x") == 0);
	CHECK("fsid: FAN_DELETE x, remote from posting 3",
	      vm_fanotify_expect(fd, FAN_DELETE |
				 (posting >= 3 ? FAN_REMOTE : 0), "x"));
	close(fd);
	vmfs_stop();
	return check_exit();
}
