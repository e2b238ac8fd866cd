/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded FIFO of normalised events between the watcher thread (one
 * producer) and a delivery backend's thread (one consumer).
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
 * Blocks until an event is available or the queue is closed. Returns
 * false when closed and empty.
 */
bool event_queue_pop(struct event_queue *q, struct rn_event *ev);

/* Whether nothing is queued right now (the answer may be stale at once). */
bool event_queue_idle(struct event_queue *q);

/* Wakes the consumer; pop() returns false once the queue is drained. */
void event_queue_close(struct event_queue *q);

/* Events dropped because the queue was full, since creation. */
size_t event_queue_dropped(struct event_queue *q);

#endif
