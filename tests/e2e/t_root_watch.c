// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A watcher of the mount root, asking for every event (OPEN and
 * CLOSE_NOWRITE included), gets exactly the events native inotify gives
 * for remote changes in the root: the replayer's own way into the mount
 * must not show. It once opened the root for every replay, which gave
 * such a watcher OPEN|ISDIR and CLOSE_NOWRITE|ISDIR around each event.
 * The remote actor reaches BACKING by O_PATH, so that in native mode
 * (MNT = BACKING) it adds no OPEN|ISDIR of its own.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

struct rw_step {
	const char *check;
	struct e2e_op ops[4];
	const char *want[8];
};

static const struct rw_step rw_steps[] = {
	{ "rootwatch/create", { OP_MKNOD("rw-f"), OP_END },
	  { "CREATE rw-f" } },
	{ "rootwatch/mkdir", { OP_MKDIR("rw-d"), OP_END },
	  { "CREATE|ISDIR rw-d" } },
	{ "rootwatch/rename", { OP_RENAME("rw-f", "rw-g"), OP_END },
	  { "MOVED_FROM rw-f", "MOVED_TO rw-g" } },
	{ "rootwatch/write", { OP_WRITE("rw-g", "x"), OP_END },
	  { "OPEN rw-g", "MODIFY rw-g", "CLOSE_WRITE rw-g" } },
	{ "rootwatch/unlink", { OP_UNLINK("rw-g"), OP_END },
	  { "DELETE rw-g" } },
	{ "rootwatch/rmdir", { OP_RMDIR("rw-d"), OP_END },
	  { "DELETE|ISDIR rw-d" } },
	/*
	 * The host's fanotify queue may merge an unread CREATE and DELETE of
	 * one name into one event: the burst ends with the name it deletes.
	 */
	{ "rootwatch/burst", { OP_MKNOD("rw-1"), OP_MKNOD("rw-2"),
			       OP_UNLINK("rw-2"), OP_END },
	  { "CREATE rw-1", "CREATE rw-2", "DELETE rw-2" } },
	{ "rootwatch/chmod_root", { OP_CHMOD(".", 0755), OP_END },
	  { "ATTRIB|ISDIR" } },
};

/*
 * With BACKING's parent watched for its children, the host reports a
 * change of the export root as a change of a child of a directory
 * outside the export: it must still be recognised as the root's.
 */
static void chmod_root_parent_watched(struct e2e_reader *r)
{
	static const struct e2e_op ops[] = { OP_CHMOD(".", 0700), OP_END };
	static const char *const want[] = { "ATTRIB|ISDIR", NULL };
	char parent[PATH_MAX];
	int fd = inotify_init1(IN_CLOEXEC);

	snprintf(parent, sizeof(parent), "%s/..", e2e_backing());
	if (fd < 0 || inotify_add_watch(fd, parent, IN_ATTRIB) < 0)
		e2e_fail("rootwatch/chmod_root_parent_watched",
			 "inotify watch on BACKING/.. failed");
	else if (e2e_remote("", ops))
		e2e_fail("rootwatch/chmod_root_parent_watched",
			 "remote actor failed");
	else
		e2e_expect(r, ".", "rootwatch/chmod_root_parent_watched", want);
	if (fd >= 0)
		close(fd);
}

#define RW_COUNT (int)(sizeof(rw_steps) / sizeof(rw_steps[0]))

int main(void)
{
	struct e2e_reader *r;
	int i;

	e2e_mount(NULL);
	e2e_sync();
	r = e2e_inotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mnt(), IN_ALL_EVENTS)) {
		e2e_fail("rootwatch/watch", "inotify watch on MNT failed");
		return check_exit();
	}
	for (i = 0; i < RW_COUNT; i++) {
		if (e2e_remote("", rw_steps[i].ops))
			e2e_fail(rw_steps[i].check, "remote actor failed");
		else
			e2e_expect(r, ".", rw_steps[i].check,
				   rw_steps[i].want);
	}
	chmod_root_parent_watched(r);
	e2e_reader_free(r);
	return check_exit();
}
