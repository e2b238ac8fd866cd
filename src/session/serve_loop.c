// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The request loop: one worker answers requests while each one is quick;
 * another starts only when every worker has been busy with the same
 * request for a whole tick (a slow read, an fsync, a stalled backing
 * store), and an extra worker ends once nobody else is busy.
 *
 * Why not libfuse's multi-threaded loop: it keeps up to ten idle workers
 * reading /dev/fuse, and the kernel hands each request to the one that
 * has waited longest, so consecutive requests wake different cache-cold
 * threads, often on the other CPU, and the thread that just replied never
 * finds the next request waiting. One worker stays hot (libfuse's -s is
 * 15-30% faster on this path), but with -s one slow request holds up
 * every other request and remote-event delivery. This loop keeps the
 * first and bounds the second by a tick.
 *
 * The supervisor (the caller's thread) looks every tick: 5 ms while
 * requests are being answered, backing off to 64 ms when idle so an idle
 * server hardly wakes. A request is stalled once seen at two looks in a
 * row: 5-10 ms, longer than a worker preempted on a loaded machine
 * (a 1 ms tick started a worker every few hundred requests there).
 *
 * Workers are stopped by SIGUSR1, whose handler the caller installs
 * without SA_RESTART: a worker waiting for a request sees EINTR and then
 * the exited session. Not by cancellation: the read hook (session_io.c)
 * acts on FORGETs, under the inode table's lock, inside that wait. A
 * worker inside a request on a backing store that stopped answering (a
 * hung NFS server, a stopped FUSE server) would hold the stop up for as
 * long as the store does: after STOP_GRACE_NS the loop leaves it running
 * and says so, and the caller exits the process, which ends the request.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "util/mono_wait.h"
#include "serve_loop.h"

#define TICK_MIN_NS	5000000L
#define TICK_MAX_NS	64000000L
#define STOP_GRACE_NS	2000000000L

struct worker {
	struct serve_loop *loop;
	pthread_t thread;
	atomic_uint seq;	/* odd while answering a request */
	unsigned int seen;	/* seq at the supervisor's last look */
	atomic_bool ended;
	struct worker *next;
};

struct serve_loop {
	struct fuse_session *se;
	struct cpu_pin *pin;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct worker *workers;	/* lock */
	atomic_uint live;	/* workers not ended or ending */
	unsigned int max_workers;
	int error;		/* lock */
};

static bool busy(const struct worker *w)
{
	return atomic_load(&w->seq) & 1;
}

/* Lock held. True if another worker is answering a request. */
static bool others_busy(const struct serve_loop *l, const struct worker *me)
{
	const struct worker *w;

	for (w = l->workers; w; w = w->next)
		if (w != me && !atomic_load(&w->ended) && busy(w))
			return true;
	return false;
}

/* An extra worker leaves once nobody else is busy; the last one stays. */
static bool may_leave(struct worker *w)
{
	struct serve_loop *l = w->loop;
	bool leave = false;

	if (atomic_load(&l->live) < 2)
		return false;
	pthread_mutex_lock(&l->lock);
	if (atomic_load(&l->live) > 1 && !others_busy(l, w)) {
		atomic_fetch_sub(&l->live, 1);
		leave = true;
	}
	pthread_mutex_unlock(&l->lock);
	return leave;
}

static void worker_end(struct worker *w, int error)
{
	struct serve_loop *l = w->loop;

	pthread_mutex_lock(&l->lock);
	if (error && !l->error)
		l->error = error;
	atomic_store(&w->ended, true);
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fuse_session *se = w->loop->se;
	struct fuse_buf buf = { 0 };
	int error = 0, n;

	if (w->loop->pin)
		cpu_pin_join(w->loop->pin);
	while (!fuse_session_exited(se)) {
		n = fuse_session_receive_buf(se, &buf);
		if (n == -EINTR)
			continue;
		if (n <= 0) {
			/* 0: unmounted; libfuse marked the session exited */
			error = n;
			fuse_session_exit(se);
			atomic_fetch_sub(&w->loop->live, 1);
			break;
		}
		atomic_fetch_add(&w->seq, 1);
		fuse_session_process_buf(se, &buf);
		atomic_fetch_add(&w->seq, 1);
		if (may_leave(w))
			break;
	}
	free(buf.mem);
	if (w->loop->pin)
		cpu_pin_leave(w->loop->pin);
	worker_end(w, error);
	return NULL;
}

/* Lock held. */
static int worker_start(struct serve_loop *l)
{
	struct worker *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->loop = l;
	/* Counted before it runs: a worker may end before we return. */
	atomic_fetch_add(&l->live, 1);
	err = pthread_create(&w->thread, NULL, worker_main, w);
	if (err) {
		atomic_fetch_sub(&l->live, 1);
		free(w);
		return -err;
	}
	w->next = l->workers;
	l->workers = w;
	return 0;
}

/* Lock held. Joins the workers that left and forgets them. */
static void reap(struct serve_loop *l)
{
	struct worker **p = &l->workers, *w;

	while ((w = *p)) {
		if (!atomic_load(&w->ended)) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		pthread_join(w->thread, NULL);
		free(w);
	}
}

/*
 * Lock held. True if every worker is still answering the request it was
 * answering at the last look.
 */
static bool all_stalled(struct serve_loop *l)
{
	bool stalled = l->workers;
	struct worker *w;
	unsigned int seq;

	for (w = l->workers; w; w = w->next) {
		seq = atomic_load(&w->seq);
		if (!(seq & 1) || seq != w->seen)
			stalled = false;
		w->seen = seq;
	}
	return stalled;
}

static bool any_busy(const struct serve_loop *l)
{
	const struct worker *w;

	for (w = l->workers; w; w = w->next)
		if (busy(w))
			return true;
	return false;
}

static void wait_tick(struct serve_loop *l, long ns)
{
	struct timespec t;

	mono_deadline(&t, ns);
	pthread_cond_timedwait(&l->wake, &l->lock, &t);
}

/* Lock held. Looks at the workers every tick until the session ends. */
static void supervise(struct serve_loop *l)
{
	long tick = TICK_MIN_NS;

	while (!fuse_session_exited(l->se)) {
		wait_tick(l, tick);
		reap(l);
		if (fuse_session_exited(l->se))
			break;
		if (all_stalled(l) &&
		    atomic_load(&l->live) < l->max_workers)
			worker_start(l);
		if (any_busy(l))
			tick = TICK_MIN_NS;
		else if (tick < TICK_MAX_NS)
			tick *= 2;
	}
}

/*
 * Lock held. The session has exited: interrupts the workers' waits until
 * each has seen it (a signal that comes just before a worker starts
 * waiting is lost, so it is sent again every tick). False if a worker is
 * still there after STOP_GRACE_NS: it is stuck inside a request.
 */
static bool stop_workers(struct serve_loop *l)
{
	struct timespec t0;
	struct worker *w;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		reap(l);
		if (!l->workers)
			return true;
		if (mono_ns_since(&t0) > STOP_GRACE_NS)
			return false;
		for (w = l->workers; w; w = w->next)
			pthread_kill(w->thread, SIGUSR1);
		wait_tick(l, TICK_MIN_NS);
	}
}

int serve_loop_run(struct fuse_session *se, unsigned int max_workers,
		   struct cpu_pin *pin)
{
	struct serve_loop *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return -ENOMEM;
	l->se = se;
	l->pin = pin;
	l->max_workers = max_workers;
	pthread_mutex_init(&l->lock, NULL);
	mono_cond_init(&l->wake);
	pthread_mutex_lock(&l->lock);
	err = worker_start(l);
	if (!err)
		supervise(l);
	if (!stop_workers(l)) {
		/* The stuck worker still uses l: it lives until the exit. */
		pthread_mutex_unlock(&l->lock);
		return SERVE_LOOP_STUCK;
	}
	if (!err)
		err = l->error;
	pthread_mutex_unlock(&l->lock);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l);
	return err;
}
