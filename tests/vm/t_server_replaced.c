// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_replaced - a remote rename over a watched file and over a
 * watched empty directory, against the same renames made natively in
 * this VM.  The replaced object loses its last link: its watch gets
 * ATTRIB, DELETE_SELF and IN_IGNORED, as for a local rename over it, and
 * then holds nothing.  Each run ends with a sentinel CREATE, so that the
 * events compared are all there without waiting for silence.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/rp_backing"
#define M "/mnt/rp_mount"
#define NATIVE "/mnt/rp_native"
#define EVENTS_MAX 32

/* Files and directories of a run, in dir. */
static bool make_tree(const char *dir)
{
	char p[96];

	snprintf(p, sizeof(p), "%s/d", dir);
	if (mkdir(p, 0755))
		return false;
	snprintf(p, sizeof(p), "%s/d/a", dir);
	if (mkdir(p, 0755))
		return false;
	snprintf(p, sizeof(p), "%s/d/b", dir);
	if (mkdir(p, 0755))
		return false;
	snprintf(p, sizeof(p), "%s/d/t", dir);
	if (!vm_put(p, "old", 0))
		return false;
	snprintf(p, sizeof(p), "%s/d/n", dir);
	return vm_put(p, "new", 0);
}

/* Watches on d, d/t and d/b as seen at root (the mount, or NATIVE). */
static bool watch_tree(int in, const char *root)
{
	static const char *const sub[] = { "/d", "/d/t", "/d/b" };
	char p[96];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", root, sub[i]);
		if (inotify_add_watch(in, p, IN_ALL_EVENTS) != (int)i + 1)
			return false;
	}
	return true;
}

/* n over t, a over b, then the sentinel z; made in dir (host side). */
static bool rename_over(const char *dir)
{
	char from[96], to[96];

	snprintf(from, sizeof(from), "%s/d/n", dir);
	snprintf(to, sizeof(to), "%s/d/t", dir);
	if (rename(from, to))
		return false;
	snprintf(from, sizeof(from), "%s/d/a", dir);
	snprintf(to, sizeof(to), "%s/d/b", dir);
	if (rename(from, to))
		return false;
	snprintf(to, sizeof(to), "%s/d/z", dir);
	return vm_put(to, "", 0);
}

/* The events up to the sentinel's CREATE; their count, or -1. */
static int collect(int in, struct vm_event *ev)
{
	int n;

	for (n = 0; n < EVENTS_MAX && vm_inotify_next(in, &ev[n]); n++)
		if (ev[n].mask == IN_CREATE && !strcmp(ev[n].name, "z"))
			return n + 1;
	return -1;
}

static void print_events(const char *who, const struct vm_event *ev, int n)
{
	int i;

	for (i = 0; i < n; i++)
		printf("# %s: wd %d mask 0x%x name '%s'\n", who, ev[i].wd,
		       ev[i].mask, ev[i].name);
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

int main(void)
{
	struct vm_event nat[EVENTS_MAX], rem[EVENTS_MAX];
	int in_nat = inotify_init1(IN_CLOEXEC);
	int in_rem = inotify_init1(IN_CLOEXEC);
	int n = -1, r = -1;
	pid_t pid;

	pid = vm_server_start(B, M, "delivery=protocol");
	CHECK("replaced: server mounts", pid > 0);
	if (pid <= 0)
		return check_exit();
	CHECK("replaced: native tree and watches", !mkdir(NATIVE, 0755) &&
	      make_tree(NATIVE) && watch_tree(in_nat, NATIVE));
	CHECK("replaced: native renames over t and b", rename_over(NATIVE));
	CHECK("replaced: native events up to the sentinel",
	      (n = collect(in_nat, nat)) > 0);
	/* Made through the mount: no remote CREATE is left to come. */
	CHECK("replaced: tree made and watched through the mount",
	      make_tree(M) && watch_tree(in_rem, M));
	CHECK("replaced: remote renames over t and b", rename_over(B));
	CHECK("replaced: events on the mount up to the sentinel",
	      (r = collect(in_rem, rem)) > 0);
	CHECK("replaced: the same events as native, in its order",
	      same_events(nat, n, rem, r));
	if (!same_events(nat, n, rem, r)) {
		print_events("native", nat, n);
		print_events("mount", rem, r);
	}
	CHECK("replaced: SIGTERM: exits 0", vm_server_stop(pid));
	return check_exit();
}
