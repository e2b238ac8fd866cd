// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Burst: one remote actor creates 500 files, then unlinks them, as fast as
 * it can. A watcher on MNT must get exactly 500 CREATE and 500 DELETE,
 * every file's CREATE before its DELETE, and nothing else before the
 * sentinel: nothing lost, nothing doubled, no overflow. All of them must
 * arrive before the sentinel is made: a sentinel is a change too, and
 * would carry along an event that waits for a next one (t_burst_tail.c
 * does the same with several writers at once).
 *
 * Churn: one name created and unlinked CHURN_N times in a row. The file
 * system hands the same inode number back again and again, so nothing may
 * tell the incarnations apart by inode: exactly CHURN_N pairs of CREATE c,
 * DELETE c must arrive, alternating.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define BURST_N 500
#define CHURN_N 300
/* Generous: the whole backlog, replayed on a loaded machine. */
#define TAIL_WAIT_MS 10000

static int burst_actor(void *arg)
{
	struct e2e_op ops[2 * BURST_N + 1];
	static char names[BURST_N][16];
	int i;

	for (i = 0; i < BURST_N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%03d", i);
		ops[i] = (struct e2e_op)OP_MKNOD(names[i]);
		ops[BURST_N + i] = (struct e2e_op)OP_UNLINK(names[i]);
	}
	ops[2 * BURST_N] = (struct e2e_op)OP_END;
	return e2e_ops_apply(e2e_backing(), "burst", ops);
}

static int churn_actor(void *arg)
{
	static struct e2e_op ops[2 * CHURN_N + 1];
	int i;

	for (i = 0; i < CHURN_N; i++) {
		ops[2 * i] = (struct e2e_op)OP_MKNOD("c");
		ops[2 * i + 1] = (struct e2e_op)OP_UNLINK("c");
	}
	ops[2 * CHURN_N] = (struct e2e_op)OP_END;
	return e2e_ops_apply(e2e_backing(), "churn", ops);
}

static const char *churn_judge(const struct e2e_evlist *got, char *why,
			       size_t len)
{
	int i;

	if (got->n != 2 * CHURN_N) {
		snprintf(why, len, "%d events, expected %d", got->n,
			 2 * CHURN_N);
		return why;
	}
	for (i = 0; i < got->n; i++) {
		const char *want = i % 2 ? "DELETE c" : "CREATE c";

		if (strcmp(got->ev[i].text, want)) {
			snprintf(why, len, "event %d: %s, expected %s", i,
				 got->ev[i].text, want);
			return why;
		}
	}
	return NULL;
}

/* Returns NULL if the list is exactly right, else why. */
static const char *burst_judge(const struct e2e_evlist *got, char *why,
			       size_t len)
{
	int state[BURST_N] = { 0 };	/* 0 none, 1 created, 2 deleted */
	const struct e2e_ev *ev;
	int i, n;

	for (i = 0; i < got->n; i++) {
		ev = &got->ev[i];
		if (sscanf(ev->name, "f%d", &n) != 1 || n < 0 || n >= BURST_N) {
			snprintf(why, len, "unexpected event %d: %s", i,
				 ev->text);
			return why;
		}
		if (ev->mask == IN_CREATE && state[n] == 0) {
			state[n] = 1;
		} else if (ev->mask == IN_DELETE && state[n] == 1) {
			state[n] = 2;
		} else {
			snprintf(why, len, "event %d out of place: %s", i,
				 ev->text);
			return why;
		}
	}
	for (n = 0; n < BURST_N; n++) {
		if (state[n] != 2) {
			snprintf(why, len, "f%03d: %s missing (%d events)", n,
				 state[n] ? "DELETE" : "CREATE", got->n);
			return why;
		}
	}
	return NULL;
}

static void run(const char *dir, const char *check, int (*actor)(void *),
		int want,
		const char *(*judge)(const struct e2e_evlist *, char *,
				     size_t))
{
	struct e2e_op mk[] = { OP_MKDIR(dir), OP_END };
	struct e2e_evlist got = { 0 };
	struct e2e_reader *r;
	char why[E2E_EV_TEXT + 64];
	const char *bad;

	if (e2e_remote("", mk)) {
		e2e_fail(check, "remote mkdir failed");
		return;
	}
	e2e_sync();
	r = e2e_inotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mpath(dir),
				    E2E_MASK_DEFAULT)) {
		e2e_fail(check, "cannot watch");
		return;
	}
	if (e2e_remote_wait(e2e_remote_start(actor, NULL)))
		e2e_fail(check, "remote actor failed");
	else if (e2e_collect_n(r, want, TAIL_WAIT_MS, &got))
		e2e_fail(check, "%d of %d events within %d ms of the actor's exit, with nothing changing after it (%s)",
			 got.n, want, TAIL_WAIT_MS,
			 judge(&got, why, sizeof(why)) ?: "in order");
	else if (e2e_collect(r, dir, &got, why, sizeof(why)))
		e2e_fail(check, "%s after %d events", why, got.n);
	else if ((bad = judge(&got, why, sizeof(why))))
		e2e_fail(check, "%s", bad);
	else
		e2e_pass(check);
	e2e_evlist_free(&got);
	e2e_reader_free(r);
}

int main(void)
{
	e2e_mount(NULL);
	run("burst", "burst/create_delete_500", burst_actor, 2 * BURST_N,
	    burst_judge);
	run("churn", "burst/same_name_churn_300", churn_actor, 2 * CHURN_N,
	    churn_judge);
	return check_exit();
}
