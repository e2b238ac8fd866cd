// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_native - remote changes against the same changes made
 * natively in this VM.  Each scenario builds a small tree twice: on the
 * VM's own tmpfs, and through the mount of rnotifyfs (protocol mode), so
 * that no remote CREATE is left to come.  It watches the same paths in
 * both, makes the same changes, natively and on the backing store, and
 * ends each run with a sentinel mkdir of d/z (one event: nothing of a run
 * is left to read in the next).  "drop" makes the kernel drop the
 * dentries nobody uses (a watch keeps only the inode), which native
 * tmpfs keeps.  The mount's events up to
 * it must equal native's: watch, mask, name, order and paired cookies.
 * Watches leave out OPEN, ACCESS and CLOSE_NOWRITE, which the server
 * does not forward (README Limits).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmcache.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/nv_backing"
#define M "/mnt/nv_mount"
#define NATIVE "/mnt/nv_native"
#define EVENTS_MAX 32
#define WATCH_MASK (IN_ALL_EVENTS & ~(IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE))

/*
 * tree: entries made first ("x/" a directory, "x" a file, "x=y" a hard
 * link to y); watch: the paths watched, d first; steps: the changes,
 * "op path [path]" each.
 */
struct scenario {
	const char *name;
	const char *tree;
	const char *watch;
	const char *steps;
};

static const struct scenario scenarios[] = {
	{ "rename over", "d/ d/a/ d/b/ d/t d/n", "d d/t d/b",
	  "mv d/n d/t;mv d/a d/b" },
	/*
	 * One change to an object each: the host's fanotify queue merges
	 * unread ones (README Limits), as its timing decides.
	 */
	{ "mode", "d/ d/t", "d d/t", "chmod d/t" },
	{ "times", "d/ d/t", "d d/t", "touch d/t" },
	{ "write", "d/ d/t", "d d/t", "write d/t" },
	{ "truncate", "d/ d/t", "d d/t", "truncate d/t" },
	{ "unlink", "d/ d/t", "d d/t", "rm d/t" },
	{ "rmdir", "d/ d/e/", "d d/e", "rmdir d/e" },
	{ "move a directory", "d/ d/e/ d/f/", "d d/e d/f", "mv d/e d/f/e2" },
	{ "exchange", "d/ d/t d/n", "d d/t d/n", "exchange d/t d/n" },
	{ "new entries", "d/", "d", "mkdir d/m;symlink d/s;mknod d/p" },
	{ "dropped: content", "d/ d/t", "d d/t", "drop d;write d/t" },
	{ "dropped: unlink", "d/ d/t", "d d/t", "drop d;rm d/t" },
	{ "dropped: rename over", "d/ d/t d/n", "d d/t", "drop d;mv d/n d/t" },
	{ "dropped: rmdir", "d/ d/e/", "d d/e", "drop d;rmdir d/e" },
	/* A link count change: ATTRIB to the file's own watch alone. */
	{ "unlink a link", "d/ d/t d/h=d/t", "d d/t", "rm d/h" },
	{ "dropped: unlink a link", "d/ d/t d/h=d/t", "d d/t", "drop d;rm d/h" },
	{ "link", "d/ d/t", "d d/t", "ln d/t d/h" },
	{ "rename over a link", "d/ d/t d/h=d/t d/n", "d d/t", "mv d/n d/h" },
};

static void at(char *p, size_t size, const char *base, const char *rel)
{
	snprintf(p, size, "%s/%s", base, rel);
}

/* One entry of a tree under base: false if it could not be made. */
static bool make_entry(const char *base, char *tok)
{
	char p[128], q[128], *target = strchr(tok, '=');
	size_t len = strlen(tok);

	if (target) {
		*target++ = '\0';
		at(p, sizeof(p), base, tok);
		at(q, sizeof(q), base, target);
		return !link(q, p);
	}
	at(p, sizeof(p), base, tok);
	return tok[len - 1] == '/' ? !mkdir(p, 0755) : vm_put(p, "x", 0);
}

/* The entries of tree under base; false if one could not be made. */
static bool make_tree(const char *base, const char *tree)
{
	char list[128], *tok, *save;

	snprintf(list, sizeof(list), "%s", tree);
	if (mkdir(base, 0755))
		return false;
	for (tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (!make_entry(base, tok))
			return false;
	return true;
}

/* Watches numbered 1, 2, ... in the order of watch. */
static bool watch_tree(int in, const char *base, const char *watch)
{
	char list[128], p[128], *tok, *save;
	int wd = 0;

	snprintf(list, sizeof(list), "%s", watch);
	for (tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		at(p, sizeof(p), base, tok);
		if (inotify_add_watch(in, p, WATCH_MASK) != ++wd)
			return false;
	}
	return true;
}

static bool set_times(const char *p)
{
	struct timespec ts[2] = { { .tv_sec = 1000 }, { .tv_sec = 2000 } };

	return !utimensat(AT_FDCWD, p, ts, 0);
}

/* One change, "op path [path]", under base. */
static bool step(const char *base, const char *op, const char *a,
		 const char *b)
{
	char p[128], q[128];

	at(p, sizeof(p), base, a);
	at(q, sizeof(q), base, b ? b : "");
	if (!strcmp(op, "mv"))
		return !rename(p, q);
	if (!strcmp(op, "exchange"))
		return !renameat2(AT_FDCWD, p, AT_FDCWD, q, RENAME_EXCHANGE);
	if (!strcmp(op, "rm"))
		return !unlink(p);
	if (!strcmp(op, "ln"))
		return !link(p, q);
	if (!strcmp(op, "rmdir"))
		return !rmdir(p);
	if (!strcmp(op, "mkdir"))
		return !mkdir(p, 0755);
	if (!strcmp(op, "symlink"))
		return !symlink("t", p);
	if (!strcmp(op, "mknod"))
		return !mknod(p, S_IFIFO | 0644, 0);
	if (!strcmp(op, "chmod"))
		return !chmod(p, 0600);
	if (!strcmp(op, "touch"))
		return set_times(p);
	if (!strcmp(op, "drop"))
		return vm_drop_caches();
	if (!strcmp(op, "write"))
		return vm_put(p, "more", O_APPEND);
	if (!strcmp(op, "truncate"))
		return !truncate(p, 1);
	return false;
}

/* The scenario's steps under base, then the sentinel d/z. */
static bool run_steps(const char *base, const char *steps)
{
	char list[128], p[128], *tok, *save, *op, *a, *b, *in;

	snprintf(list, sizeof(list), "%s", steps);
	for (tok = strtok_r(list, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		op = strtok_r(tok, " ", &in);
		a = strtok_r(NULL, " ", &in);
		b = strtok_r(NULL, " ", &in);
		if (!op || !a || !step(base, op, a, b))
			return false;
	}
	at(p, sizeof(p), base, "d/z");
	return !mkdir(p, 0755);
}

/* The events up to the sentinel's CREATE; their count, or -1. */
static int collect(int in, struct vm_event *ev)
{
	int n;

	for (n = 0; n < EVENTS_MAX && vm_inotify_next(in, &ev[n]); n++)
		if (ev[n].wd == 1 && ev[n].mask == (IN_CREATE | IN_ISDIR) &&
		    !strcmp(ev[n].name, "z"))
			return n + 1;
	return -1;
}

static void print_events(const char *who, const struct vm_event *ev, int n)
{
	char m[256];
	int i;

	for (i = 0; i < n; i++)
		printf("# %s: wd %d %s name '%s'\n", who, ev[i].wd,
		       vm_mask_str(ev[i].mask, false, m, sizeof(m)),
		       ev[i].name);
}

/* The same events, and a moved pair's cookies equal where native's are. */
static bool same_events(const struct vm_event *nat, int n,
			const struct vm_event *rem, int r)
{
	int i;

	if (n != r)
		return false;
	for (i = 0; i < n; i++) {
		if (nat[i].wd != rem[i].wd || nat[i].mask != rem[i].mask ||
		    strcmp(nat[i].name, rem[i].name))
			return false;
		if (i && nat[i].cookie &&
		    (nat[i].cookie == nat[i - 1].cookie) !=
		    (rem[i].cookie == rem[i - 1].cookie))
			return false;
	}
	return true;
}

/* One run of s: tree made under made, watched under seen, changed under changed. */
static int run(const struct scenario *s, const char *made, const char *seen,
	       const char *changed, struct vm_event *ev)
{
	int in = inotify_init1(IN_CLOEXEC);
	int n = -1;

	if (in >= 0 && make_tree(made, s->tree) &&
	    watch_tree(in, seen, s->watch) && run_steps(changed, s->steps))
		n = collect(in, ev);
	if (in >= 0)
		close(in);
	return n;
}

static void compare(const struct scenario *s, unsigned int i)
{
	static struct vm_event nat[EVENTS_MAX], rem[EVENTS_MAX];
	char native[64], mnt[64], backing[64], name[128];
	int n, r;

	snprintf(native, sizeof(native), NATIVE "/%u", i);
	snprintf(mnt, sizeof(mnt), M "/%u", i);
	snprintf(backing, sizeof(backing), B "/%u", i);
	n = run(s, native, native, native, nat);
	/* Made through the mount: no remote CREATE is left to come. */
	r = run(s, mnt, mnt, backing, rem);
	snprintf(name, sizeof(name), "%s: native events", s->name);
	CHECK(name, n > 0);
	snprintf(name, sizeof(name), "%s: the mount's events", s->name);
	CHECK(name, r > 0);
	snprintf(name, sizeof(name), "%s: the same as native", s->name);
	CHECK(name, same_events(nat, n, rem, r));
	if (!same_events(nat, n, rem, r)) {
		print_events("native", nat, n);
		print_events("mount", rem, r);
	}
}

int main(void)
{
	unsigned int i;
	pid_t pid;

	pid = vm_server_start(B, M, "delivery=protocol");
	CHECK("native: server mounts", pid > 0 && !mkdir(NATIVE, 0755));
	if (pid <= 0)
		return check_exit();
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		compare(&scenarios[i], i);
	CHECK("native: SIGTERM: exits 0", vm_server_stop(pid));
	return check_exit();
}
