/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounded FIFO of normalised events between the threads that read the
 * host watcher (producers, one at a time) and the one that replays them
 * (the consumer). The consumer never waits on it: the consumer is whichever
 * reading thread claims the role after its push, so a lone event is
 * replayed by the thread that read it, with no hand-over.
 *
 * The host kernel's inotify queue holds 16,384 events; this one holds
 * more, so that a slow delivery does not make the host drop events. When
 * it is full anyway, the newest events are dropped and the consumer is
 * told once, by an RN_EV_OVERFLOW event, at the point where they were lost
 * (unless the producer waits for room: event_queue_wait_for_room()).
 */
#ifndef RNOTIFY_DELIVER_REPLAY_EVENT_QUEUE_H
#define RNOTIFY_DELIVER_REPLAY_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "event/event.h"

struct event_queue;

/*
 * Room for capacity - 1 events of the largest size (two names of
 * NAME_MAX); events with shorter names take less, so typically eight
 * times more fit. NULL with errno set (EINVAL if capacity < 2).
 */
struct event_queue *event_queue_new(size_t capacity);
void event_queue_free(struct event_queue *q);

/*
 * For a host source that keeps what is not read yet however much there is
 * (fanotify's unlimited queue), read from host_fd: from now on
 * event_queue_room() makes a producer wait for room rather than have its
 * event dropped, so that a burst waits in the host's queue rather than
 * being lost, as long as the host holds less than host_max bytes unread
 * (FIONREAD on host_fd). Past that the push drops, as without waiting:
 * the host's memory is not ours to fill without end.
 */
void event_queue_wait_for_room(struct event_queue *q, int host_fd,
			       size_t host_max);

/*
 * Before a push, for a queue that waits for room: true once ev fits
 * (waiting while a consumer drains a full queue), false if it does not
 * and nobody consumes: the caller then consumes, and asks again. Always
 * true for a queue that does not wait.
 */
bool event_queue_room(struct event_queue *q, const struct rn_event *ev);

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
