// SPDX-License-Identifier: GPL-2.0-or-later
/* The delivery queue: order, overflow marking, close, compact records. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../../src/deliver/event_queue.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

static struct rn_event named(enum rn_event_kind kind, int i)
{
	struct rn_event ev = { .kind = kind };

	snprintf(ev.name, sizeof(ev.name), "f%d", i);
	return ev;
}

/* An event of the largest size: a move, both names NAME_MAX long. */
static struct rn_event longest(enum rn_event_kind kind, int i)
{
	struct rn_event ev = named(kind, i);
	size_t len = strlen(ev.name);

	memset(ev.name + len, 'x', NAME_MAX - len);
	memset(ev.name2, 'y', NAME_MAX);
	return ev;
}

static void test_order(void)
{
	struct event_queue *q = event_queue_new(8);
	struct rn_event ev;
	bool ok = true;

	for (int round = 0; round < 3; round++) {
		ev = named(RN_EV_ATTRIB, round);
		for (int i = 0; i < 5; i++)
			ok &= event_queue_push(q, &ev);
		for (int i = 0; i < 5; i++)
			ok &= event_queue_pop(q, &ev) &&
			      ev.kind == RN_EV_ATTRIB;
	}
	for (int i = 0; i < 6; i++) {
		ev = named(RN_EV_CREATE, i);
		ok &= event_queue_push(q, &ev);
	}
	for (int i = 0; i < 6; i++) {
		char want[16];

		snprintf(want, sizeof(want), "f%d", i);
		ok &= event_queue_pop(q, &ev) && !strcmp(ev.name, want);
	}
	CHECK("queue keeps order across wrap-around", ok);
	event_queue_free(q);
}

static void test_overflow(void)
{
	struct event_queue *q = event_queue_new(4);
	struct rn_event ev;
	bool pushed[6];

	for (int i = 0; i < 6; i++) {
		ev = longest(RN_EV_MOVE, i);
		pushed[i] = event_queue_push(q, &ev);
	}
	CHECK("full queue takes capacity - 1 events of the largest size",
	      pushed[0] && pushed[1] && pushed[2] && !pushed[3] &&
	      !pushed[4] && !pushed[5]);
	CHECK("dropped events are counted", event_queue_dropped(q) == 3);
	for (int i = 0; i < 3; i++)
		event_queue_pop(q, &ev);
	ev = named(RN_EV_DELETE, 9);
	event_queue_push(q, &ev);
	CHECK("overflow is reported where events were lost",
	      event_queue_pop(q, &ev) && ev.kind == RN_EV_OVERFLOW);
	CHECK("events after the loss follow the overflow",
	      event_queue_pop(q, &ev) && ev.kind == RN_EV_DELETE &&
	      !strcmp(ev.name, "f9"));
	event_queue_free(q);
}

/* Short names take little room: many more events fit, all intact. */
static void test_compact(void)
{
	struct event_queue *q = event_queue_new(4);
	struct rn_event ev, prev, want = named(RN_EV_MOVE, 7);
	int n = 0, ok = 0;

	want.isdir = true;
	/* Field by field: memcmp() below also compares rn_id's padding. */
	want.obj.dev = 1;
	want.obj.ino = 2;
	want.obj.gen = 7;
	want.dir.dev = 3;
	want.dir.ino = 4;
	want.dir2.dev = 5;
	want.dir2.ino = 6;
	want.dir2.gen = 9;
	strcpy(want.name2, "g7");
	while (n < 100 && event_queue_push(q, &want))
		n++;
	CHECK("short events: over 8 times capacity fit", n > 8 * 4);
	for (int i = 0; i < n; i++)
		ok += event_queue_pop(q, &ev) && !memcmp(&ev, &want,
							 sizeof(ev));
	CHECK("short events come back whole, then the overflow",
	      ok == n && event_queue_pop(q, &ev) &&
	      ev.kind == RN_EV_OVERFLOW);
	/* One event always held, so the tail passes the end of the ring. */
	prev = longest(RN_EV_MOVE, 0);
	event_queue_push(q, &prev);
	for (int round = 1; round < 50 && ok; round++) {
		ev = round % 3 ? named(RN_EV_CREATE, round) :
				 longest(RN_EV_MOVE, round);
		if (ev.kind == RN_EV_MOVE)
			ev.dir2.ino = round;
		ok = event_queue_push(q, &ev) && event_queue_pop(q, &want) &&
		     !strcmp(want.name, prev.name) &&
		     !strcmp(want.name2, prev.name2) &&
		     want.dir2.ino == prev.dir2.ino;
		prev = ev;
	}
	CHECK("mixed sizes wrap around the ring intact", ok);
	event_queue_free(q);
}

static void test_overflow_at_close(void)
{
	struct event_queue *q = event_queue_new(2);
	struct rn_event ev = longest(RN_EV_MOVE, 0);

	event_queue_push(q, &ev);
	event_queue_push(q, &ev);
	event_queue_close(q);
	CHECK("queued event survives close", event_queue_pop(q, &ev) &&
	      ev.kind == RN_EV_MOVE);
	CHECK("pending overflow is reported before the end",
	      event_queue_pop(q, &ev) && ev.kind == RN_EV_OVERFLOW);
	CHECK("closed and drained queue ends", !event_queue_pop(q, &ev));
	event_queue_free(q);
}

static void *consumer(void *arg)
{
	struct event_queue *q = arg;
	struct rn_event ev;
	long n = 0;

	while (event_queue_pop(q, &ev))
		n++;
	return (void *)n;
}

static void test_threads(void)
{
	struct event_queue *q = event_queue_new(64);
	struct rn_event ev = named(RN_EV_MODIFY, 1);
	long pushed = 0;
	void *popped;
	pthread_t t;

	pthread_create(&t, NULL, consumer, q);
	for (int i = 0; i < 100000; i++)
		pushed += event_queue_push(q, &ev);
	event_queue_close(q);
	pthread_join(t, &popped);
	CHECK("every event pushed is popped once (plus overflow markers)",
	      (long)popped >= pushed &&
	      (long)popped - pushed <= (long)event_queue_dropped(q));
	event_queue_free(q);
}

int main(void)
{
	test_order();
	test_overflow();
	test_compact();
	test_overflow_at_close();
	test_threads();
	CHECK("queue refuses a capacity below 2", !event_queue_new(1));
	return check_exit();
}
