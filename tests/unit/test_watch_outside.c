// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host pays for the export only (issue 36): the fanotify watch on a
 * private tmpfs, in a mount namespace of its own so that nothing else
 * makes events there:
 *   BASE/exp  the export        BASE/out  a sibling on the same fs
 * A forked child (another pid) makes each change and waits for the
 * parent's next command, so every step is checked before the next.
 *
 * Once the watch has read one event from out/, what is made, written,
 * changed and removed there makes no event at all: the group's queue
 * stays empty (poll() on it with no timeout says so; what is in a queue
 * is there when the changer's system call returns). A file's unlink
 * still makes one (its link count change, which no directory's mark can
 * ignore), which the watch reads and drops. Then out/ moves into the
 * export, and what is made in it must be reported; and a file made in a
 * new directory right after its mkdir, before the watch has read the
 * mkdir, must be reported too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#define QMAX 64

static int cmd_pipe[2], done_pipe[2];

struct queue {
	struct rn_event ev[QMAX];
	int n;
};

static void on_event(void *arg, const struct rn_event *ev)
{
	struct queue *q = arg;

	if (q->n < QMAX)
		q->ev[q->n] = *ev;
	q->n++;
}

static void mkfile(const char *rel, const char *data)
{
	int fd = open(scratch(rel), O_CREAT | O_WRONLY | O_TRUNC, 0644);

	if (fd < 0 || (data && write(fd, data, strlen(data)) < 0))
		_exit(3);
	close(fd);
}

/* One outside event, then a sentinel in the export. */
static void s_learn(void)
{
	mkfile("out/first", NULL);
	mkfile("exp/s1", NULL);
}

/* Every kind of change the filesystem mark asks for, but unlink. */
static void s_quiet(void)
{
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };

	mkfile("out/a", "some");
	mkfile("out/a", "more");
	must(chmod(scratch("out/a"), 0600));
	must(utimensat(AT_FDCWD, scratch("out/a"), ts, 0));
	must(truncate(scratch("out/a"), 1));
	must(mkdir(scratch("out/d"), 0755));
	must(rmdir(scratch("out/d")));
	must(chmod(scratch("out"), 0700));
}

static void s_unlink(void) { must(unlink(scratch("out/a"))); }
static void s_move_in(void) { must(rename(scratch("out"), scratch("exp/in"))); }
static void s_create_in(void) { mkfile("exp/in/b", NULL); }

static void s_mkdir_then_file(void)
{
	must(mkdir(scratch("exp/n"), 0755));
	mkfile("exp/n/f", NULL);
}

static void (*const steps[])(void) = {
	s_learn, s_quiet, s_unlink, s_move_in, s_create_in, s_mkdir_then_file,
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static void child(void)
{
	unsigned char i;

	while (read(cmd_pipe[0], &i, 1) == 1 && i < NSTEPS) {
		steps[i]();
		if (write(done_pipe[1], &i, 1) != 1)
			_exit(2);
	}
	_exit(0);
}

static bool step(unsigned char i)
{
	struct pollfd pfd = { .fd = done_pipe[0], .events = POLLIN };

	return write(cmd_pipe[1], &i, 1) == 1 &&
	       poll(&pfd, 1, WAIT_MS) == 1 && read(done_pipe[0], &i, 1) == 1;
}

/* Is a record waiting in the group's queue, right now? */
static bool queued(struct watch *w)
{
	struct pollfd pfd = { .fd = watch_fd(w), .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* Reads until n events are in q, or WAIT_MS have passed. */
static void read_events(struct watch *w, struct queue *q, int n)
{
	struct pollfd pfd = { .fd = watch_fd(w), .events = POLLIN };
	int i;

	for (i = 0; i < WAIT_MS / 10 && q->n < n; i++)
		if (poll(&pfd, 1, 10) == 1 && watch_read(w, on_event, q) < 0)
			break;
}

static void describe(char *buf, size_t size, const struct queue *q)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < q->n && i < QMAX && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s%s '%s' ",
				rn_event_kind_name(q->ev[i].kind),
				q->ev[i].isdir ? "|ISDIR" : "",
				q->ev[i].moved ? " (moved)" : "",
				q->ev[i].name);
}

/* q holds exactly these events: kind and name each, in order. */
static void expect(const char *name, const struct queue *q, int n,
		   const enum rn_event_kind *kinds, const char *const *names)
{
	char got[512];
	bool ok = q->n == n;
	int i;

	for (i = 0; ok && i < n; i++)
		ok = q->ev[i].kind == kinds[i] &&
		     !strcmp(q->ev[i].name, names[i]);
	describe(got, sizeof(got), q);
	if (ok)
		printf("PASS %s\n", name);
	else
		printf("FAIL %s: got %d: %s\n", name, q->n, got);
	check_failures += !ok;
}

static void run(struct watch *w)
{
	static const enum rn_event_kind create_close[] = {
		RN_EV_CREATE, RN_EV_CLOSE_WRITE,
	};
	static const enum rn_event_kind mkdir_file[] = {
		RN_EV_CREATE, RN_EV_CREATE, RN_EV_CLOSE_WRITE,
	};
	struct queue q = { .n = 0 };

	CHECK("learn: step", step(0));
	read_events(w, &q, 2);
	expect("learn: only the export's sentinel", &q, 2, create_close,
	       (const char *const[]){ "s1", "s1" });
	CHECK("learn: nothing more queued", !queued(w));

	CHECK("quiet: step", step(1));
	CHECK("quiet: outside changes queue no event", !queued(w));

	q.n = 0;
	CHECK("unlink: step", step(2));
	CHECK("unlink: its link count change is queued", queued(w));
	CHECK("unlink: and emits nothing", watch_read(w, on_event, &q) == 0 &&
	      q.n == 0);

	CHECK("move-in: step", step(3));
	read_events(w, &q, 1);
	CHECK("move-in: CREATE|ISDIR in (moved)", q.n == 1 &&
	      q.ev[0].kind == RN_EV_CREATE && q.ev[0].isdir &&
	      q.ev[0].moved && !strcmp(q.ev[0].name, "in"));

	q.n = 0;
	CHECK("create-in-moved: step", step(4));
	read_events(w, &q, 2);
	expect("create-in-moved: CREATE, CLOSE_WRITE b", &q, 2, create_close,
	       (const char *const[]){ "b", "b" });

	q.n = 0;
	CHECK("mkdir-then-file: step", step(5));
	read_events(w, &q, 3);
	expect("mkdir-then-file: CREATE n, CREATE f, CLOSE_WRITE f", &q, 3,
	       mkdir_file, (const char *const[]){ "n", "f", "f" });
	CHECK("mkdir-then-file: nothing more queued", !queued(w));
}

/* A tmpfs of our own, seen by this process and its children only. */
static bool private_tmpfs(void)
{
	return unshare(CLONE_NEWNS) == 0 &&
	       mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	       mount("rnoutside", scratch(""), "tmpfs", 0, "size=4m") == 0 &&
	       mkdir(scratch("exp"), 0755) == 0 &&
	       mkdir(scratch("out"), 0755) == 0;
}

int main(void)
{
	struct watch_config cfg = { .backend = WATCH_FANOTIFY };
	struct watch *w;
	unsigned char end = NSTEPS;
	pid_t pid;
	int st;

	if (pipe(cmd_pipe) || pipe(done_pipe) || scratch_make("rnoutside"))
		return 2;
	if (!private_tmpfs()) {
		printf("FAIL private tmpfs: %s\n", strerror(errno));
		scratch_remove();
		return 1;
	}
	cfg.backing_fd = open(scratch("exp"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	w = watch_open(&cfg);
	CHECK("watch_open: fanotify", w != NULL);
	CHECK("the kernel takes ignore marks", w &&
	      strstr(watch_describe(w), "ignored in the kernel"));
	if (w) {
		pid = fork();
		if (pid == 0)
			child();
		run(w);
		if (write(cmd_pipe[1], &end, 1) != 1)
			kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		CHECK("child exit", WIFEXITED(st) && WEXITSTATUS(st) == 0);
		watch_close(w);
	}
	close(cfg.backing_fd);
	umount2(scratch(""), MNT_DETACH);
	scratch_remove();
	return check_exit();
}
