// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Each thread has its own epoll set: the watcher's fd with EPOLLEXCLUSIVE
 * (a change wakes one waiting thread, not all), and the stop eventfd
 * without it (written once, it wakes them all and stays readable).
 * read_lock serialises watch_read(): the watcher is owned by one thread
 * at a time, and events reach the sink in host order.
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
	pthread_mutex_t read_lock;
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
		pthread_mutex_lock(&p->read_lock);
		ret = watch_read(p->watch, p->sink.event, p->sink.arg);
		pthread_mutex_unlock(&p->read_lock);
		if (ret < 0) {
			if (!atomic_exchange(&p->failed, true))
				fuse_log(FUSE_LOG_ERR,
					 "rnotifyfs: host watcher failed: %s; remote changes are no longer delivered\n",
					 strerror(errno));
			break;
		}
		if (drains && p->sink.drained)
			p->sink.drained(p->sink.arg);
	}
	return NULL;
}

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
		return -1;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, watch.data.fd, &watch) ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, p->stop_fd, &stop)) {
		int err = errno;

		close(t->epfd);
		t->epfd = -1;
		errno = err;
		return -1;
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
	pthread_mutex_destroy(&p->read_lock);
	free(p);
}

static int pump_thread_start(struct event_pump *p, struct pump_thread *t)
{
	int err;

	if (thread_epoll(p, t))
		return -1;
	p->nthreads++;
	err = pthread_create(&t->thread, NULL, pump_main, t);
	if (err) {
		errno = err;
		return -1;
	}
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
	pthread_mutex_init(&p->read_lock, NULL);
	p->stop_fd = eventfd(0, EFD_CLOEXEC);
	for (i = 0; p->stop_fd >= 0 && i < threads; i++)
		if (pump_thread_start(p, &p->threads[i]))
			break;
	if (p->stop_fd < 0 || i < threads) {
		err = errno;
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
