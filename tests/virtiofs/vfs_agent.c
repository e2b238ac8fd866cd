// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_agent - remote events in a stock virtiofs guest, through the agent
 * (rnotifyfs --agent), with the host making each change (guest_cmd.h).
 *
 *   vfs_agent RNOTIFYFS MOUNTPOINT TAG ROUND
 *
 * ROUND names this run's directory in the export and prefixes its checks
 * and whatever it makes at the top, so that one guest can run it on each
 * of its mounts (tests/virtiofs/init-agent: remounted, rebooted).
 *
 * Starts RNOTIFYFS --agent MOUNTPOINT itself, so that it can stop it and
 * start it again. Each check reads the events it expects with nothing
 * else changing, for up to WAIT_MS, so that the last event must arrive
 * by itself; only then does the host make a sentinel (a file created),
 * and everything read before the sentinel's CREATE must be what was
 * expected, exactly: types, names, ISDIR, cookies, per watch.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_cmd.h"

#define WAIT_MS 10000
#define MAX_EVENTS 16
#define MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
	      IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | \
	      IN_MOVE_SELF)

static const char *bin, *mnt, *tag, *round;
static int failures, ino, sentinels;
static pid_t agent;

static void check(const char *name, int ok, const char *why)
{
	if (ok)
		printf("PASS agent:%s:%s\n", round, name);
	else
		printf("FAIL agent:%s:%s: %s\n", round, name, why);
	if (!ok)
		failures++;
	fflush(stdout);
}

/* Watches: wd -> its label ("" for the scenario's directory). */
static struct {
	int wd;
	char label[32];
} watches[8];
static int nwatches;

static void watch(const char *rel, const char *label)
{
	char path[512];
	int wd;

	snprintf(path, sizeof(path), "%s/%s", mnt, rel);
	wd = inotify_add_watch(ino, path, MASK);
	if (wd < 0 || nwatches == 8) {
		printf("FAIL agent:watch: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	watches[nwatches].wd = wd;
	snprintf(watches[nwatches].label, sizeof(watches[0].label), "%s",
		 label);
	nwatches++;
}

static const char *label_of(int wd)
{
	for (int i = 0; i < nwatches; i++)
		if (watches[i].wd == wd)
			return watches[i].label;
	return "?";
}

struct ev {
	char text[300];
	uint32_t cookie;
};

static void ev_text(const struct inotify_event *e, struct ev *out)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ IN_CREATE, "CREATE" }, { IN_DELETE, "DELETE" },
		{ IN_MOVED_FROM, "MOVED_FROM" }, { IN_MOVED_TO, "MOVED_TO" },
		{ IN_MODIFY, "MODIFY" }, { IN_ATTRIB, "ATTRIB" },
		{ IN_CLOSE_WRITE, "CLOSE_WRITE" },
		{ IN_DELETE_SELF, "DELETE_SELF" },
		{ IN_MOVE_SELF, "MOVE_SELF" }, { IN_IGNORED, "IGNORED" },
		{ IN_Q_OVERFLOW, "Q_OVERFLOW" }, { IN_ISDIR, "ISDIR" },
	};
	const char *label = label_of(e->wd);
	size_t at = 0;

	if (*label)
		at += snprintf(out->text, sizeof(out->text), "%s: ", label);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (e->mask & names[i].bit)
			at += snprintf(out->text + at, sizeof(out->text) - at,
				       "%s%s", at && out->text[at - 1] != ' ' ?
				       "|" : "", names[i].name);
	if (e->len && e->name[0])
		snprintf(out->text + at, sizeof(out->text) - at, " %s",
			 e->name);
	out->cookie = e->cookie;
}

/* Read events, for up to ms; stops early once n have come. */
static int read_events(struct ev *evs, int n, int max, int ms)
{
	static char buf[4096] __attribute__((aligned(8)));
	static int have, at;
	struct timespec t0, t1;
	int got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n && got < max) {
		if (at < have) {
			struct inotify_event *e = (void *)(buf + at);

			ev_text(e, &evs[got++]);
			at += sizeof(*e) + e->len;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long left = ms - ((t1.tv_sec - t0.tv_sec) * 1000 +
				  (t1.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd p = { .fd = ino, .events = POLLIN };

		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		have = read(ino, buf, sizeof(buf));
		at = 0;
		if (have <= 0)
			have = 0;
	}
	return got;
}

static void list(char *out, size_t size, const struct ev *evs, int n)
{
	size_t at = snprintf(out, size, "[");

	for (int i = 0; i < n && at < size; i++)
		at += snprintf(out + at, size - at, "%s%s", i ? ", " : "",
			       evs[i].text);
	if (at < size)
		snprintf(out + at, size - at, "]");
}

/*
 * The host makes a sentinel directory in dir (a directory: its CREATE
 * is its only event); every event before it is one more than expected. Returns how many extra came (or -1 if the
 * sentinel never came), with the first in *extra.
 */
static int sentinel(const char *dir, struct ev *extra)
{
	char name[64], want[96];
	struct ev e;
	int n = 0;

	snprintf(name, sizeof(name), "%s-sentinel%d", round, sentinels++);
	snprintf(want, sizeof(want), "CREATE|ISDIR %s", name);
	if (host_cmd("mkdir %s %s%s%s", tag, dir, *dir ? "/" : "", name))
		return -1;
	while (read_events(&e, 1, 1, WAIT_MS) == 1) {
		if (!strcmp(e.text, want))
			return n;
		if (!n++)
			*extra = e;
	}
	return -1;
}

/*
 * One check: the events in want (NULL-terminated), exactly, before any
 * sentinel; then nothing else up to the sentinel made in dir.
 */
static void expect(const char *name, const char *dir, const char **want,
		   struct ev *got_out)
{
	struct ev got[MAX_EVENTS], extra;
	char why[2048], g[1024];
	int n = 0, got_n, bad = 0;

	while (want[n])
		n++;
	got_n = read_events(got, n, MAX_EVENTS, WAIT_MS);
	for (int i = 0; i < n; i++)
		if (i >= got_n || strcmp(got[i].text, want[i]))
			bad = 1;
	if (got_out)
		memcpy(got_out, got, sizeof(got[0]) * got_n);
	if (bad) {
		list(g, sizeof(g), got, got_n);
		snprintf(why, sizeof(why),
			 "%d of %d events within %d ms, with nothing after: got %s",
			 got_n, n, WAIT_MS, g);
		check(name, 0, why);
		sentinel(dir, &extra);
		return;
	}
	int extras = sentinel(dir, &extra);

	if (extras) {
		snprintf(why, sizeof(why), extras < 0 ?
			 "the sentinel never came%s" :
			 "an event more than expected before the sentinel: %s",
			 extras < 0 ? "" : extra.text);
		check(name, 0, why);
		return;
	}
	check(name, 1, "");
}

static void agent_start(void)
{
	agent = fork();
	if (agent == 0) {
		execl(bin, bin, "--agent", mnt, (char *)NULL);
		_exit(127);
	}
}

static void agent_stop(void)
{
	kill(agent, SIGKILL);
	waitpid(agent, NULL, 0);
}

/*
 * Until a remote change makes an event: the agent is there (it may take
 * a backend up to its call timeout to notice that the last one went).
 */
static int wait_live(const char *dir, const char *what)
{
	struct ev e;

	for (int i = 0; i < 20; i++) {
		char name[64], want[96];

		snprintf(name, sizeof(name), "%s-%s%d", round, what, i);
		snprintf(want, sizeof(want), "CREATE|ISDIR %s", name);
		if (host_cmd("mkdir %s %s%s%s", tag, dir, *dir ? "/" : "",
			     name))
			return 0;
		while (read_events(&e, 1, 1, 2000) == 1)
			if (!strcmp(e.text, want))
				return 1;
	}
	return 0;
}

static const char *slurp(const char *rel, char *buf, size_t len)
{
	char path[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", mnt, rel);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* ROUND/name, in one of four buffers: a call may take a few. */
static const char *in_dir(const char *name)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", round, name);
	return b;
}

static void scenarios(void)
{
	struct ev got[MAX_EVENTS] = { 0 };
	char buf[64], path[512], want[96];

	host_cmd("mkdir %s %s", tag, round);
	snprintf(want, sizeof(want), "CREATE|ISDIR %s", round);
	expect("mkdir", "", (const char *[]){ want, NULL }, NULL);
	watch(round, "");
	host_cmd("write %s %s one", tag, in_dir("f"));
	expect("write_new", round, (const char *[]){ "CREATE f", "MODIFY f",
		"CLOSE_WRITE f", NULL }, NULL);
	check("read_after_write", !strcmp(slurp(in_dir("f"), buf,
						sizeof(buf)), "one"), buf);
	host_cmd("append %s %s two", tag, in_dir("f"));
	expect("append", round, (const char *[]){ "MODIFY f", "CLOSE_WRITE f",
		NULL }, NULL);
	check("read_after_append", !strcmp(slurp(in_dir("f"), buf,
						 sizeof(buf)), "onetwo"), buf);
	host_cmd("rename %s %s %s", tag, in_dir("f"), in_dir("g"));
	expect("rename", round, (const char *[]){ "MOVED_FROM f",
		"MOVED_TO g", NULL }, got);
	check("rename_cookie", got[0].cookie && got[0].cookie == got[1].cookie,
	      "the two halves have different cookies");
	watch(in_dir("g"), "g");
	host_cmd("unlink %s %s", tag, in_dir("g"));
	/* The native order (tests/lib/e2e_scenarios.c, self_unlink). */
	expect("unlink_watched", round, (const char *[]){ "g: ATTRIB",
		"g: DELETE_SELF", "g: IGNORED", "DELETE g", NULL }, NULL);
	host_cmd("mkdir %s %s", tag, in_dir("d"));
	expect("mkdir_in", round, (const char *[]){ "CREATE|ISDIR d", NULL },
	       NULL);
	host_cmd("rmdir %s %s", tag, in_dir("d"));
	expect("rmdir", round, (const char *[]){ "DELETE|ISDIR d", NULL },
	       NULL);
	snprintf(path, sizeof(path), "%s/%s", mnt, in_dir("loc"));
	check("local_mkdir_call", !mkdir(path, 0755), strerror(errno));
	expect("local_once", round, (const char *[]){ "CREATE|ISDIR loc",
		NULL }, NULL);
}

/* With the agent stopped the guest sees the host's files as they are. */
static void without_agent(void)
{
	char buf[64], path[512];

	agent_stop();
	host_cmd("write %s %s abc", tag, in_dir("x"));
	check("stopped_read", !strcmp(slurp(in_dir("x"), buf, sizeof(buf)),
				      "abc"), buf);
	host_cmd("append %s %s def", tag, in_dir("x"));
	check("stopped_read_after_append",
	      !strcmp(slurp(in_dir("x"), buf, sizeof(buf)), "abcdef"), buf);
	host_cmd("unlink %s %s", tag, in_dir("x"));
	snprintf(path, sizeof(path), "%s/%s", mnt, in_dir("x"));
	check("stopped_unlink_seen", access(path, F_OK) && errno == ENOENT,
	      "the file is still there");
	agent_start();
	check("restarted_live", wait_live(round, "again"),
	      "no remote mkdir made an event within 40 s of the restart");
	host_cmd("create %s %s", tag, in_dir("y"));
	expect("restarted_create", round, (const char *[]){ "CREATE y",
		"CLOSE_WRITE y", NULL }, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr,
			"usage: vfs_agent RNOTIFYFS MOUNTPOINT TAG ROUND\n");
		return 2;
	}
	bin = argv[1];
	mnt = argv[2];
	tag = argv[3];
	round = argv[4];
	ino = inotify_init1(IN_CLOEXEC);
	watch("", "");
	agent_start();
	check("live", wait_live("", "live"),
	      "no remote mkdir reached the mount within 40 s");
	scenarios();
	without_agent();
	agent_stop();
	return failures ? 1 : 0;
}
