/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expectations of the server's own changes, for the inotify backend
 * (inotify does not say who made a change). The passthrough announces
 * (dir, name) before it changes it; the first host event on (dir, name)
 * consumes the expectation and is not reported.
 *
 * Bounded: a ring of OWN_EXPECT_MAX entries; a new expectation overwrites
 * the oldest, so expiry is by count, not time (no clock, no timer).
 * Limitation: an outside change to the same name at the same moment can
 * be swallowed instead of the server's own, and an expectation whose
 * operation failed lingers until consumed or overwritten.
 */
#ifndef RNOTIFY_OWN_EXPECT_H
#define RNOTIFY_OWN_EXPECT_H

#include <limits.h>
#include <stdbool.h>

#include "../event.h"

#define OWN_EXPECT_MAX 256

struct own_expect {
	unsigned int next;
	struct {
		bool used;
		struct rn_id dir;
		char name[NAME_MAX + 1];
	} e[OWN_EXPECT_MAX];
};

/* A name longer than NAME_MAX or with '/' is ignored: no host event has it. */
void own_expect_add(struct own_expect *x, const struct rn_id *dir,
		    const char *name);
bool own_expect_consume(struct own_expect *x, const struct rn_id *dir,
			const char *name);

#endif
