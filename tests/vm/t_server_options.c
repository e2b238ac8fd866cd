// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_options - rnotifyfs on the patched kernel with other options
 * than t_server's, each check group with a server of its own: with
 * delivery=replay it declines the offer and replays, as on a stock
 * kernel, and notices a plain umount by itself; with watch=inotify, a
 * rename across the export's edge; and an overflow of the server's
 * host watcher (a 16-event inotify queue) reaches the mount as
 * IN_Q_OVERFLOW, after the events it kept.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmserver.h"
#include "vmserver_probe.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/srv_backing"
#define M "/mnt/srv_mount"
#define OUT "/mnt/outside"
#define IN_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)

static bool set_max_queued(const char *n)
{
	int fd = open("/proc/sys/fs/inotify/max_queued_events", O_WRONLY);
	bool ok = fd >= 0 && write(fd, n, strlen(n)) == (ssize_t)strlen(n);

	close(fd);
	return ok;
}

/* Remote mkdirs while the server is stopped, past its host queue. */
static bool mkdirs_while_stopped(pid_t pid, int n)
{
	char path[64];
	bool ok = vm_server_pause(pid);
	int i;

	for (i = 0; ok && i < n; i++) {
		snprintf(path, sizeof(path), B "3/d%02d", i);
		ok = !mkdir(path, 0755);
	}
	return !kill(pid, SIGCONT) && ok;
}

/* The events that were not lost, in order, then the overflow. */
static bool creates_then_overflow(int in, int want)
{
	struct vm_event ev;
	char name[16];
	int i;

	for (i = 0; vm_inotify_next(in, &ev); i++) {
		if (ev.mask == IN_Q_OVERFLOW && !ev.name[0])
			return i == want;
		snprintf(name, sizeof(name), "d%02d", i);
		if (ev.mask != (IN_CREATE | IN_ISDIR) || strcmp(ev.name, name))
			break;
	}
	printf("# overflow: %d creates, then:\n", i);
	vm_event_print("inotify got", &ev);
	return false;
}

/*
 * The host watcher (inotify, a 16-event queue here) overflows while the
 * server is stopped: the 16 changes it kept reach the mount, then every
 * watcher of the mount gets IN_Q_OVERFLOW instead of silence, and
 * delivery goes on.
 */
static void test_overflow(void)
{
	pid_t pid;
	int in;

	CHECK("overflow: max_queued_events 16", set_max_queued("16"));
	pid = vm_server_start(B "3", M "3", "delivery=protocol,watch=inotify");
	CHECK("overflow: max_queued_events back to 16384",
	      set_max_queued("16384"));
	CHECK("overflow: server with a 16-event host queue", pid > 0);
	if (pid <= 0)
		return;
	in = inotify_init1(IN_CLOEXEC);
	CHECK("overflow: watch the mount root",
	      inotify_add_watch(in, M "3", IN_CREATE) >= 0);
	CHECK("overflow: 40 remote mkdirs while stopped",
	      mkdirs_while_stopped(pid, 40));
	CHECK("overflow: 16 CREATE,ISDIR in order, then IN_Q_OVERFLOW",
	      creates_then_overflow(in, 16));
	CHECK("overflow: remote sentinel", mkdir(B "3/after", 0755) == 0);
	CHECK("overflow: delivery goes on", vm_inotify_expect(in,
	      IN_CREATE | IN_ISDIR, "after", NULL));
	close(in);
	CHECK("overflow: SIGTERM: exits 0", vm_server_stop(pid));
}

/*
 * The same edge with the inotify host watcher (watch=inotify), which
 * cannot name an object moved out: the server finds the node the kernel
 * holds by the name it showed.
 */
static void test_edge_inotify_host(void)
{
	pid_t pid = vm_server_start(B "4", M "4", "delivery=protocol,"
				    "watch=inotify,entry_timeout=60");
	int in = inotify_init1(IN_CLOEXEC);
	uint32_t c1 = 0, c2 = 0;

	CHECK("edge inotify: server with watch=inotify", pid > 0);
	if (pid <= 0)
		return;
	CHECK("edge inotify: watch the root",
	      inotify_add_watch(in, M "4", IN_EVENTS) >= 0);
	CHECK("edge inotify: remote mkdir od", mkdir(B "4/od", 0755) == 0);
	CHECK("edge inotify: CREATE,ISDIR od", vm_inotify_expect(in,
	      IN_CREATE | IN_ISDIR, "od", NULL));
	CHECK("edge inotify: watch od", inotify_add_watch(in, M "4/od",
	      IN_MOVE_SELF | IN_DELETE_SELF) >= 0);
	CHECK("edge inotify: remote rename of od out",
	      !mkdir(OUT "4", 0755) && !rename(B "4/od", OUT "4/od"));
	CHECK("edge inotify: MOVED_FROM,ISDIR od alone", vm_inotify_expect(in,
	      IN_MOVED_FROM | IN_ISDIR, "od", &c1) && c1);
	CHECK("edge inotify: MOVE_SELF on od", vm_inotify_expect(in,
	      IN_MOVE_SELF, "", NULL));
	CHECK("edge inotify: remote rename of a file in",
	      vm_put(OUT "4/mi", "", 0) && !rename(OUT "4/mi", B "4/mi"));
	CHECK("edge inotify: MOVED_TO mi alone, no DELETE_SELF before it",
	      vm_inotify_expect(in, IN_MOVED_TO, "mi", &c2) && c2 &&
	      c2 != c1);
	close(in);
	CHECK("edge inotify: SIGTERM: exits 0", vm_server_stop(pid));
}

/*
 * delivery=replay declines the offer: the kernel then behaves as a stock
 * one (no FUSE_FSNOTIFY, no notifications) and replay still delivers.
 * The replayer works in a copy of the mount, so a plain umount succeeds
 * and the server must notice it by itself.
 */
static void test_replay_declines(void)
{
	pid_t pid = vm_server_start(B "2", M "2", "delivery=replay");
	int in = inotify_init1(IN_CLOEXEC);

	CHECK("replay: mounts on the patched kernel", pid > 0);
	if (pid <= 0)
		return;
	CHECK("replay: watch", inotify_add_watch(in, M "2", IN_EVENTS) >= 0);
	CHECK("replay: remote mkdir", mkdir(B "2/rd", 0755) == 0);
	CHECK("replay: CREATE,ISDIR rd", vm_inotify_expect(in,
	      IN_CREATE | IN_ISDIR, "rd", NULL));
	CHECK("replay: remote rmdir", rmdir(B "2/rd") == 0);
	CHECK("replay: DELETE,ISDIR rd", vm_inotify_expect(in,
	      IN_DELETE | IN_ISDIR, "rd", NULL));
	close(in);
	CHECK("replay: umount of the mount", umount(M "2") == 0);
	/* The VM's mount table fits a stdio buffer (src/util/mountinfo.c). */
	CHECK("replay: the server notices it and exits 0 by itself",
	      vm_server_wait(pid));
}

int main(void)
{
	test_replay_declines();
	test_edge_inotify_host();
	test_overflow();
	return check_exit();
}
