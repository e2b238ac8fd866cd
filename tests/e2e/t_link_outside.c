// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A file the client holds, with a second link outside the export: the
 * host removes that link. No watcher on the mount hears of it (the host
 * reports a link count change to the file's own marks only, and the
 * name was outside), but the count the client shows must drop, even
 * with attributes kept for an hour: the server drops them as it reads
 * the change. A later remote change's event (e2e_sync()) proves that it
 * was read, as the host's order is kept; then the client must ask again.
 * The same for a new link outside. An unrelated file outside, one the
 * client never held, loses a link just before: the server passes over
 * such changes without looking their files up.
 */
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

/* st_nlink of MNT/rel, or 0 if it cannot be read. */
static nlink_t links_seen(const char *rel)
{
	struct stat st;

	return stat(e2e_mpath(rel), &st) ? 0 : st.st_nlink;
}

static void check_links(const char *check, const char *rel, nlink_t want)
{
	nlink_t got = links_seen(rel);

	if (got == want)
		e2e_pass(check);
	else
		e2e_fail(check, "%s shows %lu links, not %lu", rel,
			 (unsigned long)got, (unsigned long)want);
}

/* The host makes ops; then every event before them has been read. */
static bool remote_read(const char *check, const struct e2e_op *ops)
{
	if (e2e_remote("", ops)) {
		e2e_fail(check, "remote change failed");
		return false;
	}
	e2e_sync();
	return true;
}

int main(void)
{
	/* d/f comes into the export with its second link already made. */
	const struct e2e_op mk[] = {
		OP_MKDIR("d"), OP_MKNOD("../f-out"), OP_LINK("../f-out", "d/f"),
		OP_MKNOD("../other"), OP_LINK("../other", "../other-2"),
		OP_END
	};
	const struct e2e_op rm[] = {
		OP_UNLINK("../other-2"), OP_UNLINK("../f-out"), OP_END
	};
	const struct e2e_op ln[] = { OP_LINK("d/f", "../f-again"), OP_END };

	e2e_mount("attr_timeout=3600");
	if (!remote_read("link_outside/setup", mk))
		return check_exit();
	check_links("link_outside/held_with_two_links", "d/f", 2);
	if (remote_read("link_outside/unlink", rm))
		check_links("link_outside/outside_unlink_drops_the_count",
			    "d/f", 1);
	if (remote_read("link_outside/link", ln))
		check_links("link_outside/outside_link_raises_the_count",
			    "d/f", 2);
	return check_exit();
}
