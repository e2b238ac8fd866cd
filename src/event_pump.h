/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The thread that moves events from the host watcher into the delivery
 * queue, so that a slow delivery never stalls the reading of the host's
 * (bounded) event queue.
 */
#ifndef RNOTIFY_EVENT_PUMP_H
#define RNOTIFY_EVENT_PUMP_H

#include "deliver/event_queue.h"
#include "watch/watch.h"

struct event_pump;

/* Starts pumping from w into q; NULL with errno set on failure. */
struct event_pump *event_pump_start(struct watch *w, struct event_queue *q);

/* Stops the thread, then closes q so that its consumer drains and ends. */
void event_pump_stop(struct event_pump *p);

#endif
