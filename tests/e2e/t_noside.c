// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * No side effects: replaying remote changes through the mount must not
 * touch the backing store. A remote actor makes every kind of change and
 * then sets each object's mtime to a known value; inotify and fanotify
 * watchers sit on MNT and every file is read through MNT, so the server
 * has to replay and serve everything. Afterwards BACKING must hold exactly
 * what the actor left: content, mode, owner, mtime, link count, symlink
 * target, and the ctime seen right after the actor finished (any later
 * write, chmod, utimens or truncate that reached the backing store would
 * move it).
 *
 * The watchers must also get each change, as natively, by itself: else
 * the test would pass with no replay at all. So the actor makes one change
 * at a time and waits until both watchers have its events (E2E_EXPECT_WAIT_MS
 * at most, no sentinel): the inotify watch exactly the change's events,
 * with the rename's cookie; the fanotify group each name's kinds of event
 * (its queue merges unread events of one name, so their number depends on
 * when it reads). One change at a time because the server's own host
 * queue merges a burst's unread events of one file too (a burst's order
 * and number then depend on when the server reads). Only at the end does
 * a sentinel prove that nothing else followed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define NS_MTIME 1500000000L

/* A name's kinds of fanotify event, as the group's union of them. */
struct ns_fan {
	const char *name;	/* "." for a subdirectory's own events */
	uint64_t mask;
};

/* One change of the actor (by path from the root: it never opens ns). */
struct ns_step {
	struct e2e_op op[2];
	const char *inotify[4];	/* E2E_MASK_DEFAULT's events, in order */
	struct ns_fan fan[2];	/* each name's kinds, NS_FAN_MASK's */
};

#define NS_FAN_MASK (FAN_CREATE | FAN_DELETE | FAN_MODIFY | FAN_ATTRIB | \
		     FAN_MOVE | FAN_CLOSE_WRITE | FAN_ONDIR | \
		     FAN_EVENT_ON_CHILD)
#define NS_WRITTEN (FAN_MODIFY | FAN_CLOSE_WRITE)
#define NS_MADE (FAN_CREATE | NS_WRITTEN)

#define NS_STEP(o, ...) { { o, OP_END }, __VA_ARGS__ }
#define NS_TIME(p, text, fan_name, fan_mask)				\
	NS_STEP(OP_UTIMES("ns/" p, NS_MTIME), { text },			\
		{ { fan_name, fan_mask } })

static const struct ns_step ns_steps[] = {
	NS_STEP(OP_CREAT("ns/data", "v1"),
		{ "CREATE data", "MODIFY data", "CLOSE_WRITE data" },
		{ { "data", NS_MADE } }),
	NS_STEP(OP_WRITE("ns/data", "version-2"),
		{ "MODIFY data", "CLOSE_WRITE data" },
		{ { "data", NS_WRITTEN } }),
	NS_STEP(OP_APPEND("ns/data", "+tail"),
		{ "MODIFY data", "CLOSE_WRITE data" },
		{ { "data", NS_WRITTEN } }),
	NS_STEP(OP_CHMOD("ns/data", 0640), { "ATTRIB data" },
		{ { "data", FAN_ATTRIB } }),
	/* The link count's ATTRIB goes to the file's own watchers only. */
	NS_STEP(OP_LINK("ns/data", "ns/data.link"), { "CREATE data.link" },
		{ { "data.link", FAN_CREATE } }),
	NS_STEP(OP_CREAT("ns/trunc", "123456789"),
		{ "CREATE trunc", "MODIFY trunc", "CLOSE_WRITE trunc" },
		{ { "trunc", NS_MADE } }),
	NS_STEP(OP_TRUNCATE("ns/trunc", 4), { "MODIFY trunc" },
		{ { "trunc", FAN_MODIFY } }),
	NS_STEP(OP_CREAT("ns/moved", "m"),
		{ "CREATE moved", "MODIFY moved", "CLOSE_WRITE moved" },
		{ { "moved", NS_MADE } }),
	NS_STEP(OP_RENAME("ns/moved", "ns/moved2"),
		{ "MOVED_FROM moved", "MOVED_TO moved2" },
		{ { "moved", FAN_MOVED_FROM }, { "moved2", FAN_MOVED_TO } }),
	NS_STEP(OP_CREAT("ns/owned", "o"),
		{ "CREATE owned", "MODIFY owned", "CLOSE_WRITE owned" },
		{ { "owned", NS_MADE } }),
	NS_STEP(OP_CHOWN("ns/owned", 4321), { "ATTRIB owned" },
		{ { "owned", FAN_ATTRIB } }),
	NS_STEP(OP_CHMOD("ns/owned", 0600), { "ATTRIB owned" },
		{ { "owned", FAN_ATTRIB } }),
	NS_STEP(OP_SYMLINK("ns/sym", "data"), { "CREATE sym" },
		{ { "sym", FAN_CREATE } }),
	NS_STEP(OP_MKDIR("ns/sub"), { "CREATE|ISDIR sub" },
		{ { "sub", FAN_CREATE | FAN_ONDIR } }),
	/* Inside sub, which nobody watches: nothing to wait for. */
	NS_STEP(OP_MKNOD("ns/sub/x"), { NULL }, { { NULL, 0 } }),
	NS_STEP(OP_UNLINK("ns/sub/x"), { NULL }, { { NULL, 0 } }),
	/* fanotify reports sub's own ATTRIB as sub's: its handle and "." */
	NS_STEP(OP_CHMOD("ns/sub", 0750), { "ATTRIB|ISDIR sub" },
		{ { ".", FAN_ATTRIB | FAN_ONDIR } }),
	NS_TIME("data", "ATTRIB data", "data", FAN_ATTRIB),
	NS_TIME("trunc", "ATTRIB trunc", "trunc", FAN_ATTRIB),
	NS_TIME("moved2", "ATTRIB moved2", "moved2", FAN_ATTRIB),
	NS_TIME("owned", "ATTRIB owned", "owned", FAN_ATTRIB),
	NS_TIME("sym", "ATTRIB sym", "sym", FAN_ATTRIB),
	NS_TIME("sub", "ATTRIB|ISDIR sub", ".", FAN_ATTRIB | FAN_ONDIR),
};

#define NS_STEPS (sizeof(ns_steps) / sizeof(ns_steps[0]))

struct ns_expect {
	const char *name;
	const char *content;	/* file content, or symlink target */
	mode_t mode;		/* type and permissions */
	uid_t uid;
	nlink_t nlink;
};

static const struct ns_expect ns_expected[] = {
	{ "data", "version-2+tail", S_IFREG | 0640, 0, 2 },
	{ "data.link", "version-2+tail", S_IFREG | 0640, 0, 2 },
	{ "trunc", "1234", S_IFREG | 0644, 0, 1 },
	{ "moved2", "m", S_IFREG | 0644, 0, 1 },
	{ "owned", "o", S_IFREG | 0600, 4321, 1 },
	{ "sym", "data", S_IFLNK | 0777, 0, 1 },
	{ "sub", NULL, S_IFDIR | 0750, 0, 2 },
};

#define NS_COUNT (sizeof(ns_expected) / sizeof(ns_expected[0]))

static ssize_t ns_content(const char *path, mode_t mode, char *buf,
			  size_t len)
{
	ssize_t n = -1;
	int fd;

	if (S_ISLNK(mode)) {
		n = readlink(path, buf, len - 1);
	} else if (S_ISREG(mode)) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, len - 1);
			close(fd);
		}
	}
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Reads everything through MNT, as a woken watcher would. */
static void ns_read_all(void)
{
	char rel[64], buf[64];
	struct stat st;
	size_t i;

	for (i = 0; i < NS_COUNT; i++) {
		snprintf(rel, sizeof(rel), "ns/%s", ns_expected[i].name);
		if (!lstat(e2e_mpath(rel), &st))
			ns_content(e2e_mpath(rel), st.st_mode, buf,
				   sizeof(buf));
	}
}

static void ns_judge(const struct ns_expect *e, const struct stat *before)
{
	char rel[64], check[96], buf[64];
	const char *path;
	struct stat st;

	snprintf(rel, sizeof(rel), "ns/%s", e->name);
	snprintf(check, sizeof(check), "noside/%s", e->name);
	path = e2e_bpath(rel);
	if (lstat(path, &st)) {
		e2e_fail(check, "gone from BACKING");
		return;
	}
	ns_content(path, st.st_mode, buf, sizeof(buf));
	if (e->content && strcmp(buf, e->content))
		e2e_fail(check, "content \"%s\", expected \"%s\"", buf,
			 e->content);
	else if (st.st_mode != e->mode)
		e2e_fail(check, "mode %06o, expected %06o", st.st_mode,
			 e->mode);
	else if (st.st_uid != e->uid || st.st_nlink != e->nlink)
		e2e_fail(check, "uid %u nlink %lu, expected %u %lu",
			 st.st_uid, (unsigned long)st.st_nlink, e->uid,
			 (unsigned long)e->nlink);
	else if (st.st_mtim.tv_sec != NS_MTIME || st.st_mtim.tv_nsec)
		e2e_fail(check, "mtime %ld.%09ld, expected %ld.0",
			 (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 NS_MTIME);
	else if (st.st_ctim.tv_sec != before->st_ctim.tv_sec ||
		 st.st_ctim.tv_nsec != before->st_ctim.tv_nsec)
		e2e_fail(check, "ctime moved after the actor finished");
	else
		e2e_pass(check);
}

static long ns_ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static bool ns_is_sentinel(const struct e2e_ev *ev)
{
	return !strncmp(ev->name, ".sentinel-", 10);
}

/*
 * Has got (events from index from on, but other checks' sentinels) each
 * name of want with all its kinds? With exact, also no other name and no
 * other kind.
 */
static bool ns_fan_has(const struct e2e_evlist *got, int from,
		       const struct ns_fan *want, bool exact)
{
	uint64_t seen[2] = { 0, 0 };
	int i, k;

	for (i = from; i < got->n; i++) {
		if (ns_is_sentinel(&got->ev[i]))
			continue;
		for (k = 0; k < 2 && want[k].name; k++)
			if (!strcmp(got->ev[i].name, want[k].name))
				break;
		if (k == 2 || !want[k].name) {
			if (exact)
				return false;
			continue;
		}
		seen[k] |= got->ev[i].mask;
	}
	for (k = 0; k < 2 && want[k].name; k++)
		if (exact ? seen[k] != want[k].mask :
			    (seen[k] & want[k].mask) != want[k].mask)
			return false;
	return true;
}

/* Reads fan's events into *got until want has all come; 0, or -1. */
static int ns_fan_wait(struct e2e_reader *fan, const struct ns_fan *want,
		       struct e2e_evlist *got)
{
	long end = ns_ms_now() + E2E_EXPECT_WAIT_MS;
	int from = got->n;

	while (!ns_fan_has(got, from, want, false)) {
		if (end - ns_ms_now() <= 0 ||
		    e2e_collect_n(fan, got->n + 1, (int)(end - ns_ms_now()),
				  got))
			return -1;
	}
	return 0;
}

static void ns_fan_want_str(const struct ns_fan *want, char *buf,
			    size_t len)
{
	int k;

	char m[128];

	buf[0] = '\0';
	for (k = 0; k < 2 && want[k].name; k++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s %s",
			 k ? ", " : "", e2e_mask_str(want[k].mask, true, m,
						     sizeof(m)), want[k].name);
}

/*
 * Step i's events on both watchers, by themselves. One failure line for
 * each watcher at most (*ino_ok, *fan_ok say whether it was printed).
 */
static void ns_step_events(struct e2e_reader *r, struct e2e_reader *fan,
			   int i, bool *ino_ok, bool *fan_ok)
{
	const struct ns_step *st = &ns_steps[i];
	struct e2e_evlist got = { 0 };
	char buf[1024], want[256];
	const char *bad;
	int n, k;

	for (n = 0; st->inotify[n]; n++)
		;
	if (r && *ino_ok && n) {
		e2e_collect_n(r, n, E2E_EXPECT_WAIT_MS, &got);
		for (k = 0; k < got.n && k < n; k++)
			if (strcmp(got.ev[k].text, st->inotify[k]))
				break;
		bad = got.n < n ? "not all came by themselves within 10 s" :
		      k < n ? "other events" : e2e_cookies_check(&got);
		if (bad) {
			*ino_ok = false;
			for (want[0] = '\0', k = 0; k < n; k++)
				snprintf(want + strlen(want),
					 sizeof(want) - strlen(want), "%s%s",
					 k ? ", " : "", st->inotify[k]);
			e2e_fail("noside/inotify_events", "change %d: %s; "
				 "want [%s], got %s", i, bad, want,
				 e2e_evlist_str(&got, buf, sizeof(buf)));
		}
		e2e_evlist_free(&got);
	}
	if (fan && *fan_ok && st->fan[0].name) {
		ns_fan_want_str(st->fan, want, sizeof(want));
		if (ns_fan_wait(fan, st->fan, &got) ||
		    !ns_fan_has(&got, 0, st->fan, true)) {
			*fan_ok = false;
			e2e_fail("noside/fanotify_events", "change %d: want "
				 "exactly [%s], by themselves within 10 s "
				 "(each name's events merged), got %s",
				 i, want, e2e_evlist_str(&got, buf,
							 sizeof(buf)));
		}
		e2e_evlist_free(&got);
	}
}

/* After the last change: nothing else up to a sentinel on each. */
static void ns_nothing_else(struct e2e_reader *r, struct e2e_reader *fan,
			    bool ino_ok, bool fan_ok)
{
	struct e2e_evlist got = { 0 };
	char why[128], buf[1024];
	int i, others = 0;

	if (r && ino_ok) {
		if (e2e_collect(r, "ns", &got, why, sizeof(why)) || got.n)
			e2e_fail("noside/inotify_events", "after the last "
				 "change: %s %s", got.n ? "got" : why,
				 e2e_evlist_str(&got, buf, sizeof(buf)));
		else
			e2e_pass("noside/inotify_events");
		e2e_evlist_free(&got);
	}
	if (fan && fan_ok) {
		if (!e2e_collect(fan, "ns", &got, why, sizeof(why)))
			for (i = 0; i < got.n; i++)
				others += !ns_is_sentinel(&got.ev[i]);
		else
			others = -1;
		if (others)
			e2e_fail("noside/fanotify_events", "after the last "
				 "change: %s %s", others > 0 ? "got" : why,
				 e2e_evlist_str(&got, buf, sizeof(buf)));
		else
			e2e_pass("noside/fanotify_events");
		e2e_evlist_free(&got);
	}
}

static struct e2e_reader *ns_watchers(struct e2e_reader **fan)
{
	struct e2e_reader *r = e2e_inotify_new();

	*fan = e2e_fanotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mpath("ns"),
				    E2E_MASK_DEFAULT))
		e2e_fail("noside/watch", "inotify watches on MNT failed");
	if (!*fan || e2e_fanotify_mark(*fan, NULL, e2e_mpath("ns"),
				       NS_FAN_MASK))
		e2e_fail("noside/watch", "fanotify mark on MNT failed");
	return r;
}

int main(void)
{
	struct e2e_op mk[] = { OP_MKDIR("ns"), OP_END };
	struct stat before[NS_COUNT];
	bool ino_ok = true, fan_ok = true;
	struct e2e_reader *r, *fan;
	char rel[64];
	size_t i;

	e2e_mount(NULL);
	if (e2e_remote("", mk)) {
		e2e_fail("noside/setup", "remote mkdir failed");
		return check_exit();
	}
	e2e_sync();
	r = ns_watchers(&fan);
	for (i = 0; i < NS_STEPS; i++) {
		if (e2e_remote("", ns_steps[i].op)) {
			e2e_fail("noside/actor", "remote change %zu failed",
				 i);
			return check_exit();
		}
		ns_step_events(r, fan, (int)i, &ino_ok, &fan_ok);
	}
	for (i = 0; i < NS_COUNT; i++) {
		snprintf(rel, sizeof(rel), "ns/%s", ns_expected[i].name);
		lstat(e2e_bpath(rel), &before[i]);
	}
	ns_nothing_else(r, fan, ino_ok, fan_ok);
	ns_read_all();
	e2e_sync();
	for (i = 0; i < NS_COUNT; i++)
		ns_judge(&ns_expected[i], &before[i]);
	e2e_reader_free(r);
	e2e_reader_free(fan);
	return check_exit();
}
