/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The thread that reads the host watcher and hands each event to a sink:
 * the delivery queue in replay mode (so that a slow replay never stalls
 * the reading of the host's bounded event queue), the protocol sender
 * itself in protocol mode (a notification costs a few system calls, less
 * than a hand-over to another thread).
 */
#ifndef RNOTIFY_EVENT_PUMP_H
#define RNOTIFY_EVENT_PUMP_H

#include "event.h"
#include "watch/watch.h"

struct event_sink {
	void (*event)(void *arg, const struct rn_event *ev);
	/* Optional: the watcher has nothing more for now. */
	void (*drained)(void *arg);
	void *arg;
};

struct event_pump;

/* Starts pumping from w into sink; NULL with errno set on failure. */
struct event_pump *event_pump_start(struct watch *w,
				    const struct event_sink *sink);

/* Stops the thread; the sink gets no call after this returns. */
void event_pump_stop(struct event_pump *p);

#endif
