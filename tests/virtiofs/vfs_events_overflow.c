// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events' overflow check: notifications the guest did not fetch in
 * time are dropped by rnotifyfs (vhost_notify.h), and the guest's
 * watchers are told so, once. host_cmd's "unfetched" op stops the whole
 * VM (SIGSTOP to qemu) while the host makes uf0 and uf1, and resumes it
 * once the server has logged the drop: uf0's CREATE went out on the
 * request the guest had left outstanding, uf1's waited for a request
 * that did not come and was dropped. The overflow goes out ahead of the
 * next notification, so the guest sees uf0, one overflow, and the next
 * change, on an inotify watch and on a fanotify filesystem mark alike;
 * a local sentinel then proves no second overflow followed.
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

void test_overflow(void)
{
	int in = inotify_init1(IN_CLOEXEC);
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	VCHECK("ovf_dir", host_cmd("mkdir %s ovf", tag) == 0);
	VCHECK("ovf_watches", in >= 0 && fan >= 0 &&
	       inotify_add_watch(in, at("ovf"), IN_CREATE) >= 0 &&
	       !vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM,
					FAN_CREATE | FAN_ONDIR, mnt));
	/* The mark's own start: the mkdir seen by both, nothing pending. */
	VCHECK("ovf_ready", host_cmd("mkdir %s ovf/ready", tag) == 0 &&
	       vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "ready", NULL) &&
	       vm_fanotify_expect(fan, FAN_CREATE | FAN_ONDIR | FAN_REMOTE,
				  "ready"));
	VCHECK("ovf_unfetched", host_cmd("unfetched %s ovf/uf 2", tag) == 0);
	VCHECK("ovf_next_change", host_cmd("create %s ovf/after", tag) == 0);
	VCHECK("ovf_inotify_fetched_first",
	       vm_inotify_expect(in, IN_CREATE, "uf0", NULL));
	VCHECK("ovf_inotify_overflow",
	       vm_inotify_expect(in, IN_Q_OVERFLOW, "", NULL));
	VCHECK("ovf_inotify_goes_on",
	       vm_inotify_expect(in, IN_CREATE, "after", NULL));
	VCHECK("ovf_fanotify_fetched_first",
	       vm_fanotify_expect(fan, FAN_CREATE | FAN_REMOTE, "uf0"));
	VCHECK("ovf_fanotify_overflow",
	       vm_fanotify_expect(fan, FAN_Q_OVERFLOW, ""));
	VCHECK("ovf_fanotify_goes_on",
	       vm_fanotify_expect(fan, FAN_CREATE | FAN_REMOTE, "after"));
	/* Exactly once: the next event of each is a local sentinel's. */
	VCHECK("ovf_once", mkdir(at("ovf/zz"), 0755) == 0 &&
	       vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "zz", NULL) &&
	       vm_fanotify_expect(fan, FAN_CREATE | FAN_ONDIR, "zz"));
	close(in);
	close(fan);
}
