// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events' side of frame_server (tag "frames"): the marks whose masks
 * the server checks, each step ended by the server's sentinel; then the
 * server's malformed frames, whose outcomes it checks itself: none may
 * deliver an event (the valid frame's is next), and the mount keeps
 * answering, its local events too.
 */
#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../vm/vmwatch.h"
#include "vfs_events.h"

void test_frames(void)
{
	int in = inotify_init1(IN_CLOEXEC), in_f = inotify_init1(IN_CLOEXEC);
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);
	struct stat st;

	VCHECK("frames_root_watch", in >= 0 && inotify_add_watch(in, mnt,
	       IN_CREATE | IN_MODIFY | IN_DELETE) >= 0);
	VCHECK("frames_local_f", mknod(at("f"), S_IFREG | 0644, 0) == 0 &&
	       vm_inotify_expect(in, IN_CREATE, "f", NULL));
	VCHECK("frames_marks", in_f >= 0 && fan >= 0 &&
	       inotify_add_watch(in_f, at("f"), IN_ATTRIB) >= 0 &&
	       !vm_fanotify_remote_mark(fan, 0, FAN_CLOSE_WRITE, at("f")) &&
	       !vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM, FAN_MODIFY,
					mnt));
	VCHECK("frames_masks_seen",
	       vm_inotify_expect(in, IN_CREATE, "masks_seen", NULL));
	close(in_f);
	close(fan);
	VCHECK("frames_masks_gone",
	       vm_inotify_expect(in, IN_CREATE, "masks_gone", NULL));
	VCHECK("frames_nothing_before_valid",
	       vm_inotify_expect(in, IN_CREATE, "ok", NULL));
	VCHECK("frames_mount_answers", stat(at("f"), &st) == 0 &&
	       S_ISREG(st.st_mode));
	VCHECK("frames_local_events_go_on",
	       mknod(at("g"), S_IFREG | 0644, 0) == 0 &&
	       vm_inotify_expect(in, IN_CREATE, "g", NULL));
	close(in);
}
