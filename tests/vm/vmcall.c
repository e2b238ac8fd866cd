// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmcall - a call on a thread of its own, and whether it sleeps.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmcall.h"
#include "vmwatch.h"

static void *call_main(void *arg)
{
	struct vm_call *c = arg;

	c->tid = gettid();
	atomic_store(&c->started, true);
	c->ret = c->fn(c->fd);
	atomic_store(&c->done, true);
	return NULL;
}

bool vm_call_start(struct vm_call *c, int (*fn)(int fd), int fd)
{
	memset(c, 0, sizeof(*c));
	c->fn = fn;
	c->fd = fd;
	c->ret = -1;
	return !pthread_create(&c->thread, NULL, call_main, c);
}

/* The thread's state in /proc (R, S, D, ...), or 0. */
static char task_state(pid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool vm_call_sleeps(struct vm_call *c)
{
	long deadline = now_ms() + VM_WAIT_MS;
	char state;

	while (!atomic_load(&c->done) && now_ms() < deadline) {
		state = atomic_load(&c->started) ? task_state(c->tid) : 0;
		if (state == 'S' || state == 'D')
			return !atomic_load(&c->done);
		sched_yield();
	}
	return false;
}

bool vm_call_wait(struct vm_call *c, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;

	while (!atomic_load(&c->done) && now_ms() < deadline)
		usleep(1000);
	return atomic_load(&c->done);
}

int vm_call_join(struct vm_call *c)
{
	return pthread_join(c->thread, NULL) ? -1 : c->ret;
}
