// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency of a remote IN_CREATE, printed as INFO lines (figures, not
 * checks; tests/run-all does not run this binary).
 *
 * A remote actor creates files one at a time, in lock step with us: we
 * send "go" through a pipe, it reads CLOCK_MONOTONIC just before creat()
 * and sends that time back. We take the time at which read() hands us the
 * IN_CREATE. The start is taken *before* creat(), not at its return: a
 * native IN_CREATE is queued inside creat(), so a watcher blocked in
 * poll() often reads it before creat() has returned, and "from return"
 * comes out negative. Both figures therefore include the creat() call.
 * The same is done with native inotify on BACKING, in the same run, so
 * the ratio compares like with like on a noisy machine. Lock step also
 * means each figure includes two process wake-ups (ours and the actor's),
 * which dominate on a loaded 2-CPU machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define LAT_N 250

struct lat_actor {
	const char *dir;	/* absolute, on BACKING */
	int go;			/* read end: one byte per create */
	int done;		/* write end: a uint64_t ns per create */
};

static uint64_t lat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int lat_actor_run(void *arg)
{
	struct lat_actor *a = arg;
	char path[PATH_MAX], c;
	uint64_t t;
	int i, fd;

	for (i = 0; i < LAT_N && read(a->go, &c, 1) == 1; i++) {
		snprintf(path, sizeof(path), "%s/l%d", a->dir, i);
		t = lat_now_ns();
		fd = creat(path, 0644);
		if (fd < 0)
			return 1;
		close(fd);
		if (write(a->done, &t, sizeof(t)) != sizeof(t))
			return 1;
	}
	return 0;
}

static int lat_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Waits for "CREATE l<i>"; returns the time it was read, or 0. */
static uint64_t lat_wait(struct e2e_reader *r, int i)
{
	char want[32];
	struct e2e_ev ev;

	snprintf(want, sizeof(want), "CREATE l%d", i);
	while (e2e_next(r, &ev, E2E_EVENT_TIMEOUT_MS) > 0)
		if (!strcmp(ev.text, want))
			return lat_now_ns();
	return 0;
}

/* Measures LAT_N creates in BACKING/rel seen through watch_root/rel. */
static int lat_measure(const char *rel, const char *watch_path,
		       uint64_t *lat)
{
	struct e2e_op mk[] = { OP_MKDIR(rel), OP_END };
	struct lat_actor a = { .dir = e2e_bpath(rel) };
	struct e2e_reader *r = e2e_inotify_new();
	int go[2], done[2], i, err = 0;
	uint64_t created, seen;
	pid_t pid;

	if (!r || e2e_remote("", mk) || pipe(go) || pipe(done))
		return -1;
	e2e_sync();
	if (e2e_inotify_watch(r, NULL, watch_path, IN_CREATE))
		return -1;
	a.go = go[0];
	a.done = done[1];
	pid = e2e_remote_start(lat_actor_run, &a);
	close(go[0]);
	close(done[1]);
	for (i = 0; i < LAT_N && !err; i++) {
		if (write(go[1], "g", 1) != 1) {
			err = -1;
			break;
		}
		seen = lat_wait(r, i);
		if (!seen || read(done[0], &created, sizeof(created)) !=
			     sizeof(created)) {
			e2e_info("latency %s: CREATE l%d not seen in 5 s", rel,
				 i);
			err = -1;
			break;
		}
		lat[i] = seen - created;
	}
	close(go[1]);
	close(done[0]);
	if (e2e_remote_wait(pid))
		err = -1;
	e2e_reader_free(r);
	return err;
}

static void lat_report(const char *what, uint64_t *lat, double *p50,
		       double *p99)
{
	qsort(lat, LAT_N, sizeof(*lat), lat_cmp);
	*p50 = lat[LAT_N / 2] / 1000.0;
	*p99 = lat[LAT_N * 99 / 100] / 1000.0;
	e2e_info("latency %s: n=%d median=%.0f us p99=%.0f us max=%.0f us",
		 what, LAT_N, *p50, *p99, lat[LAT_N - 1] / 1000.0);
}

int main(void)
{
	static uint64_t mnt_lat[LAT_N], native_lat[LAT_N];
	double m50, m99, n50, n99;

	e2e_mount(NULL);
	if (e2e_native())
		e2e_info("latency: native mode, both figures are native");
	if (lat_measure("lat-mnt", e2e_mpath("lat-mnt"), mnt_lat) ||
	    lat_measure("lat-native", e2e_bpath("lat-native"), native_lat))
		return 1;
	lat_report("mount (remote create -> IN_CREATE on MNT)", mnt_lat,
		   &m50, &m99);
	lat_report("native (create -> IN_CREATE on BACKING)", native_lat,
		   &n50, &n99);
	e2e_info("latency ratio mount/native: median %.1fx p99 %.1fx",
		 m50 / n50, m99 / n99);
	return 0;
}
