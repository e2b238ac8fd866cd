// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_flood - fsnotify 5/7 and fuse 8/9 against a server that floods overflow
 * notifications over a file system with 100,000 inodes in core.  Each
 * overflow walks every inode in core: the walk drops its lock and yields
 * as it goes (no soft lockup with the detector on; the kernel log is
 * read for it), and a server gets at most 4 walks a second done at once.
 * The overflows beyond are merged into one walk a second later, so 1,000
 * of them cost less than 100 walks and queue one or two overflow events,
 * and a watcher still gets the overflow event of one sent beyond the
 * limit.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_flood"
#define NINODES 100000
#define NWATCHED 1000		/* every 100th file has an inotify watch */
#define FLOOD 1000
#define BURST 4			/* walks a second done at once */

static int in, fan;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int overflow(void)
{
	return vmfs_send_event(1, 0, FUSE_FSNOTIFY_Q_OVERFLOW, 0, NULL);
}

static bool raise_watch_limit(void)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "w");
	bool ok = f && fprintf(f, "%d\n", 2 * NWATCHED) > 0;

	return f && !fclose(f) && ok;
}

/* f0 .. f(NINODES - 1), brought in by pushed entries; every 100th watched. */
static bool make_inodes(void)
{
	unsigned int i, pushed = 0, watched = 0;
	uint64_t first;
	char path[64];

	if (vmfs_remote_create_many(1, "f", NINODES, S_IFREG | 0644, &first))
		return false;
	for (i = 0; i < NINODES; i++)
		pushed += !vmfs_send_push_node(first + i,
					       FUSE_FSNOTIFY_ATTRIB);
	for (i = 0; i < NINODES; i += NINODES / NWATCHED) {
		snprintf(path, sizeof(path), MNT "/f%u", i);
		watched += inotify_add_watch(in, path, IN_ATTRIB) >= 0;
	}
	return pushed == NINODES && watched == NWATCHED;
}

/*
 * Reads what comes within 1.5 s (a walk put off comes within 1 s): only
 * overflow events, and how many?
 */
static bool drain_overflows(int *count)
{
	char buf[4096] __attribute__((aligned(8)));
	struct inotify_event *ev;
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	bool only = true;
	ssize_t len, off;
	int n = 0;

	while (poll(&pfd, 1, 1500) == 1) {
		len = read(in, buf, sizeof(buf));
		for (off = 0; len > 0 && off < len;
		     off += sizeof(*ev) + ev->len) {
			ev = (struct inotify_event *)(buf + off);
			only = only && ev->mask == IN_Q_OVERFLOW;
			n++;
		}
		if (len <= 0)
			break;
	}
	printf("# drained %d inotify events\n", n);
	*count = n;
	return only;
}

static bool log_has(const char *what)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf = size > 0 ? malloc(size + 1) : NULL;
	int n = buf ? klogctl(3, buf, size) : -1;	/* READ_ALL */
	bool found;

	if (n < 0) {
		free(buf);
		return true;	/* unreadable counts as found: fails */
	}
	buf[n] = '\0';
	found = strstr(buf, what);
	free(buf);
	return found;
}

static bool set_watchdog_thresh(const char *secs)
{
	FILE *f = fopen("/proc/sys/kernel/watchdog_thresh", "w");
	bool ok = f && fputs(secs, f) >= 0;

	return f && !fclose(f) && ok;
}

static void test_flood(void)
{
	long t0, one, flood;
	int i, n, ok = 0;

	t0 = now_ms();
	CHECK("flood: one overflow accepted", overflow() == 0);
	one = now_ms() - t0;
	CHECK("flood: inotify: IN_Q_OVERFLOW",
	      vm_inotify_expect(in, IN_Q_OVERFLOW, "", NULL));
	CHECK("flood: fanotify: FAN_Q_OVERFLOW",
	      vm_fanotify_expect(fan, FAN_Q_OVERFLOW, ""));
	t0 = now_ms();
	for (i = 0; i < FLOOD; i++)
		ok += overflow() == 0;
	flood = now_ms() - t0;
	printf("# one overflow over %d inodes: %ld ms; %d more: %ld ms\n",
	       NINODES, one, FLOOD, flood);
	CHECK("flood: 1,000 more accepted", ok == FLOOD);
	CHECK("flood: 1,000 cost less than 100 walks",
	      flood < 100 * (one > 0 ? one : 1));
	/* The walks done at once, queued while unread, and the one put off */
	CHECK("flood: inotify: one or two IN_Q_OVERFLOW, nothing else",
	      drain_overflows(&n) && n >= 1 && n <= 2);
}

/*
 * After a quiet second, BURST + 1 overflows: the walks of the first ones
 * queue one overflow event (unread, it is not queued twice); read at
 * once, the last one's walk, put off, queues it again.
 */
static void test_put_off(void)
{
	int i, n, ok = 0;

	sleep(2);
	drain_overflows(&n);
	for (i = 0; i < BURST + 1; i++)
		ok += overflow() == 0;
	CHECK("put off: 5 overflows accepted", ok == BURST + 1);
	CHECK("put off: inotify: IN_Q_OVERFLOW",
	      vm_inotify_expect(in, IN_Q_OVERFLOW, "", NULL));
	CHECK("put off: inotify: the one beyond the limit comes later",
	      vm_inotify_expect(in, IN_Q_OVERFLOW, "", NULL));
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };
	long t0 = now_ms();

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("flood: mount vmfs", 0);
		return check_exit();
	}
	in = inotify_init1(IN_CLOEXEC);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, O_RDONLY);
	CHECK("flood: protocol on", vmfs_fsnotify_on());
	CHECK("flood: inotify watch limit raised", raise_watch_limit());
	CHECK("flood: 100,000 inodes in core, 1,000 watched", make_inodes());
	CHECK("flood: fanotify filesystem mark",
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
			    FAN_MARK_REMOTE,
			    FAN_CREATE, AT_FDCWD, MNT) == 0);
	printf("# inodes made: %ld ms\n", now_ms() - t0);
	/* A walk that does not yield for 2 s is a soft lockup */
	CHECK("flood: soft-lockup detector on, threshold 2 s",
	      set_watchdog_thresh("1"));
	test_flood();
	test_put_off();
	set_watchdog_thresh("10");
	/* The log is read for real: it has the kernel's banner */
	CHECK("flood: the kernel log is readable", log_has("Linux version"));
	CHECK("flood: no soft lockup in the kernel log",
	      !log_has("soft lockup"));
	close(in);
	close(fan);
	t0 = now_ms();
	vmfs_stop();
	printf("# unmounted: %ld ms\n", now_ms() - t0);
	return check_exit();
}
