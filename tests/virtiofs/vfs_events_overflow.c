// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events' overflow check: notifications the guest did not fetch in
 * time are dropped by rnotifyfs (vhost_notify.h), and the guest's
 * watchers are told so, once. host_cmd's "unfetched" op stops the whole
 * VM (SIGSTOP to qemu) while the host makes uf0 and uf1, and resumes it
 * once the server has logged the drop: the first notification went out
 * on the request the guest had left outstanding, the next waited for a
 * request that did not come and was dropped. The overflow goes out on
 * the guest's next request, with no further change on the host: an
 * inotify watch and a fanotify filesystem mark each read the creates of
 * uf0 and uf1 that were not dropped (which ones depends on whether a
 * name's invalidation went out first) and one overflow, by themselves.
 * A local sentinel then proves that no second overflow followed (a
 * create not dropped may still come before it).
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

struct overflow_reader {
	int fd;
	bool fan;
	bool seen[2];		/* the creates of uf0 and uf1 */
	int overflows;
};

/*
 * Reads r until an overflow (until_overflow) or the create of "zz":
 * anything but a first create of uf0 or uf1 on the way is a failure.
 */
static bool overflow_read(struct overflow_reader *r, bool until_overflow)
{
	uint32_t create = r->fan ? FAN_CREATE | FAN_REMOTE : IN_CREATE;
	uint32_t overflow = r->fan ? FAN_Q_OVERFLOW : IN_Q_OVERFLOW;
	uint32_t sentinel = r->fan ? FAN_CREATE | FAN_ONDIR :
				     IN_CREATE | IN_ISDIR;
	struct vm_event ev = { 0 };
	bool got;

	while ((got = r->fan ? vm_fanotify_next(r->fd, &ev) :
			       vm_inotify_next(r->fd, &ev))) {
		if (ev.mask == overflow && !ev.name[0]) {
			if (r->overflows++ || !until_overflow)
				break;
			return true;
		}
		if (!until_overflow && ev.mask == sentinel &&
		    !strcmp(ev.name, "zz"))
			return true;
		if (ev.mask != create || strncmp(ev.name, "uf", 2) ||
		    (strcmp(ev.name + 2, "0") && strcmp(ev.name + 2, "1")) ||
		    r->seen[ev.name[2] - '0'])
			break;
		r->seen[ev.name[2] - '0'] = true;
	}
	printf("# overflow: %d overflows, then:\n", r->overflows);
	if (got)
		vm_event_print(r->fan ? "fanotify got" : "inotify got", &ev);
	else
		printf("# %s: nothing more within %d ms\n",
		       r->fan ? "fanotify" : "inotify", VM_WAIT_MS);
	return false;
}

void test_overflow(void)
{
	int in = inotify_init1(IN_CLOEXEC);
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	struct overflow_reader ri = { .fd = in }, rf = { .fd = fan,
						   .fan = true };

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
	/* No further host change: the overflow must come by itself. */
	VCHECK("ovf_inotify_by_itself", overflow_read(&ri, true));
	VCHECK("ovf_fanotify_by_itself", overflow_read(&rf, true));
	VCHECK("ovf_once", mkdir(at("ovf/zz"), 0755) == 0 &&
	       overflow_read(&ri, false) && overflow_read(&rf, false));
	close(in);
	close(fan);
}
