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

/* 0 none, 1 created, 2 deleted; per writer and file. */
static unsigned char state[WRITERS_MAX][FILES_MAX];

/* Counts ev into state; NULL if it fits, else why. */
static const char *tail_count(const struct e2e_ev *ev, int writers,
			      int files, char *why, size_t len)
{
	int w, i;

	if (sscanf(ev->name, "w%d_%d", &w, &i) != 2 || w < 0 ||
	    w >= writers || i < 0 || i >= files) {
		snprintf(why, len, "unexpected event %s", ev->text);
		return why;
	}
	if (ev->mask == IN_CREATE && state[w][i] == 0) {
		state[w][i] = 1;
	} else if (ev->mask == IN_DELETE && state[w][i] == 1) {
		state[w][i] = 2;
	} else {
		snprintf(why, len, "event out of place: %s", ev->text);
		return why;
	}
	return NULL;
}

/* How many names are incomplete, and the first one, into why. */
static const char *tail_missing(int writers, int files, int got, char *why,
			 size_t len)
{
	int w, i, missing = 0, first_w = -1, first_i = -1;

	for (w = 0; w < writers; w++)
		for (i = 0; i < files; i++)
			if (state[w][i] != 2 && !missing++) {
				first_w = w;
				first_i = i;
			}
	snprintf(why, len,
		 "%d of %d events within %d ms of the last writer's exit; %d names incomplete, first w%d_%04d (%s missing)",
		 got, 2 * writers * files, TAIL_WAIT_MS, missing, first_w,
		 first_i, state[first_w][first_i] ? "DELETE" : "CREATE");
	return why;
}

static void run(const char *dir, int writers, int files)
{
	struct e2e_op mk[] = { OP_MKDIR(dir), OP_END };
	struct tail_writer w[WRITERS_MAX];
	pid_t pid[WRITERS_MAX];
	char check[64], why[E2E_EV_TEXT + 160];
	const char *bad = NULL;
	struct e2e_reader *r;
	struct e2e_ev ev;
	int i, got = 0, want = 2 * writers * files, failed = 0, rc = 1;
	long end, left, last;

	snprintf(check, sizeof(check), "burst_tail/%s_%dx%d", dir, writers,
		 files);
	memset(state, 0, sizeof(state));
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
	end = now_ms() + TAIL_WAIT_MS;
	last = end - TAIL_WAIT_MS;
	while (!failed && !bad && got < want &&
	       (left = end - now_ms()) > 0) {
		rc = e2e_next(r, &ev, (int)left);
		if (rc <= 0)
			break;
		got++;
		last = now_ms();
		bad = tail_count(&ev, writers, files, why, sizeof(why));
	}
	/* Anything more already queued is one too many. */
	while (!failed && !bad && got == want && e2e_next(r, &ev, 0) > 0)
		bad = tail_count(&ev, writers, files, why, sizeof(why));
	if (failed)
		bad = "a remote writer failed";
	else if (!bad && rc < 0)
		bad = "read error";
	else if (!bad && got < want)
		bad = tail_missing(writers, files, got, why, sizeof(why));
	if (bad)
		e2e_fail(check, "%s (%d events read)", bad, got);
	else
		e2e_pass(check);
	e2e_info("%s: %d events read, the last %ld ms after the last writer's exit",
		 check, got, last - (end - TAIL_WAIT_MS));
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
