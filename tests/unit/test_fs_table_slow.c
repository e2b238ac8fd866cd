// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode table on a slow backing store: while one request waits in
 * open_by_handle_at() to reopen an idle inode (NFS may take seconds),
 * other requests still get and learn inodes. open_by_handle_at() is
 * replaced here by one that waits, when told to, until released; the
 * liveness bounds below are seconds long and only say "never": no
 * timing is measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fs/inode_table.h"

CHECK_MAIN_DEFS;

#define BOUND_S 5

static char dir[] = "/tmp/test_fs_slow_XXXXXX";
static int root_fd;

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_slow;		/* the next calls wait for gate_open */
static bool gate_open;
static int gate_waiting;	/* calls waiting now */

int open_by_handle_at(int mount_fd, struct file_handle *fh, int flags)
{
	pthread_mutex_lock(&gate_lock);
	if (gate_slow) {
		gate_waiting++;
		pthread_cond_broadcast(&gate_cond);
		while (!gate_open)
			pthread_cond_wait(&gate_cond, &gate_lock);
		gate_waiting--;
	}
	pthread_mutex_unlock(&gate_lock);
	return syscall(SYS_open_by_handle_at, mount_fd, fh, flags);
}

static struct timespec deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += BOUND_S;
	return ts;
}

/* Waits until n calls wait at the gate; false after the bound. */
static bool gate_wait_for(int n)
{
	struct timespec ts = deadline();
	bool ok = true;

	pthread_mutex_lock(&gate_lock);
	while (ok && gate_waiting < n)
		ok = !pthread_cond_timedwait(&gate_cond, &gate_lock, &ts);
	pthread_mutex_unlock(&gate_lock);
	return ok || gate_waiting >= n;
}

static void gate_set(bool slow, bool open)
{
	pthread_mutex_lock(&gate_lock);
	gate_slow = slow;
	gate_open = open;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static struct fs_inode *learn(struct fs_table *t, const char *name)
{
	struct stat st;
	int fd;

	fd = openat(root_fd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	fd = openat(root_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstatat(fd, "", &st, AT_EMPTY_PATH)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return fs_table_learn(t, fd, &st);
}

struct getter {
	struct fs_table *t;
	uint64_t nodeid;
	struct fs_inode *got;
	bool done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
};

static void *getter_main(void *arg)
{
	struct getter *g = arg;
	struct fs_inode *in = fs_table_get(g->t, g->nodeid);

	pthread_mutex_lock(&g->lock);
	g->got = in;
	g->done = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

static void getter_start(struct getter *g, struct fs_table *t,
			 uint64_t nodeid)
{
	g->t = t;
	g->nodeid = nodeid;
	g->got = NULL;
	g->done = false;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	pthread_create(&g->thread, NULL, getter_main, g);
}

/* Whether the getter finished within the bound. */
static bool getter_done(struct getter *g)
{
	struct timespec ts = deadline();
	bool ok = true;

	pthread_mutex_lock(&g->lock);
	while (ok && !g->done)
		ok = !pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	ok = g->done;
	pthread_mutex_unlock(&g->lock);
	return ok;
}

static void getter_join(struct getter *g)
{
	pthread_join(g->thread, NULL);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	fs_table_put(g->t, g->got);
}

int main(void)
{
	struct getter slow1, slow2, fast;
	struct fs_inode *closed, *opened, *late;
	struct fs_table t;
	unsigned long nfds;
	bool fast_ok;
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK("table_init", fs_table_init(&t, root_fd) == 0);
	t.max_fds = 1;
	closed = learn(&t, "closed");
	opened = learn(&t, "open");
	CHECK("setup_one_closed_one_open", closed && closed->fd == -1 &&
	      opened && opened->fd >= 0);
	if (!closed || !opened)
		return check_exit();
	t.max_fds = 10;

	gate_set(true, false);
	getter_start(&slow1, &t, closed->nodeid);
	getter_start(&slow2, &t, closed->nodeid);
	CHECK("slow_reopens_waiting", gate_wait_for(2));
	getter_start(&fast, &t, opened->nodeid);
	fast_ok = getter_done(&fast) && fast.got == opened;
	CHECK("get_while_a_reopen_waits", fast_ok);
	if (!fast_ok)
		gate_set(false, true);	/* or the next call would wait too */
	late = learn(&t, "late");
	CHECK("learn_while_a_reopen_waits", late && late->fd >= 0);
	nfds = t.nfds;
	gate_set(false, true);
	CHECK("slow_reopens_done", getter_done(&slow1) && getter_done(&slow2));
	CHECK("one_fd_for_both_reopens", slow1.got == closed &&
	      slow2.got == closed && closed->fd >= 0 && t.nfds == nfds + 1);
	getter_join(&fast);
	getter_join(&slow1);
	getter_join(&slow2);

	fs_table_destroy(&t);
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return check_exit();
}
