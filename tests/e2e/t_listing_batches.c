// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Listings of a directory that takes many READDIR batches (3,000 names
 * of 5 to 154 bytes: about ten batches of 32 KiB), which the server reads
 * ahead of the client (src/fs/dir_stream.h): every name comes once; a
 * seekdir() to a telldir() position gives the same names again; two open
 * handles listed in turns each get the whole directory; rewinddir()
 * starts over; and handles closed part way through, at every seventh
 * count of names read (wherever that falls against the server's batches
 * and what it has read ahead), leave it serving whole listings.
 * The names are made outside the export and moved in inside a directory,
 * so that no event about them is replayed.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <limits.h>
#include <string.h>

#include "../lib/e2e.h"
#include "../lib/many_names.h"

CHECK_MAIN_DEFS;

#define NAMES 3000
#define NAME_SPREAD 150	/* names of 5 to 154 bytes */
#define AGAIN 400
#define STOP_STEP 7

struct listing {
	DIR *d;
	bool seen[NAMES];
	int names, dots;
	bool bad;	/* a name twice, or one we did not make */
};

static bool names_moved_in(void)
{
	char top[PATH_MAX];

	snprintf(top, sizeof(top), "%s/../lb", e2e_backing());
	if (!many_names_make(top, 'e', NAMES, NAME_SPREAD) ||
	    rename(top, e2e_bpath("lb")))
		return false;
	e2e_sync();
	return true;
}

static void count(struct listing *l, const char *name)
{
	int i;

	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		l->dots++;
		return;
	}
	i = many_name_index(name, 'e', NAMES, NAME_SPREAD);
	if (i < 0 || l->seen[i]) {
		l->bad = true;
		return;
	}
	l->seen[i] = true;
	l->names++;
}

/* Reads up to n entries into l; false at the end of the directory. */
static bool read_some(struct listing *l, int n)
{
	struct dirent *de;

	while (n-- > 0) {
		de = readdir(l->d);
		if (!de)
			return false;
		count(l, de->d_name);
	}
	return true;
}

static bool whole(const struct listing *l)
{
	return !l->bad && l->dots == 2 && l->names == NAMES;
}

static bool open_listing(struct listing *l)
{
	memset(l, 0, sizeof(*l));
	l->d = opendir(e2e_mpath("lb"));
	return l->d;
}

static bool lists_whole(void)
{
	static struct listing l;
	bool ok;

	if (!open_listing(&l))
		return false;
	while (read_some(&l, NAMES))
		;
	ok = whole(&l);
	closedir(l.d);
	return ok;
}

/* The next n names of d, into names[]; false if d ended. */
static bool next_names(DIR *d, char (*names)[NAME_MAX + 1], int n)
{
	struct dirent *de;
	int i;

	for (i = 0; i < n; i++) {
		de = readdir(d);
		if (!de)
			return false;
		snprintf(names[i], NAME_MAX + 1, "%s", de->d_name);
	}
	return true;
}

static bool seekdir_gives_same(void)
{
	static char first[AGAIN][NAME_MAX + 1], again[AGAIN][NAME_MAX + 1];
	static struct listing l;
	bool ok = true;
	long at;
	int i;

	if (!open_listing(&l))
		return false;
	read_some(&l, 1000);
	at = telldir(l.d);
	if (!next_names(l.d, first, AGAIN))
		ok = false;
	seekdir(l.d, at);
	if (!next_names(l.d, again, AGAIN))
		ok = false;
	for (i = 0; ok && i < AGAIN; i++)
		ok = !strcmp(first[i], again[i]);
	closedir(l.d);
	return ok;
}

static bool turns_whole(void)
{
	static struct listing a, b;
	bool more_a = true, more_b = true, ok;

	if (!open_listing(&a))
		return false;
	if (!open_listing(&b)) {
		closedir(a.d);
		return false;
	}
	while (more_a || more_b) {
		more_a = more_a && read_some(&a, 37);
		more_b = more_b && read_some(&b, 53);
	}
	ok = whole(&a) && whole(&b);
	closedir(a.d);
	closedir(b.d);
	return ok;
}

static bool rewinddir_starts_over(void)
{
	static struct listing l;
	bool ok;

	if (!open_listing(&l))
		return false;
	read_some(&l, 1500);
	rewinddir(l.d);
	memset(l.seen, 0, sizeof(l.seen));
	l.names = 0;
	l.dots = 0;
	while (read_some(&l, NAMES))
		;
	ok = whole(&l);
	closedir(l.d);
	return ok;
}

static bool stopped_listings(void)
{
	static struct listing l;
	int i;

	for (i = 1; i < NAMES; i += STOP_STEP) {
		if (!open_listing(&l) || !read_some(&l, i))
			return false;
		closedir(l.d);
	}
	return true;
}

int main(void)
{
	e2e_mount(NULL);
	CHECK("listing batches: names moved into the export",
	      names_moved_in());
	CHECK("listing batches: every name once", lists_whole());
	CHECK("listing batches: seekdir to telldir gives the same names",
	      seekdir_gives_same());
	CHECK("listing batches: two handles in turns each list it whole",
	      turns_whole());
	CHECK("listing batches: rewinddir starts over",
	      rewinddir_starts_over());
	CHECK("listing batches: listings closed after 1, 8, 15, ... names",
	      stopped_listings());
	CHECK("listing batches: still whole after them", lists_whole());
	CHECK("listing batches: server still running",
	      e2e_native() || kill(e2e_server_pid(), 0) == 0);
	return check_exit();
}
