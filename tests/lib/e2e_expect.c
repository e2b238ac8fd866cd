// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Expectations on event sequences, without sleeping.
 *
 * "No extra events" is proved with a sentinel: a remote create in a
 * watched directory, after the scenario's own changes. Remote changes are
 * delivered in host order (one replayer), and local changes raise their
 * events synchronously, so once the sentinel's CREATE is read, every event
 * of the scenario, including any wrong duplicate, has been read before it.
 *
 * The sentinel is itself a change, so it also carries along any event
 * that waits for a next one (issue 31): a server that held the scenario's
 * last event back until the host changed again would pass a check that
 * reads only up to a sentinel. So the events a check expects are read
 * first, with no sentinel, for up to E2E_EXPECT_WAIT_MS until all of them
 * have come (e2e_collect_expected()); only then is the sentinel made, and
 * it proves no more than that nothing else follows.
 *
 * Cookies: the two halves of a rename share one non-zero cookie that no
 * earlier rename in this process used. Seen cookies are remembered for the
 * life of the process (a small table; a test makes few renames).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#define E2E_MAX_COOKIES 4096

static uint32_t e2e_cookies[E2E_MAX_COOKIES];
static int e2e_ncookies;
static unsigned int e2e_sentinel_seq;

void e2e_evlist_free(struct e2e_evlist *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

static int e2e_evlist_add(struct e2e_evlist *l, const struct e2e_ev *ev)
{
	struct e2e_ev *grown;
	int cap;

	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		grown = realloc(l->ev, (size_t)cap * sizeof(*grown));
		if (!grown)
			return -1;
		l->ev = grown;
		l->cap = cap;
	}
	l->ev[l->n++] = *ev;
	return 0;
}

const char *e2e_evlist_str(const struct e2e_evlist *l, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	used += snprintf(buf, len, "[");
	for (i = 0; i < l->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", l->ev[i].text);
	if (used < len)
		snprintf(buf + used, len - used, "]");
	return buf;
}

static bool e2e_cookie_seen(uint32_t cookie)
{
	int i;

	for (i = 0; i < e2e_ncookies; i++)
		if (e2e_cookies[i] == cookie)
			return true;
	return false;
}

static void e2e_cookie_remember(uint32_t cookie)
{
	if (e2e_ncookies < E2E_MAX_COOKIES)
		e2e_cookies[e2e_ncookies++] = cookie;
}

static bool e2e_is_move(const struct e2e_ev *ev)
{
	return ev->mask & (IN_MOVED_FROM | IN_MOVED_TO);
}

/*
 * A MOVED_FROM and the MOVED_TO right after it are one rename and share a
 * cookie; a half without its partner (the other dir is not watched) still
 * needs a fresh non-zero cookie. inotify only: fanotify has no cookies.
 */
const char *e2e_cookies_check(const struct e2e_evlist *l)
{
	const struct e2e_ev *ev, *next;
	int i;

	for (i = 0; i < l->n; i++) {
		ev = &l->ev[i];
		if (!e2e_is_move(ev))
			continue;
		if (!ev->cookie)
			return "a rename half has cookie 0";
		if (e2e_cookie_seen(ev->cookie))
			return "a rename reused an earlier rename's cookie";
		next = i + 1 < l->n ? &l->ev[i + 1] : NULL;
		if ((ev->mask & IN_MOVED_FROM) && next &&
		    (next->mask & IN_MOVED_TO)) {
			if (next->cookie != ev->cookie)
				return "MOVED_FROM and MOVED_TO cookies differ";
			i++;
		}
		e2e_cookie_remember(ev->cookie);
	}
	return NULL;
}

int e2e_collect(struct e2e_reader *r, const char *sentinel_dir,
		struct e2e_evlist *got, char *why, size_t whylen)
{
	char name[64], path[PATH_MAX];
	struct e2e_op ops[] = { OP_MKNOD(path), OP_END };
	struct e2e_ev ev;
	int rc;

	/*
	 * By path from the root: opening the watched dir itself as the base
	 * would add OPEN|ISDIR noise for an IN_ALL_EVENTS watch.
	 */
	snprintf(name, sizeof(name), ".sentinel-%d-%u", (int)getpid(),
		 e2e_sentinel_seq++);
	snprintf(path, sizeof(path), "%s/%s", sentinel_dir, name);
	if (e2e_remote("", ops)) {
		snprintf(why, whylen, "remote sentinel create failed");
		return -1;
	}
	while ((rc = e2e_next(r, &ev, E2E_EVENT_TIMEOUT_MS)) > 0) {
		if ((ev.mask & IN_CREATE) && !strcmp(ev.name, name))
			return 0;
		if (e2e_evlist_add(got, &ev)) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
	}
	snprintf(why, whylen, rc ? "event read error before the sentinel" :
		 "sentinel CREATE not seen within 5 s");
	return -1;
}

static long e2e_ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int e2e_collect_n(struct e2e_reader *r, int n, int timeout_ms,
		  struct e2e_evlist *got)
{
	long end = e2e_ms_now() + timeout_ms, left;
	struct e2e_ev ev;

	while (got->n < n && (left = end - e2e_ms_now()) > 0) {
		if (e2e_next(r, &ev, (int)left) <= 0 ||
		    e2e_evlist_add(got, &ev))
			break;
	}
	return got->n == n ? 0 : -1;
}

int e2e_collect_expected(struct e2e_reader *r, const char *sentinel_dir,
			 int n, struct e2e_evlist *got, char *why,
			 size_t whylen)
{
	int start = got->n, came;

	e2e_collect_n(r, start + n, E2E_EXPECT_WAIT_MS, got);
	came = got->n - start;
	if (e2e_collect(r, sentinel_dir, got, why, whylen))
		return -1;
	if (came >= n)
		return 0;
	if (got->n - start >= n)
		snprintf(why, whylen, "%d of the %d expected events came "
			 "within %d s by themselves, the rest only after a "
			 "later change (the sentinel)", came, n,
			 E2E_EXPECT_WAIT_MS / 1000);
	else
		snprintf(why, whylen, "%d events came, %d expected",
			 got->n - start, n);
	return -1;
}

static bool e2e_list_equal(const struct e2e_evlist *got,
			   const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++)
		if (i >= got->n || strcmp(got->ev[i].text, want[i]))
			return false;
	return i == got->n;
}

static const char *e2e_want_str(const char *const *want, char *buf,
				size_t len)
{
	size_t used = snprintf(buf, len, "[");
	int i;

	for (i = 0; want[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", want[i]);
	if (used < len)
		snprintf(buf + used, len - used, "]");
	return buf;
}

bool e2e_expect(struct e2e_reader *r, const char *sentinel_dir,
		const char *check, const char *const *want)
{
	struct e2e_evlist got = { 0 };
	char why[192], gbuf[2048], wbuf[2048];
	const char *bad = NULL;
	bool ok = false;

	int n = 0;

	while (want[n])
		n++;
	if (e2e_collect_expected(r, sentinel_dir, n, &got, why,
				 sizeof(why))) {
		e2e_fail(check, "%s; expected %s, got %s", why,
			 e2e_want_str(want, wbuf, sizeof(wbuf)),
			 e2e_evlist_str(&got, gbuf, sizeof(gbuf)));
	} else if (!e2e_list_equal(&got, want)) {
		e2e_fail(check, "expected %s, got %s",
			 e2e_want_str(want, wbuf, sizeof(wbuf)),
			 e2e_evlist_str(&got, gbuf, sizeof(gbuf)));
	} else if (e2e_is_fanotify(r) || !(bad = e2e_cookies_check(&got))) {
		e2e_pass(check);
		ok = true;
	} else {
		e2e_fail(check, "%s in %s", bad,
			 e2e_evlist_str(&got, gbuf, sizeof(gbuf)));
	}
	e2e_evlist_free(&got);
	return ok;
}

bool e2e_wait_for(struct e2e_reader *r, const char *text,
		  struct e2e_evlist *seen)
{
	struct e2e_ev ev;

	while (e2e_next(r, &ev, E2E_EVENT_TIMEOUT_MS) > 0) {
		if (!strcmp(ev.text, text))
			return true;
		if (e2e_evlist_add(seen, &ev))
			return false;
	}
	return false;
}
