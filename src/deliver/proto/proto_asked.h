/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proto_asked - the directories for whose events by name the kernel
 * asked for the child (ENODATA: a fanotify mark there, or on the
 * filesystem, reports the child itself), and for which kinds of event,
 * as long as no mark has changed since (proto_watches_epoch()).  The
 * next such event in the same directory then goes with the child's entry
 * at once, one notification instead of two.  A fixed table: a directory
 * pushed out of it costs one refused notification again, nothing more.
 */
#ifndef RNOTIFY_DELIVER_PROTO_PROTO_ASKED_H
#define RNOTIFY_DELIVER_PROTO_PROTO_ASKED_H

#include <stdbool.h>
#include <stdint.h>

#define PROTO_ASKED_SLOTS 64

struct proto_asked {
	struct {
		uint64_t dir;
		uint64_t epoch;
		uint32_t gen;
		uint32_t mask;	/* event kinds asked for */
	} slot[PROTO_ASKED_SLOTS];
};

/* The kernel asked for the child of a mask event in dir, at epoch. */
void proto_asked_note(struct proto_asked *a, uint64_t dir, uint32_t gen,
		      uint32_t mask, uint64_t epoch);

/* Did it, for every kind in mask, at this epoch? */
bool proto_asked(const struct proto_asked *a, uint64_t dir, uint32_t gen,
		 uint32_t mask, uint64_t epoch);

#endif
