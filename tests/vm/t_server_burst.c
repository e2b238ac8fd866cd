// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_burst - in protocol mode, the end of a burst goes out by
 * itself (issue 31). W processes at once each create and remove F files
 * sW-I on the backing store (open O_CREAT, close, unlink), then nothing
 * changes. A watcher on the mount must read every name's CREATE and then
 * its DELETE, and nothing else, each event within VM_WAIT_MS of the one
 * before, with no sentinel while it waits: a sentinel is a change of its
 * own and would carry along a notification the server held back until a
 * next event. Only once every event has come does a sentinel prove that
 * nothing else follows.
 *
 * Three bursts per server: in the export's root, watched at the mount's
 * root (as the reporter did); in a fresh directory with more
 * writers; and one made while the server is stopped (SIGSTOP), so that
 * it all waits in the host's queue. One server with the default host
 * watcher (fanotify, as root), one with -o watch=inotify, the watcher a
 * server that does not run as root gets.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define WRITERS_MAX 8
#define FILES_MAX 100
/* Bounds the wait for the stopped server's threads, in 10 ms ticks. */
#define STOP_TICKS 500

/* One server, each with its own backing store and mount. */
struct server {
	const char *watcher;	/* names the checks */
	pid_t pid;
	char back[64];
	char mnt[64];
};

struct burst {
	const char *what;	/* names the checks */
	const char *dir;	/* under B and M; "" for the root */
	int writers;
	int files;
	bool paused;		/* made while the server is stopped */
};

static const struct burst bursts[] = {
	{ "root", "", 4, FILES_MAX, false },
	{ "directory", "dir", WRITERS_MAX, FILES_MAX / 2, false },
	{ "stopped server", "paused", 4, FILES_MAX, true },
};

static void tick(void)
{
	struct timespec t = { 0, 10 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

static void burst_path(char *buf, size_t len, const char *top,
		       const struct burst *b, const char *name)
{
	snprintf(buf, len, "%s%s%s/%s", top, b->dir[0] ? "/" : "", b->dir,
		 name);
}

static void write_burst(const struct server *s, const struct burst *b,
			int w)
{
	char name[32], path[128];
	int i, fd;

	for (i = 0; i < b->files; i++) {
		snprintf(name, sizeof(name), "s%d-%d", w, i);
		burst_path(path, sizeof(path), s->back, b, name);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd) || unlink(path))
			_exit(1);
	}
	_exit(0);
}

/* Every thread of pid stopped (state T): SIGSTOP only starts the stop. */
static bool all_stopped(pid_t pid)
{
	char path[300], line[256], *state;
	struct dirent *de;
	bool all = true;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (all && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat",
			 (int)pid, de->d_name);
		f = fopen(path, "r");
		state = f && fgets(line, sizeof(line), f) ?
			strrchr(line, ')') : NULL;
		all = state && (state[2] == 'T' || state[2] == 't');
		if (f)
			fclose(f);
	}
	closedir(d);
	return all;
}

static bool stop_server(pid_t server)
{
	int i;

	kill(server, SIGSTOP);
	for (i = 0; i < STOP_TICKS && !all_stopped(server); i++)
		tick();
	return i < STOP_TICKS;
}

/* The writers, each its own process; true if all of them ran through. */
static bool run_writers(const struct server *s, const struct burst *b)
{
	pid_t pid[WRITERS_MAX];
	bool ok = !b->paused || stop_server(s->pid);
	int w, status;

	for (w = 0; w < b->writers; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			write_burst(s, b, w);
	}
	for (w = 0; w < b->writers; w++)
		ok &= pid[w] > 0 && waitpid(pid[w], &status, 0) == pid[w] &&
		      WIFEXITED(status) && !WEXITSTATUS(status);
	if (b->paused)
		kill(s->pid, SIGCONT);
	return ok;
}

/* Counts ev into state; false if it is not the next one of its name. */
static bool count_event(const struct burst *b,
			unsigned char state[][FILES_MAX],
			const struct vm_event *ev)
{
	int w, i;

	if (sscanf(ev->name, "s%d-%d", &w, &i) != 2 || w < 0 ||
	    w >= b->writers || i < 0 || i >= b->files)
		return false;
	if (ev->mask == IN_CREATE && state[w][i] == 0)
		state[w][i] = 1;
	else if (ev->mask == IN_DELETE && state[w][i] == 1)
		state[w][i] = 2;
	else
		return false;
	return true;
}

/*
 * Reads the burst's events as they come, with nothing changing; the
 * number read, up to the first one out of place.
 */
static int read_burst(const struct burst *b, int in)
{
	unsigned char state[WRITERS_MAX][FILES_MAX] = { { 0 } };
	int n = 0, want = 2 * b->writers * b->files;
	struct vm_event ev;

	while (n < want && vm_inotify_next(in, &ev)) {
		if (!count_event(b, state, &ev)) {
			vm_event_print("burst: out of place", &ev);
			break;
		}
		n++;
	}
	if (n < want)
		printf("# burst (%s): %d of %d events, the last within %d ms of the one before\n",
		       b->what, n, want, VM_WAIT_MS);
	return n;
}

static void test_burst(const struct server *s, const struct burst *b)
{
	int in = inotify_init1(IN_CLOEXEC);
	char variant[64], dir[128], end[128];
	struct stat st;
	bool writers_ok;
	int n;

	snprintf(variant, sizeof(variant), "%s, %s", s->watcher, b->what);
	burst_path(dir, sizeof(dir), s->mnt, b, "");
	if (b->dir[0]) {
		/*
		 * Its CREATE first: the server has then read the mkdir, and
		 * an inotify host watcher watches the new directory. Before,
		 * a burst there is not seen on the host at all (the scan of
		 * a new directory finds its files gone).
		 */
		int top = inotify_init1(IN_CLOEXEC);

		burst_path(end, sizeof(end), s->back, b, "");
		CHECK_IN(variant, "burst: directory made remotely",
			 inotify_add_watch(top, s->mnt, IN_CREATE) > 0 &&
			 !mkdir(end, 0755) &&
			 vm_inotify_expect(top, IN_CREATE | IN_ISDIR, b->dir,
					   NULL) &&
			 !stat(dir, &st));
		vm_watch_close(top);
	}
	CHECK_IN(variant, "burst: watch",
		 inotify_add_watch(in, dir, IN_CREATE | IN_DELETE) > 0);
	writers_ok = run_writers(s, b);
	CHECK_IN(variant, "burst: the writers ran", writers_ok);
	n = read_burst(b, in);
	CHECK_IN(variant, "burst: every CREATE, then DELETE, with nothing after the writers",
		 n == 2 * b->writers * b->files);
	/* Only now a sentinel: nothing else came before it. */
	burst_path(end, sizeof(end), s->back, b, ".end");
	CHECK_IN(variant, "burst: then nothing but the sentinel",
		 vm_put(end, "", O_EXCL) &&
		 vm_inotify_expect(in, IN_CREATE, ".end", NULL));
	vm_watch_close(in);
}

static void test_server(const char *watcher, const char *opts)
{
	struct server s = { .watcher = watcher };
	size_t i;

	snprintf(s.back, sizeof(s.back), "/mnt/burst_%s", watcher);
	snprintf(s.mnt, sizeof(s.mnt), "/mnt/burst_%s_mount", watcher);
	s.pid = vm_server_start(s.back, s.mnt, opts);
	CHECK_IN(watcher, "burst: server mounts", s.pid > 0);
	if (s.pid <= 0)
		return;
	for (i = 0; i < sizeof(bursts) / sizeof(bursts[0]); i++)
		test_burst(&s, &bursts[i]);
	CHECK_IN(watcher, "burst: SIGTERM: exits 0 and unmounts",
		 vm_server_stop(s.pid));
}

int main(void)
{
	test_server("fanotify", "delivery=protocol");
	test_server("inotify", "delivery=protocol,watch=inotify");
	return check_exit();
}
