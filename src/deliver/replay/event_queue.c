// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A byte ring of variable-size records under one mutex.
 *
 * A struct rn_event is 624 bytes, almost all of it room for two names of
 * NAME_MAX; a record holds the names at their length and the second
 * directory only for a move (a create of "f12" takes 48 bytes), so the
 * same memory holds ten times more events: a writer that outruns the
 * replayer for a while loses nothing.
 *
 * Invariants (under q->lock): records live in buf[head .. head + used)
 * (mod size), each a multiple of 8 bytes; a record of size 0 (a wrap
 * mark) says the next one starts at 0, and the bytes it skips count as
 * used. count is the number of events held. overflow_pending means events
 * were dropped since the consumer last saw an OVERFLOW event: the next
 * push that finds room first queues an RN_EV_OVERFLOW, so the consumer
 * learns of the loss in order; room for that marker is always kept.
 * consuming means a thread holds the consumer's role; it is only given up
 * when nothing is left to take. touched is the end of the bytes written
 * since the ring's memory was last given back.
 *
 * The ring is reserved for the worst case (37 MB at the default size)
 * and only the pages written use memory. An empty ring starts again at
 * 0, so steady traffic keeps reusing its first pages; after a burst has
 * touched more than QUEUE_KEEP, the emptied ring gives back all but
 * those first pages, instead of holding the burst's memory until exit.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/mono_wait.h"
#include "event_queue.h"

/*
 * A host id in 16 bytes, not the 24 of struct rn_id: the kernel's dev_t
 * is 32 bits wide, so st_dev always fits.
 */
struct queue_id {
	uint32_t dev;
	uint32_t gen;
	uint64_t ino;
};

struct queue_record {
	uint16_t size;		/* bytes, a multiple of 8; 0: wrap mark */
	uint8_t kind;
	uint8_t isdir;
	uint8_t moved;
	uint8_t len;		/* of name (NAME_MAX is 255) */
	uint8_t len2;		/* of name2 */
	uint8_t replaced;	/* a move's replaced id follows dir2 */
	struct queue_id obj;
	struct queue_id dir;
	/* [dir2 [replaced] if a move] name NUL [name2 NUL if a move] */
	unsigned char tail[];
};

#define RECORD_ALIGN 8
/* About 20,000 short events: more than a lone change's backlog. */
#define QUEUE_KEEP ((size_t)1 << 20)
#define OVERFLOW_SIZE record_size(RN_EV_OVERFLOW, 0, 0, false)
/* How often a producer waiting for room looks again. */
#define WAIT_TICK_MS 20
/* How long an answer of the host's FIONREAD holds (see host_full()). */
#define HOST_ASK_MS 500

struct event_queue {
	pthread_mutex_t lock;
	pthread_cond_t room;	/* half the ring free again, or no consumer */
	int host_fd;		/* event_queue_wait_for_room()'s, or -1 */
	size_t host_max;	/* bytes the host may hold unread */
	bool host_asked;	/* host_full() has asked: */
	bool host_was_full;	/* its answer, */
	struct timespec host_asked_at;	/* and when */
	int waiting;		/* producers waiting for room */
	unsigned char *buf;
	size_t size;
	size_t head;
	size_t used;
	size_t count;
	size_t touched;
	size_t dropped;
	bool overflow_pending;
	bool consuming;
};

static size_t record_size(enum rn_event_kind kind, size_t len, size_t len2,
			  bool replaced)
{
	size_t n = sizeof(struct queue_record) + len + 1;

	if (kind == RN_EV_MOVE)
		n += sizeof(struct queue_id) * (replaced ? 2 : 1) + len2 + 1;

	return (n + RECORD_ALIGN - 1) & ~(size_t)(RECORD_ALIGN - 1);
}

struct event_queue *event_queue_new(size_t capacity)
{
	struct event_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	/*
	 * Room for capacity - 1 events of the largest size, and the mark (a
	 * move that says what it replaced is rare: not counted in).
	 */
	q->size = capacity * record_size(RN_EV_MOVE, NAME_MAX, NAME_MAX, false);
	if (capacity < 2) {
		free(q);
		errno = EINVAL;
		return NULL;
	}
	q->buf = mmap(NULL, q->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q->buf == MAP_FAILED) {
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	mono_cond_init(&q->room);
	q->host_fd = -1;
	return q;
}

void event_queue_wait_for_room(struct event_queue *q, int host_fd,
			       size_t host_max)
{
	pthread_mutex_lock(&q->lock);
	q->host_fd = host_fd;
	q->host_max = host_max;
	pthread_mutex_unlock(&q->lock);
}

void event_queue_free(struct event_queue *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->room);
	munmap(q->buf, q->size);
	free(q);
}

static struct queue_record *record_at(struct event_queue *q, size_t off)
{
	return (struct queue_record *)(q->buf + off);
}

/*
 * Can n contiguous bytes be appended? True with *at, where they go, and
 * *skip, the bytes a wrap mark at the tail would skip; false if the ring
 * has no room for them.
 */
static bool room_for(struct event_queue *q, size_t n, size_t *at,
		     size_t *skip)
{
	size_t tail = (q->head + q->used) % q->size;

	*at = 0;
	*skip = 0;
	if (q->used + n > q->size)
		return false;
	if (tail < q->head) {
		*at = tail;
		return tail + n <= q->head;
	}
	if (tail + n <= q->size) {
		*at = tail;
		return true;
	}
	*skip = q->size - tail;
	return n <= q->head && q->used + *skip + n <= q->size;
}

static struct queue_id id_pack(const struct rn_id *id)
{
	return (struct queue_id){ .dev = (uint32_t)id->dev, .gen = id->gen,
				  .ino = id->ino };
}

static void id_unpack(const struct queue_id *q, struct rn_id *id)
{
	id->dev = q->dev;
	id->ino = q->ino;
	id->gen = q->gen;
}

static size_t event_size(const struct rn_event *ev)
{
	return record_size(ev->kind, strlen(ev->name), strlen(ev->name2),
			   rn_id_known(&ev->replaced));
}

static void record_append(struct event_queue *q, const struct rn_event *ev)
{
	size_t len = strlen(ev->name), len2 = strlen(ev->name2);
	size_t n = event_size(ev), at, skip;
	unsigned char *p;
	struct queue_record *r;

	/* fits() said there is room. */
	room_for(q, n, &at, &skip);
	if (skip)
		record_at(q, q->size - skip)->size = 0;
	r = record_at(q, at);
	r->size = n;
	r->kind = ev->kind;
	r->isdir = ev->isdir;
	r->moved = ev->moved;
	r->len = len;
	r->len2 = len2;
	r->replaced = ev->kind == RN_EV_MOVE && rn_id_known(&ev->replaced);
	r->obj = id_pack(&ev->obj);
	r->dir = id_pack(&ev->dir);
	p = r->tail;
	if (ev->kind == RN_EV_MOVE) {
		struct queue_id dir2 = id_pack(&ev->dir2);

		memcpy(p, &dir2, sizeof(dir2));
		p += sizeof(dir2);
		if (r->replaced) {
			struct queue_id replaced = id_pack(&ev->replaced);

			memcpy(p, &replaced, sizeof(replaced));
			p += sizeof(replaced);
		}
	}
	memcpy(p, ev->name, len + 1);
	if (ev->kind == RN_EV_MOVE)
		memcpy(p + len + 1, ev->name2, len2 + 1);
	q->used += skip + n;
	q->count++;
	if (at + n > q->touched)
		q->touched = at + n;
	if (skip)
		q->touched = q->size;
}

/* Gives back the pages an emptied ring touched past its first ones. */
static void ring_release(struct event_queue *q)
{
	size_t page, end;

	/* Every lone event empties the ring: nothing more for those. */
	if (q->touched <= QUEUE_KEEP)
		return;
	page = (size_t)sysconf(_SC_PAGESIZE);
	end = (q->touched + page - 1) / page * page;
	if (end > q->size)
		end = q->size;
	madvise(q->buf + QUEUE_KEEP, end - QUEUE_KEEP, MADV_DONTNEED);
	q->touched = QUEUE_KEEP;
}

/* Room for ev, for the OVERFLOW mark owed before it, and one more mark. */
static bool fits(struct event_queue *q, const struct rn_event *ev)
{
	size_t need = event_size(ev) + OVERFLOW_SIZE *
		      (1 + q->overflow_pending), at, skip;

	return room_for(q, need, &at, &skip);
}

/*
 * Does the host hold its share? fanotify's FIONREAD walks its whole queue
 * under the lock its writers take to queue an event. Asked every tick of
 * a wait, walks of some 500,000 events took 13% of the CPUs' time in a
 * throughput run, and the writers spun on that lock for 10% more
 * (bench/PROFILE.md, eighteenth round). So an answer holds for
 * HOST_ASK_MS: by then a host past its share holds a few MB more, not
 * without bound. A host that cannot say counts as full: the push then
 * drops. Called, and returns, with q->lock held.
 */
static bool host_full(struct event_queue *q)
{
	size_t max = q->host_max;
	int fd = q->host_fd, pending;
	bool full;

	if (q->host_asked &&
	    mono_ns_since(&q->host_asked_at) < HOST_ASK_MS * 1000000L)
		return q->host_was_full;
	pthread_mutex_unlock(&q->lock);
	full = ioctl(fd, FIONREAD, &pending) || pending < 0 ||
	       (size_t)pending >= max;
	pthread_mutex_lock(&q->lock);
	q->host_asked = true;
	q->host_was_full = full;
	clock_gettime(CLOCK_MONOTONIC, &q->host_asked_at);
	return full;
}

/* Until a consumer frees half the ring, or WAIT_TICK_MS pass. */
static void wait_a_tick(struct event_queue *q)
{
	struct timespec until;

	mono_deadline(&until, WAIT_TICK_MS * 1000000L);
	q->waiting++;
	pthread_cond_timedwait(&q->room, &q->lock, &until);
	q->waiting--;
}

bool event_queue_room(struct event_queue *q, const struct rn_event *ev)
{
	bool room = true, host_is_full;

	pthread_mutex_lock(&q->lock);
	while (q->host_fd >= 0 && !fits(q, ev)) {
		host_is_full = host_full(q);
		/* A host past its share: the push drops, as without waiting. */
		if (host_is_full || fits(q, ev))
			break;
		/* Only a consumer makes room: without one, the caller must. */
		if (!q->consuming) {
			room = false;
			break;
		}
		wait_a_tick(q);
	}
	pthread_mutex_unlock(&q->lock);
	return room;
}

bool event_queue_push(struct event_queue *q, const struct rn_event *ev)
{
	struct rn_event ovf = { .kind = RN_EV_OVERFLOW };
	bool queued = false;

	pthread_mutex_lock(&q->lock);
	if (fits(q, ev)) {
		if (q->overflow_pending)
			record_append(q, &ovf);
		q->overflow_pending = false;
		record_append(q, ev);
		queued = true;
	} else {
		q->dropped++;
		q->overflow_pending = true;
	}
	pthread_mutex_unlock(&q->lock);
	return queued;
}

static void record_copy(const struct queue_record *r, struct rn_event *ev)
{
	const unsigned char *p;

	memset(ev, 0, sizeof(*ev));
	ev->kind = r->kind;
	ev->isdir = r->isdir;
	ev->moved = r->moved;
	id_unpack(&r->obj, &ev->obj);
	id_unpack(&r->dir, &ev->dir);
	p = r->tail;
	if (r->kind == RN_EV_MOVE) {
		struct queue_id dir2;

		memcpy(&dir2, p, sizeof(dir2));
		id_unpack(&dir2, &ev->dir2);
		p += sizeof(dir2);
		if (r->replaced) {
			struct queue_id replaced;

			memcpy(&replaced, p, sizeof(replaced));
			id_unpack(&replaced, &ev->replaced);
			p += sizeof(replaced);
		}
	}
	memcpy(ev->name, p, r->len + 1);
	if (r->kind == RN_EV_MOVE)
		memcpy(ev->name2, p + r->len + 1, r->len2 + 1);
}

/* The first record, past a wrap mark at the head. */
static struct queue_record *record_first(struct event_queue *q)
{
	struct queue_record *r = record_at(q, q->head);

	return r->size ? r : record_at(q, 0);
}

static void record_take(struct event_queue *q, struct rn_event *ev)
{
	struct queue_record *r = record_at(q, q->head);

	if (!r->size) {
		q->used -= q->size - q->head;
		q->head = 0;
		r = record_at(q, 0);
	}
	record_copy(r, ev);
	q->head = (q->head + r->size) % q->size;
	q->used -= r->size;
	q->count--;
	if (!q->count) {
		q->head = q->used = 0;
		ring_release(q);
	}
}

/* Something for the consumer: an event, or an overflow not yet told. */
static bool has_work(const struct event_queue *q)
{
	return q->count || q->overflow_pending;
}

bool event_queue_claim(struct event_queue *q)
{
	bool claimed;

	pthread_mutex_lock(&q->lock);
	claimed = !q->consuming && has_work(q);
	if (claimed)
		q->consuming = true;
	pthread_mutex_unlock(&q->lock);
	return claimed;
}

bool event_queue_take(struct event_queue *q, struct rn_event *ev)
{
	bool got = true;

	pthread_mutex_lock(&q->lock);
	if (q->count) {
		record_take(q, ev);
	} else if (q->overflow_pending) {
		memset(ev, 0, sizeof(*ev));
		ev->kind = RN_EV_OVERFLOW;
		q->overflow_pending = false;
	} else {
		q->consuming = false;
		got = false;
	}
	/*
	 * A waiting producer is woken when half the ring is free, not at
	 * each event: then it queues a whole read of the host at once,
	 * instead of trading the CPU with the consumer event by event.
	 */
	if (q->waiting && (!q->consuming || q->used <= q->size / 2))
		pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	return got;
}

bool event_queue_peek(struct event_queue *q, struct rn_event *ev)
{
	bool got;

	pthread_mutex_lock(&q->lock);
	got = q->count;
	if (got)
		record_copy(record_first(q), ev);
	pthread_mutex_unlock(&q->lock);
	return got;
}

size_t event_queue_dropped(struct event_queue *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->dropped;
	pthread_mutex_unlock(&q->lock);
	return n;
}
