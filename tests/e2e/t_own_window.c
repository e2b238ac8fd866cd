// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A remote write right after a local one is reported. Under -o
 * watch=inotify the server cannot tell its own host events from others
 * by pid: it takes a host event on an object it has just written for its
 * own until its reader has drained the queue. A remote write inside that
 * window was lost. Each round writes through the mount, reads the local
 * MODIFY, and at once writes the same file on BACKING, a few
 * microseconds later: the remote MODIFY must follow. The rounds are
 * many because the window is short: without the stamps of own_expect.h,
 * the server lost the remote write by round 18 in each of four runs on an
 * idle host (rounds 3, 2, 17 and 18).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define OW_ROUNDS 100

#define OW_CHECK "own_window/remote_write_after_local"

static bool local_modify_seen(struct e2e_reader *r, int round)
{
	struct e2e_evlist seen = { 0 };
	char buf[512];
	bool ok = e2e_wait_for(r, "MODIFY ow-f", &seen);

	if (!ok)
		e2e_fail(OW_CHECK, "round %d: no local MODIFY ow-f; got %s",
			 round, e2e_evlist_str(&seen, buf, sizeof(buf)));
	e2e_evlist_free(&seen);
	return ok;
}

/* The remote MODIFY, and nothing else, up to a sentinel. */
static bool remote_modify_seen(struct e2e_reader *r, int round)
{
	struct e2e_evlist got = { 0 };
	char why[256], buf[512];
	bool ok = false;

	if (e2e_collect(r, ".", &got, why, sizeof(why)))
		e2e_fail(OW_CHECK, "round %d: %s", round, why);
	else if (got.n != 1 || strcmp(got.ev[0].text, "MODIFY ow-f"))
		e2e_fail(OW_CHECK, "round %d: expected [MODIFY ow-f], got %s",
			 round, e2e_evlist_str(&got, buf, sizeof(buf)));
	else
		ok = true;
	e2e_evlist_free(&got);
	return ok;
}

/* One round; false once it failed (the rest would only repeat it). */
static bool own_then_remote(struct e2e_reader *r, int mfd, int bfd,
			    int round)
{
	if (pwrite(mfd, "m", 1, 0) != 1) {
		e2e_fail(OW_CHECK, "round %d: write through the mount failed",
			 round);
		return false;
	}
	if (!local_modify_seen(r, round))
		return false;
	if (pwrite(bfd, "b", 1, 0) != 1) {
		e2e_fail(OW_CHECK, "round %d: write on BACKING failed", round);
		return false;
	}
	return remote_modify_seen(r, round);
}

int main(void)
{
	static const struct e2e_op mk[] = { OP_MKNOD("ow-f"), OP_END };
	struct e2e_reader *r;
	int mfd, bfd, i;

	e2e_mount(NULL);
	if (e2e_remote("", mk))
		e2e_fail("own_window/setup", "remote mknod failed");
	e2e_sync();
	r = e2e_inotify_new();
	mfd = open(e2e_mpath("ow-f"), O_WRONLY | O_CLOEXEC);
	bfd = open(e2e_bpath("ow-f"), O_WRONLY | O_CLOEXEC);
	if (!r || mfd < 0 || bfd < 0 ||
	    e2e_inotify_watch(r, NULL, e2e_mnt(), E2E_MASK_DEFAULT)) {
		e2e_fail("own_window/setup", "open or watch failed");
		return check_exit();
	}
	for (i = 0; i < OW_ROUNDS; i++)
		if (!own_then_remote(r, mfd, bfd, i))
			break;
	if (i == OW_ROUNDS)
		e2e_pass(OW_CHECK);
	close(mfd);
	close(bfd);
	e2e_reader_free(r);
	return check_exit();
}
