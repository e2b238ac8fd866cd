// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Each thread has its own epoll set: the watcher's fd with EPOLLEXCLUSIVE
 * (a change wakes one waiting thread, not all), and the stop eventfd
 * without it (written once, it wakes them all and stays readable).
 *
 * The watcher is owned by one thread at a time (p->reading, under
 * p->lock), so events reach the sink in host order. A thread woken while
 * another reads does not wait idle for the watcher: it drains what the
 * reader has handed to the sink so far, and sleeps on p->handed_more
 * only while nothing new was handed, until the reader hands more or
 * lets go. Waiting for the watcher alone left every event of a long read
 * (FAN_READS_PER_CALL buffers, each record maybe a scope walk) queued
 * and unreplayed until the read ended: a read that took seconds on a
 * file system busy with other work held back the events of our export
 * it had already queued, with a second thread there to replay them.
 *
 * Locks: p->lock protects reading, handed and waiting; it is never held
 * across a call into the watcher or the sink.
 */
#include <errno.h>
#include <fuse_log.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event_pump.h"

struct pump_thread {
	struct event_pump *pump;
	int epfd;
	bool started;
	pthread_t thread;
};

struct event_pump {
	struct watch *watch;
	struct event_sink sink;
	int stop_fd;		/* eventfd: written once to stop */
	pthread_mutex_t lock;
	pthread_cond_t handed_more;	/* handed grew, or reading ended */
	bool reading;		/* a thread owns the watcher */
	unsigned long handed;	/* events handed to the sink, ever */
	int waiting;		/* threads asleep on handed_more */
	atomic_bool failed;	/* the watcher failed: said once */
	int nthreads;
	struct pump_thread threads[EVENT_PUMP_MAX_THREADS];
};

/* Waits for the watcher; false once the pump is to stop. */
static bool pump_wait(struct pump_thread *t)
{
	struct epoll_event ev[2];
	int n, i;

	for (;;) {
		n = epoll_wait(t->epfd, ev, 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		for (i = 0; i < n; i++)
			if (ev[i].data.fd == t->pump->stop_fd)
				return false;
		return true;
	}
}

/* The reader hands each event on, and wakes a thread that waits to drain. */
static void pump_event(void *arg, const struct rn_event *ev)
{
	struct event_pump *p = arg;

	p->sink.event(p->sink.arg, ev);
	pthread_mutex_lock(&p->lock);
	p->handed++;
	if (p->waiting)
		pthread_cond_signal(&p->handed_more);
	pthread_mutex_unlock(&p->lock);
}

/*
 * Takes the watcher; while another thread reads, drains what it hands on
 * (a thread that cannot drain only waits).
 */
static void pump_take_watcher(struct event_pump *p, bool drains)
{
	unsigned long seen;

	pthread_mutex_lock(&p->lock);
	while (p->reading) {
		seen = p->handed;
		if (drains && p->sink.drained) {
			pthread_mutex_unlock(&p->lock);
			p->sink.drained(p->sink.arg);
			pthread_mutex_lock(&p->lock);
		}
		while (p->reading && p->handed == seen) {
			p->waiting++;
			pthread_cond_wait(&p->handed_more, &p->lock);
			p->waiting--;
		}
	}
	p->reading = true;
	pthread_mutex_unlock(&p->lock);
}

static void pump_release_watcher(struct event_pump *p)
{
	pthread_mutex_lock(&p->lock);
	p->reading = false;
	if (p->waiting)
		pthread_cond_broadcast(&p->handed_more);
	pthread_mutex_unlock(&p->lock);
}

static void *pump_main(void *arg)
{
	struct pump_thread *t = arg;
	struct event_pump *p = t->pump;
	bool drains = true;
	int ret;

	/*
	 * A thread that cannot drain still reads: the host's queue is not
	 * bounded (FAN_UNLIMITED_QUEUE), the sink's is.
	 */
	if (p->sink.thread_init && p->sink.thread_init(p->sink.arg))
		drains = false;
	while (pump_wait(t)) {
		pump_take_watcher(p, drains);
		ret = watch_read(p->watch, pump_event, p);
		pump_release_watcher(p);
		if (ret < 0) {
			if (!atomic_exchange(&p->failed, true))
				fuse_log(FUSE_LOG_ERR,
					 "rnotifyfs: host watcher failed: %s; remote changes are no longer delivered\n",
					 strerror(-ret));
			break;
		}
		if (drains && p->sink.drained)
			p->sink.drained(p->sink.arg);
	}
	return NULL;
}

/* t's epoll set: 0, or a negative errno. */
static int thread_epoll(struct event_pump *p, struct pump_thread *t)
{
	struct epoll_event watch = {
		.events = EPOLLIN | EPOLLEXCLUSIVE,
		.data.fd = watch_fd(p->watch),
	};
	struct epoll_event stop = { .events = EPOLLIN, .data.fd = p->stop_fd };

	t->pump = p;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0)
		return -errno;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, watch.data.fd, &watch) ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, p->stop_fd, &stop)) {
		int err = errno;

		close(t->epfd);
		t->epfd = -1;
		return -err;
	}
	return 0;
}

/* Stops and frees what event_pump_start() set up, started or not. */
static void pump_free(struct event_pump *p)
{
	uint64_t one = 1;
	int i;

	if (p->stop_fd >= 0 && write(p->stop_fd, &one, sizeof(one)) !=
	    sizeof(one))
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: cannot stop the pump\n");
	for (i = 0; i < p->nthreads; i++) {
		if (p->threads[i].started)
			pthread_join(p->threads[i].thread, NULL);
		close(p->threads[i].epfd);
	}
	if (p->stop_fd >= 0)
		close(p->stop_fd);
	pthread_cond_destroy(&p->handed_more);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* 0, or a negative errno. */
static int pump_thread_start(struct event_pump *p, struct pump_thread *t)
{
	int err;

	err = thread_epoll(p, t);
	if (err)
		return err;
	p->nthreads++;
	err = pthread_create(&t->thread, NULL, pump_main, t);
	if (err)
		return -err;
	t->started = true;
	return 0;
}

struct event_pump *event_pump_start(struct watch *w,
				    const struct event_sink *sink,
				    int threads)
{
	struct event_pump *p;
	int i, err;

	if (threads < 1 || threads > EVENT_PUMP_MAX_THREADS) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->watch = w;
	p->sink = *sink;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->handed_more, NULL);
	p->stop_fd = eventfd(0, EFD_CLOEXEC);
	err = p->stop_fd < 0 ? errno : 0;
	for (i = 0; !err && i < threads; i++)
		err = -pump_thread_start(p, &p->threads[i]);
	if (err) {
		pump_free(p);
		errno = err;
		return NULL;
	}
	return p;
}

void event_pump_stop(struct event_pump *p)
{
	if (p)
		pump_free(p);
}
