// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_stall - fsnotify 4/7 and fuse 5/9 against a server that never answers
 * FUSE_FSNOTIFY (stalled, or hostile: a FUSE server may be unprivileged).
 * Adding a watch waits for the server's answer to that watch's update
 * only, and for a bounded time (1 s, FUSE_FSNOTIFY_SYNC_TIMEOUT); once a
 * wait has timed out the server counts as stalled and nobody waits for it
 * until it answers again.  So the first inotify_add_watch() returns after
 * about a second, the next 65,536 (each on a node of its own, all their
 * updates left unanswered) and one more return at once, as do
 * fanotify_mark() and fcntl(F_NOTIFY); every watch is in place and
 * reports local changes.  Each node is brought in by a pushed entry, so
 * the run costs no LOOKUP round trips.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmcall.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_stall"
#define NWATCH 65536
/* The kernel's wait, and what a syscall that does not wait may take */
#define SYNC_MS 1000
#define QUICK_MS 1000

static int in;
static uint64_t first;	/* node of file w0; wN is first + N */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int watch_w(unsigned int i)
{
	char path[64];

	snprintf(path, sizeof(path), MNT "/w%u", i);
	return inotify_add_watch(in, path, IN_ATTRIB);
}

static int watch_w0(int fd)
{
	return watch_w(0);
}

static bool raise_watch_limit(void)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "w");
	bool ok = f && fprintf(f, "%d\n", 2 * NWATCH) > 0;

	return f && !fclose(f) && ok;
}

/* w0 .. w(NWATCH + 1), each brought in by a pushed entry. */
static bool make_nodes(void)
{
	unsigned int i, pushed = 0;

	if (vmfs_remote_create_many(1, "w", NWATCH + 2, S_IFREG | 0644,
				    &first))
		return false;
	for (i = 0; i < NWATCH + 2; i++)
		pushed += !vmfs_send_push_node(first + i,
					       FUSE_FSNOTIFY_ATTRIB);
	return pushed == NWATCH + 2;
}

/*
 * The first watch: the kernel waits for the answer, then gives up. Run on
 * a thread of its own so that a kernel that waits for ever (killable
 * only) fails the check instead of hanging the test; exiting kills it.
 */
static bool first_watch(void)
{
	struct vm_call call;
	bool back;
	long t0 = now_ms(), ms;

	if (!vm_call_start(&call, watch_w0, 0))
		return false;
	back = vm_call_wait(&call, 3 * SYNC_MS);
	ms = now_ms() - t0;
	CHECK("stall: first watch returns within 3 s", back);
	if (!back) {
		printf("# first watch still waiting after %ld ms\n", ms);
		fflush(stdout);
		_exit(1);
	}
	printf("# first watch: %ld ms\n", ms);
	CHECK("stall: first watch added", vm_call_join(&call) >= 0);
	CHECK("stall: first watch waited for the server first",
	      ms >= SYNC_MS * 9 / 10);
	return true;
}

static void many_watches(void)
{
	long t0 = now_ms(), slowest = 0, t, ms;
	unsigned int i, added = 0;
	int wd;

	for (i = 1; i <= NWATCH; i++) {
		t = now_ms();
		added += watch_w(i) >= 0;
		t = now_ms() - t;
		if (t > slowest)
			slowest = t;
	}
	ms = now_ms() - t0;
	printf("# %d watches: %ld ms, slowest %ld ms, %u FUSE_FSNOTIFY read "
	       "by the server\n", NWATCH, ms, slowest, vmfs_watch_count());
	CHECK("stall: 65,536 more watches added", added == NWATCH);
	CHECK("stall: none of them waited for the server",
	      slowest < QUICK_MS);

	t0 = now_ms();
	wd = watch_w(NWATCH + 1);
	ms = now_ms() - t0;
	printf("# one more: %ld ms\n", ms);
	CHECK("stall: one more watch added", wd >= 0);
	CHECK("stall: one more watch returns within 1 s", ms < QUICK_MS);
}

static void other_marks(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	int dir = open(MNT, O_RDONLY | O_DIRECTORY);
	long t0;
	int ret;

	t0 = now_ms();
	ret = vm_fanotify_remote_mark(fan, 0, FAN_MODIFY, MNT "/w1");
	CHECK("stall: fanotify_mark returns within 1 s",
	      ret == 0 && now_ms() - t0 < QUICK_MS);
	t0 = now_ms();
	ret = fcntl(dir, F_NOTIFY, DN_CREATE | DN_MULTISHOT);
	CHECK("stall: F_NOTIFY returns within 1 s",
	      ret == 0 && now_ms() - t0 < QUICK_MS);
	close(dir);
	close(fan);
}

/* The watches are in place: local changes are reported. */
static void watches_work(void)
{
	char path[64];

	snprintf(path, sizeof(path), MNT "/w%u", NWATCH + 1);
	CHECK("stall: local chmod of the last file", chmod(path, 0600) == 0);
	CHECK("stall: its watch reports IN_ATTRIB",
	      vm_inotify_expect(in, IN_ATTRIB, "", NULL));
	CHECK("stall: local chmod of w0", chmod(MNT "/w0", 0600) == 0);
	CHECK("stall: the first watch reports IN_ATTRIB",
	      vm_inotify_expect(in, IN_ATTRIB, "", NULL));
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true };
	long t0 = now_ms();

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("stall: mount vmfs", 0);
		return check_exit();
	}
	in = inotify_init1(IN_CLOEXEC);
	CHECK("stall: protocol on", vmfs_fsnotify_on());
	CHECK("stall: inotify watch limit raised", raise_watch_limit());
	CHECK("stall: 65,538 nodes in core", make_nodes());
	printf("# nodes made: %ld ms\n", now_ms() - t0);
	vmfs_drop_watch_replies();
	if (first_watch()) {
		many_watches();
		other_marks();
		watches_work();
	}
	close(in);
	t0 = now_ms();
	vmfs_stop();
	printf("# unmounted: %ld ms\n", now_ms() - t0);
	return check_exit();
}
