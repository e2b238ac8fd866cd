/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded FIFO of normalised events between the threads that read the
 * host watcher (producers, one at a time) and the one that replays them
 * (the consumer). No thread ever waits on it: the consumer is whichever
 * reading thread claims the role after its push, so a lone event is
 * replayed by the thread that read it, with no hand-over.
 *
 * The host kernel's fanotify queue holds 16,384 events; this one holds
 * more, so that a slow delivery does not make the host drop events. When
 * it is full anyway, the newest events are dropped and the consumer is
 * told once, by an RN_EV_OVERFLOW event, at the point where they were lost.
 */
#ifndef RNOTIFY_EVENT_QUEUE_H
#define RNOTIFY_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "../event.h"

struct event_queue;

/*
 * Room for capacity - 1 events of the largest size (two names of
 * NAME_MAX); events with shorter names take less, so typically eight
 * times more fit. NULL if capacity < 2 or out of memory.
 */
struct event_queue *event_queue_new(size_t capacity);
void event_queue_free(struct event_queue *q);

/* Never blocks. Returns false if the event was dropped (queue full). */
bool event_queue_push(struct event_queue *q, const struct rn_event *ev);

/*
 * Takes the consumer's role if something waits and nobody holds the role:
 * true if the caller now holds it. Every producer calls it after pushing,
 * so nothing queued is ever left without a consumer.
 */
bool event_queue_claim(struct event_queue *q);

/*
 * For the role's holder: the next event, or false when none is left, and
 * then the role is given up in the same critical section, so that an
 * event pushed meanwhile is either taken here or claimed by its producer.
 */
bool event_queue_take(struct event_queue *q, struct rn_event *ev);

/*
 * For the role's holder: a copy of the event take() would give next,
 * without taking it; false if none is queued.
 */
bool event_queue_peek(struct event_queue *q, struct rn_event *ev);

/* Events dropped because the queue was full, since creation. */
size_t event_queue_dropped(struct event_queue *q);

#endif
