// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inotify backend: reads the queue of the watches inotify_tree.c keeps on
 * every directory of the export, and turns its records into normalised
 * events in host order. The state and its locks are described in
 * inotify_watch_internal.h.
 *
 * Directories: an IN_IGNORED record drops its wd from w->dirs; a
 * directory that arrives is watched with all below it, one that leaves
 * the export stops being watched (inotify_tree.c).
 *
 * Renames: IN_MOVED_FROM is held in w->from until the next record; an
 * IN_MOVED_TO with its cookie makes one MOVE. If the buffer ends, the
 * next read decides; if nothing more is queued, it waits a little for its
 * partner (inotify_partner_may_come), then it was a move out of the export
 * (DELETE). An unpaired IN_MOVED_TO is a move in (CREATE).
 *
 * Own changes: inotify cannot tell who changed a file, so the server
 * brackets its own (watch_own_change, own_expect.c), from FUSE worker
 * threads: expect_lock protects w->expect, and is the only state shared
 * with them. Everything else belongs to the reading thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inotify_watch_internal.h"
#include "watch_backend.h"

#define INOTIFY_SELF_EVENTS (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)
/* How long a lone IN_MOVED_FROM waits for its IN_MOVED_TO. */
#define INOTIFY_PARTNER_WAIT_MS 20

void inotify_emit(struct inotify_watch *w, struct rn_event *ev,
		  enum rn_event_kind kind)
{
	ev->kind = kind;
	w->emit(w->arg, ev);
	w->emitted++;
}

/*
 * Is an event of kind on (dir, name), about object obj if known, ours?
 * now: obj's stamp as the event was read, if known.
 */
static bool inotify_own_obj(struct inotify_watch *w, const struct rn_id *dir,
			const char *name, const struct rn_id *obj,
			const struct own_stamp *now, enum rn_event_kind kind)
{
	bool own;

	pthread_mutex_lock(&w->expect_lock);
	own = own_expect_match(&w->expect, dir, name, kind, now) ||
	      (obj && rn_id_known(obj) &&
	       own_expect_match(&w->expect, obj, "", kind, now));
	pthread_mutex_unlock(&w->expect_lock);
	return own;
}

bool inotify_own(struct inotify_watch *w, const struct rn_id *dir,
		 const char *name, enum rn_event_kind kind)
{
	return inotify_own_obj(w, dir, name, NULL, NULL, kind);
}

/*
 * Host id of name in the directory wd, for events that did not carry it,
 * and its stamp into *now if now is not NULL.
 */
static void inotify_obj(struct inotify_watch *w, int wd, const char *name,
		    struct rn_id *obj, struct own_stamp *now)
{
	struct stat st;
	int fd;

	fd = inotify_dirs_open(&w->dirs, w->root_fd, wd);
	if (fd < 0)
		return;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		obj->dev = st.st_dev;
		obj->ino = st.st_ino;
		obj->gen = watch_name_gen(fd, name);
		if (now)
			own_stamp_of(now, &st);
	}
	close(fd);
}

/* A directory arrived under wd (mkdir: report its contents; move: not). */
static void inotify_dir_arrived(struct inotify_watch *w, int wd,
				const char *name,
			    bool report)
{
	inotify_add_tree(w, wd, name, report);
}

static struct inotify_dir *inotify_live_dir(struct inotify_watch *w, int wd)
{
	struct inotify_dir *d = inotify_dirs_find(&w->dirs, wd);

	return d && !d->gone ? d : NULL;
}

/* The held IN_MOVED_FROM had no partner: it moved out of the export. */
static void inotify_from_flush(struct inotify_watch *w)
{
	struct inotify_dir *d = inotify_live_dir(w, w->from.wd);
	struct rn_event ev;

	w->from_set = false;
	if (!d)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.dir = d->id;
	ev.isdir = w->from.isdir;
	strcpy(ev.name, w->from.name);
	ev.moved = true;
	if (ev.isdir)
		inotify_dir_left(w, w->from.wd, w->from.name);
	if (!inotify_own(w, &ev.dir, ev.name, RN_EV_DELETE))
		inotify_emit(w, &ev, RN_EV_DELETE);
}

static void inotify_move(struct inotify_watch *w,
			 const struct inotify_record *to)
{
	struct inotify_dir *from = inotify_live_dir(w, w->from.wd);
	struct inotify_dir *dst = inotify_live_dir(w, to->wd), *c;
	struct rn_event ev;
	bool own;

	w->from_set = false;
	memset(&ev, 0, sizeof(ev));
	ev.dir = from->id;
	ev.dir2 = dst->id;
	ev.isdir = w->from.isdir;
	strcpy(ev.name, w->from.name);
	strcpy(ev.name2, to->name);
	inotify_obj(w, to->wd, to->name, &ev.obj, NULL);
	if (ev.isdir) {
		c = inotify_dirs_child(&w->dirs, w->from.wd, w->from.name);
		if (c)
			inotify_dirs_set(&w->dirs, c->wd, to->wd, &c->id,
				     to->name);
		else
			inotify_dir_arrived(w, to->wd, to->name, false);
	}
	own = inotify_own(w, &ev.dir, ev.name, RN_EV_MOVE);
	own = inotify_own(w, &ev.dir2, ev.name2, RN_EV_MOVE) || own;
	if (!own)
		inotify_emit(w, &ev, RN_EV_MOVE);
}

/* An event on a watched directory itself: only the root's are news. */
static void inotify_self(struct inotify_watch *w,
			 const struct inotify_record *r,
		     const struct inotify_dir *d)
{
	struct rn_event ev;

	if (r->wd != w->root_wd)
		return;		/* its parent's watch reported it by name */
	memset(&ev, 0, sizeof(ev));
	ev.obj = d->id;
	ev.isdir = true;
	if ((r->mask & IN_MODIFY) && !inotify_own(w, &ev.obj, "", RN_EV_MODIFY))
		inotify_emit(w, &ev, RN_EV_MODIFY);
	if ((r->mask & IN_ATTRIB) && !inotify_own(w, &ev.obj, "", RN_EV_ATTRIB))
		inotify_emit(w, &ev, RN_EV_ATTRIB);
	if ((r->mask & IN_CLOSE_WRITE) &&
	    !inotify_own(w, &ev.obj, "", RN_EV_CLOSE_WRITE))
		inotify_emit(w, &ev, RN_EV_CLOSE_WRITE);
}

static enum rn_event_kind inotify_kind(uint32_t mask)
{
	if (mask & (IN_CREATE | IN_MOVED_TO))
		return RN_EV_CREATE;
	if (mask & IN_DELETE)
		return RN_EV_DELETE;
	if (mask & IN_MODIFY)
		return RN_EV_MODIFY;
	if (mask & IN_ATTRIB)
		return RN_EV_ATTRIB;
	return RN_EV_CLOSE_WRITE;
}

static void inotify_named(struct inotify_watch *w,
			  const struct inotify_record *r,
		      const struct inotify_dir *d)
{
	bool arrived = r->mask & (IN_CREATE | IN_MOVED_TO);
	struct own_stamp now = { 0 };
	struct rn_event ev;

	if (arrived && inotify_scanned_consume(w, r->wd, r->name))
		return;		/* the scan of a new directory reported it */
	memset(&ev, 0, sizeof(ev));
	ev.dir = d->id;
	ev.isdir = r->mask & IN_ISDIR;
	ev.moved = r->mask & IN_MOVED_TO;	/* its IN_MOVED_FROM was outside */
	strcpy(ev.name, r->name);
	if (!(r->mask & IN_DELETE))
		inotify_obj(w, r->wd, r->name, &ev.obj, &now);
	if (arrived && ev.isdir)
		inotify_dir_arrived(w, r->wd, r->name, r->mask & IN_CREATE);
	if (!inotify_own_obj(w, &ev.dir, ev.name, &ev.obj, &now,
			 inotify_kind(r->mask)))
		inotify_emit(w, &ev, inotify_kind(r->mask));
}

static void inotify_take_record(struct inotify_watch *w,
				const struct inotify_record *r)
{
	struct inotify_dir *d;

	if (r->mask & IN_Q_OVERFLOW) {
		struct rn_event ev = { .kind = RN_EV_OVERFLOW };

		inotify_emit(w, &ev, RN_EV_OVERFLOW);
		return;
	}
	if (r->mask & IN_IGNORED) {
		inotify_dirs_remove(&w->dirs, r->wd);
		return;
	}
	d = inotify_live_dir(w, r->wd);
	if (!d || (r->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)))
		return;
	if (!r->name[0])
		inotify_self(w, r, d);
	else if (r->mask & (IN_CREATE | IN_DELETE | IN_MOVED_TO |
			    INOTIFY_SELF_EVENTS))
		inotify_named(w, r, d);
}

static void inotify_record(struct inotify_watch *w,
			   const struct inotify_record *r)
{
	if (w->from_set) {
		if ((r->mask & IN_MOVED_TO) && r->cookie == w->from.cookie &&
		    inotify_live_dir(w, r->wd)) {
			inotify_move(w, r);
			return;
		}
		inotify_from_flush(w);
	}
	if ((r->mask & IN_MOVED_FROM) && r->name[0] &&
	    inotify_live_dir(w, r->wd)) {
		w->from_set = true;
		w->from_waited = false;
		w->from.wd = r->wd;
		w->from.cookie = r->cookie;
		w->from.isdir = r->mask & IN_ISDIR;
		strcpy(w->from.name, r->name);
		return;
	}
	inotify_take_record(w, r);
}

/*
 * A rename queues IN_MOVED_FROM and then IN_MOVED_TO, and the renaming
 * task can be preempted between the two: a reader then finds the queue
 * empty after the first. On this 2-CPU virtual machine a rename was shown
 * as a DELETE and a CREATE in two runs of the suite in one day. So a held
 * IN_MOVED_FROM that finds the queue empty waits once, briefly, for its
 * partner before it is taken for a move out of the export.
 */
static bool inotify_partner_may_come(struct inotify_watch *w)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };

	if (!w->from_set || w->from_waited)
		return false;
	w->from_waited = true;
	return poll(&p, 1, INOTIFY_PARTNER_WAIT_MS) == 1;
}

int inotify_watch_read(struct inotify_watch *w, watch_emit_fn emit, void *arg)
{
	unsigned int errors = w->errors;
	size_t i, n;
	ssize_t len;

	w->emit = emit;
	w->arg = arg;
	w->emitted = 0;
	pthread_mutex_lock(&w->expect_lock);
	own_expect_drain_begin(&w->expect);
	pthread_mutex_unlock(&w->expect_lock);
	for (;;) {
		len = read(w->fd, w->buf, sizeof(w->buf));
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == EAGAIN && inotify_partner_may_come(w))
			continue;
		if (len < 0 && errno == EAGAIN)
			break;
		if (len < 0)
			return -errno;
		n = inotify_decode(w->buf, (size_t)len, w->recs,
			       sizeof(w->recs) / sizeof(w->recs[0]),
			       &w->errors);
		for (i = 0; i < n; i++)
			inotify_record(w, &w->recs[i]);
	}
	if (w->errors != errors)
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: watch: %u malformed inotify records skipped\n",
			 w->errors - errors);
	/* Drained: nothing queued before a scan is still unread. */
	w->nscanned = 0;
	pthread_mutex_lock(&w->expect_lock);
	own_expect_drained(&w->expect);
	pthread_mutex_unlock(&w->expect_lock);
	if (w->from_set)
		inotify_from_flush(w);
	return w->emitted;
}

struct inotify_watch *inotify_watch_open(const struct watch_config *cfg)
{
	struct inotify_watch *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->root_fd = cfg->backing_fd;
	pthread_mutex_init(&w->expect_lock, NULL);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		goto fail;
	w->root_wd = inotify_add_tree(w, -1, "", false);
	if (w->root_wd < 0) {
		err = -w->root_wd;
		inotify_watch_close(w);
		errno = err;
		return NULL;
	}
	return w;
fail:
	err = errno;
	free(w);
	errno = err;
	return NULL;
}

void inotify_watch_close(struct inotify_watch *w)
{
	if (!w)
		return;
	close(w->fd);
	inotify_dirs_free(&w->dirs);
	pthread_mutex_destroy(&w->expect_lock);
	free(w);
}

int inotify_watch_fd(const struct inotify_watch *w)
{
	return w->fd;
}

void inotify_watch_own_change(struct inotify_watch *w, const struct rn_id *id,
			  const char *name, unsigned int kinds, bool ended,
			  const struct stat *after)
{
	struct own_stamp stamp = { 0 };

	if (after)
		own_stamp_of(&stamp, after);
	pthread_mutex_lock(&w->expect_lock);
	if (ended)
		own_expect_end(&w->expect, id, name, kinds, &stamp);
	else
		own_expect_begin(&w->expect, id, name, kinds);
	pthread_mutex_unlock(&w->expect_lock);
}
