/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The two watcher backends behind watch.h. watch.c chooses one and
 * forwards to it; a backend never calls the other.
 */
#ifndef RNOTIFY_WATCH_WATCH_BACKEND_H
#define RNOTIFY_WATCH_WATCH_BACKEND_H

#include <stdbool.h>

#include "watch.h"

struct fan_watch;
struct inotify_watch;

/* NULL with errno set; EPERM/EINVAL/ENOSYS mean "not available here". */
struct fan_watch *fan_watch_open(const struct watch_config *cfg);
void fan_watch_close(struct fan_watch *w);
int fan_watch_fd(const struct fan_watch *w);
/* Are directories outside the export ignored in the kernel? */
bool fan_watch_ignores(const struct fan_watch *w);
/* As watch_read(): the number emitted, or a negative errno. */
int fan_watch_read(struct fan_watch *w, watch_emit_fn emit, void *arg);
void fan_watch_objects(struct fan_watch *w, unsigned int skip_kinds,
		       watch_held_fn held, void *arg);
void fan_watch_link_counts(struct fan_watch *w, watch_held_fn held,
			   void *arg);

/* NULL with errno set. */
struct inotify_watch *inotify_watch_open(const struct watch_config *cfg);
void inotify_watch_close(struct inotify_watch *w);
int inotify_watch_fd(const struct inotify_watch *w);
/* As watch_read(): the number emitted, or a negative errno. */
int inotify_watch_read(struct inotify_watch *w, watch_emit_fn emit, void *arg);
void inotify_watch_own_change(struct inotify_watch *w, const struct rn_id *id,
			  const char *name, unsigned int kinds, bool ended,
			  const struct stat *after);

/* Host id of an fd: (st_dev, st_ino), gen unknown. 0 or a negative errno. */
int watch_fd_id(int fd, struct rn_id *id);
/*
 * The gen of name in dfd (not followed; "" for dfd itself), from its file
 * handle; 0 if it has none.
 */
uint32_t watch_name_gen(int dfd, const char *name);

#endif
