// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fuse_log.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "event_pump.h"

struct event_pump {
	struct watch *watch;
	struct event_sink sink;
	int stop_fd;		/* eventfd: written once to stop */
	pthread_t thread;
};

static void *pump_main(void *arg)
{
	struct event_pump *p = arg;
	struct pollfd pfd[2] = {
		{ .fd = watch_fd(p->watch), .events = POLLIN },
		{ .fd = p->stop_fd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (watch_read(p->watch, p->sink.event, p->sink.arg) < 0) {
			fuse_log(FUSE_LOG_ERR,
				 "rnotifyfs: host watcher failed: %s; remote changes are no longer delivered\n",
				 strerror(errno));
			break;
		}
		if (p->sink.drained)
			p->sink.drained(p->sink.arg);
	}
	return NULL;
}

struct event_pump *event_pump_start(struct watch *w,
				    const struct event_sink *sink)
{
	struct event_pump *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	p->watch = w;
	p->sink = *sink;
	p->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (p->stop_fd < 0)
		goto fail;
	err = pthread_create(&p->thread, NULL, pump_main, p);
	if (err) {
		close(p->stop_fd);
		errno = err;
		goto fail;
	}
	return p;
fail:
	free(p);
	return NULL;
}

void event_pump_stop(struct event_pump *p)
{
	uint64_t one = 1;

	if (!p)
		return;
	if (write(p->stop_fd, &one, sizeof(one)) != sizeof(one))
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: cannot stop the pump\n");
	pthread_join(p->thread, NULL);
	close(p->stop_fd);
	free(p);
}
