// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events' overflow check: notifications the guest did not fetch in
 * time are dropped by rnotifyfs (vhost_notify.h), and the guest's
 * watchers are told so, once. host_cmd's "unfetched" op stops the whole
 * VM (SIGSTOP to qemu) while the host makes uf0 and uf1, and resumes it
 * once the server has logged the drop: the first notification went out
 * on the request the guest had left outstanding, the next waited for a
 * request that did not come and was dropped. The overflow goes out ahead
 * of the next notification, so an inotify watch and a fanotify
 * filesystem mark each read: the creates of uf0 and uf1 that were not
 * dropped (which ones depends on whether a name's invalidation went out
 * first), one overflow, and then the next change; a local sentinel then
 * proves no second overflow followed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../vm/vmwatch.h"
#include "rnotify_proto.h"
#include "guest_cmd.h"
#include "vfs_events.h"

/* What fd reads up to the create of "after" (see the top of the file). */
static bool overflow_once(int fd, bool fan)
{
	uint32_t create = fan ? FAN_CREATE | FAN_REMOTE : IN_CREATE;
	uint32_t overflow = fan ? FAN_Q_OVERFLOW : IN_Q_OVERFLOW;
	bool seen[2] = { false, false };
	int overflows = 0;
	struct vm_event ev = { 0 };

	while (fan ? vm_fanotify_next(fd, &ev) : vm_inotify_next(fd, &ev)) {
		if (ev.mask == overflow && !ev.name[0]) {
			overflows++;
			continue;
		}
		if (ev.mask == create && !strcmp(ev.name, "after"))
			break;
		if (ev.mask != create || strncmp(ev.name, "uf", 2) ||
		    (strcmp(ev.name + 2, "0") && strcmp(ev.name + 2, "1")) ||
		    seen[ev.name[2] - '0'])
			break;
		seen[ev.name[2] - '0'] = true;
	}
	if (ev.mask == create && !strcmp(ev.name, "after") && overflows == 1)
		return true;
	printf("# overflow: %d overflows, then:\n", overflows);
	vm_event_print(fan ? "fanotify got" : "inotify got", &ev);
	return false;
}

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
	VCHECK("ovf_inotify_once_then_goes_on", overflow_once(in, false));
	VCHECK("ovf_fanotify_once_then_goes_on", overflow_once(fan, true));
	/* Exactly once: the next event of each is a local sentinel's. */
	VCHECK("ovf_once", mkdir(at("ovf/zz"), 0755) == 0 &&
	       vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "zz", NULL) &&
	       vm_fanotify_expect(fan, FAN_CREATE | FAN_ONDIR, "zz"));
	close(in);
	close(fan);
}
