/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the event readers (e2e_events.c, e2e_inotify.c,
 * e2e_fanotify.c): the reader object and the per-kind decoders.
 *
 * A reader owns one inotify or fanotify fd and a buffer of raw bytes read
 * from it; decoded events are handed out one at a time in kernel order.
 */
#ifndef RNOTIFY_E2E_READER_H
#define RNOTIFY_E2E_READER_H

#include <fcntl.h>

#include "e2e.h"

#define E2E_MAX_WATCHES 16
#define E2E_LABEL_MAX 32
#define E2E_HANDLE_MAX 128

struct e2e_watch {
	int wd;				/* inotify watch descriptor */
	char label[E2E_LABEL_MAX];
	unsigned int handle_len;	/* fanotify: the marked dir's handle */
	int handle_type;
	unsigned char handle[E2E_HANDLE_MAX];
};

struct e2e_reader {
	int fd;
	bool fanotify;
	int nwatch;
	struct e2e_watch watch[E2E_MAX_WATCHES];
	size_t len, off;		/* unread bytes are buf[off, len) */
	char buf[65536] __attribute__((aligned(8)));
};

/* Decode the record at buf[off]; advance off. 0 ok, -1 malformed. */
int e2e_inotify_decode(struct e2e_reader *r, struct e2e_ev *ev);
int e2e_fanotify_decode(struct e2e_reader *r, struct e2e_ev *ev);

/* Fills ev->text from label, mask names and name. */
void e2e_ev_format(struct e2e_ev *ev, const char *label, bool fanotify);

#endif
