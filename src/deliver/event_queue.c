// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ring buffer with one mutex and one condition variable.
 *
 * Invariants (under q->lock): 0 <= count <= capacity; events live in
 * slots head .. head + count - 1 (mod capacity). overflow_pending means
 * events were dropped since the consumer last saw an OVERFLOW event: the
 * next push that finds room first queues an RN_EV_OVERFLOW, so the
 * consumer learns of the loss in order.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "event_queue.h"

struct event_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct rn_event *slots;
	size_t capacity;
	size_t head;
	size_t count;
	size_t dropped;
	bool overflow_pending;
	bool closed;
};

struct event_queue *event_queue_new(size_t capacity)
{
	struct event_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->slots = calloc(capacity, sizeof(*q->slots));
	if (!q->slots || capacity < 2) {
		free(q->slots);
		free(q);
		return NULL;
	}
	q->capacity = capacity;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->nonempty, NULL);
	return q;
}

void event_queue_free(struct event_queue *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->nonempty);
	free(q->slots);
	free(q);
}

static void queue_append(struct event_queue *q, const struct rn_event *ev)
{
	q->slots[(q->head + q->count) % q->capacity] = *ev;
	q->count++;
}

bool event_queue_push(struct event_queue *q, const struct rn_event *ev)
{
	bool queued = false;

	pthread_mutex_lock(&q->lock);
	/* Keep one slot free for the OVERFLOW marker. */
	if (q->count + 1 + q->overflow_pending < q->capacity) {
		if (q->overflow_pending) {
			struct rn_event ovf = { .kind = RN_EV_OVERFLOW };

			queue_append(q, &ovf);
			q->overflow_pending = false;
		}
		queue_append(q, ev);
		queued = true;
	} else {
		q->dropped++;
		q->overflow_pending = true;
	}
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
	return queued;
}

bool event_queue_pop(struct event_queue *q, struct rn_event *ev)
{
	bool got = false;

	pthread_mutex_lock(&q->lock);
	while (!q->count && !q->overflow_pending && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	if (q->count) {
		*ev = q->slots[q->head];
		q->head = (q->head + 1) % q->capacity;
		q->count--;
		got = true;
	} else if (q->overflow_pending) {
		memset(ev, 0, sizeof(*ev));
		ev->kind = RN_EV_OVERFLOW;
		q->overflow_pending = false;
		got = true;
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

bool event_queue_idle(struct event_queue *q)
{
	bool idle;

	pthread_mutex_lock(&q->lock);
	idle = !q->count && !q->overflow_pending;
	pthread_mutex_unlock(&q->lock);
	return idle;
}

void event_queue_close(struct event_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

size_t event_queue_dropped(struct event_queue *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->dropped;
	pthread_mutex_unlock(&q->lock);
	return n;
}
