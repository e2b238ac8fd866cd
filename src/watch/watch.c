// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The public watcher (watch.h): picks a backend and forwards to it.
 * fanotify is refused without CAP_SYS_ADMIN (EPERM) and on kernels or
 * file systems without FID reporting (EINVAL, ENODEV, EOPNOTSUPP,
 * EXDEV) and past the user's fanotify limits; WATCH_AUTO then falls back
 * to inotify, WATCH_FANOTIFY fails. Failures name the sysctl to raise when
 * a per-user limit was met (watch_limits.h).
 */
#include <errno.h>
#include <fuse_log.h>
#include <stdlib.h>
#include <string.h>

#include "watch.h"
#include "watch_backend.h"
#include "watch_limits.h"

struct watch {
	struct fan_watch *fan;	/* exactly one of these is set */
	struct inotify_watch *ino;
};

/*
 * fanotify_init() fails EMFILE and fanotify_mark() ENOSPC for the user's
 * limits; nothing else in fan_watch_open() fails ENOSPC.
 */
static enum watch_call watch_fan_call(int err)
{
	return err == ENOSPC ? WATCH_CALL_FANOTIFY_MARK :
	       WATCH_CALL_FANOTIFY_INIT;
}

/*
 * fanotify is not to be had here; with WATCH_AUTO inotify is tried. A
 * per-user limit counts: other programs of the user hold the groups, and
 * inotify still delivers (its own limits are checked as it watches).
 */
static bool watch_fan_refused(int err)
{
	return err == EPERM || err == EINVAL || err == ENODEV ||
	       err == EOPNOTSUPP || err == EXDEV || err == ENOSYS ||
	       watch_limit_met(watch_fan_call(err), err);
}

/* 0, or a negative errno after saying why. */
static int watch_open_backend(struct watch *w, const struct watch_config *cfg)
{
	int err;

	if (cfg->backend != WATCH_INOTIFY) {
		w->fan = fan_watch_open(cfg);
		if (w->fan)
			return 0;
		err = errno;
		if (cfg->backend == WATCH_FANOTIFY || !watch_fan_refused(err)) {
			watch_say_error("fanotify watch", watch_fan_call(err),
					err, "");
			return -err;
		}
		/* Only a limit is worth a word: EPERM is the normal case. */
		if (watch_limit_met(watch_fan_call(err), err))
			watch_say_error("fanotify watch", watch_fan_call(err),
					err, "; watching with inotify instead");
	}
	w->ino = inotify_watch_open(cfg);
	if (w->ino)
		return 0;
	/* A failed inotify_add_watch() was reported with its directory. */
	err = errno;
	if (err != ENOSPC)
		watch_say_error("inotify watch", WATCH_CALL_INOTIFY_INIT, err,
				"");
	return -err;
}

struct watch *watch_open(const struct watch_config *cfg)
{
	struct watch *w;
	int ret;

	if (!cfg || cfg->backing_fd < 0 || cfg->backend < WATCH_AUTO ||
	    cfg->backend > WATCH_INOTIFY) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: watch: bad configuration\n");
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	ret = watch_open_backend(w, cfg);
	if (ret < 0) {
		free(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

void watch_close(struct watch *w)
{
	if (!w)
		return;
	fan_watch_close(w->fan);
	inotify_watch_close(w->ino);
	free(w);
}

const char *watch_backend_name(const struct watch *w)
{
	return w->fan ? "fanotify" : "inotify";
}

const char *watch_describe(const struct watch *w)
{
	if (!w->fan)
		return "inotify, one watch per directory";
	if (fan_watch_ignores(w->fan))
		return "fanotify filesystem mark; a directory outside the export is ignored in the kernel once its first event is read (evictable ignore marks)";
	return "fanotify filesystem mark; every change on the file system is read (this kernel takes no evictable ignore marks: Linux 6.0 or later does)";
}

bool watch_keeps_unread(const struct watch *w)
{
	return w->fan;
}

int watch_fd(const struct watch *w)
{
	return w->fan ? fan_watch_fd(w->fan) : inotify_watch_fd(w->ino);
}

int watch_read(struct watch *w, watch_emit_fn emit, void *arg)
{
	if (w->fan)
		return fan_watch_read(w->fan, emit, arg);
	return inotify_watch_read(w->ino, emit, arg);
}

bool watch_objects(struct watch *w, unsigned int skip_kinds,
		   watch_held_fn held, void *arg)
{
	if (w->fan)
		fan_watch_objects(w->fan, skip_kinds, held, arg);
	return w->fan != NULL;
}

void watch_link_counts(struct watch *w, watch_held_fn held, void *arg)
{
	if (w->fan)
		fan_watch_link_counts(w->fan, held, arg);
}

void watch_own_change(struct watch *w, const struct rn_id *id,
		      const char *name, unsigned int kinds, bool ended,
		      const struct stat *after)
{
	if (w->ino)
		inotify_watch_own_change(w->ino, id, name, kinds, ended, after);
}
