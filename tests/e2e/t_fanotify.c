// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fanotify on the mount: a FAN_REPORT_DFID_NAME | FAN_REPORT_FID group with
 * an inode mark on a directory of MNT (the kind of mark a stock FUSE mount
 * accepts) must get remote creates, deletes and renames with the right
 * names and the ONDIR flag. fanotify has no rename cookie; both halves
 * must still arrive, in order.
 *
 * fanotify merges queued events of the same object and name, so every
 * action here touches a distinct name.
 */
#include <stdio.h>
#include <sys/fanotify.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define FAN_DIRENT_MASK (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | \
			 FAN_MOVED_TO | FAN_EVENT_ON_CHILD | FAN_ONDIR)

struct fan_case {
	const char *check;
	struct e2e_op setup[4];
	struct e2e_op action[4];
	const char *want[4];
};

static const struct fan_case fan_cases[] = {
	{ "fanotify/create", { OP_END }, { OP_MKNOD("a") },
	  { "CREATE a" } },
	{ "fanotify/mkdir", { OP_END }, { OP_MKDIR("d") },
	  { "CREATE|ONDIR d" } },
	{ "fanotify/unlink", { OP_MKNOD("b") }, { OP_UNLINK("b") },
	  { "DELETE b" } },
	{ "fanotify/rmdir", { OP_MKDIR("e") }, { OP_RMDIR("e") },
	  { "DELETE|ONDIR e" } },
	{ "fanotify/rename", { OP_MKNOD("c") }, { OP_RENAME("c", "c2") },
	  { "MOVED_FROM c", "MOVED_TO c2" } },
	{ "fanotify/rename_dir", { OP_MKDIR("g") }, { OP_RENAME("g", "g2") },
	  { "MOVED_FROM|ONDIR g", "MOVED_TO|ONDIR g2" } },
};

static void fan_run(const struct fan_case *c, int i)
{
	struct e2e_op mk[] = { OP_MKDIR(NULL), OP_END };
	struct e2e_reader *r;
	char dir[32];

	snprintf(dir, sizeof(dir), "fan%d", i);
	mk[0].path = dir;
	if (e2e_remote("", mk) || e2e_remote(dir, c->setup)) {
		e2e_fail(c->check, "remote setup failed");
		return;
	}
	e2e_sync();
	r = e2e_fanotify_new();
	if (!r) {
		e2e_fail(c->check, "fanotify_init failed");
		return;
	}
	if (e2e_fanotify_mark(r, NULL, e2e_mpath(dir), FAN_DIRENT_MASK))
		e2e_fail(c->check, "inode mark on MNT/%s failed", dir);
	else if (e2e_remote(dir, c->action))
		e2e_fail(c->check, "remote action failed");
	else
		e2e_expect(r, dir, c->check, c->want);
	e2e_reader_free(r);
}

int main(void)
{
	size_t i;

	e2e_mount(NULL);
	for (i = 0; i < sizeof(fan_cases) / sizeof(fan_cases[0]); i++)
		fan_run(&fan_cases[i], (int)i);
	return check_exit();
}
