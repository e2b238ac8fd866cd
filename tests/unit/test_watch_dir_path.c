// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rn_event_dir_path() of events from a real fanotify watch: during the
 * emit callback, the path below the export of the event's directory (and
 * of a rename's second one), "" for the export root, byte for byte for a
 * name with a newline; the directory's path now, not when the event
 * happened; -ENAMETOOLONG for a short buffer; -ENOENT for a copy kept past
 * the emit. Changes are made by forked children (a watch ignores its own
 * pid). Needs
 * CAP_SYS_ADMIN: says SKIP without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch/watch.h"
#include "../lib/check.h"
#include "../lib/scratch.h"

CHECK_MAIN_DEFS;

#define WAIT_MS 5000
#define MAX_EVENTS 4
#define NL_DIR "n\nl"

static struct watch *w;

/* What the callback learnt of each event. */
struct seen_event {
	enum rn_event_kind kind;
	char name[NAME_MAX + 1];
	int ret[2];			/* which 0, 1 */
	char path[2][PATH_MAX];
	int short_ret;			/* with a 2-byte buffer */
};

static struct seen_event seen[MAX_EVENTS];
static int nseen;
static struct rn_event last;	/* a copy kept past its emit */

static void on_event(void *arg, const struct rn_event *ev)
{
	struct seen_event *s = &seen[nseen];
	char small[2];
	int i;

	(void)arg;
	if (nseen == MAX_EVENTS)
		return;
	nseen++;
	last = *ev;
	s->kind = ev->kind;
	snprintf(s->name, sizeof(s->name), "%s", ev->name);
	for (i = 0; i < 2; i++)
		s->ret[i] = rn_event_dir_path(ev, i, s->path[i],
						 sizeof(s->path[i]));
	s->short_ret = rn_event_dir_path(ev, 0, small, sizeof(small));
}

/* Runs fn in a child, then reads until n events came (WAIT_MS at most). */
static void step(void (*fn)(void), int n)
{
	struct pollfd pfd = { .fd = watch_fd(w), .events = POLLIN };

	scratch_in_child(fn, "dir path");
	memset(seen, 0, sizeof(seen));
	nseen = 0;
	while (nseen < n && poll(&pfd, 1, WAIT_MS) > 0 &&
	       watch_read(w, on_event, NULL) >= 0)
		;
}

static const struct seen_event *find(enum rn_event_kind kind,
				     const char *name)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i].kind == kind && !strcmp(seen[i].name, name))
			return &seen[i];
	return NULL;
}

/* e's directory (which 0, 1) is at path; NULL: there is none. */
static bool at(const struct seen_event *e, int which, const char *path)
{
	if (!e)
		return false;
	if (!path)
		return e->ret[which] == -ENOENT;
	return e->ret[which] == 0 && !strcmp(e->path[which], path);
}

static void s_create_deep(void)
{
	must(mknod(scratch("exp/a/b/f"), S_IFREG | 0644, 0));
}

static void s_create_top(void)
{
	must(mknod(scratch("exp/f0"), S_IFREG | 0644, 0));
}

static void s_move(void)
{
	must(rename(scratch("exp/a/b/f"), scratch("exp/" NL_DIR "/g")));
}

/* The create is read after its directory's parent was renamed. */
static void s_create_then_move_up(void)
{
	must(mknod(scratch("exp/a/b/h"), S_IFREG | 0644, 0));
	must(rename(scratch("exp/a"), scratch("exp/z")));
}

static void run(void)
{
	char buf[PATH_MAX];

	step(s_create_deep, 1);
	CHECK("dir path: a create two levels down",
	      at(find(RN_EV_CREATE, "f"), 0, "a/b"));
	CHECK("dir path: a create has no second directory",
	      at(find(RN_EV_CREATE, "f"), 1, NULL));
	CHECK("dir path: a short buffer is ENAMETOOLONG",
	      find(RN_EV_CREATE, "f") &&
	      find(RN_EV_CREATE, "f")->short_ret == -ENAMETOOLONG);
	step(s_create_top, 1);
	CHECK("dir path: the export root is \"\"",
	      at(find(RN_EV_CREATE, "f0"), 0, ""));
	step(s_move, 1);
	CHECK("dir path: a rename's old directory",
	      at(find(RN_EV_MOVE, "f"), 0, "a/b"));
	CHECK("dir path: a rename's new directory, newline and all",
	      at(find(RN_EV_MOVE, "f"), 1, NL_DIR));
	step(s_create_then_move_up, 2);
	CHECK("dir path: where the directory is now, not was",
	      at(find(RN_EV_CREATE, "h"), 0, "z/b"));
	CHECK("dir path: an event kept past its emit, ENOENT",
	      last.paths && rn_event_dir_path(&last, 0, buf, sizeof(buf)) ==
	      -ENOENT);
}

int main(void)
{
	struct watch_config cfg = { .backend = WATCH_FANOTIFY };

	if (scratch_make("rndirpath") || mkdir(scratch("exp"), 0755) ||
	    mkdir(scratch("exp/a"), 0755) ||
	    mkdir(scratch("exp/a/b"), 0755) ||
	    mkdir(scratch("exp/" NL_DIR), 0755))
		return 2;
	cfg.backing_fd = open(scratch("exp"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	w = watch_open(&cfg);
	if (!w)
		printf("SKIP dir path: no fanotify watch here: %s\n",
		       strerror(errno));
	else
		run();
	watch_close(w);
	close(cfg.backing_fd);
	scratch_remove();
	return check_exit();
}
