// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watch_objects() on real fanotify watches: which events carry their
 * object's id, and that a cached id outlives its object. Two watches of
 * the same export see the same changes: "cached" is set up as protocol
 * delivery sets it (no ids for CREATE and DELETE, ids cached), "opened"
 * is left as replay uses it. The changes are made by forked children,
 * one step at a time (a watch ignores its own pid), and each step's
 * events are read before the next begins, so that fanotify cannot merge
 * records of different steps. Needs CAP_SYS_ADMIN: says SKIP without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/watch/watch.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

#define WAIT_MS 5000
#define MAX_EVENTS 16

static char base[64];

struct seen {
	struct rn_event ev[MAX_EVENTS];
	int n;
};

static char *p(const char *rel)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, rel);
	return buf[i];
}

static void on_event(void *arg, const struct rn_event *ev)
{
	struct seen *s = arg;

	if (s->n < MAX_EVENTS)
		s->ev[s->n++] = *ev;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads w until it has emitted n events, WAIT_MS at most. */
static void collect(struct watch *w, struct seen *s, int n)
{
	struct pollfd pfd = { .fd = watch_fd(w), .events = POLLIN };
	long deadline = now_ms() + WAIT_MS, left;

	memset(s, 0, sizeof(*s));
	while (s->n < n) {
		left = deadline - now_ms();
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0 ||
		    watch_read(w, on_event, s) < 0)
			return;
	}
}

static const struct rn_event *find(const struct seen *s,
				   enum rn_event_kind kind, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->ev[i].kind == kind && !strcmp(s->ev[i].name, name))
			return &s->ev[i];
	return NULL;
}

static struct rn_id id_of(const char *rel)
{
	struct rn_id id = { 0 };
	struct stat st;

	if (lstat(p(rel), &st) == 0) {
		id.dev = st.st_dev;
		id.ino = st.st_ino;
	}
	return id;
}

static bool has_id(const struct rn_event *ev, const struct rn_id *id)
{
	return ev && rn_id_equal(&ev->obj, id);
}

static bool has_no_id(const struct rn_event *ev)
{
	return ev && !rn_id_known(&ev->obj);
}

/* Runs fn in a child (another pid) and waits for it. */
static void in_child(void (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		printf("FAIL objects: a change failed\n");
		exit(1);
	}
}

static void must(int rc)
{
	if (rc < 0)
		_exit(4);
}

static void s_mknod(void) { must(mknod(p("exp/g"), S_IFREG | 0644, 0)); }

static void s_write(void)
{
	int fd = open(p("exp/f"), O_CREAT | O_WRONLY, 0644);

	must(fd);
	must(write(fd, "x", 1));
	close(fd);
}

static void s_chmod_unlink(void)
{
	must(chmod(p("exp/f"), 0600));
	must(unlink(p("exp/f")));
}

static void s_link_unlink(void)
{
	must(link(p("exp/g"), p("exp/h")));
	must(unlink(p("exp/g")));
}

static void run(struct watch *cached, struct watch *opened)
{
	struct seen c, o;
	struct rn_id f, g, h;

	in_child(s_mknod);
	g = id_of("exp/g");
	collect(cached, &c, 1);
	collect(opened, &o, 1);
	CHECK("objects: a CREATE carries no id when told to skip it",
	      has_no_id(find(&c, RN_EV_CREATE, "g")));
	CHECK("objects: a CREATE carries its id by default",
	      has_id(find(&o, RN_EV_CREATE, "g"), &g));

	in_child(s_write);
	f = id_of("exp/f");
	collect(cached, &c, 3);
	collect(opened, &o, 3);
	CHECK("objects: a MODIFY carries its id when CREATE's is skipped",
	      has_id(find(&c, RN_EV_MODIFY, "f"), &f));

	/* By the time the ATTRIB is read, its handle no longer opens. */
	in_child(s_chmod_unlink);
	collect(cached, &c, 2);
	collect(opened, &o, 2);
	CHECK("objects: a cached id outlives its object",
	      has_id(find(&c, RN_EV_ATTRIB, "f"), &f));
	CHECK("objects: uncached, an object already gone has no id",
	      has_no_id(find(&o, RN_EV_ATTRIB, "f")));
	CHECK("objects: both watches saw the DELETE",
	      find(&c, RN_EV_DELETE, "f") && find(&o, RN_EV_DELETE, "f"));

	/* g's object lives on as h: only a skipped kind has no id. */
	in_child(s_link_unlink);
	h = id_of("exp/h");
	collect(cached, &c, 2);
	collect(opened, &o, 2);
	CHECK("objects: a DELETE carries no id when told to skip it",
	      has_no_id(find(&c, RN_EV_DELETE, "g")));
	CHECK("objects: a DELETE of a linked object carries its id by default",
	      has_id(find(&o, RN_EV_DELETE, "g"), &h));
}

static struct watch *open_watch(int fd)
{
	struct watch_config cfg = {
		.backing_fd = fd,
		.backend = WATCH_FANOTIFY,
	};

	return watch_open(&cfg);
}

int main(void)
{
	struct watch *cached, *opened;
	int fd;

	snprintf(base, sizeof(base), "/tmp/rnobjs.XXXXXX");
	if (!mkdtemp(base) || mkdir(p("exp"), 0755))
		return 2;
	fd = open(p("exp"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	cached = open_watch(fd);
	opened = open_watch(fd);
	if (!cached || !opened) {
		printf("SKIP objects: no fanotify watch here: %s\n",
		       strerror(errno));
	} else {
		watch_objects(cached, RN_EV_BIT(RN_EV_CREATE) |
			      RN_EV_BIT(RN_EV_DELETE), true);
		run(cached, opened);
	}
	watch_close(cached);
	watch_close(opened);
	close(fd);
	if (fork() == 0)
		execlp("rm", "rm", "-rf", base, (char *)NULL);
	wait(NULL);
	return check_exit();
}
