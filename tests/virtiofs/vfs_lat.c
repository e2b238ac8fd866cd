// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_lat - remote-event latency in a virtio-fs guest: a change made on
 * the host to the inotify event read in the guest, against native
 * inotify on a local directory of the same guest (bench/lat.c's figure,
 * across the VM boundary).
 *
 *   vfs_lat ROUND NATIVEDIR MOUNT REL TAG N
 *
 * N creates, then N appends of one byte, N renames, N unlinks of files
 * f<i> (renamed to g<i>), one at a time, each waited for (2 s, or it
 * counts as lost), in pairs: a guest writer makes the change in
 * NATIVEDIR, the host makes it in REL of export TAG (host_cmd,
 * guest_cmd.h), watched at MOUNT/REL; which goes first alternates. The
 * pairs put both sides under the same load from the machine's other
 * work, which here moves a guest's latencies by ten times within
 * seconds. Prints "VFSLAT ROUND mode op n lost p50 p99 max" (modes
 * native and remote), in time stamp counter cycles.
 *
 * The clock: under qemu TCG a guest's rdtsc returns the host's counter
 * plus a constant (qemu's cpu_get_ticks(): the host's rdtsc plus an
 * offset set when the VM starts), so one counter times both sides once
 * the constant is known. host_cmd reads the counter just before it makes
 * the change and sends it back; the guest reads it just before it sends
 * each request (g1) and just after the answer (g2). Each exchange bounds
 * the constant: host - g2 <= offset <= host - g1. PINGS bare exchanges
 * ("clock") before and PINGS after the run, and every change's own
 * request, narrow the bounds; the figures use their middle. All of them
 * must allow one offset (the counters are one clock, and the constant
 * did not move during the run), or the run fails: "VFSLAT-CLOCK ROUND lo
 * hi" says how wide the interval was, and every remote figure is
 * uncertain by half of it.
 *
 * The watcher runs on the guest's second CPU, the native writer on the
 * first (bench/lat.c says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "guest_cmd.h"

#define TIMEOUT_MS 2000
#define PINGS 100
/* A host that never answers fails the run long before this. */
#define WARMUP_TRIES 20

struct lat_op {
	const char *label;
	uint32_t mask;		/* the event that ends the measurement */
	char prefix;		/* the name it carries: f<i> or g<i> */
};

static const struct lat_op ops[] = {
	{ "create", IN_CREATE, 'f' },
	{ "write", IN_MODIFY, 'f' },
	{ "rename", IN_MOVED_TO, 'g' },
	{ "unlink", IN_DELETE, 'g' },
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

/* One remote change: when the guest asked, when the host did it, read. */
struct sample {
	uint64_t asked, host, read;
};

static const char *round_label;

static void die(const char *what, const char *where)
{
	printf("VFSLAT-FAIL %s: %s %s (%s)\n", round_label, what, where,
	       strerror(errno));
	exit(1);
}

/* Keeps the calling process on the nth CPU it may use (as bench/lat.c). */
static void pin(int nth)
{
	cpu_set_t allowed, one;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die("sched_getaffinity", "");
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || nth--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			die("sched_setaffinity", "");
		return;
	}
}

static long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An inotify descriptor and what was read from it but not yet used. */
struct watcher {
	int fd;
	size_t have, at;
	char buf[8192] __attribute__((aligned(8)));
};

/*
 * Reads events until OP's on <prefix><i>: the counter when read(2)
 * handed it over, or 0 if it did not come within TIMEOUT_MS.
 */
static uint64_t wait_event(struct watcher *w, const struct lat_op *op,
			   int i)
{
	char want[32];
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	long deadline = ms_now() + TIMEOUT_MS, left;

	snprintf(want, sizeof(want), "%c%d", op->prefix, i);
	for (;;) {
		while (w->at < w->have) {
			struct inotify_event *ev = (void *)(w->buf + w->at);
			uint64_t now = __rdtsc();

			w->at += sizeof(*ev) + ev->len;
			if ((ev->mask & op->mask) && ev->len &&
			    !strcmp(ev->name, want))
				return now;
		}
		left = deadline - ms_now();
		if (left <= 0 || poll(&p, 1, left) <= 0)
			return 0;
		ssize_t n = read(w->fd, w->buf, sizeof(w->buf));

		if (n <= 0)
			return 0;
		w->have = n;
		w->at = 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_op(const char *mode, const char *label, uint64_t *v,
		     int n, int lost)
{
	if (!n) {
		printf("VFSLAT %s %s %s 0 %d 0 0 0\n", round_label, mode,
		       label, lost);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("VFSLAT %s %s %s %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       round_label, mode, label, n, lost, v[n / 2],
	       v[(n * 99 + 99) / 100 - 1], v[n - 1]);
	fflush(stdout);
}

static void watch(struct watcher *w, const char *dir)
{
	w->fd = inotify_init1(IN_CLOEXEC);
	if (w->fd < 0 || inotify_add_watch(w->fd, dir, IN_CREATE | IN_MODIFY |
					   IN_MOVED_TO | IN_DELETE) < 0)
		die("inotify on", dir);
}

/* The native writer's change; returns the counter read just before it. */
static uint64_t native_change(const char *dir, int op, int i)
{
	char a[PATH_MAX], b[PATH_MAX];
	uint64_t t = 0;
	int fd, rc = 0;

	snprintf(a, sizeof(a), "%s/f%d", dir, i);
	snprintf(b, sizeof(b), "%s/g%d", dir, i);
	switch (op) {
	case 0:
		t = __rdtsc();
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		rc = fd < 0 ? -1 : close(fd);
		break;
	case 1:
		t = __rdtsc();
		fd = open(a, O_WRONLY | O_APPEND);
		rc = fd < 0 || write(fd, "x", 1) != 1 ? -1 : close(fd);
		break;
	case 2:
		t = __rdtsc();
		rc = rename(a, b);
		break;
	case 3:
		t = __rdtsc();
		rc = unlink(b);
		break;
	}
	if (rc)
		die("native change in", dir);
	return t;
}

/* The native writer: a child on the first CPU, in lock step with us. */
struct writer {
	pid_t pid;
	int go, done;
};

static void writer_start(struct writer *wr, const char *dir)
{
	int go[2], done[2];

	if (pipe(go) || pipe(done))
		die("pipe", "");
	wr->pid = fork();
	if (wr->pid < 0)
		die("fork", "");
	if (!wr->pid) {
		int req[2];
		uint64_t t;

		close(go[1]);
		close(done[0]);
		pin(0);
		while (read(go[0], req, sizeof(req)) == sizeof(req)) {
			t = native_change(dir, req[0], req[1]);
			if (write(done[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	wr->go = go[1];
	wr->done = done[0];
}

static void writer_stop(struct writer *wr)
{
	int status;

	close(wr->go);
	if (waitpid(wr->pid, &status, 0) != wr->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("writer failed", "");
	close(wr->done);
}

/* One native change: its latency in cycles, or 0 if its event was lost. */
static uint64_t native_one(struct writer *wr, struct watcher *w, int k,
			   int i)
{
	int req[2] = { k, i };
	uint64_t t0, t1;

	if (write(wr->go, req, sizeof(req)) != sizeof(req))
		die("writer gone", "");
	t1 = wait_event(w, &ops[k], i);
	if (read(wr->done, &t0, sizeof(t0)) != sizeof(t0))
		die("writer failed", "");
	if (!t1)
		return 0;
	return t1 > t0 ? t1 - t0 : 1;
}

/* The offset's bounds: host counter - guest counter lies in [lo, hi]. */
struct bounds {
	int64_t lo, hi;
};

static void bound(struct bounds *b, uint64_t g1, uint64_t host, uint64_t g2)
{
	int64_t lo = (int64_t)(host - g2), hi = (int64_t)(host - g1);

	if (lo > b->lo)
		b->lo = lo;
	if (hi < b->hi)
		b->hi = hi;
}

static void ping(struct bounds *b)
{
	for (int i = 0; i < PINGS; i++) {
		uint64_t g1 = __rdtsc(), host, g2;

		if (host_cmd_wait(host_cmd_send("clock"), &host))
			die("host clock", "");
		g2 = __rdtsc();
		bound(b, g1, host, g2);
	}
}

/*
 * The host's first changes: until one makes an event (a guest agent may
 * still be starting), so that the run times delivery, not a start.
 */
static void warm_up(struct watcher *w, const char *rel, const char *tag)
{
	static const struct lat_op create = { "create", IN_CREATE, 'w' };
	uint64_t host;

	for (int i = 0; i < WARMUP_TRIES; i++) {
		int id = host_cmd_send("create %s %s/w%d", tag, rel, i);
		uint64_t seen = wait_event(w, &create, i);

		if (host_cmd_wait(id, &host))
			die("host create in", rel);
		if (seen)
			return;
	}
	die("no event for the host's changes in", rel);
}

/* The host's change for ops[k] (rename: the new name is added). */
static const char *const host_ops[] = {
	"create %s %s/f%d", "append %s %s/f%d x", "rename %s %s/f%d",
	"unlink %s %s/g%d",
};

/* One remote change, its times in *x; the exchange narrows *b. */
static void remote_one(struct watcher *w, const char *rel, const char *tag,
		       int k, int i, struct sample *x, struct bounds *b)
{
	char req[PATH_MAX];
	int id;

	snprintf(req, sizeof(req), host_ops[k], tag, rel, i);
	if (k == 2)
		snprintf(req + strlen(req), sizeof(req) - strlen(req),
			 " %s/g%d", rel, i);
	x->asked = __rdtsc();
	id = host_cmd_send("%s", req);
	x->read = wait_event(w, &ops[k], i);
	if (host_cmd_wait(id, &x->host))
		die("host change in", rel);
	bound(b, x->asked, x->host, __rdtsc());
}

/*
 * The offset that the pings before, the changes, and the pings after all
 * allow: the run fails if there is none (the counters are not one clock,
 * or the constant moved during the run).
 */
static int64_t offset_of(struct bounds during, struct bounds after)
{
	int64_t lo = during.lo > after.lo ? during.lo : after.lo;
	int64_t hi = during.hi < after.hi ? during.hi : after.hi;

	if (lo > hi) {
		printf("VFSLAT-FAIL %s clock: no one offset: [%" PRId64 ", %"
		       PRId64 "] before and during, [%" PRId64 ", %" PRId64
		       "] after\n", round_label, during.lo, during.hi,
		       after.lo, after.hi);
		exit(1);
	}
	printf("VFSLAT-CLOCK %s %" PRId64 " %" PRId64 "\n", round_label, lo,
	       hi);
	return lo + (hi - lo) / 2;
}

static void run(const char *native_dir, const char *mnt, const char *rel,
		const char *tag, int n)
{
	static struct watcher local, remote;
	struct bounds all = { INT64_MIN, INT64_MAX };
	struct bounds after = { INT64_MIN, INT64_MAX };
	struct sample *s = calloc(N_OPS * n, sizeof(*s));
	uint64_t *v = calloc(N_OPS * n, sizeof(*v));
	char dir[PATH_MAX];
	struct writer wr;
	int64_t offset;

	snprintf(dir, sizeof(dir), "%s/%s", mnt, rel);
	if (!s || !v)
		die("out of memory", "");
	watch(&local, native_dir);
	watch(&remote, dir);
	writer_start(&wr, native_dir);
	pin(1);
	warm_up(&remote, rel, tag);
	ping(&all);
	for (size_t k = 0; k < N_OPS; k++) {
		for (int i = 0; i < n; i++) {
			struct sample *x = &s[k * n + i];

			if (i % 2)
				remote_one(&remote, rel, tag, k, i, x, &all);
			v[k * n + i] = native_one(&wr, &local, k, i);
			if (!(i % 2))
				remote_one(&remote, rel, tag, k, i, x, &all);
		}
	}
	writer_stop(&wr);
	ping(&after);
	offset = offset_of(all, after);
	for (size_t k = 0; k < N_OPS; k++) {
		uint64_t *lat = v + k * n;
		int got = 0;

		for (int i = 0; i < n; i++)
			if (lat[i])
				lat[got++] = lat[i];
		print_op("native", ops[k].label, lat, got, n - got);
	}
	for (size_t k = 0; k < N_OPS; k++) {
		uint64_t *lat = v + k * n;
		int got = 0;

		for (int i = 0; i < n; i++) {
			struct sample *x = &s[k * n + i];
			int64_t l = (int64_t)(x->read - x->host) + offset;

			if (x->read)
				lat[got++] = l > 0 ? l : 0;
		}
		print_op("remote", ops[k].label, lat, got, n - got);
	}
	free(s);
	free(v);
}

int main(int argc, char **argv)
{
	int n = argc == 7 ? atoi(argv[6]) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (n <= 0) {
		fprintf(stderr,
			"usage: vfs_lat ROUND NATIVEDIR MOUNT REL TAG N\n");
		return 2;
	}
	round_label = argv[1];
	run(argv[2], argv[3], argv[4], argv[5], n);
	return 0;
}
