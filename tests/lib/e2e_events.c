// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event readers, common part: bounded waiting for the next event and the
 * text form of an event. Masks are printed by name, never in hex, in a
 * fixed order (the bit order of the kernel's mask), e.g. "CREATE|ISDIR d".
 *
 * The per-kind decoders live in e2e_inotify.c and e2e_fanotify.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e_reader.h"
#include "mask_names.h"

void e2e_ev_format(struct e2e_ev *ev, const char *label, bool fanotify)
{
	const struct mask_name *n = fanotify ? fanotify_mask_names :
					       inotify_mask_names;
	size_t len = 0, cap = sizeof(ev->text);
	uint64_t rest = ev->mask;
	const char *sep = "";

	ev->text[0] = '\0';
	if (label && *label)
		len += snprintf(ev->text, cap, "%s: ", label);
	for (; n->name && len < cap; n++) {
		if (!(rest & n->bit))
			continue;
		rest &= ~n->bit;
		len += snprintf(ev->text + len, cap - len, "%s%s", sep,
				n->name);
		sep = "|";
	}
	/* A bit without a name is a bug to see, not to hide. */
	if (rest && len < cap)
		len += snprintf(ev->text + len, cap - len, "%sUNKNOWN(%llu)",
				sep, (unsigned long long)rest);
	if (ev->name[0] && len < cap)
		snprintf(ev->text + len, cap - len, " %s", ev->name);
}

const char *e2e_mask_str(uint64_t mask, bool fanotify, char *buf,
			 size_t len)
{
	struct e2e_ev ev = { .mask = mask };

	e2e_ev_format(&ev, NULL, fanotify);
	snprintf(buf, len, "%s", ev.text);
	return buf;
}

static long e2e_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Waits up to timeout_ms for bytes; 1 got some, 0 timeout, -1 error. */
static int e2e_fill(struct e2e_reader *r, int timeout_ms)
{
	long deadline = e2e_now_ms() + timeout_ms;
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	ssize_t n;
	int rc;

	for (;;) {
		rc = poll(&p, 1, (int)(deadline - e2e_now_ms() > 0 ?
				       deadline - e2e_now_ms() : 0));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return rc;
		n = read(r->fd, r->buf, sizeof(r->buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		r->len = (size_t)n;
		r->off = 0;
		return 1;
	}
}

int e2e_next(struct e2e_reader *r, struct e2e_ev *ev, int timeout_ms)
{
	int rc;

	if (r->off >= r->len) {
		rc = e2e_fill(r, timeout_ms);
		if (rc <= 0)
			return rc;
	}
	memset(ev, 0, sizeof(*ev));
	ev->watch = -1;
	rc = r->fanotify ? e2e_fanotify_decode(r, ev) :
			   e2e_inotify_decode(r, ev);
	return rc ? -1 : 1;
}

bool e2e_is_fanotify(const struct e2e_reader *r)
{
	return r->fanotify;
}

void e2e_reader_free(struct e2e_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r);
}
