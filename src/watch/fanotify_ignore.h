/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories outside the export, told to the kernel: an ignore mark on
 * each directory the scope placed outside, so that what happens in it
 * makes no event at all (fanotify_ignore.c says why, and what it costs).
 */
#ifndef RNOTIFY_WATCH_FANOTIFY_IGNORE_H
#define RNOTIFY_WATCH_FANOTIFY_IGNORE_H

#include <stdbool.h>
#include <stdint.h>

#include "event/event.h"

/* Handles marked during one read, remembered so a burst marks once. */
#define FAN_IGNORE_RECENT 8

struct fan_ignore {
	int fan_fd;		/* the group's fd (not owned) */
	bool on;		/* the kernel takes evictable ignore marks */
	struct rn_id root_parent;	/* never marked: see fanotify_ignore.c */
	unsigned int marks;	/* added since the last flush */
	uint32_t recent[FAN_IGNORE_RECENT];
	unsigned int nrecent, next;
};

/*
 * Probes the kernel with a mark on the export root, removed at once:
 * ig->on says whether directories will be marked. Never fails.
 */
void fan_ignore_init(struct fan_ignore *ig, int fan_fd, int root_fd);

/*
 * Is a directory whose handle has gen, placed outside, to be marked? Not
 * if the kernel takes no marks, nor if it was marked during this read.
 */
bool fan_ignore_wanted(const struct fan_ignore *ig, uint32_t gen);

/* Marks dir_fd (O_PATH, not consumed), whose handle has gen. */
void fan_ignore_dir(struct fan_ignore *ig, int dir_fd, uint32_t gen);

/* A new read of the group's fd starts: its bursts are new ones. */
void fan_ignore_read_start(struct fan_ignore *ig);

/*
 * A directory may have moved into the export (or a move was lost): drop
 * every mark, as which of them are inside now is not known.
 */
void fan_ignore_flush(struct fan_ignore *ig);

#endif
