// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The delivery queue: order, overflow marking, the consumer's role,
 * compact records, what a move replaced, a look at the next event, the
 * memory a burst used, producers that wait for room.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "deliver/replay/event_queue.h"
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

/* The consumer's next event, claiming the role first if nobody holds it. */
static bool take(struct event_queue *q, struct rn_event *ev)
{
	event_queue_claim(q);
	return event_queue_take(q, ev);
}

/* A move keeps the id of the file it replaced, the longest one too. */
static void test_replaced(void)
{
	struct event_queue *q = event_queue_new(2);
	struct rn_event ev, want = longest(RN_EV_MOVE, 3);

	want.replaced.dev = 1;
	want.replaced.ino = 8;
	want.replaced.gen = 5;
	CHECK("a move keeps what it replaced",
	      q && event_queue_push(q, &want) && take(q, &ev) &&
	      !memcmp(&ev, &want, sizeof(ev)));
	event_queue_free(q);
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
			ok &= take(q, &ev) &&
			      ev.kind == RN_EV_ATTRIB;
	}
	for (int i = 0; i < 6; i++) {
		ev = named(RN_EV_CREATE, i);
		ev.moved = i & 1;
		ok &= event_queue_push(q, &ev);
	}
	for (int i = 0; i < 6; i++) {
		char want[16];

		snprintf(want, sizeof(want), "f%d", i);
		ok &= take(q, &ev) && !strcmp(ev.name, want) &&
		      ev.moved == (i & 1);
	}
	CHECK("queue keeps order and moved marks across wrap-around", ok);
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
		take(q, &ev);
	ev = named(RN_EV_DELETE, 9);
	event_queue_push(q, &ev);
	CHECK("overflow is reported where events were lost",
	      take(q, &ev) && ev.kind == RN_EV_OVERFLOW);
	CHECK("events after the loss follow the overflow",
	      take(q, &ev) && ev.kind == RN_EV_DELETE &&
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
		ok += take(q, &ev) && !memcmp(&ev, &want,
							 sizeof(ev));
	CHECK("short events come back whole, then the overflow",
	      ok == n && take(q, &ev) &&
	      ev.kind == RN_EV_OVERFLOW);
	/* One event always held, so the tail passes the end of the ring. */
	prev = longest(RN_EV_MOVE, 0);
	event_queue_push(q, &prev);
	for (int round = 1; round < 50 && ok; round++) {
		ev = round % 3 ? named(RN_EV_CREATE, round) :
				 longest(RN_EV_MOVE, round);
		if (ev.kind == RN_EV_MOVE)
			ev.dir2.ino = round;
		ok = event_queue_push(q, &ev) && take(q, &want) &&
		     !strcmp(want.name, prev.name) &&
		     !strcmp(want.name2, prev.name2) &&
		     want.dir2.ino == prev.dir2.ino;
		prev = ev;
	}
	CHECK("mixed sizes wrap around the ring intact", ok);
	event_queue_free(q);
}

/* peek() shows what take() gives next, past a wrap mark, and takes nothing. */
static void test_peek(void)
{
	struct event_queue *q = event_queue_new(4);
	struct rn_event ev, seen, next;
	bool ok = true;
	int round;

	CHECK("peek at an empty queue gives nothing", !event_queue_peek(q, &ev));
	/* One event always held, so the head passes the end of the ring. */
	ev = longest(RN_EV_MOVE, 0);
	event_queue_push(q, &ev);
	for (round = 1; round < 40 && ok; round++) {
		ev = round % 2 ? named(RN_EV_CLOSE_WRITE, round) :
				 longest(RN_EV_MOVE, round);
		ok = event_queue_push(q, &ev) && event_queue_peek(q, &seen) &&
		     event_queue_peek(q, &seen) && take(q, &next) &&
		     !memcmp(&seen, &next, sizeof(seen));
	}
	CHECK("peek shows the next event, twice, across wrap-around", ok);
	CHECK("peek takes nothing",
	      event_queue_peek(q, &seen) && take(q, &next) &&
	      !memcmp(&seen, &next, sizeof(seen)) &&
	      !event_queue_peek(q, &seen));
	event_queue_free(q);
}

static void test_role(void)
{
	struct event_queue *q = event_queue_new(2);
	struct rn_event ev = longest(RN_EV_MOVE, 0);
	bool second;

	CHECK("an empty queue gives no consumer's role",
	      !event_queue_claim(q));
	event_queue_push(q, &ev);
	event_queue_push(q, &ev);
	CHECK("a push makes the role claimable", event_queue_claim(q));
	second = event_queue_claim(q);
	CHECK("the role has one holder at a time", !second);
	CHECK("the holder takes the queued event",
	      event_queue_take(q, &ev) && ev.kind == RN_EV_MOVE);
	CHECK("a pending overflow is taken after it",
	      event_queue_take(q, &ev) && ev.kind == RN_EV_OVERFLOW);
	CHECK("an empty queue ends the holder's turn",
	      !event_queue_take(q, &ev));
	event_queue_push(q, &ev);
	CHECK("the role is free again after the turn",
	      event_queue_claim(q) && event_queue_take(q, &ev) &&
	      !event_queue_take(q, &ev));
	event_queue_free(q);
}

#define PRODUCER_PUSHES 50000

struct producer {
	struct event_queue *q;
	pthread_mutex_t *order;	/* pushes in one order, as the pump's */
	int seq;		/* number of the next event pushed */
	long pushed;
	long taken;
	long overflows;
	int last_seen;		/* number of the last event taken */
	bool in_order;
};

/* Takes the role if free and drains, as replay_drained(). */
static void drain(struct producer *p)
{
	struct rn_event ev;
	int seen;

	if (!event_queue_claim(p->q))
		return;
	while (event_queue_take(p->q, &ev)) {
		if (ev.kind == RN_EV_OVERFLOW) {
			p->overflows++;
			continue;
		}
		/* The role's holder alone writes these. */
		sscanf(ev.name, "f%d", &seen);
		p->in_order &= seen > p->last_seen;
		p->last_seen = seen;
		p->taken++;
	}
}

/* As a pump thread: push (after room, as replay_queue_event()), drain. */
static void *producer(void *arg)
{
	struct producer *p = arg;
	struct rn_event ev;

	for (int i = 0; i < PRODUCER_PUSHES; i++) {
		pthread_mutex_lock(p->order);
		ev = named(RN_EV_MODIFY, p->seq++);
		while (!event_queue_room(p->q, &ev))
			drain(p);
		p->pushed += event_queue_push(p->q, &ev);
		pthread_mutex_unlock(p->order);
		drain(p);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_mutex_t order = PTHREAD_MUTEX_INITIALIZER;
	struct producer p = { .q = event_queue_new(64), .order = &order,
			      .last_seen = -1, .in_order = true };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, producer, &p);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK("two threads pushing and taking turns: each event taken once",
	      p.taken == p.pushed && !event_queue_claim(p.q));
	CHECK("turns keep the order of the pushes", p.in_order);
	event_queue_free(p.q);
}

/*
 * As for fanotify, whose host queue keeps what is not read (a pipe stands
 * for it: FIONREAD says how much it holds): two threads pushing through
 * a small queue and taking turns lose nothing, a push waiting for the
 * consumer, or consuming itself when nobody does; with no consumer a full
 * queue says so rather than wait for ever; once the host holds its share,
 * a producer stops waiting and its event is dropped.
 */
static void test_wait_for_room(void)
{
	pthread_mutex_t order = PTHREAD_MUTEX_INITIALIZER;
	struct producer p = { .q = event_queue_new(4), .order = &order,
			      .last_seen = -1, .in_order = true };
	struct rn_event ev = named(RN_EV_CREATE, 0);
	char host[8192] = "";
	int n = 0, fds[2];
	pthread_t t[2];

	if (pipe(fds))
		return;
	event_queue_wait_for_room(p.q, fds[0], sizeof(host));
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, producer, &p);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK("waiting for room: every push queued and taken, none lost",
	      p.pushed == 2 * PRODUCER_PUSHES && p.taken == p.pushed &&
	      !p.overflows);
	CHECK("waiting for room: in the order of the pushes", p.in_order);
	while (n < 1000 && event_queue_room(p.q, &ev) &&
	       event_queue_push(p.q, &ev))
		n++;
	CHECK("waiting for room: with no consumer a full queue says so",
	      n > 0 && n < 1000 && !event_queue_room(p.q, &ev));
	event_queue_claim(p.q);
	CHECK("waiting for room: a host holding its share ends it",
	      write(fds[1], host, sizeof(host)) == sizeof(host) &&
	      event_queue_room(p.q, &ev) && !event_queue_push(p.q, &ev));
	close(fds[0]);
	close(fds[1]);
	event_queue_free(p.q);
}

/* Resident bytes of this process (/proc/self/statm), or 0. */
static size_t resident(void)
{
	unsigned long size, pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &pages) != 2)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * A burst of 16 MiB of records, then drained: most of what it touched is
 * given back, and the ring still works afterwards. (Under ASan the shadow
 * of those pages stays: an eighth of them, hence "most".)
 */
static void test_release(void)
{
	struct event_queue *q = event_queue_new(65536);
	size_t before = resident(), full, drained, n = 0, got = 0;
	struct rn_event ev, out;

	ev = named(RN_EV_CREATE, 0);
	while (n < 16 * 1024 * 1024 / 48 && event_queue_push(q, &ev))
		n++;
	full = resident();
	while (take(q, &out))
		got++;
	drained = resident();
	CHECK("burst: every event taken", got == n);
	CHECK("burst: the ring used the memory it touched",
	      full >= before + 12 * 1024 * 1024);
	CHECK("burst: the emptied ring gave most of it back",
	      drained < before + (full - before) / 4);
	CHECK("burst: the ring works after giving memory back",
	      event_queue_push(q, &ev) && take(q, &out) &&
	      !strcmp(out.name, "f0") && !take(q, &out));
	event_queue_free(q);
}

int main(void)
{
	test_order();
	test_overflow();
	test_compact();
	test_replaced();
	test_peek();
	test_role();
	test_threads();
	test_wait_for_room();
	test_release();
	CHECK("queue refuses a capacity below 2", !event_queue_new(1));
	return check_exit();
}
