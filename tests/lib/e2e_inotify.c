// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inotify reader: one inotify instance with up to E2E_MAX_WATCHES labelled
 * watches, so that events of several watches keep their relative kernel
 * order (one queue), which a sentinel-terminated check relies on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "e2e_reader.h"

struct e2e_reader *e2e_inotify_new(void)
{
	struct e2e_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (r->fd < 0) {
		free(r);
		return NULL;
	}
	return r;
}

int e2e_inotify_watch(struct e2e_reader *r, const char *label,
		      const char *path, uint32_t mask)
{
	struct e2e_watch *w;
	int wd;

	if (r->nwatch == E2E_MAX_WATCHES)
		return -ENOSPC;
	wd = inotify_add_watch(r->fd, path, mask);
	if (wd < 0) {
		fprintf(stderr, "e2e: inotify_add_watch %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	w = &r->watch[r->nwatch++];
	w->wd = wd;
	snprintf(w->label, sizeof(w->label), "%s", label ? label : "");
	return 0;
}

int e2e_inotify_decode(struct e2e_reader *r, struct e2e_ev *ev)
{
	const struct inotify_event *ie;
	const char *label = "?";
	int i;

	if (r->len - r->off < sizeof(*ie))
		return -1;
	ie = (const struct inotify_event *)(r->buf + r->off);
	if (r->len - r->off < sizeof(*ie) + ie->len)
		return -1;
	r->off += sizeof(*ie) + ie->len;
	ev->mask = ie->mask;
	ev->cookie = ie->cookie;
	if (ie->len)
		snprintf(ev->name, sizeof(ev->name), "%s", ie->name);
	/* An overflow event has wd -1 and belongs to no watch. */
	if (ie->wd < 0)
		label = "";
	for (i = 0; i < r->nwatch; i++) {
		if (r->watch[i].wd == ie->wd) {
			ev->watch = i;
			label = r->watch[i].label;
			break;
		}
	}
	e2e_ev_format(ev, label, false);
	return 0;
}
