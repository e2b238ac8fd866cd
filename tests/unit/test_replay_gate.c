// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay gate: only the announced replay is recognised, and only from
 * the replayer's thread (and, for a guest's agent, with its uid).
 */
#include <errno.h>
#include <string.h>

#include "deliver/replay/replay_internal.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

#define REPLAYER 4242
#define REFRESHER 4343	/* a refresh after its turn, another's now */

static struct replay r;

static struct fs_gate_answer ask(enum fs_gate_op op, pid_t tid,
				 uint64_t parent, const char *name)
{
	struct fs_gate_query q = { .op = op, .tid = tid, .parent = parent,
				   .name = name, .nodeid = parent };
	struct fs_gate_answer a;

	memset(&a, 0xa5, sizeof(a));
	replay_gate(&r, &q, &a);
	return a;
}

static void announce_create(void)
{
	struct replay_expect e = { .op = FS_GATE_MKNOD, .parent = 7,
				   .name_lookup_err = ENOENT };

	strcpy(e.name, "new");
	e.st.st_mode = S_IFREG | 0640;
	e.st.st_ino = 99;
	replay_expect_set(&r, &e);
}

/*
 * A guest's agent: its pid may be another guest process's once it is
 * gone, but only root can be the agent; any other uid is served normally.
 */
static void test_agent_uid(void)
{
	struct fs_gate_query q = { .op = FS_GATE_MKNOD, .tid = REPLAYER,
				   .uid = 1000, .parent = 7, .name = "new" };
	struct fs_gate_answer a;

	atomic_store(&r.gate_uid, 0);
	announce_create();
	replay_gate(&r, &q, &a);
	CHECK("agent's pid with another uid passes", a.verdict == FS_GATE_PASS);
	q.op = FS_GATE_LOOKUP;
	replay_gate(&r, &q, &a);
	CHECK("agent's pid with another uid: lookup passes",
	      a.verdict == FS_GATE_PASS);
	q.op = FS_GATE_MKNOD;
	q.uid = 0;
	replay_gate(&r, &q, &a);
	CHECK("agent's pid and uid 0 is answered",
	      a.verdict == FS_GATE_ANSWER);
	replay_expect_clear(&r);
	atomic_store(&r.gate_uid, (uid_t)-1);
}

static void test_other_threads_pass(void)
{
	announce_create();
	CHECK("other thread's mknod passes",
	      ask(FS_GATE_MKNOD, 1, 7, "new").verdict == FS_GATE_PASS);
	CHECK("other thread's lookup passes",
	      ask(FS_GATE_LOOKUP, 1, 7, "new").verdict == FS_GATE_PASS);
	replay_expect_clear(&r);
}

static void test_create(void)
{
	struct fs_gate_answer a;

	announce_create();
	a = ask(FS_GATE_LOOKUP, REPLAYER, 7, "new");
	CHECK("name being created looks absent",
	      a.verdict == FS_GATE_ERR && a.err == ENOENT);
	CHECK("path component lookup passes",
	      ask(FS_GATE_LOOKUP, REPLAYER, 7, "other").verdict ==
	      FS_GATE_PASS);
	a = ask(FS_GATE_MKNOD, REPLAYER, 7, "new");
	CHECK("announced mknod is answered from the event",
	      a.verdict == FS_GATE_ANSWER && a.st.st_ino == 99 &&
	      a.st.st_mode == (S_IFREG | 0640));
	a = ask(FS_GATE_MKNOD, REPLAYER, 7, "else");
	CHECK("unannounced mknod by the replayer is refused",
	      a.verdict == FS_GATE_ERR && a.err == EPERM);
	a = ask(FS_GATE_MKDIR, REPLAYER, 7, "new");
	CHECK("announced name with another op is refused",
	      a.verdict == FS_GATE_ERR && a.err == EPERM);
	a = ask(FS_GATE_UNLINK, REPLAYER, 8, "new");
	CHECK("announced name in another dir is refused",
	      a.verdict == FS_GATE_ERR);
	replay_expect_clear(&r);
}

static void test_idle(void)
{
	struct fs_gate_answer a = ask(FS_GATE_UNLINK, REPLAYER, 7, "x");

	CHECK("replayer change with nothing announced is refused",
	      a.verdict == FS_GATE_ERR && a.err == EPERM);
	CHECK("replayer lookup with nothing announced passes",
	      ask(FS_GATE_LOOKUP, REPLAYER, 7, "x").verdict == FS_GATE_PASS);
}

static void test_rename(void)
{
	struct replay_expect e = { .op = FS_GATE_RENAME, .parent = 3,
				   .newparent = 4,
				   .newname_lookup_err = ENOENT };
	struct fs_gate_query q = { .op = FS_GATE_RENAME, .tid = REPLAYER,
				   .parent = 3, .name = "a", .newparent = 4,
				   .newname = "b" };
	struct fs_gate_answer a;

	strcpy(e.name, "a");
	strcpy(e.newname, "b");
	replay_expect_set(&r, &e);
	CHECK("rename source is answered with the old entry",
	      ask(FS_GATE_LOOKUP, REPLAYER, 3, "a").verdict ==
	      FS_GATE_ANSWER);
	a = ask(FS_GATE_LOOKUP, REPLAYER, 4, "b");
	CHECK("fresh rename target looks absent",
	      a.verdict == FS_GATE_ERR && a.err == ENOENT);
	replay_gate(&r, &q, &a);
	CHECK("announced rename is answered", a.verdict == FS_GATE_ANSWER);
	q.flags = 1;	/* RENAME_NOREPLACE: not what was announced */
	replay_gate(&r, &q, &a);
	CHECK("rename with other flags is refused", a.verdict == FS_GATE_ERR);
	replay_expect_clear(&r);
}

/* A name the replay removes: the kernel will drop one of its links. */
static void test_removes(void)
{
	struct replay_expect e = { .op = FS_GATE_RENAME, .parent = 3,
				   .newparent = 4 };

	strcpy(e.name, "a");
	strcpy(e.newname, "b");
	replay_expect_set(&r, &e);
	CHECK("removes: a rename source keeps its links",
	      !ask(FS_GATE_LOOKUP, REPLAYER, 3, "a").removes);
	CHECK("removes: the file a rename replaces loses one",
	      ask(FS_GATE_LOOKUP, REPLAYER, 4, "b").removes);
	e.op = FS_GATE_UNLINK;
	replay_expect_set(&r, &e);
	CHECK("removes: an unlinked name loses one",
	      ask(FS_GATE_LOOKUP, REPLAYER, 3, "a").removes);
	CHECK("removes: not a path component",
	      !ask(FS_GATE_LOOKUP, REPLAYER, 4, "b").removes);
	e.op = FS_GATE_SETATTR;
	replay_expect_set(&r, &e);
	CHECK("removes: not an object being changed",
	      !ask(FS_GATE_LOOKUP, REPLAYER, 3, "a").removes);
	CHECK("removes: not another thread's lookup",
	      !ask(FS_GATE_LOOKUP, 1, 3, "a").removes);
	replay_expect_clear(&r);
}

static void test_write(void)
{
	struct replay_expect e = { .op = FS_GATE_WRITE, .node = 12 };

	replay_expect_set(&r, &e);
	CHECK("open of the target is made direct",
	      ask(FS_GATE_OPEN, REPLAYER, 12, NULL).verdict ==
	      FS_GATE_OPEN_DIRECT);
	CHECK("open of another node passes",
	      ask(FS_GATE_OPEN, REPLAYER, 13, NULL).verdict == FS_GATE_PASS);
	CHECK("write to the target is swallowed",
	      ask(FS_GATE_WRITE, REPLAYER, 12, NULL).verdict ==
	      FS_GATE_ANSWER);
	CHECK("write to another node is refused",
	      ask(FS_GATE_WRITE, REPLAYER, 13, NULL).verdict == FS_GATE_ERR);
	CHECK("setattr during a write replay is refused",
	      ask(FS_GATE_SETATTR, REPLAYER, 12, NULL).verdict ==
	      FS_GATE_ERR);
	replay_expect_clear(&r);
}

static void test_link(void)
{
	struct replay_expect e = { .op = FS_GATE_LINK, .parent = 7,
				   .node = 30, .name_lookup_err = ENOENT };
	struct fs_gate_query q = { .op = FS_GATE_LINK, .tid = REPLAYER,
				   .parent = 7, .name = "g", .nodeid = 30 };
	struct fs_gate_answer a;

	strcpy(e.name, "g");
	replay_expect_set(&r, &e);
	replay_gate(&r, &q, &a);
	CHECK("announced link is answered", a.verdict == FS_GATE_ANSWER);
	q.nodeid = 31;
	replay_gate(&r, &q, &a);
	CHECK("link of another inode is refused", a.verdict == FS_GATE_ERR);
	replay_expect_clear(&r);
}

/*
 * A lookup of the replayer's that no replay announced (the kernel
 * reconnecting a directory's handle, a path walk) hides no name the
 * client was shown when it finds none; a client's lookup does.
 */
static void test_keeps_shown(void)
{
	struct fs_gate_answer a;

	CHECK("keeps_shown: the replayer's lookup, nothing announced",
	      ask(FS_GATE_LOOKUP, REPLAYER, 7, "x").keeps_shown);
	announce_create();
	a = ask(FS_GATE_LOOKUP, REPLAYER, 3, "dir");
	CHECK("keeps_shown: the replayer's lookup of a path component",
	      a.verdict == FS_GATE_PASS && a.keeps_shown);
	a = ask(FS_GATE_LOOKUP, REPLAYER, 7, "new");
	CHECK("keeps_shown: not the lookup a create announced",
	      a.verdict == FS_GATE_ERR && !a.keeps_shown);
	CHECK("keeps_shown: not another thread's lookup",
	      !ask(FS_GATE_LOOKUP, 1, 7, "x").keeps_shown);
	CHECK("keeps_shown: not a refresh's, with no refresh",
	      !ask(FS_GATE_LOOKUP, REFRESHER, 7, "x").keeps_shown);
	atomic_store(&r.refresh_tid, REFRESHER);
	a = ask(FS_GATE_LOOKUP, REFRESHER, 7, "new");
	CHECK("keeps_shown: a refresh's lookup, the turn another's",
	      a.verdict == FS_GATE_PASS && a.keeps_shown);
	a = ask(FS_GATE_MKNOD, REFRESHER, 7, "new");
	CHECK("a refresh's change is refused, the turn another's",
	      a.verdict == FS_GATE_ERR && a.err == EPERM);
	atomic_store(&r.refresh_tid, -1);
	replay_expect_clear(&r);
}

int main(void)
{
	pthread_mutex_init(&r.lock, NULL);
	atomic_init(&r.tid, REPLAYER);
	atomic_init(&r.refresh_tid, -1);
	atomic_init(&r.gate_uid, (uid_t)-1);
	test_other_threads_pass();
	test_agent_uid();
	test_create();
	test_idle();
	test_rename();
	test_write();
	test_link();
	test_removes();
	test_keeps_shown();
	return check_exit();
}
