// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fanotify backend: one FAN_MARK_FILESYSTEM mark on the backing store's
 * file system, reporting directory handle + name, the target's handle and
 * the changer's pid. Records are decoded by fanotify_decode.c, filtered
 * (own pid first: it is free; then the export scope, fanotify_scope.c) and
 * turned into normalised events in host order. A directory placed outside
 * the export gets an ignore mark, so that its next events are not made
 * at all (fanotify_ignore.c).
 *
 * The kernel may merge several events on the same object and name into
 * one record (mask bits OR-ed); such a record is emitted in the fixed
 * order CREATE, MODIFY, ATTRIB, CLOSE_WRITE, DELETE, which is the order of
 * a create-write-close-unlink life. FAN_RENAME records are never merged.
 *
 * Owned by one thread (the caller of fan_watch_read); nothing blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "fanotify_decode.h"
#include "fanotify_ignore.h"
#include "fanotify_scope.h"
#include "watch_backend.h"

/*
 * FAN_UNLIMITED_QUEUE (CAP_SYS_ADMIN, as the filesystem mark): the default
 * queue of 16,384 events overflowed whenever writers kept the pump off
 * the CPU for a moment, and a fifth of a busy burst was lost.
 * The pump moves events on at once into the event queue, which is the
 * bound that matters. FAN_UNLIMITED_MARKS (CAP_SYS_ADMIN too): our one
 * mark is then not counted against fs.fanotify.max_user_marks, so other
 * programs of the same user using up their marks cannot stop the server.
 */
#define FAN_INIT_FLAGS (FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | \
			FAN_UNLIMITED_QUEUE | FAN_UNLIMITED_MARKS | \
			FAN_REPORT_DFID_NAME | FAN_REPORT_FID | \
			FAN_REPORT_TARGET_FID)
#define FAN_SELF_EVENTS (FAN_MODIFY | FAN_ATTRIB | FAN_CLOSE_WRITE)
#define FAN_WATCH_MASK (FAN_CREATE | FAN_DELETE | FAN_RENAME | \
			FAN_SELF_EVENTS | FAN_ONDIR)
/*
 * More than the largest record read(2) can return here: the metadata (24
 * bytes) and at most three info records (a rename's old and new directory
 * with their names, and the target's id), each at most 408 bytes with a
 * handle of MAX_HANDLE_SZ and a name of NAME_MAX.
 */
#define FAN_RECORD_MAX 2048
/* Reads per fan_watch_read call, so one busy fs cannot starve the caller. */
#define FAN_READS_PER_CALL 16

struct fan_watch {
	int fd;
	pid_t pid;		/* getpid() at open */
	pid_t pid_now;		/* getpid() at the first read */
	struct fan_scope scope;
	struct fan_ignore ignore;
	unsigned int obj_skip;	/* kinds whose object gets only its gen */
	watch_held_fn link_held;	/* watch_link_counts() */
	void *link_held_arg;
	watch_emit_fn emit;
	void *arg;
	int emitted;
	/* The handles of ev->dir and ev->dir2 while an event is emitted. */
	const struct fan_fid *emit_dir[2];
	/*
	 * A file's MOVE inside, held until the next records of its read tell
	 * what it replaced (fan_move_next()), with the handles of its
	 * directories; and the link count change held after it, with its
	 * file's handle. The handles point into buf, as their records' did.
	 */
	bool move_held;
	struct rn_event held_move;
	struct fan_fid held_dirs[2];
	bool count_held;
	struct rn_event held_count;
	struct fan_fid held_count_fid;
	struct rn_event_paths paths;	/* of emit_dir, for the emitted event */
	unsigned int errors;
	/* Records arrive 8-byte aligned from read(2). */
	unsigned char buf[65536] __attribute__((aligned(8)));
};

static int fan_dir_path(const struct rn_event_paths *paths, int which,
			char *buf, size_t size);

struct fan_watch *fan_watch_open(const struct watch_config *cfg)
{
	struct fan_watch *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->pid = getpid();
	w->paths.dir_path = fan_dir_path;
	err = -fan_scope_init(&w->scope, cfg);
	if (err)
		goto fail;
	w->fd = fanotify_init(FAN_INIT_FLAGS, O_RDONLY | O_CLOEXEC);
	if (w->fd < 0) {
		err = errno;
		goto fail_scope;
	}
	/* "." and not NULL: an O_PATH fd is only accepted as a dirfd. */
	if (fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			  FAN_WATCH_MASK, cfg->backing_fd, ".") < 0) {
		err = errno;
		goto fail_fd;
	}
	fan_ignore_init(&w->ignore, w->fd, cfg->backing_fd);
	return w;
fail_fd:
	close(w->fd);
fail_scope:
	fan_scope_fini(&w->scope);
fail:
	free(w);
	errno = err;
	return NULL;
}

void fan_watch_close(struct fan_watch *w)
{
	if (!w)
		return;
	close(w->fd);
	fan_scope_fini(&w->scope);
	free(w);
}

int fan_watch_fd(const struct fan_watch *w)
{
	return w->fd;
}

bool fan_watch_ignores(const struct fan_watch *w)
{
	return w->ignore.on;
}

void fan_watch_objects(struct fan_watch *w, unsigned int skip_kinds,
		       watch_held_fn held, void *arg)
{
	w->obj_skip = skip_kinds;
	w->scope.held = held;
	w->scope.held_arg = arg;
}

void fan_watch_link_counts(struct fan_watch *w, watch_held_fn held,
			   void *arg)
{
	w->link_held = held;
	w->link_held_arg = arg;
}

/*
 * The kinds of event a non-rename record becomes, in the order they are
 * emitted (a create-write-close-unlink life, see above).
 */
static const struct {
	uint64_t mask;
	enum rn_event_kind kind;
} fan_kind_of[] = {
	{ FAN_CREATE, RN_EV_CREATE },
	{ FAN_MODIFY, RN_EV_MODIFY },
	{ FAN_ATTRIB, RN_EV_ATTRIB },
	{ FAN_CLOSE_WRITE, RN_EV_CLOSE_WRITE },
	{ FAN_DELETE, RN_EV_DELETE },
};

#define FAN_KINDS (sizeof(fan_kind_of) / sizeof(fan_kind_of[0]))

/* The kinds of a non-rename record's mask, as RN_EV_BIT()s. */
static unsigned int fan_kinds(uint64_t mask)
{
	unsigned int k = 0;
	size_t i;

	for (i = 0; i < FAN_KINDS; i++)
		if (mask & fan_kind_of[i].mask)
			k |= RN_EV_BIT(fan_kind_of[i].kind);
	return k;
}

/* The object's id, or only its handle's gen for kinds that need no more. */
static void fan_obj(struct fan_watch *w, unsigned int kinds,
		    const struct fan_fid *fid, struct rn_id *obj)
{
	if (kinds & ~w->obj_skip)
		fan_scope_obj(&w->scope, fid, obj);
	else if (fid->present)
		obj->gen = rn_handle_gen(fid->type, fid->handle, fid->len);
}

static void fan_emit(struct fan_watch *w, struct rn_event *ev,
		     enum rn_event_kind kind)
{
	ev->kind = kind;
	ev->paths = &w->paths;
	w->emit(w->arg, ev);
	w->emitted++;
}

static void fan_name_copy(char *dst, const char *name)
{
	/* The decoder guarantees 1..NAME_MAX bytes. */
	if (name && strcmp(name, ".") != 0)
		strcpy(dst, name);
}

/* FAN_RENAME: MOVE inside, CREATE moving in, DELETE moving out. */
static void fan_rename(struct fan_watch *w, const struct fan_record *rec,
		       struct rn_event *ev)
{
	enum fan_place was, is;
	enum rn_event_kind kind;
	bool from, to;

	was = fan_scope_place(&w->scope, &rec->old, &ev->dir);
	is = fan_scope_place(&w->scope, &rec->new, &ev->dir2);
	/*
	 * Only a directory's move can change what is inside, and one that
	 * may have come in may have brought ignore marks with it.
	 */
	if (ev->isdir) {
		fan_scope_moved(&w->scope, was, is);
		if ((is == FAN_INSIDE && was != FAN_INSIDE) ||
		    is == FAN_UNKNOWN)
			fan_ignore_flush(&w->ignore);
	}
	from = was == FAN_INSIDE;
	to = is == FAN_INSIDE;
	if (!rec->old.name || !rec->new.name)
		return;
	kind = from && to ? RN_EV_MOVE : from ? RN_EV_DELETE : RN_EV_CREATE;
	if (from || to)
		fan_obj(w, RN_EV_BIT(kind), &rec->fid, &ev->obj);
	fan_name_copy(ev->name, rec->old.name);
	fan_name_copy(ev->name2, rec->new.name);
	if (from && to && !ev->isdir) {
		w->held_move = *ev;
		w->held_dirs[0] = rec->old;
		w->held_dirs[1] = rec->new;
		w->move_held = true;
	} else if (from && to) {
		w->emit_dir[0] = &rec->old;
		w->emit_dir[1] = &rec->new;
		fan_emit(w, ev, RN_EV_MOVE);
	} else if (from) {
		w->emit_dir[0] = &rec->old;
		memset(&ev->dir2, 0, sizeof(ev->dir2));
		ev->name2[0] = '\0';
		ev->moved = true;
		fan_emit(w, ev, RN_EV_DELETE);
	} else if (to) {
		w->emit_dir[0] = &rec->new;
		ev->dir = ev->dir2;
		strcpy(ev->name, ev->name2);
		memset(&ev->dir2, 0, sizeof(ev->dir2));
		ev->name2[0] = '\0';
		ev->moved = true;
		fan_emit(w, ev, RN_EV_CREATE);
	}
}

/* A directory placed outside: its next events are not to be made. */
static void fan_ignore_fid(struct fan_watch *w, const struct fan_fid *fid)
{
	uint32_t gen = rn_handle_gen(fid->type, fid->handle, fid->len);
	int fd;

	if (!fan_ignore_wanted(&w->ignore, gen))
		return;
	fd = fan_scope_open(&w->scope, fid);
	if (fd < 0)
		return;
	fan_ignore_dir(&w->ignore, fd, gen);
	close(fd);
}

/*
 * Fills dir/name/obj of a non-rename record; false if it is outside.
 * A "." name means the event is on the directory itself; an event on the
 * export root is reported through its parent, which is outside: keep it
 * as an event on obj = root with no dir.
 */
static bool fan_place(struct fan_watch *w, const struct fan_record *rec,
		      struct rn_event *ev)
{
	bool self_dir = rec->dfid.name && strcmp(rec->dfid.name, ".") == 0;
	struct rn_id dir;

	/*
	 * A directory's own events name the directory itself with ".", so
	 * the export root's are inside too: whatever is reported from a
	 * directory outside is outside, and costs no lookup.
	 */
	switch (fan_scope_place(&w->scope, &rec->dfid, &dir)) {
	case FAN_INSIDE:
		break;
	case FAN_OUTSIDE:
		fan_ignore_fid(w, &rec->dfid);
		return false;
	default:
		return false;
	}
	if (self_dir) {
		ev->obj = dir;
		return true;
	}
	ev->dir = dir;
	w->emit_dir[0] = &rec->dfid;
	fan_name_copy(ev->name, rec->dfid.name);
	fan_obj(w, fan_kinds(rec->mask), &rec->fid, &ev->obj);
	return true;
}

static bool fan_is_link_count(const struct fan_record *rec)
{
	return !rec->dfid.present && rec->fid.present &&
	       (rec->mask & FAN_ATTRIB) && !(rec->mask & FAN_ONDIR);
}

/*
 * The id of the file whose link count rec says changed, if it is one
 * the consumer wants: one the client holds is inside the export,
 * wherever this link was (a consumer of held objects,
 * fan_watch_objects(), is told whether it holds it; another opens the
 * handle, unless fan_watch_link_counts() says it wants held files'
 * only). 1 with *id, 0 if it is not wanted, -ENOENT if it is gone.
 */
static int fan_link_count_obj(struct fan_watch *w,
			      const struct fan_record *rec, struct rn_id *id)
{
	int held = -EAGAIN;

	if (w->link_held)
		held = w->link_held(w->link_held_arg, rec->fid.handle,
				    rec->fid.len, rec->fid.type, id);
	if (held < 0 && !fan_scope_obj(&w->scope, &rec->fid, id))
		return -ENOENT;
	return held ? 1 : 0;
}

/*
 * A file's link count change (fsnotify_link_count()) is reported to its
 * own marks only, so its record names no directory. It is kept, with
 * the file's id (fan_link_count_obj()). True if rec was one, emitted or
 * dropped.
 */
static bool fan_link_count(struct fan_watch *w, const struct fan_record *rec,
			   struct rn_event *ev)
{
	int ret;

	if (!fan_is_link_count(rec))
		return false;
	ret = fan_link_count_obj(w, rec, &ev->obj);
	if (!ret)
		return true;
	if (ret < 0)
		return false;
	ev->link_count = true;
	fan_emit(w, ev, RN_EV_ATTRIB);
	return true;
}

/*
 * The held MOVE goes out, then the link count change held after it;
 * replaced: that change was the file the move replaced.
 */
static void fan_move_release(struct fan_watch *w, bool replaced)
{
	if (w->count_held && replaced)
		w->held_move.replaced = w->held_count.obj;
	w->move_held = false;
	w->emit_dir[0] = &w->held_dirs[0];
	w->emit_dir[1] = &w->held_dirs[1];
	fan_emit(w, &w->held_move, RN_EV_MOVE);
	w->emit_dir[0] = NULL;
	w->emit_dir[1] = NULL;
	if (w->count_held) {
		w->count_held = false;
		fan_emit(w, &w->held_count, RN_EV_ATTRIB);
	}
}

/* Is rec the link or unlink of the held link count's file? */
static bool fan_count_is_of(const struct fan_watch *w,
			    const struct fan_record *rec)
{
	const struct fan_fid *a = &w->held_count_fid, *b = &rec->fid;

	return (rec->mask & (FAN_CREATE | FAN_DELETE)) && b->present &&
	       a->type == b->type && a->len == b->len &&
	       !memcmp(a->handle, b->handle, a->len);
}

/*
 * The records after a held MOVE (rec NULL: the end of their read). A
 * rename over a file reports that file's link count change right after
 * the rename (fsnotify_move()), so in the same read unless a read came
 * between the two: a link count record next, not our own, names the
 * file the move replaced, unless the record after it is a link or an
 * unlink of that file, which report their link count change just
 * before their own. The replay needs the replaced file where the client
 * was never shown its name (replay_names.c). True if rec was held.
 */
static bool fan_move_next(struct fan_watch *w, const struct fan_record *rec)
{
	struct rn_event *ev = &w->held_count;

	if (!rec || w->count_held) {
		fan_move_release(w, !rec || !fan_count_is_of(w, rec));
		return false;
	}
	if (rec->pid == w->pid || rec->pid == w->pid_now ||
	    !fan_is_link_count(rec)) {
		fan_move_release(w, false);
		return false;
	}
	memset(ev, 0, sizeof(*ev));
	if (fan_link_count_obj(w, rec, &ev->obj) <= 0) {
		/* Not wanted, or placed as any record: as it comes. */
		fan_move_release(w, false);
		return false;
	}
	ev->link_count = true;
	w->held_count_fid = rec->fid;
	w->count_held = true;
	return true;
}

static void fan_record_emit(struct fan_watch *w, const struct fan_record *rec)
{
	struct rn_event ev;
	size_t i;

	if (rec->fd >= 0)
		close(rec->fd);	/* never with FID reporting; be safe */
	if (rec->pid == w->pid || rec->pid == w->pid_now)
		return;
	memset(&ev, 0, sizeof(ev));
	if (rec->mask & FAN_Q_OVERFLOW) {
		/* A lost directory move would leave stale answers, and marks. */
		fan_scope_lost(&w->scope);
		fan_ignore_flush(&w->ignore);
		fan_emit(w, &ev, RN_EV_OVERFLOW);
		return;
	}
	ev.isdir = rec->mask & FAN_ONDIR;
	if (rec->mask & FAN_RENAME) {
		fan_rename(w, rec, &ev);
		return;
	}
	if (fan_link_count(w, rec, &ev))
		return;
	if (!fan_place(w, rec, &ev))
		return;
	if ((rec->mask & (FAN_CREATE | FAN_DELETE)) && !ev.name[0])
		return;		/* a dirent event needs a name */
	for (i = 0; i < FAN_KINDS; i++)
		if (rec->mask & fan_kind_of[i].mask)
			fan_emit(w, &ev, fan_kind_of[i].kind);
}

static void fan_record(void *arg, const struct fan_record *rec)
{
	struct fan_watch *w = arg;

	if (!w->move_held || !fan_move_next(w, rec))
		fan_record_emit(w, rec);
	/* rec is gone once this returns. */
	w->emit_dir[0] = NULL;
	w->emit_dir[1] = NULL;
}

static int fan_dir_path(const struct rn_event_paths *paths, int which,
			char *buf, size_t size)
{
	struct fan_watch *w = (struct fan_watch *)((char *)paths -
			      offsetof(struct fan_watch, paths));
	const struct fan_fid *fid = w->emit_dir[which ? 1 : 0];

	return fid ? fan_scope_path(&w->scope, fid, buf, size) : -ENOENT;
}

int fan_watch_read(struct fan_watch *w, watch_emit_fn emit, void *arg)
{
	ssize_t n;
	unsigned int errors = w->errors;
	int i;

	w->emit = emit;
	w->arg = arg;
	w->emitted = 0;
	/* Threads read, and a fork leaves them behind: the pid stays. */
	if (!w->pid_now)
		w->pid_now = getpid();
	fan_ignore_read_start(&w->ignore);
	for (i = 0; i < FAN_READS_PER_CALL; i++) {
		n = read(w->fd, w->buf, sizeof(w->buf));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0)
			return -errno;
		fan_decode(w->buf, (size_t)n, fan_record, w, &w->errors);
		if (w->move_held)
			fan_move_next(w, NULL);
		/*
		 * Room left for any record: the queue was empty. Reading on
		 * would only find EAGAIN; epoll says when more comes.
		 */
		if ((size_t)n + FAN_RECORD_MAX <= sizeof(w->buf))
			break;
	}
	if (w->errors != errors)
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: watch: %u malformed fanotify records skipped\n",
			 w->errors - errors);
	return w->emitted;
}
