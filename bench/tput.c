// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sustained remote-event throughput (figure 2).
 *
 * usage: tput WATCHDIR WRITEDIR NWRITERS SECONDS
 *
 * NWRITERS child processes create and unlink files in WRITEDIR as fast
 * as they can for SECONDS, each counting what it did. We count the
 * IN_CREATE and IN_DELETE read from an inotify watch of WATCHDIR while
 * they run. When every writer has reported, we create a sentinel file in
 * WRITEDIR and read on until its IN_CREATE arrives: everything that was
 * going to be delivered has been by then (delivery is in order), so no
 * sleep is needed. A server that drops events on overflow may drop the
 * sentinel too: after TPUT_IDLE_MS without any event we create another,
 * up to TPUT_SENTINELS times, then give up (the wait stays bounded).
 * Prints "done received overflows seconds sentinel": seconds run from
 * the start to the last create/delete event read; sentinel is 1 if one
 * arrived.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>

#include "bench.h"

#define TPUT_IDLE_MS 5000
#define TPUT_SENTINELS 3
#define TPUT_SENTINEL "tput-sentinel"

struct tput_count {
	uint64_t received;
	uint64_t overflows;
	uint64_t last_ns;	/* when the last create/delete was read */
	int sentinel_seen;
};

static void tput_writer(const char *dir, int id, int start, int result,
			uint64_t ns)
{
	char path[PATH_MAX];
	uint64_t done = 0, end;
	char c;
	int fd;

	if (read(start, &c, 1) < 0)
		exit(1);
	end = bench_now_ns() + ns;
	while (bench_now_ns() < end) {
		snprintf(path, sizeof(path), "%s/w%d_%llu", dir, id,
			 (unsigned long long)done);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || close(fd) || unlink(path))
			exit(1);
		done += 2;
	}
	exit(write(result, &done, sizeof(done)) != sizeof(done));
}

static void tput_count_events(int ifd, struct bench_ibuf *b,
			      struct tput_count *c)
{
	struct inotify_event *ev;

	while (b->off < b->len || !c->sentinel_seen) {
		ev = bench_next_event(ifd, b, 0);
		if (!ev)
			return;
		if (ev->mask & IN_Q_OVERFLOW)
			c->overflows++;
		else if (ev->len && !strncmp(ev->name, TPUT_SENTINEL,
					       strlen(TPUT_SENTINEL)))
			c->sentinel_seen = 1;
		else if (ev->mask & (IN_CREATE | IN_DELETE)) {
			c->received++;
			c->last_ns = bench_now_ns();
		}
	}
}

static void tput_sentinel(const char *dir, int i)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s%d", dir, TPUT_SENTINEL, i);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || close(fd))
		bench_die("sentinel: %s", strerror(errno));
}

/* Reads events and writer results until the sentinel's event is in. */
static uint64_t tput_collect(int ifd, int result, int nwriters,
			     const char *dir, struct tput_count *c)
{
	static struct bench_ibuf b;
	struct pollfd p[2] = { { .fd = ifd, .events = POLLIN },
			       { .fd = result, .events = POLLIN } };
	uint64_t done = 0, one;
	int reported = 0, sentinels = 0;

	while (!c->sentinel_seen) {
		if (poll(p, reported < nwriters ? 2 : 1, TPUT_IDLE_MS) <= 0) {
			if (reported < nwriters)
				continue;	/* the writers end in SECONDS */
			if (sentinels == TPUT_SENTINELS)
				break;
			tput_sentinel(dir, sentinels++);
			continue;
		}
		if (p[0].revents)
			tput_count_events(ifd, &b, c);
		if (reported < nwriters && p[1].revents) {
			if (read(result, &one, sizeof(one)) != sizeof(one))
				bench_die("a writer failed");
			done += one;
			if (++reported == nwriters)
				tput_sentinel(dir, sentinels++);
		}
	}
	return done;
}

int main(int argc, char **argv)
{
	int start[2], result[2], ifd, n, secs, i, status;
	struct tput_count c = { 0 };
	uint64_t t0, done;

	if (argc != 5 || (n = atoi(argv[3])) <= 0 || (secs = atoi(argv[4])) <= 0)
		bench_die("usage: tput WATCHDIR WRITEDIR NWRITERS SECONDS");
	ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ifd < 0 || inotify_add_watch(ifd, argv[1], IN_CREATE | IN_DELETE) < 0)
		bench_die("inotify on %s: %s", argv[1], strerror(errno));
	if (pipe(start) || pipe(result))
		bench_die("pipe: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork: %s", strerror(errno));
		if (!pid) {
			close(start[1]);
			tput_writer(argv[2], i, start[0], result[1],
				    secs * 1000000000ULL);
		}
	}
	close(start[0]);
	close(result[1]);
	t0 = bench_now_ns();
	close(start[1]);	/* every writer's read returns: go */
	done = tput_collect(ifd, result[0], n, argv[2], &c);
	printf("%llu %llu %llu %.3f %d\n", (unsigned long long)done,
	       (unsigned long long)c.received, (unsigned long long)c.overflows,
	       c.last_ns > t0 ? (c.last_ns - t0) / 1e9 : 0, c.sentinel_seen);
	while (wait(&status) > 0)
		;
	return 0;
}
