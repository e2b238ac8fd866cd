// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A remote write right after a local change to the same file is
 * reported. Under -o watch=inotify the server cannot tell its own host
 * events from others by pid: it takes host events on what it has just
 * changed for its own until its reader has drained the queue, and a
 * remote write inside that window was lost. Each round makes a local
 * change through the mount, reads its events, and at once (a few
 * microseconds later) writes the same file on BACKING: the remote
 * MODIFY must follow. The rounds are many because the window is short:
 * without the stamps of own_expect.h, the server lost the write after a
 * local write by round 18 in each of four runs on an idle host (rounds
 * 3, 2, 17 and 18). With the objects' stamps but not the names', it lost
 * the write after a local create in round 0 of four runs out of four.
 *
 * The fanotify host watcher tells the server's own changes by pid and
 * has no such window, so this test always runs the server with
 * watch=inotify (after any RNOTIFYFS_OPTS): in the default suite as well
 * as in the inotify one, it tests what it can fail on.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define OW_ROUNDS 100

struct ow_case {
	const char *check;
	/* The local change of round i; its last event; the remote write. */
	bool (*local)(int i, char *name, size_t len);
	const char *local_last;
	bool (*remote)(const char *name);
	const char *want[3];	/* the remote's events, after the name */
};

static int mfd = -1, bfd = -1;	/* ow-f, open through MNT and on BACKING */
static int created = -1;	/* the last file created through MNT */

static bool write_local(int i, char *name, size_t len)
{
	snprintf(name, len, "ow-f");
	return pwrite(mfd, "m", 1, 0) == 1;
}

static bool write_remote(const char *name)
{
	return pwrite(bfd, "b", 1, 0) == 1;
}

/*
 * The file stays open on the mount until the next round: the server's
 * close of it would make a CLOSE_WRITE of its own on the host at about
 * the time of the remote one, which no stamp can tell apart (README,
 * Limits).
 */
static bool create_local(int i, char *name, size_t len)
{
	if (created >= 0)
		close(created);
	snprintf(name, len, "ow-c%d", i);
	created = open(e2e_mpath(name),
		       O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	return created >= 0;
}

static bool append_remote(const char *name)
{
	int fd = open(e2e_bpath(name), O_WRONLY | O_APPEND | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, "b", 1) == 1;

	return !close(fd) && ok;
}

static const struct ow_case cases[] = {
	{ "own_window/remote_write_after_local_write", write_local, "MODIFY",
	  write_remote, { "MODIFY" } },
	{ "own_window/remote_write_after_local_create", create_local,
	  "CREATE", append_remote, { "MODIFY", "CLOSE_WRITE" } },
};

/* The local change's events, up to its last one. */
static bool local_seen(struct e2e_reader *r, const struct ow_case *c,
		       const char *name, int i)
{
	struct e2e_evlist seen = { 0 };
	char text[E2E_EV_TEXT], buf[512];
	bool ok;

	snprintf(text, sizeof(text), "%s %s", c->local_last, name);
	ok = e2e_wait_for(r, text, &seen);
	if (!ok)
		e2e_fail(c->check, "round %d: no local %s; got %s", i, text,
			 e2e_evlist_str(&seen, buf, sizeof(buf)));
	e2e_evlist_free(&seen);
	return ok;
}

/* The remote write's events, by themselves; nothing else up to a sentinel. */
static bool remote_seen(struct e2e_reader *r, const struct ow_case *c,
			const char *name, int i)
{
	struct e2e_evlist got = { 0 };
	char why[256], buf[512], want[512] = "[";
	bool ok = false;
	int n;

	for (n = 0; c->want[n]; n++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%s%s %s", n ? ", " : "", c->want[n], name);
	strcat(want, "]");
	if (e2e_collect_expected(r, ".", n, &got, why, sizeof(why)))
		e2e_fail(c->check, "round %d: %s; expected %s, got %s", i, why,
			 want, e2e_evlist_str(&got, buf, sizeof(buf)));
	else if (strcmp(e2e_evlist_str(&got, buf, sizeof(buf)), want))
		e2e_fail(c->check, "round %d: expected %s, got %s", i, want,
			 buf);
	else
		ok = true;
	e2e_evlist_free(&got);
	return ok;
}

/* The case's rounds; one check: the first round that failed says why. */
static void run_case(struct e2e_reader *r, const struct ow_case *c)
{
	char name[32];
	int i;

	for (i = 0; i < OW_ROUNDS; i++) {
		if (!c->local(i, name, sizeof(name))) {
			e2e_fail(c->check, "round %d: local change failed", i);
			return;
		}
		if (!local_seen(r, c, name, i))
			return;
		if (!c->remote(name)) {
			e2e_fail(c->check, "round %d: remote write failed", i);
			return;
		}
		if (!remote_seen(r, c, name, i))
			return;
	}
	e2e_pass(c->check);
}

/* The suite's server options, if any, with watch=inotify last (it wins). */
static const char *ow_opts(void)
{
	static char opts[512];
	const char *suite = getenv("RNOTIFYFS_OPTS");

	snprintf(opts, sizeof(opts), "%s%swatch=inotify", suite ? suite : "",
		 suite && *suite ? "," : "");
	return opts;
}

int main(void)
{
	static const struct e2e_op mk[] = { OP_MKNOD("ow-f"), OP_END };
	struct e2e_reader *r;
	size_t i;

	e2e_mount(ow_opts());
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
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(r, &cases[i]);
	close(mfd);
	close(bfd);
	if (created >= 0)
		close(created);
	e2e_reader_free(r);
	return check_exit();
}
