// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A real host watch, each backend forced in turn, on a fresh mkdtemp tree:
 *   BASE/exp  the export        BASE/out  a sibling on the same fs
 * A forked child (another pid) performs one step at a time and waits for
 * the parent's ack, so every step's events are asserted exactly (kind,
 * isdir, names, directory ids from stat) before the next one starts; the
 * next step's first check catches any extra event. The parent's own
 * changes (same pid; for inotify bracketed with watch_own_change) and
 * changes outside the export must produce nothing. A sentinel create ends
 * the run. Waits are poll() with a bound, never a sleep. The tree is on a
 * tmpfs of the test's own, in a mount namespace of its own: on a shared
 * file system another process's link count change (a link(), an unlink
 * of a file with several links) is a fanotify event this watch emits,
 * as it has no consumer to say which objects it holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "watch/watch.h"
#include "../lib/check.h"
#include "../lib/scratch.h"

CHECK_MAIN_DEFS;

#define WAIT_MS 5000
#define QMAX 256

static int in_pipe[2], ack_pipe[2];

struct queue {
	struct rn_event ev[QMAX];
	int head, tail;
};

static void on_event(void *arg, const struct rn_event *ev)
{
	struct queue *q = arg;

	if (q->tail - q->head < QMAX)
		q->ev[q->tail++ % QMAX] = *ev;
}

static void mkfile(const char *rel, const char *data)
{
	int fd = open(scratch(rel), O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0 || (data && write(fd, data, strlen(data)) < 0))
		_exit(3);
	close(fd);
}

/* The steps: what the changer does, and the events it must produce. */
struct want {
	enum rn_event_kind kind;
	bool isdir;
	const char *dir, *name;		/* dir: in the scratch tree, or "" */
	const char *dir2, *name2;
	const char *obj;		/* path whose id is obj, or NULL */
	bool moved;			/* renamed across the export's edge */
};

static void s_create(void) { mkfile("exp/f", "x"); }
static void s_chmod(void) { must(chmod(scratch("exp/f"), 0600)); }
static void s_rename(void) { must(rename(scratch("exp/f"), scratch("exp/g"))); }
static void s_mkdir(void) { must(mkdir(scratch("exp/d"), 0755)); }

static void s_rename_down(void)
{
	must(rename(scratch("exp/g"), scratch("exp/d/g")));
}

static void s_unlink(void) { must(unlink(scratch("exp/d/g"))); }

static void s_rename_dir(void)
{
	must(rename(scratch("exp/d"), scratch("exp/e")));
}

static void s_create_in(void) { mkfile("exp/e/h", NULL); }
static void s_unlink_in(void) { must(unlink(scratch("exp/e/h"))); }
static void s_rmdir(void) { must(rmdir(scratch("exp/e"))); }
static void s_chmod_root(void) { must(chmod(scratch("exp"), 0750)); }

static void s_move_in(void)
{
	mkfile("out/x", "outside");
	must(mkdir(scratch("out/y"), 0755));
	must(chmod(scratch("out/x"), 0600));
	must(rename(scratch("out/x"), scratch("exp/x")));
}

static void s_move_out(void)
{
	must(rename(scratch("exp/x"), scratch("out/x2")));
}

static void s_dir_out(void)
{
	must(mkdir(scratch("exp/m"), 0755));
}

static void s_dir_moved_out(void)
{
	must(rename(scratch("exp/m"), scratch("out/m")));
	mkfile("out/m/inner", NULL);	/* outside now: nothing */
}

static void s_own(void) { must(mkdir(scratch("exp/own"), 0755)); }
static void s_sentinel(void) { mkfile("exp/zz_end", NULL); }

struct step {
	const char *what;
	void (*act)(void);
	bool own;		/* the parent does it: nothing expected */
	struct want want[4];
};

#define W(...) { __VA_ARGS__, false }
/* Renamed across the export's edge: MOVED_TO or MOVED_FROM alone */
#define W_MOVED(...) { __VA_ARGS__, true }
static const struct step steps[] = {
	{ "create+write", s_create, false, {
		W(RN_EV_CREATE, false, "exp", "f", NULL, NULL, "exp/f"),
		W(RN_EV_MODIFY, false, "exp", "f", NULL, NULL, "exp/f"),
		W(RN_EV_CLOSE_WRITE, false, "exp", "f", NULL, NULL, "exp/f"),
	} },
	{ "chmod", s_chmod, false, {
		W(RN_EV_ATTRIB, false, "exp", "f", NULL, NULL, "exp/f"),
	} },
	{ "rename", s_rename, false, {
		W(RN_EV_MOVE, false, "exp", "f", "exp", "g", "exp/g"),
	} },
	{ "mkdir", s_mkdir, false, {
		W(RN_EV_CREATE, true, "exp", "d", NULL, NULL, "exp/d"),
	} },
	{ "rename-down", s_rename_down, false, {
		W(RN_EV_MOVE, false, "exp", "g", "exp/d", "g", "exp/d/g"),
	} },
	{ "unlink", s_unlink, false, {
		W(RN_EV_DELETE, false, "exp/d", "g", NULL, NULL, NULL),
	} },
	{ "rename-dir", s_rename_dir, false, {
		W(RN_EV_MOVE, true, "exp", "d", "exp", "e", "exp/e"),
	} },
	{ "create-in-renamed", s_create_in, false, {
		W(RN_EV_CREATE, false, "exp/e", "h", NULL, NULL, "exp/e/h"),
		W(RN_EV_CLOSE_WRITE, false, "exp/e", "h", NULL, NULL,
		  "exp/e/h"),
	} },
	{ "unlink-in-renamed", s_unlink_in, false, {
		W(RN_EV_DELETE, false, "exp/e", "h", NULL, NULL, NULL),
	} },
	{ "rmdir", s_rmdir, false, {
		W(RN_EV_DELETE, true, "exp", "e", NULL, NULL, NULL),
	} },
	{ "chmod-root", s_chmod_root, false, {
		W(RN_EV_ATTRIB, true, "", "", NULL, NULL, "exp"),
	} },
	{ "outside-then-move-in", s_move_in, false, {
		W_MOVED(RN_EV_CREATE, false, "exp", "x", NULL, NULL, "exp/x"),
	} },
	{ "move-out", s_move_out, false, {
		W_MOVED(RN_EV_DELETE, false, "exp", "x", NULL, NULL, NULL),
	} },
	{ "mkdir-m", s_dir_out, false, {
		W(RN_EV_CREATE, true, "exp", "m", NULL, NULL, "exp/m"),
	} },
	{ "dir-moved-out", s_dir_moved_out, false, {
		W_MOVED(RN_EV_DELETE, true, "exp", "m", NULL, NULL, NULL),
	} },
	{ "own-change", s_own, true, { { 0 } } },
	{ "sentinel", s_sentinel, false, {
		W(RN_EV_CREATE, false, "exp", "zz_end", NULL, NULL,
		  "exp/zz_end"),
		W(RN_EV_CLOSE_WRITE, false, "exp", "zz_end", NULL, NULL,
		  "exp/zz_end"),
	} },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static void id_of(const char *rel, struct rn_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (rel && rel[0] && lstat(scratch(rel), &st) == 0) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits for the next event, WAIT_MS at most in all: a file system mark
 * also wakes us for unrelated activity that the watcher filters out.
 */
static bool next_event(struct watch *w, struct queue *q, struct rn_event *ev)
{
	struct pollfd pfd = { .fd = watch_fd(w), .events = POLLIN };
	long deadline = now_ms() + WAIT_MS, left;

	while (q->head == q->tail) {
		left = deadline - now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		if (watch_read(w, on_event, q) < 0)
			return false;
	}
	*ev = q->ev[q->head++ % QMAX];
	return true;
}

static void describe(char *buf, size_t n, const struct rn_event *ev)
{
	snprintf(buf, n, "%s%s%s '%s' -> '%s'", rn_event_kind_name(ev->kind),
		 ev->isdir ? "|ISDIR" : "", ev->moved ? " (moved)" : "",
		 ev->name, ev->name2);
}

static bool same(const struct want *x, const struct rn_event *ev)
{
	struct rn_id dir, dir2, obj;

	id_of(x->dir, &dir);
	id_of(x->dir2, &dir2);
	id_of(x->obj, &obj);
	return ev->kind == x->kind && ev->isdir == x->isdir &&
	       ev->moved == x->moved &&
	       strcmp(ev->name, x->name) == 0 &&
	       strcmp(ev->name2, x->name2 ? x->name2 : "") == 0 &&
	       rn_id_equal(&ev->dir, &dir) && rn_id_equal(&ev->dir2, &dir2) &&
	       (!x->obj || rn_id_equal(&ev->obj, &obj));
}

static void check_step(const char *be, const struct step *s, struct watch *w,
		       struct queue *q)
{
	const struct want *x;
	struct rn_event ev;
	char name[160], got[600];

	for (x = s->want; x < s->want + 4 && x->name; x++) {
		snprintf(name, sizeof(name), "%s %s %s %s", be, s->what,
			 rn_event_kind_name(x->kind), x->name[0] ? x->name :
			 "(root)");
		if (!next_event(w, q, &ev)) {
			printf("FAIL %s: no event within %d ms\n", name,
			       WAIT_MS);
			check_failures++;
			continue;
		}
		if (!same(x, &ev)) {
			describe(got, sizeof(got), &ev);
			printf("FAIL %s: got %s\n", name, got);
			check_failures++;
			continue;
		}
		CHECK(name, true);
	}
}

static void child(void)
{
	char c;
	size_t i;

	for (i = 0; i < NSTEPS; i++) {
		if (read(ack_pipe[0], &c, 1) != 1)
			_exit(2);
		if (!steps[i].own)
			steps[i].act();
		if (write(in_pipe[1], &c, 1) != 1)
			_exit(2);
	}
	_exit(0);
}

static bool wait_child_step(void)
{
	struct pollfd pfd = { .fd = in_pipe[0], .events = POLLIN };
	char c;

	return poll(&pfd, 1, WAIT_MS) == 1 && read(in_pipe[0], &c, 1) == 1;
}

static void own_step(struct watch *w, const struct step *s)
{
	struct rn_id exp;

	id_of("exp", &exp);
	watch_own_change(w, &exp, "own", RN_EV_ALL, false, NULL);
	s->act();
	watch_own_change(w, &exp, "own", RN_EV_ALL, true, NULL);
}

static void run_steps(const char *be, struct watch *w)
{
	struct queue *q = calloc(1, sizeof(*q));
	char c = 's', name[128];
	size_t i;
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0)
		child();
	for (i = 0; i < NSTEPS; i++) {
		if (steps[i].own)
			own_step(w, &steps[i]);
		if (write(ack_pipe[1], &c, 1) != 1 || !wait_child_step()) {
			snprintf(name, sizeof(name), "%s %s", be,
				 steps[i].what);
			CHECK(name, !"child step did not finish");
			break;
		}
		check_step(be, &steps[i], w, q);
	}
	waitpid(pid, &st, 0);
	snprintf(name, sizeof(name), "%s child exit", be);
	CHECK(name, WIFEXITED(st) && WEXITSTATUS(st) == 0);
	free(q);
}

static void run_backend(enum watch_backend backend, const char *be)
{
	struct watch_config cfg = { .backend = backend };
	char name[128];
	struct watch *w;

	if (scratch_make("rnwatch") ||
	    mount("rnwatch", scratch(""), "tmpfs", 0, "size=4m") ||
	    mkdir(scratch("exp"), 0755) || mkdir(scratch("out"), 0755))
		exit(2);
	cfg.backing_fd = open(scratch("exp"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	w = watch_open(&cfg);
	snprintf(name, sizeof(name), "%s watch_open", be);
	CHECK(name, w && strcmp(watch_backend_name(w), be) == 0);
	if (w) {
		run_steps(be, w);
		watch_close(w);
	}
	close(cfg.backing_fd);
	umount2(scratch(""), MNT_DETACH);
	scratch_remove();
}

int main(void)
{
	struct watch_config bad = { .backing_fd = -1 };

	if (pipe(in_pipe) || pipe(ack_pipe) || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 2;
	CHECK("watch_open rejects a bad fd", !watch_open(&bad) &&
	      errno == EINVAL);
	run_backend(WATCH_FANOTIFY, "fanotify");
	run_backend(WATCH_INOTIFY, "inotify");
	return check_exit();
}
