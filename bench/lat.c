// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Remote-event latency (figure 1).
 *
 * usage: lat WATCHDIR WRITEDIR N
 *
 * A writer child changes WRITEDIR one operation at a time, in lock step
 * with us: we send it an op byte, it reads CLOCK_MONOTONIC just before
 * the syscall and sends that time back over a pipe. We take the time at
 * which read(2) on an inotify watch of WATCHDIR hands us the matching
 * event. WATCHDIR is the mount (ours) or WRITEDIR itself (native
 * baseline). N creates, then N writes, N renames, N unlinks of the same
 * files. Prints one line per op: "op n lost p50_us p99_us max_us".
 * An event not seen within 2 s counts as lost.
 *
 * The writer runs on one CPU and we on another, for both sides alike.
 * Left to the scheduler, the two (which take turns) often shared a CPU,
 * and then native inotify hands the event over with no wake-up of
 * another CPU: 3 us against 30 to 40 us apart, switching from one round
 * to the next, while our server's threads run where they may either way.
 * A remote writer is another program, often on another machine.
 */
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/wait.h>

#include "bench.h"

#define LAT_TIMEOUT_MS 2000

struct lat_op {
	char code;		/* byte sent to the writer */
	const char *label;
	uint32_t mask;		/* the event that ends the measurement */
	char prefix;		/* name the event carries: f<i> or g<i> */
};

static const struct lat_op lat_ops[] = {
	{ 'c', "create", IN_CREATE, 'f' },
	{ 'w', "write", IN_MODIFY, 'f' },
	{ 'r', "rename", IN_MOVED_TO, 'g' },
	{ 'u', "unlink", IN_DELETE, 'g' },
};

/* One operation on the backing store; returns the time taken before it. */
static uint64_t lat_do(const char *dir, char code, int i)
{
	char a[PATH_MAX], b[PATH_MAX];
	uint64_t t = 0;
	int fd, rc = 0;

	snprintf(a, sizeof(a), "%s/f%d", dir, i);
	snprintf(b, sizeof(b), "%s/g%d", dir, i);
	switch (code) {
	case 'c':
		t = bench_now_ns();
		fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
		rc = fd < 0 ? -1 : close(fd);
		break;
	case 'w':
		fd = open(a, O_WRONLY);
		if (fd < 0)
			bench_die("open %s: %s", a, strerror(errno));
		t = bench_now_ns();
		rc = write(fd, "x", 1) == 1 ? close(fd) : -1;
		break;
	case 'r':
		t = bench_now_ns();
		rc = rename(a, b);
		break;
	case 'u':
		t = bench_now_ns();
		rc = unlink(b);
		break;
	}
	if (rc)
		bench_die("writer op %c %d: %s", code, i, strerror(errno));
	return t;
}

/*
 * Keeps the calling process on the nth CPU it may use; with fewer CPUs
 * than that, where the scheduler puts it.
 */
static void lat_pin(int nth)
{
	cpu_set_t allowed, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		bench_die("sched_getaffinity: %s", strerror(errno));
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || nth--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			bench_die("sched_setaffinity: %s", strerror(errno));
		return;
	}
}

static void lat_writer(const char *dir, int go, int done)
{
	uint64_t t;
	int i = 0;
	char c;

	while (read(go, &c, 1) == 1 && read(go, &i, sizeof(i)) == sizeof(i)) {
		t = lat_do(dir, c, i);
		if (write(done, &t, sizeof(t)) != sizeof(t))
			exit(1);
	}
	exit(0);
}

/* Waits for OP's event on name <prefix><i>; its read time, or 0 if lost. */
static uint64_t lat_wait(int ifd, struct bench_ibuf *b,
			 const struct lat_op *op, int i)
{
	uint64_t deadline = bench_now_ns() + LAT_TIMEOUT_MS * 1000000ULL;
	struct inotify_event *ev;
	char want[32];
	int64_t left;

	snprintf(want, sizeof(want), "%c%d", op->prefix, i);
	for (;;) {
		left = ((int64_t)deadline - (int64_t)bench_now_ns()) / 1000000;
		ev = bench_next_event(ifd, b, left > 0 ? (int)left : 0);
		if (!ev)
			return 0;
		if ((ev->mask & op->mask) && ev->len && !strcmp(ev->name, want))
			return bench_now_ns();
	}
}

static int lat_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void lat_print(const char *label, uint64_t *v, int n, int lost)
{
	if (!n) {
		printf("%s 0 %d 0 0 0\n", label, lost);
		return;
	}
	qsort(v, n, sizeof(*v), lat_cmp);
	printf("%s %d %d %.1f %.1f %.1f\n", label, n, lost, v[n / 2] / 1e3,
	       v[(n * 99 + 99) / 100 - 1] / 1e3, v[n - 1] / 1e3);
}

static void lat_run_op(const struct lat_op *op, int n, int ifd,
		       struct bench_ibuf *b, int go, int done, uint64_t *v)
{
	uint64_t t0, t1;
	int i, got = 0;

	for (i = 0; i < n; i++) {
		if (write(go, &op->code, 1) != 1 ||
		    write(go, &i, sizeof(i)) != sizeof(i))
			bench_die("writer gone");
		t1 = lat_wait(ifd, b, op, i);
		if (read(done, &t0, sizeof(t0)) != sizeof(t0))
			bench_die("writer failed");
		if (t1)
			v[got++] = t1 > t0 ? t1 - t0 : 0;
	}
	lat_print(op->label, v, got, n - got);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct bench_ibuf b;
	int go[2], done[2], ifd, n, status;
	uint64_t *v;
	size_t k;
	pid_t pid;

	n = argc == 4 ? atoi(argv[3]) : 0;
	if (n <= 0)
		bench_die("usage: lat WATCHDIR WRITEDIR N");
	ifd = inotify_init1(IN_CLOEXEC);
	if (ifd < 0 || inotify_add_watch(ifd, argv[1], IN_CREATE | IN_MODIFY |
					 IN_MOVED_TO | IN_DELETE) < 0)
		bench_die("inotify on %s: %s", argv[1], strerror(errno));
	if (pipe(go) || pipe(done))
		bench_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (!pid) {
		close(go[1]);
		close(done[0]);
		lat_pin(0);
		lat_writer(argv[2], go[0], done[1]);
	}
	lat_pin(1);
	close(go[0]);
	close(done[1]);
	v = calloc(n, sizeof(*v));
	if (!v)
		bench_die("out of memory");
	for (k = 0; k < sizeof(lat_ops) / sizeof(lat_ops[0]); k++)
		lat_run_op(&lat_ops[k], n, ifd, &b, go[1], done[0], v);
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bench_die("writer failed");
	return 0;
}
