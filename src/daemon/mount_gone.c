// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "mount_gone.h"
#include "util/mountinfo.h"

struct mount_gone {
	dev_t dev;
	int table;		/* /proc/self/mountinfo */
	int stop_fd;		/* eventfd: written once to stop */
	atomic_bool gone;
	pthread_t thread;
	/* mount_gone_below(), set before the thread reads them */
	pthread_mutex_t below_lock;
	const char *backing;
	void (*below)(void *arg);
	void *below_arg;
	uint64_t below_sum;	/* mountinfo_below() when last looked */
};

/* Mounts below the backing directory came or went: says so. */
static void mounts_below(struct mount_gone *g)
{
	uint64_t sum;

	pthread_mutex_lock(&g->below_lock);
	if (g->below && !mountinfo_below(g->table, g->backing, &sum) &&
	    sum != g->below_sum) {
		g->below_sum = sum;
		g->below(g->below_arg);
	}
	pthread_mutex_unlock(&g->below_lock);
}

void mount_gone_below(struct mount_gone *g, const char *backing,
		      void (*below)(void *arg), void *arg)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->below_lock);
	g->backing = backing;
	if (mountinfo_below(g->table, backing, &g->below_sum))
		g->below_sum = 0;
	g->below = below;
	g->below_arg = arg;
	pthread_mutex_unlock(&g->below_lock);
}

/* Until the table changes or we are stopped: false when stopped. */
static bool table_changed(struct mount_gone *g)
{
	struct pollfd p[2] = {
		{ .fd = g->table, .events = POLLPRI },
		{ .fd = g->stop_fd, .events = POLLIN },
	};

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		return !p[1].revents;
	}
}

/* Reads the table at every change, until our device has left it. */
static void *gone_main(void *arg)
{
	struct mount_gone *g = arg;
	int has;

	while (table_changed(g)) {
		has = mountinfo_has_dev(g->table, g->dev);
		if (has < 0) {
			fuse_log(FUSE_LOG_ERR,
				 "rnotifyfs: cannot read the mount table (%s): stop the server by hand after unmounting\n",
				 strerror(-has));
			break;
		}
		if (!has) {
			atomic_store(&g->gone, true);
			fuse_log(FUSE_LOG_INFO,
				 "rnotifyfs: unmounted: stopping\n");
			kill(getpid(), SIGTERM);
			break;
		}
		mounts_below(g);
	}
	return NULL;
}

#define MOUNT_GONE_STACK (64 << 10)

static int start_thread(struct mount_gone *g)
{
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);

	if (!err)
		err = pthread_attr_setstacksize(&attr, MOUNT_GONE_STACK);
	if (!err)
		err = pthread_create(&g->thread, &attr, gone_main, g);
	pthread_attr_destroy(&attr);
	return -err;
}

static void gone_free(struct mount_gone *g)
{
	if (g->table >= 0)
		close(g->table);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	pthread_mutex_destroy(&g->below_lock);
	free(g);
}

struct mount_gone *mount_gone_start(const char *mountpoint)
{
	struct mount_gone *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return NULL;
	g->table = -1;
	pthread_mutex_init(&g->below_lock, NULL);
	g->stop_fd = eventfd(0, EFD_CLOEXEC);
	err = mountinfo_dev_of(mountpoint, &g->dev);
	if (!err && g->stop_fd < 0)
		err = -errno;
	if (!err) {
		g->table = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (g->table < 0)
			err = -errno;
	}
	/* The watching thread allocates nothing: its reads use its stack. */
	if (!err && mountinfo_has_dev(g->table, g->dev) != 1)
		err = -ENOENT;
	if (!err)
		err = start_thread(g);
	if (err) {
		gone_free(g);
		errno = -err;
		return NULL;
	}
	return g;
}

bool mount_gone_stop(struct mount_gone *g)
{
	uint64_t one = 1;
	bool gone;

	if (!g)
		return false;
	if (write(g->stop_fd, &one, sizeof(one)) != sizeof(one))
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: cannot stop the unmount watch\n");
	pthread_join(g->thread, NULL);
	gone = atomic_load(&g->gone);
	gone_free(g);
	return gone;
}
