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
 *
 * The same with the directory's dentry reclaimed before the rm -r (the
 * watch pins the inode, not its name): the replayer's handle of it
 * could then only be decoded through the parent's listing, which the
 * host had already removed it from, and DELETE f was lost as ESTALE.
 * Dropping the dentry cache makes that happen each round; the load of
 * a whole suite run did it once in some thousand rounds. Through an
 * agent, where each call is a round trip, the refresh after the turn
 * that made the directory once ran after the rm -r had begun: its
 * decode reconnected the directory by the name the host had just
 * removed, and its lookup hid that name (about once in 1,250 rounds).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define RO_ROUNDS 1000
#define RO_RECLAIM_ROUNDS 20
#define RO_CHECK "rmdir_order/rm_r_of_a_watched_dir"
#define RO_RECLAIM_CHECK "rmdir_order/rm_r_of_a_reclaimed_dir"

/* Unused dentries go, a watched directory's among them. */
static bool drop_dentries(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, "2", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The events of round i, by themselves, then up to the sentinel. */
static bool rm_r_seen(struct e2e_reader *r, const char *check, int i,
		      const char *d)
{
	char want[256], buf[1024], why[256];
	struct e2e_evlist got = { 0 };
	bool ok = false;

	snprintf(want, sizeof(want),
		 "[d: DELETE f, d: DELETE_SELF, d: IGNORED, DELETE|ISDIR %s]",
		 d);
	if (e2e_collect_expected(r, ".", 4, &got, why, sizeof(why)))
		e2e_fail(check, "round %d: %s; expected %s, got %s", i, why,
			 want, e2e_evlist_str(&got, buf, sizeof(buf)));
	else if (strcmp(e2e_evlist_str(&got, buf, sizeof(buf)), want))
		e2e_fail(check, "round %d: expected %s, got %s", i, want, buf);
	else
		ok = true;
	e2e_evlist_free(&got);
	return ok;
}

/*
 * Round i: <prefix><i>/f made, both watched, the dentries dropped if
 * reclaim, then removed as rm -r does.
 */
static bool rm_r_round(const char *check, const char *prefix, int i,
		       bool reclaim)
{
	char d[32], f[40];
	const struct e2e_op mk[] = { OP_MKDIR(d), OP_MKNOD(f), OP_END };
	const struct e2e_op rm[] = { OP_UNLINK(f), OP_RMDIR(d), OP_END };
	struct e2e_reader *r;
	bool ok = false;

	snprintf(d, sizeof(d), "%s%d", prefix, i);
	snprintf(f, sizeof(f), "%s/f", d);
	if (e2e_remote("", mk)) {
		e2e_fail(check, "round %d: remote mkdir failed", i);
		return false;
	}
	e2e_sync();
	r = e2e_inotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mnt(),
				    IN_CREATE | IN_DELETE) ||
	    e2e_inotify_watch(r, "d", e2e_mpath(d),
			      IN_DELETE | IN_DELETE_SELF))
		e2e_fail(check, "round %d: inotify watches failed", i);
	else if (reclaim && !drop_dentries())
		e2e_fail(check, "round %d: drop_caches: %m", i);
	else if (e2e_remote("", rm))
		e2e_fail(check, "round %d: remote rm -r failed", i);
	else
		ok = rm_r_seen(r, check, i, d);
	if (r)
		e2e_reader_free(r);
	return ok;
}

int main(void)
{
	int i;

	e2e_mount(NULL);
	for (i = 0; i < RO_ROUNDS; i++)
		if (!rm_r_round(RO_CHECK, "rd", i, false))
			break;
	if (i == RO_ROUNDS)
		e2e_pass(RO_CHECK);
	for (i = 0; i < RO_RECLAIM_ROUNDS; i++)
		if (!rm_r_round(RO_RECLAIM_CHECK, "rc", i, true))
			break;
	if (i == RO_RECLAIM_ROUNDS)
		e2e_pass(RO_RECLAIM_CHECK);
	return check_exit();
}
