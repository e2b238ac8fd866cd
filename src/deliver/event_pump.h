/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The threads that read the host watcher and hand each event to a sink:
 * the delivery queue in replay mode, the protocol sender itself in
 * protocol mode (a notification costs a few system calls, less than a
 * hand-over to another thread).
 *
 * With several threads, each waits on the watcher (an exclusive wait: one
 * is woken per change); reads are serialised, so the sink gets its events
 * one at a time in host order. After each read the reading thread calls
 * drained(), which in replay mode may replay for a long time: meanwhile
 * another thread reads, so a slow replay never stalls the reading of the
 * host's event queue, and a lone event is replayed by the thread that
 * read it, without waking another thread. A thread woken while another
 * reads calls drained() too, each time the reader has handed on more
 * events, so that a long read's events are replayed while it goes on.
 */
#ifndef RNOTIFY_DELIVER_EVENT_PUMP_H
#define RNOTIFY_DELIVER_EVENT_PUMP_H

#include "event/event.h"
#include "watch/watch.h"

#define EVENT_PUMP_MAX_THREADS 2

struct event_sink {
	/* One call at a time, in host order, whichever thread read. */
	void (*event)(void *arg, const struct rn_event *ev);
	/*
	 * Optional: the watcher has nothing more for now, or another thread
	 * reads it and has handed on more. Called concurrently with the
	 * other threads' event() and drained() calls.
	 */
	void (*drained)(void *arg);
	/*
	 * Optional: each thread's first call; nonzero: that thread only
	 * reads, and never calls drained().
	 */
	int (*thread_init)(void *arg);
	void *arg;
};

struct event_pump;

/*
 * Starts threads (1 to EVENT_PUMP_MAX_THREADS) pumping from w into sink;
 * NULL with errno set on failure.
 */
struct event_pump *event_pump_start(struct watch *w,
				    const struct event_sink *sink,
				    int threads);

/*
 * Stops the threads, each once its drained() call returns; the sink gets
 * no call after this returns.
 */
void event_pump_stop(struct event_pump *p);

#endif
