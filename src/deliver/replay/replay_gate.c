// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The gate: how the file system learns that a request is the replay in
 * flight, and what to answer.
 *
 * Only the replay in flight is recognised (r->expect, set by the replayer
 * just before its syscall), never a blanket bypass for the replayer's
 * thread: a request from the replayer that the replay did not announce is
 * refused if it would change anything, and served normally otherwise.
 * The refresh after a turn (replay_stale.c) is the replayer too, but
 * announces nothing: the turn in flight may be another thread's.
 *
 * A lookup of the replayer's served normally neither hides the name on
 * ENOENT nor lets the kernel keep it as missing (keeps_shown): the
 * kernel makes such lookups when it reconnects a directory's handle
 * whose dentry it dropped, at any point of the host's history; a
 * refresh that decoded a directory just removed on the host hid its
 * name, and the replay of the removal, which reaches the directory by
 * that name, lost DELETE of its last file as ESTALE and removed a
 * stand-in (no DELETE_SELF).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "replay_internal.h"

void replay_expect_set(struct replay *r, const struct replay_expect *e)
{
	pthread_mutex_lock(&r->lock);
	r->expect = *e;
	r->expect.active = true;
	pthread_mutex_unlock(&r->lock);
}

void replay_expect_clear(struct replay *r)
{
	pthread_mutex_lock(&r->lock);
	r->expect.active = false;
	pthread_mutex_unlock(&r->lock);
}

static bool names_match(uint64_t parent, const char *name,
			uint64_t want_parent, const char *want_name)
{
	return name && parent == want_parent && !strcmp(name, want_name);
}

static void answer_lookup(const struct replay_expect *e,
			  const struct fs_gate_query *q,
			  struct fs_gate_answer *a)
{
	int err;

	if (names_match(q->parent, q->name, e->parent, e->name)) {
		err = e->name_lookup_err;
		a->removes = e->op == FS_GATE_UNLINK;
		a->node = e->name_node;
	} else if (e->op == FS_GATE_RENAME &&
		   names_match(q->parent, q->name, e->newparent, e->newname)) {
		err = e->newname_lookup_err;
		a->removes = true;
		a->node = e->newname_node;
	} else {
		return;		/* "." from a handle, or a path component */
	}
	if (err) {
		a->verdict = FS_GATE_ERR;
		a->err = err;
	} else {
		a->verdict = FS_GATE_ANSWER;
		a->st = e->st;
	}
}

static bool is_announced_change(const struct replay_expect *e,
				const struct fs_gate_query *q)
{
	if (q->op != e->op)
		return false;
	switch (q->op) {
	case FS_GATE_MKNOD:
	case FS_GATE_CREATE:
	case FS_GATE_MKDIR:
	case FS_GATE_SYMLINK:
	case FS_GATE_UNLINK:
	case FS_GATE_RMDIR:
		return names_match(q->parent, q->name, e->parent, e->name);
	case FS_GATE_LINK:
		return q->nodeid == e->node &&
		       names_match(q->parent, q->name, e->parent, e->name);
	case FS_GATE_RENAME:
		return !q->flags &&
		       names_match(q->parent, q->name, e->parent, e->name) &&
		       names_match(q->newparent, q->newname, e->newparent,
				   e->newname);
	case FS_GATE_SETATTR:
	case FS_GATE_WRITE:
		return q->nodeid == e->node;
	default:
		return false;
	}
}

static void answer_expected(const struct replay_expect *e,
			    const struct fs_gate_query *q,
			    struct fs_gate_answer *a)
{
	if (q->op == FS_GATE_LOOKUP) {
		answer_lookup(e, q, a);
		return;
	}
	if (q->op == FS_GATE_OPEN) {
		if (q->nodeid == e->node)
			a->verdict = FS_GATE_OPEN_DIRECT;
		return;
	}
	if (is_announced_change(e, q)) {
		a->verdict = FS_GATE_ANSWER;
		a->st = e->st;
		return;
	}
	a->verdict = FS_GATE_ERR;
	a->err = EPERM;
}

/*
 * Whether the replay in flight acts on the name another caller looks up:
 * the kernel must not keep it as missing, or the replay's own lookup of
 * it could be answered from that entry instead of by the gate.
 */
static bool is_replayed_name(struct replay *r, const struct fs_gate_query *q)
{
	const struct replay_expect *e = &r->expect;
	bool hit;

	if (q->op != FS_GATE_LOOKUP)
		return false;
	pthread_mutex_lock(&r->lock);
	hit = e->active &&
	      (names_match(q->parent, q->name, e->parent, e->name) ||
	       (e->op == FS_GATE_RENAME &&
		names_match(q->parent, q->name, e->newparent, e->newname)));
	pthread_mutex_unlock(&r->lock);
	return hit;
}

void replay_gate(void *arg, const struct fs_gate_query *q,
		 struct fs_gate_answer *a)
{
	struct replay *r = arg;
	pid_t turn = atomic_load_explicit(&r->tid, memory_order_relaxed);
	pid_t refresh = atomic_load_explicit(&r->refresh_tid,
					     memory_order_relaxed);
	uid_t uid;

	a->verdict = FS_GATE_PASS;
	a->removes = false;
	a->keeps_shown = false;
	a->node = 0;

	if (q->tid != turn && q->tid != refresh) {
		a->replayed_name = is_replayed_name(r, q);
		return;
	}
	/* A guest pid is reused once the agent is gone: not its uid. */
	uid = atomic_load_explicit(&r->gate_uid, memory_order_relaxed);
	if (uid != (uid_t)-1 && q->uid != uid)
		return;
	pthread_mutex_lock(&r->lock);
	if (r->expect.active && q->tid == turn) {
		answer_expected(&r->expect, q, a);
	} else if (q->op != FS_GATE_LOOKUP && q->op != FS_GATE_OPEN) {
		a->verdict = FS_GATE_ERR;
		a->err = EPERM;
	}
	pthread_mutex_unlock(&r->lock);
	a->keeps_shown = q->op == FS_GATE_LOOKUP && a->verdict == FS_GATE_PASS;
}
