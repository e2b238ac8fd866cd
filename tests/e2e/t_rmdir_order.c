// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A remote rm -r of a watched directory gives its watchers DELETE_SELF
 * (and IGNORED) before the parent's DELETE|ISDIR, as natively: the
 * directory dies inside d_delete(), before the parent is told. It does
 * so only if nobody else holds the directory at that moment; the
 * replayer's refresh of directory attributes (replay_stale.c), which
 * runs after a turn while the next one may already replay the rmdir,
 * once held it and turned the order round: 7 of 1,500 rounds on an idle
 * host. So the rounds are many; each is its own directory.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define RO_ROUNDS 1000
#define RO_CHECK "rmdir_order/rm_r_of_a_watched_dir"

/* The events of round i, by themselves, then up to the sentinel. */
static bool rm_r_seen(struct e2e_reader *r, int i, const char *d)
{
	char want[256], buf[1024], why[256];
	struct e2e_evlist got = { 0 };
	bool ok = false;

	snprintf(want, sizeof(want),
		 "[d: DELETE f, d: DELETE_SELF, d: IGNORED, DELETE|ISDIR %s]",
		 d);
	if (e2e_collect_expected(r, ".", 4, &got, why, sizeof(why)))
		e2e_fail(RO_CHECK, "round %d: %s; expected %s, got %s", i,
			 why, want, e2e_evlist_str(&got, buf, sizeof(buf)));
	else if (strcmp(e2e_evlist_str(&got, buf, sizeof(buf)), want))
		e2e_fail(RO_CHECK, "round %d: expected %s, got %s", i, want,
			 buf);
	else
		ok = true;
	e2e_evlist_free(&got);
	return ok;
}

/* Round i: rd<i>/f made, both watched, then removed as rm -r does. */
static bool rm_r_round(int i)
{
	char d[32], f[40];
	const struct e2e_op mk[] = { OP_MKDIR(d), OP_MKNOD(f), OP_END };
	const struct e2e_op rm[] = { OP_UNLINK(f), OP_RMDIR(d), OP_END };
	struct e2e_reader *r;
	bool ok = false;

	snprintf(d, sizeof(d), "rd%d", i);
	snprintf(f, sizeof(f), "rd%d/f", i);
	if (e2e_remote("", mk)) {
		e2e_fail(RO_CHECK, "round %d: remote mkdir failed", i);
		return false;
	}
	e2e_sync();
	r = e2e_inotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mnt(),
				    IN_CREATE | IN_DELETE) ||
	    e2e_inotify_watch(r, "d", e2e_mpath(d),
			      IN_DELETE | IN_DELETE_SELF))
		e2e_fail(RO_CHECK, "round %d: inotify watches failed", i);
	else if (e2e_remote("", rm))
		e2e_fail(RO_CHECK, "round %d: remote rm -r failed", i);
	else
		ok = rm_r_seen(r, i, d);
	if (r)
		e2e_reader_free(r);
	return ok;
}

int main(void)
{
	int i;

	e2e_mount(NULL);
	for (i = 0; i < RO_ROUNDS; i++)
		if (!rm_r_round(i))
			break;
	if (i == RO_ROUNDS)
		e2e_pass(RO_CHECK);
	return check_exit();
}
