// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_fs_mark - how rnotifyfs sends an event on a child the kernel
 * does not hold.  A filesystem mark is fanotify's, and the kernel refuses
 * the name alone for it (fsnotify 6/7), so when such a mark wants the event
 * the server sends the child's entry at once; otherwise it tries the name
 * alone first.  The server's counts at its stop (-d) say which way each
 * event went:
 *  - a remote write (MODIFY, which the filesystem mark wants) reaches the
 *    mark with the file's own fid, and costs no refused notification;
 *  - a remote chmod (ATTRIB, which only an inotify watch on the directory
 *    wants) reaches that watch by name;
 *  - where the kernel refused an event by name (a fanotify mark on the
 *    directory wants the child), the next ones of that kind there go
 *    with the entry at once: one refused MODIFY for three new files
 *    written, and one refused CREATE for three made under a
 *    FAN_REPORT_TARGET_FID mark.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/fsm_backing"
#define M "/mnt/fsm_mount"
#define LOG "/mnt/fsm_server.log"
#define FAN_FID_NAME (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID)

/*
 * The stop's counts: child events by name, of those refused and sent
 * again, and new entries refused by name.
 */
static bool counts(unsigned long *by_name, unsigned long *again,
		   unsigned long *new_refused)
{
	FILE *f = fopen(LOG, "r");
	char line[512];
	const char *at;
	bool found = false;

	while (f && fgets(line, sizeof(line), f)) {
		at = strstr(line, "by name ");
		if (at && sscanf(at, "by name %lu (sent again with the entry "
				 "%lu), new entries refused by name %lu",
				 by_name, again, new_refused) == 3)
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
	      vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_MODIFY, "w",
				     M "/w"));
	CHECK("fs mark: remote mknod of u",
	      mknod(B "/u", S_IFREG | 0644, 0) == 0);
	CHECK("fs mark: remote chmod of u", chmod(B "/u", 0600) == 0);
	CHECK("fs mark: inotify ATTRIB u",
	      vm_inotify_expect(in, IN_ATTRIB, "u", NULL));
}

/* Files made and written in directory dir, by name "f1".."f3". */
static bool three_files(const char *dir)
{
	char path[64];
	int i;

	for (i = 1; i <= 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		if (!vm_put(path, "x", 0))
			return false;
	}
	return true;
}

/* The next three events of fan are mask on f1, f2, f3 with their fids. */
static bool three_fids(int fan, uint64_t mask, const char *dir)
{
	char name[8], path[64];
	int i;

	for (i = 1; i <= 3; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (!vm_fanotify_expect_fid(fan, mask, name, path))
			return false;
	}
	return true;
}

/* A fanotify mark on a directory: refused by name once, then not. */
static void test_asked(void)
{
	int mod = fanotify_init(FAN_FID_NAME, O_RDONLY);
	int tgt = fanotify_init(FAN_FID_NAME | FAN_REPORT_TARGET_FID,
				O_RDONLY);
	int in = inotify_init1(IN_CLOEXEC);

	CHECK("asked: remote mkdir tm, tc", in >= 0 &&
	      inotify_add_watch(in, M, IN_CREATE) >= 0 &&
	      !mkdir(B "/tm", 0755) && !mkdir(B "/tc", 0755));
	/*
	 * Their CREATEs drop any dentry of the names: one the marks below
	 * looked up first would go, and the children pushed in tm and tc
	 * would not stay cached to compare fids with (t_server_no_alias).
	 */
	CHECK("asked: CREATE tm, tc reached the mount",
	      vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "tm", NULL) &&
	      vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "tc", NULL));
	close(in);
	CHECK("asked: FAN_MODIFY on tm's children", mod >= 0 &&
	      !vm_fanotify_remote_mark(mod, 0, FAN_MODIFY | FAN_EVENT_ON_CHILD,
				       M "/tm"));
	CHECK("asked: TARGET_FID FAN_CREATE on tc", tgt >= 0 &&
	      !vm_fanotify_remote_mark(tgt, 0, FAN_CREATE, M "/tc"));
	CHECK("asked: three files written in tm", three_files(B "/tm"));
	CHECK("asked: FAN_MODIFY of each with its own fid",
	      three_fids(mod, FAN_REMOTE | FAN_MODIFY, M "/tm"));
	CHECK("asked: three files made in tc", three_files(B "/tc"));
	CHECK("asked: FAN_CREATE of each with its own fid",
	      three_fids(tgt, FAN_REMOTE | FAN_CREATE, M "/tc"));
	close(mod);
	close(tgt);
}

int main(void)
{
	unsigned long by_name = 0, again = 0, new_refused = 0;
	pid_t pid;
	int fan, in;

	pid = vm_server_start_logged(B, M, "delivery=protocol", LOG);
	CHECK("fs mark: server mounts", pid > 0);
	if (pid <= 0)
		return check_exit();
	fan = fanotify_init(FAN_FID_NAME, O_RDONLY);
	CHECK("fs mark: fanotify filesystem mark for FAN_MODIFY", fan >= 0 &&
	      !vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM, FAN_MODIFY,
				       M));
	in = inotify_init1(IN_CLOEXEC);
	CHECK("fs mark: inotify watch on the root for IN_ATTRIB",
	      inotify_add_watch(in, M, IN_ATTRIB) >= 0);
	test_events(fan, in);
	close(fan);
	close(in);
	test_asked();
	CHECK("fs mark: SIGTERM: exits 0", vm_server_stop(pid));
	CHECK("fs mark: the server's counts are in its log",
	      counts(&by_name, &again, &new_refused));
	CHECK("fs mark: two events by name (ATTRIB u, MODIFY tm/f1)",
	      by_name == 2);
	CHECK("fs mark: one refused and sent again (MODIFY tm/f1; w went with its entry)",
	      again == 1);
	CHECK("asked: one new entry refused by name (tc/f1)",
	      new_refused == 1);
	if (by_name != 2 || again != 1 || new_refused != 1)
		printf("# by name %lu, sent again %lu, new refused %lu\n",
		       by_name, again, new_refused);
	return check_exit();
}
