// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * watch_objects() on real fanotify watches: which events carry their
 * object's id, and where it comes from. Two watches of the same export see
 * the same changes: "held" is set up as protocol delivery sets it (no ids
 * for CREATE and DELETE; ids from held(), which here holds k, does not
 * hold u, and cannot tell for t), "opened" is left as replay uses it. The
 * changes are made by forked children, one step at a time (a watch
 * ignores its own pid), and each step's events are read before the next
 * begins, so that fanotify cannot merge records of different steps; a
 * step's records come in one read, as the last checks need. Needs
 * CAP_SYS_ADMIN: says SKIP without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "watch/watch.h"
#include "watch/watch_backend.h"
#include "../lib/check.h"
#include "../lib/scratch.h"

CHECK_MAIN_DEFS;

#define WAIT_MS 5000
#define MAX_EVENTS 16

struct seen {
	struct rn_event ev[MAX_EVENTS];
	int n;
};

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

	if (lstat(scratch(rel), &st) == 0) {
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

/* The link count change of the object id in s, and its index, or -1. */
static int link_count_of(const struct seen *s, const struct rn_id *id)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->ev[i].link_count && s->ev[i].kind == RN_EV_ATTRIB &&
		    !s->ev[i].name[0] && !rn_id_known(&s->ev[i].dir) &&
		    rn_id_equal(&s->ev[i].obj, id))
			return i;
	return -1;
}

static int link_counts(const struct seen *s)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->ev[i].link_count;
	return n;
}

/*
 * What held() knows: the gens of g's, k's, t's and u's handles, k's
 * made-up id; calls counts the questions about those four only, as the
 * host watch also asks about link count changes elsewhere on the file
 * system, made by other processes.
 */
static struct {
	uint32_t g, k, t, u;
	unsigned int calls;
} known;
static const struct rn_id k_id = { .dev = 7, .ino = 7, .gen = 7 };

static uint32_t gen_of(const char *rel)
{
	uint32_t gen = watch_name_gen(AT_FDCWD, scratch(rel));

	if (!gen) {
		printf("FAIL objects: no handle for %s\n", rel);
		exit(1);
	}
	return gen;
}

/* Holds k, does not hold u, cannot tell for t (by their handles' gens). */
static int held(void *arg, const void *handle, size_t len, int type,
		struct rn_id *id)
{
	uint32_t gen = rn_handle_gen(type, handle, len);

	if (gen == known.g || gen == known.k || gen == known.t ||
	    gen == known.u)
		known.calls++;
	if (gen == known.k) {
		*id = k_id;
		return 1;
	}
	return gen == known.t ? -1 : 0;
}

static void make(const char *rel)
{
	must(mknod(scratch(rel), S_IFREG | 0644, 0));
}

static void s_make(void)
{
	make("exp/g");
	make("exp/k");
	make("exp/t");
	make("exp/u");
}

static void write_one(const char *rel)
{
	int fd = open(scratch(rel), O_WRONLY);

	must(fd);
	must(write(fd, "x", 1));
	close(fd);
}

static void s_write(void)
{
	write_one("exp/k");
	write_one("exp/t");
	write_one("exp/u");
}

static void s_chmod_unlink(void)
{
	must(chmod(scratch("exp/k"), 0600));
	must(unlink(scratch("exp/k")));
}

static void s_link_more(void)
{
	must(link(scratch("exp/t"), scratch("exp/t2")));
	must(link(scratch("exp/u"), scratch("exp/u2")));
}

static void s_link_unlink(void)
{
	must(link(scratch("exp/g"), scratch("exp/h")));
	must(unlink(scratch("exp/g")));
}

static void s_more_names(void)
{
	must(link(scratch("exp/t"), scratch("exp/t3")));
	make("exp/n");
	make("exp/n2");
}

static void s_rename_over(void)
{
	must(rename(scratch("exp/n"), scratch("exp/t3")));
}

/* t's link count change is the link's, not the rename's. */
static void s_rename_then_link(void)
{
	must(rename(scratch("exp/n2"), scratch("exp/new")));
	must(link(scratch("exp/t"), scratch("exp/t4")));
}

static const struct rn_event *moved(const struct seen *s, const char *name)
{
	const struct rn_event *ev = find(s, RN_EV_MOVE, name);

	return ev && ev - s->ev == 0 ? ev : NULL;
}

/* A file's move says what it replaced, in the same read. */
static void run_replaced(struct watch *hw, struct watch *opened)
{
	struct rn_id t = id_of("exp/t");
	const struct rn_event *ev;
	struct seen h, o;

	scratch_in_child(s_more_names, "objects");
	collect(hw, &h, 4);
	collect(opened, &o, 4);

	scratch_in_child(s_rename_over, "objects");
	collect(hw, &h, 2);
	collect(opened, &o, 2);
	ev = moved(&o, "n");
	CHECK("objects: a move over a link names the file it replaced, then its link count change",
	      ev && rn_id_equal(&ev->replaced, &t) &&
	      link_count_of(&o, &t) == 1 && o.n == 2);
	ev = moved(&h, "n");
	CHECK("objects: so does a move seen by a consumer of held objects",
	      ev && rn_id_equal(&ev->replaced, &t) &&
	      link_count_of(&h, &t) == 1);

	scratch_in_child(s_rename_then_link, "objects");
	collect(opened, &o, 3);
	ev = moved(&o, "n2");
	CHECK("objects: a move to a new name replaced nothing, though a link count change follows",
	      ev && !rn_id_known(&ev->replaced) &&
	      link_count_of(&o, &t) == 1 && find(&o, RN_EV_CREATE, "t4") &&
	      o.n == 3);
	collect(hw, &h, 3);
}

static void run(struct watch *hw, struct watch *opened)
{
	struct seen h, o;
	struct rn_id g, k, t;
	const struct rn_event *u;

	scratch_in_child(s_make, "objects");
	g = id_of("exp/g");
	k = id_of("exp/k");
	t = id_of("exp/t");
	known.g = gen_of("exp/g");
	known.k = gen_of("exp/k");
	known.t = gen_of("exp/t");
	known.u = gen_of("exp/u");
	collect(hw, &h, 4);
	collect(opened, &o, 4);
	CHECK("objects: a CREATE carries no id when told to skip it, and held() is not asked",
	      has_no_id(find(&h, RN_EV_CREATE, "g")) && known.calls == 0);
	CHECK("objects: a CREATE carries its id by default",
	      has_id(find(&o, RN_EV_CREATE, "g"), &g));

	scratch_in_child(s_write, "objects");
	collect(hw, &h, 6);
	collect(opened, &o, 6);
	CHECK("objects: a held object's id is the one held() gives",
	      has_id(find(&h, RN_EV_MODIFY, "k"), &k_id));
	u = find(&h, RN_EV_MODIFY, "u");
	CHECK("objects: an object not held has no id, only its handle's gen",
	      has_no_id(u) && u->obj.gen == known.u);
	CHECK("objects: if held() cannot tell, the handle is opened",
	      has_id(find(&h, RN_EV_MODIFY, "t"), &t));
	CHECK("objects: by default the id is the object's own",
	      has_id(find(&o, RN_EV_MODIFY, "k"), &k));

	/* By the time the ATTRIB is read, its handle no longer opens. */
	scratch_in_child(s_chmod_unlink, "objects");
	collect(hw, &h, 2);
	collect(opened, &o, 2);
	CHECK("objects: a held object keeps its id once gone",
	      has_id(find(&h, RN_EV_ATTRIB, "k"), &k_id));
	CHECK("objects: by default, an object already gone has no id",
	      has_no_id(find(&o, RN_EV_ATTRIB, "k")));
	CHECK("objects: both watches saw the DELETE",
	      find(&h, RN_EV_DELETE, "k") && find(&o, RN_EV_DELETE, "k"));
	CHECK("objects: a held object's lost link is an ATTRIB of its own, with no directory",
	      link_count_of(&h, &k_id) >= 0 && link_counts(&h) == 1);
	/* Reported, by default, only if k's handle still opened when read. */
	CHECK("objects: by default at most the one link count change",
	      link_counts(&o) <= 1);

	/* t's handle opens (held() cannot tell), u is not held. */
	scratch_in_child(s_link_more, "objects");
	collect(hw, &h, 3);
	collect(opened, &o, 4);
	CHECK("objects: a new link's link count change comes before its CREATE",
	      link_count_of(&h, &t) >= 0 && find(&h, RN_EV_CREATE, "t2") &&
	      link_count_of(&h, &t) < find(&h, RN_EV_CREATE, "t2") - h.ev);
	CHECK("objects: none for an object that is not held",
	      link_counts(&h) == 1 && find(&h, RN_EV_CREATE, "u2"));
	CHECK("objects: by default each link's change, with the object's id, and the CREATEs",
	      link_count_of(&o, &t) >= 0 && link_counts(&o) == 2 &&
	      o.n == 4 && find(&o, RN_EV_CREATE, "t2") &&
	      find(&o, RN_EV_CREATE, "u2"));

	/* g's object lives on as h: only a skipped kind has no id. */
	scratch_in_child(s_link_unlink, "objects");
	g = id_of("exp/h");
	collect(hw, &h, 2);
	collect(opened, &o, 2);
	CHECK("objects: a DELETE carries no id when told to skip it",
	      has_no_id(find(&h, RN_EV_DELETE, "g")));
	CHECK("objects: a DELETE of a linked object carries its id by default",
	      has_id(find(&o, RN_EV_DELETE, "g"), &g));
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
	struct watch *hw, *opened;
	int fd;

	if (scratch_make("rnobjs") || mkdir(scratch("exp"), 0755))
		return 2;
	fd = open(scratch("exp"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	hw = open_watch(fd);
	opened = open_watch(fd);
	if (!hw || !opened) {
		printf("SKIP objects: no fanotify watch here: %s\n",
		       strerror(errno));
	} else {
		watch_objects(hw, RN_EV_BIT(RN_EV_CREATE) |
			      RN_EV_BIT(RN_EV_DELETE), held, NULL);
		run(hw, opened);
		run_replaced(hw, opened);
	}
	watch_close(hw);
	watch_close(opened);
	close(fd);
	scratch_remove();
	return check_exit();
}
