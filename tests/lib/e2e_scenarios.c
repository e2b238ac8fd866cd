// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event scenarios: one action each and the exact events a watcher on
 * the mount must get, in order. Every expected list here is what native
 * inotify gives on ext4 for the same action on kernel 6.18 (checked with
 * RNOTIFY_NATIVE=1 tests/run-all --native): the kernel's truth, not our
 * guess. Watches use E2E_MASK_DEFAULT (no OPEN/ACCESS/CLOSE_NOWRITE)
 * unless a scenario says IN_ALL_EVENTS.
 *
 * What native gives, where it is not obvious (measured, 6.18, ext4):
 * - open(O_WRONLY|O_TRUNC), write, close: MODIFY, CLOSE_WRITE under the
 *   default mask (the truncate's MODIFY and the write's MODIFY are
 *   identical and adjacent, so inotify merges them); with IN_ALL_EVENTS:
 *   OPEN, MODIFY, CLOSE_WRITE. open(O_WRONLY|O_APPEND), write, close gives
 *   the same. So OPEN is native truth only for watchers that ask for it;
 *   the *_all scenarios hold the server to it, the others to no OPEN.
 * - creat() + close of an empty file: CREATE, CLOSE_WRITE (OPEN too under
 *   IN_ALL_EVENTS); mknod: CREATE alone. touch(1) of a new name: CREATE,
 *   ATTRIB, CLOSE_WRITE (with IN_ALL_EVENTS, OPEN second; a remote one
 *   shows it third, README "Limits", so no scenario asks for it).
 * - unlink of a watched file nobody holds open: the file's ATTRIB,
 *   DELETE_SELF and IGNORED come *before* the parent's DELETE (the inode
 *   dies inside d_delete, before the parent is told).
 * - rename over a watched file: MOVED_FROM/MOVED_TO, then the victim's
 *   ATTRIB, DELETE_SELF, IGNORED; the parent gets no DELETE.
 * - rmdir of a watched dir: DELETE_SELF, IGNORED, then the parent's
 *   DELETE|ISDIR.
 * - IN_ALL_EVENTS on a dir also reports every opendir of it, so those
 *   scenarios watch a subdir "w" and act by path from its parent.
 */
#include "e2e_scenario.h"

#define W_DIR { "", "", 0 }
#define W(label, path) { (label), (path), 0 }
#define W_ALL(label, path) { (label), (path), IN_ALL_EVENTS }

const struct e2e_scenario e2e_event_scenarios[] = {
	{ "create_mknod", { OP_END }, { W_DIR },
	  { OP_MKNOD("f") }, { "CREATE f" } },
	{ "create_creat_close", { OP_END }, { W_DIR },
	  { OP_CREAT("f", NULL) }, { "CREATE f", "CLOSE_WRITE f" } },
	{ "create_creat_close_all", { OP_MKDIR("w") }, { W_ALL("", "w") },
	  { OP_CREAT("w/f", NULL) },
	  { "CREATE f", "OPEN f", "CLOSE_WRITE f" } },
	{ "touch", { OP_END }, { W_DIR },
	  { OP_TOUCH("f") }, { "CREATE f", "ATTRIB f", "CLOSE_WRITE f" } },
	{ "create_write_close", { OP_END }, { W_DIR },
	  { OP_CREAT("f", "hello") },
	  { "CREATE f", "MODIFY f", "CLOSE_WRITE f" } },
	{ "mkdir", { OP_END }, { W_DIR },
	  { OP_MKDIR("d") }, { "CREATE|ISDIR d" } },
	{ "unlink", { OP_MKNOD("f") }, { W_DIR },
	  { OP_UNLINK("f") }, { "DELETE f" } },
	{ "rmdir", { OP_MKDIR("d") }, { W_DIR },
	  { OP_RMDIR("d") }, { "DELETE|ISDIR d" } },
	{ "rename_file", { OP_MKNOD("a") }, { W_DIR },
	  { OP_RENAME("a", "b") }, { "MOVED_FROM a", "MOVED_TO b" } },
	{ "rename_dir", { OP_MKDIR("d") }, { W_DIR },
	  { OP_RENAME("d", "e") },
	  { "MOVED_FROM|ISDIR d", "MOVED_TO|ISDIR e" } },
	{ "rename_file_across", { OP_MKDIR("x"), OP_MKDIR("y"),
				  OP_MKNOD("x/a") },
	  { W("x", "x"), W("y", "y") },
	  { OP_RENAME("x/a", "y/b") }, { "x: MOVED_FROM a", "y: MOVED_TO b" } },
	{ "rename_dir_across", { OP_MKDIR("x"), OP_MKDIR("y"),
				 OP_MKDIR("x/d") },
	  { W("x", "x"), W("y", "y") },
	  { OP_RENAME("x/d", "y/e") },
	  { "x: MOVED_FROM|ISDIR d", "y: MOVED_TO|ISDIR e" } },
	{ "rename_overwrite", { OP_MKNOD("a"), OP_MKNOD("b") }, { W_DIR },
	  { OP_RENAME("a", "b") }, { "MOVED_FROM a", "MOVED_TO b" } },
	{ "rename_overwrite_watched", { OP_MKNOD("a"), OP_MKNOD("b") },
	  { W_DIR, W("b", "b") },
	  { OP_RENAME("a", "b") },
	  { "MOVED_FROM a", "MOVED_TO b", "b: ATTRIB", "b: DELETE_SELF",
	    "b: IGNORED" } },
	{ "write_trunc", { OP_CREAT("f", "old") }, { W_DIR },
	  { OP_WRITE("f", "new data") }, { "MODIFY f", "CLOSE_WRITE f" } },
	{ "write_trunc_all", { OP_MKDIR("w"), OP_CREAT("w/f", "old") },
	  { W_ALL("", "w") }, { OP_WRITE("w/f", "new data") },
	  { "OPEN f", "MODIFY f", "CLOSE_WRITE f" } },
	{ "append", { OP_CREAT("f", "old") }, { W_DIR },
	  { OP_APPEND("f", "more") }, { "MODIFY f", "CLOSE_WRITE f" } },
	{ "append_all", { OP_MKDIR("w"), OP_CREAT("w/f", "old") },
	  { W_ALL("", "w") }, { OP_APPEND("w/f", "more") },
	  { "OPEN f", "MODIFY f", "CLOSE_WRITE f" } },
	{ "chmod", { OP_MKNOD("f") }, { W_DIR },
	  { OP_CHMOD("f", 0600) }, { "ATTRIB f" } },
	{ "chmod_dir", { OP_MKDIR("d") }, { W_DIR },
	  { OP_CHMOD("d", 0700) }, { "ATTRIB|ISDIR d" } },
	{ "utimens", { OP_MKNOD("f") }, { W_DIR },
	  { OP_UTIMES("f", 1000000000) }, { "ATTRIB f" } },
	{ "chown", { OP_MKNOD("f") }, { W_DIR },
	  { OP_CHOWN("f", 4321) }, { "ATTRIB f" } },
	{ "truncate", { OP_CREAT("f", "12345") }, { W_DIR },
	  { OP_TRUNCATE("f", 2) }, { "MODIFY f" } },
	{ "symlink", { OP_END }, { W_DIR },
	  { OP_SYMLINK("l", "target") }, { "CREATE l" } },
	{ "link", { OP_MKNOD("f") }, { W_DIR },
	  { OP_LINK("f", "g") }, { "CREATE g" } },
	{ "link_watched", { OP_MKNOD("f") }, { W_DIR, W("f", "f") },
	  { OP_LINK("f", "g") }, { "f: ATTRIB", "CREATE g" } },
	/* A link count change goes to the file's own watch alone. */
	{ "unlink_a_link", { OP_MKNOD("f"), OP_LINK("f", "g") },
	  { W_DIR, W("f", "f") },
	  { OP_UNLINK("g") }, { "f: ATTRIB", "DELETE g" } },
	{ "rename_over_a_link",
	  { OP_MKNOD("f"), OP_LINK("f", "g"), OP_MKNOD("n") },
	  { W_DIR, W("f", "f") },
	  { OP_RENAME("n", "g") }, { "MOVED_FROM n", "MOVED_TO g", "f: ATTRIB" } },
	{ "self_write", { OP_CREAT("f", "old") }, { W_DIR, W("f", "f") },
	  { OP_OVERWRITE("f", "new") },
	  { "MODIFY f", "f: MODIFY", "CLOSE_WRITE f", "f: CLOSE_WRITE" } },
	{ "self_unlink", { OP_MKNOD("f") }, { W_DIR, W("f", "f") },
	  { OP_UNLINK("f") },
	  { "f: ATTRIB", "f: DELETE_SELF", "f: IGNORED", "DELETE f" } },
	{ "self_rename", { OP_MKNOD("f") }, { W_DIR, W("f", "f") },
	  { OP_RENAME("f", "g") },
	  { "MOVED_FROM f", "MOVED_TO g", "f: MOVE_SELF" } },
	{ "self_rename_only", { OP_MKDIR("s"), OP_MKNOD("f") },
	  { W("s", "s"), W("f", "f") },
	  { OP_RENAME("f", "g") }, { "f: MOVE_SELF" } },
	/* Remotely the file is often gone before its change is replayed. */
	{ "chmod_then_unlink", { OP_END }, { W_DIR },
	  { OP_MKNOD("f"), OP_CHMOD("f", 0600), OP_UNLINK("f") },
	  { "CREATE f", "ATTRIB f", "DELETE f" } },
	{ "append_then_unlink", { OP_END }, { W_DIR },
	  { OP_MKNOD("f"), OP_APPEND("f", "x"), OP_UNLINK("f") },
	  { "CREATE f", "MODIFY f", "CLOSE_WRITE f", "DELETE f" } },
	{ "dir_removed", { OP_MKDIR("d") }, { W_DIR, W("d", "d") },
	  { OP_RMDIR("d") },
	  { "d: DELETE_SELF", "d: IGNORED", "DELETE|ISDIR d" } },
	{ "subdir", { OP_MKDIR("sub") }, { W_DIR, W("sub", "sub") },
	  { OP_MKNOD("sub/f"), OP_MKDIR("sub/d") },
	  { "sub: CREATE f", "sub: CREATE|ISDIR d" } },
};

const int e2e_event_scenarios_count =
	sizeof(e2e_event_scenarios) / sizeof(e2e_event_scenarios[0]);
