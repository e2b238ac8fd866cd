// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The end of a burst arrives by itself (issue 31): several remote
 * processes at once each create and remove many files (open O_CREAT,
 * close, unlink), then the host falls silent. A watcher on MNT must get
 * one CREATE and then one DELETE of every name, nothing else, and the
 * last of them without any further change on the host.
 *
 * So there is no sentinel here and no sync: a sentinel is a change of
 * its own, and reading it would carry along any event that waits for a
 * next one. The wait is bounded generously (TAIL_WAIT_MS after the last
 * writer exited) and what arrived by then is judged; how long the last
 * event took is printed, not checked.
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

#define WRITERS_MAX 8
#define FILES_MAX 1000
#define TAIL_WAIT_MS 10000

struct tail_writer {
	const char *dir;	/* BACKING/dir */
	int id;
	int files;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int tail_write(void *arg)
{
	const struct tail_writer *w = arg;
	char path[PATH_MAX];
	int i, fd;

	for (i = 0; i < w->files; i++) {
		snprintf(path, sizeof(path), "%s/w%d_%04d", w->dir, w->id, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd) || unlink(path))
			return -errno;
	}
	return 0;
}

/*
 * NULL if got holds exactly one CREATE and then one DELETE of each of
 * the writers' names, else why.
 */
static const char *tail_judge(const struct e2e_evlist *got, int writers,
			      int files, char *why, size_t len)
{
	/* 0 none, 1 created, 2 deleted; per writer and file. */
	static unsigned char state[WRITERS_MAX][FILES_MAX];
	const struct e2e_ev *ev;
	int w, i, k, missing = 0;

	memset(state, 0, sizeof(state));
	for (k = 0; k < got->n; k++) {
		ev = &got->ev[k];
		if (sscanf(ev->name, "w%d_%d", &w, &i) != 2 || w < 0 ||
		    w >= writers || i < 0 || i >= files) {
			snprintf(why, len, "unexpected event %d: %s", k,
				 ev->text);
			return why;
		}
		if (ev->mask == IN_CREATE && state[w][i] == 0) {
			state[w][i] = 1;
		} else if (ev->mask == IN_DELETE && state[w][i] == 1) {
			state[w][i] = 2;
		} else {
			snprintf(why, len, "event %d out of place: %s", k,
				 ev->text);
			return why;
		}
	}
	for (w = 0; w < writers; w++)
		for (i = 0; i < files; i++)
			if (state[w][i] != 2 && !missing++)
				snprintf(why, len, "w%d_%04d: %s missing", w,
					 i, state[w][i] ? "DELETE" : "CREATE");
	if (!missing)
		return NULL;
	snprintf(why + strlen(why), len - strlen(why),
		 ", %d names incomplete", missing);
	return why;
}

static void run(const char *dir, int writers, int files)
{
	struct e2e_op mk[] = { OP_MKDIR(dir), OP_END };
	struct tail_writer w[WRITERS_MAX];
	pid_t pid[WRITERS_MAX];
	char check[64], why[E2E_EV_TEXT + 64];
	struct e2e_evlist got = { 0 };
	const char *bad;
	struct e2e_reader *r;
	struct e2e_ev extra;
	int i, failed = 0, want = 2 * writers * files;
	long t0;

	snprintf(check, sizeof(check), "burst_tail/%s_%dx%d", dir, writers,
		 files);
	if (e2e_remote("", mk)) {
		e2e_fail(check, "remote mkdir failed");
		return;
	}
	e2e_sync();
	r = e2e_inotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mpath(dir),
				    IN_CREATE | IN_DELETE)) {
		e2e_fail(check, "cannot watch");
		e2e_reader_free(r);
		return;
	}
	for (i = 0; i < writers; i++) {
		w[i] = (struct tail_writer){ .dir = e2e_bpath(dir), .id = i,
					     .files = files };
		pid[i] = e2e_remote_start(tail_write, &w[i]);
	}
	for (i = 0; i < writers; i++)
		failed |= e2e_remote_wait(pid[i]);
	/* From here on nothing changes on the host. */
	t0 = now_ms();
	if (failed) {
		e2e_fail(check, "a remote writer failed");
	} else if (e2e_collect_n(r, want, TAIL_WAIT_MS, &got)) {
		e2e_fail(check, "%d of %d events within %d ms of the last writer's exit, with nothing changing after it: %s",
			 got.n, want, TAIL_WAIT_MS,
			 tail_judge(&got, writers, files, why, sizeof(why)) ?:
			 "?");
	} else if ((bad = tail_judge(&got, writers, files, why,
				     sizeof(why)))) {
		e2e_fail(check, "%s", bad);
	} else if (e2e_next(r, &extra, 0) > 0) {
		/* Anything more already queued is one too many. */
		e2e_fail(check, "one event too many: %s", extra.text);
	} else {
		e2e_pass(check);
		e2e_info("%s: the last of %d events within %ld ms of the last writer's exit",
			 check, want, now_ms() - t0);
	}
	e2e_evlist_free(&got);
	e2e_reader_free(r);
}

int main(void)
{
	e2e_mount(NULL);
	run("four", 4, 1000);
	run("four_again", 4, 1000);
	run("eight", 8, 500);
	return check_exit();
}
