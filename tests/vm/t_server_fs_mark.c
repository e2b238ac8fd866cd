// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_fs_mark - how rnotifyfs sends an event on a child the kernel
 * does not hold.  A filesystem mark is fanotify's, and the kernel refuses
 * the name alone for it (patch 14), so when such a mark wants the event
 * the server sends the child's entry at once; otherwise it tries the name
 * alone first.  The server's counts at its stop (-d) say which way each
 * event went:
 *  - a remote write (MODIFY, which the filesystem mark wants) reaches the
 *    mark with the file's own fid, and costs no refused notification;
 *  - a remote chmod (ATTRIB, which only an inotify watch on the directory
 *    wants) reaches that watch by name.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/fsm_backing"
#define M "/mnt/fsm_mount"
#define LOG "/mnt/fsm_server.log"
#define FAN_FID_NAME (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID)

/* The stop's counts: by name, and of those refused and sent again. */
static bool counts(unsigned long *by_name, unsigned long *again)
{
	FILE *f = fopen(LOG, "r");
	char line[512];
	const char *at;
	bool found = false;

	while (f && fgets(line, sizeof(line), f)) {
		at = strstr(line, "by name ");
		if (at && sscanf(at, "by name %lu (sent again with the entry %lu)",
				 by_name, again) == 2)
			found = true;
	}
	if (f)
		fclose(f);
	return found;
}

static void test_events(int fan, int in)
{
	CHECK("fs mark: remote write of w", vm_put(B "/w", "x", O_TRUNC));
	CHECK("fs mark: FAN_MODIFY w with w's own fid",
	      vm_fanotify_expect_fid(fan, FAN_MODIFY, "w", M "/w"));
	CHECK("fs mark: remote mknod of u",
	      mknod(B "/u", S_IFREG | 0644, 0) == 0);
	CHECK("fs mark: remote chmod of u", chmod(B "/u", 0600) == 0);
	CHECK("fs mark: inotify ATTRIB u",
	      vm_inotify_expect(in, IN_ATTRIB, "u", NULL));
}

int main(void)
{
	unsigned long by_name = 0, again = 0;
	pid_t pid;
	int fan, in;

	pid = vm_server_start_logged(B, M, "delivery=protocol", LOG);
	CHECK("fs mark: server mounts", pid > 0);
	if (pid <= 0)
		return check_exit();
	fan = fanotify_init(FAN_FID_NAME, O_RDONLY);
	CHECK("fs mark: fanotify filesystem mark for FAN_MODIFY", fan >= 0 &&
	      !fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			     FAN_MODIFY, AT_FDCWD, M));
	in = inotify_init1(IN_CLOEXEC);
	CHECK("fs mark: inotify watch on the root for IN_ATTRIB",
	      inotify_add_watch(in, M, IN_ATTRIB) >= 0);
	test_events(fan, in);
	close(fan);
	close(in);
	CHECK("fs mark: SIGTERM: exits 0", vm_server_stop(pid));
	CHECK("fs mark: the server's counts are in its log",
	      counts(&by_name, &again));
	CHECK("fs mark: one event by name (ATTRIB u)", by_name == 1);
	CHECK("fs mark: none refused and sent again (MODIFY w went with its entry)",
	      again == 0);
	if (by_name != 1 || again)
		printf("# by name %lu, sent again %lu\n", by_name, again);
	return check_exit();
}
