// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the inode bound's choice of what to shed (shed_pick.c),
 * of the bound derived from a memory limit (shed_bound.c) and of the
 * throttle on handlers (shed_throttle.c), on a real inode table over a
 * scratch directory; no mount is involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fs/inode_table.h"
#include "fs/names_shown.h"
#include "fs/shed.h"
#include "fs/shed_bound.h"

CHECK_MAIN_DEFS;

static char dir[] = "/tmp/test_shed_XXXXXX";
static int root_fd;

/* Makes and learns name (a directory if isdir), shown under the root. */
static struct fs_inode *make(struct fs_table *t, const char *name,
			     bool isdir)
{
	struct fs_inode *in;
	struct stat st;
	int fd;

	if (isdir)
		mkdirat(root_fd, name, 0755);
	else
		close(openat(root_fd, name, O_CREAT | O_WRONLY, 0644));
	fd = openat(root_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstatat(fd, "", &st, AT_EMPTY_PATH))
		return NULL;
	in = fs_table_learn(t, fd, &st);
	if (in)
		fs_names_show(t, 1, name, in->nodeid);
	return in;
}

static const char *name_at(struct fs_shed_batch *b, size_t i)
{
	return b->buf + b->name[i].off;
}

static void test_pick(struct fs_table *t)
{
	static struct fs_shed_batch b;
	struct fs_inode *f0, *d, *f1, *f2, *busy;
	size_t n;

	f0 = make(t, "f0", false);
	d = make(t, "d", true);
	f1 = make(t, "f1", false);
	f2 = make(t, "f2", false);
	busy = make(t, "busy", false);
	if (!f0 || !d || !f1 || !f2 || !busy) {
		CHECK("shed_setup", false);
		return;
	}
	fs_table_get(t, busy->nodeid);	/* in use: an open file */
	fs_table_put(t, fs_table_get(t, f0->nodeid));	/* f0 used last */
	pthread_mutex_lock(&t->lock);
	CHECK("shed_live_counts_files_and_dirs",
	      fs_table_live_locked(t) == 5);
	n = fs_shed_pick_locked(t, 2, &b);
	CHECK("shed_picks_lru_files_first", n == 2 && b.n == 2 &&
	      !strcmp(name_at(&b, 0), "f1") && !strcmp(name_at(&b, 1), "f2") &&
	      b.name[0].parent == 1);
	CHECK("shed_pending_counted", t->shed_pending == 2 &&
	      fs_table_live_locked(t) == 3 && f1->shed_sent);
	n = fs_shed_pick_locked(t, 10, &b);
	CHECK("shed_skips_dirs_busy_and_sent", n == 1 && b.n == 1 &&
	      !strcmp(name_at(&b, 0), "f0"));
	n = fs_shed_pick_locked(t, 10, &b);
	CHECK("shed_nothing_left_no_spin", n == 0 && b.n == 0);
	pthread_mutex_unlock(&t->lock);
	fs_table_forget(t, f1->nodeid, 1);
	pthread_mutex_lock(&t->lock);
	CHECK("shed_forget_settles", t->shed_pending == 2);
	pthread_mutex_unlock(&t->lock);
	fs_table_lookup_again(t, f2);
	pthread_mutex_lock(&t->lock);
	CHECK("shed_lookup_again_settles", t->shed_pending == 1 &&
	      !f2->shed_sent);
	pthread_mutex_unlock(&t->lock);
	fs_table_put(t, busy);
}

/*
 * A file asked for whose FORGET never comes (the kernel keeps a watched
 * inode) counts again once the shedder has waited for it, and is not
 * asked for again until a lookup hands it out.
 */
static void test_keep(struct fs_table *t)
{
	static struct fs_shed_batch b;
	struct fs_inode *k;
	size_t n;

	k = make(t, "kept", false);
	if (!k) {
		CHECK("keep_setup", false);
		return;
	}
	pthread_mutex_lock(&t->lock);
	n = fs_shed_pick_locked(t, 10, &b);
	CHECK("keep_picked", n == 1 && !strcmp(name_at(&b, 0), "kept") &&
	      fs_table_live_locked(t) == 0);
	n = fs_shed_keep_lingering_locked(t);
	CHECK("keep_counts_again", n == 1 && t->shed_pending == 0 &&
	      fs_table_live_locked(t) == 1 && k->shed_kept && !k->shed_sent);
	n = fs_shed_pick_locked(t, 10, &b);
	CHECK("keep_not_asked_again", n == 0 && b.n == 0);
	CHECK("keep_nothing_twice", fs_shed_keep_lingering_locked(t) == 0);
	pthread_mutex_unlock(&t->lock);
	fs_table_lookup_again(t, k);
	pthread_mutex_lock(&t->lock);
	n = fs_shed_pick_locked(t, 10, &b);
	CHECK("keep_lookup_makes_it_sheddable", n == 1 && !k->shed_kept &&
	      k->shed_sent && !strcmp(name_at(&b, 0), "kept"));
	pthread_mutex_unlock(&t->lock);
}

static void test_bound_for(void)
{
	CHECK("shed_bound_none_without_limit", fs_shed_bound_for(0) == 0);
	CHECK("shed_bound_quarter_of_limit",
	      fs_shed_bound_for(64ULL << 20) ==
	      (64ULL << 20) / 4 / FS_SHED_INODE_COST);
	CHECK("shed_bound_floor", fs_shed_bound_for(1 << 20) == FS_SHED_MIN);
}

struct throttled {
	struct fs_table *t;
	int ret;
	atomic_bool done;
};

static void *throttle_thread(void *arg)
{
	struct throttled *r = arg;

	r->ret = fs_shed_throttle(r->t, 10000);
	atomic_store(&r->done, true);
	return NULL;
}

/* Until the thread waits in the throttle or has returned from it. */
static void await_throttled(struct throttled *r)
{
	unsigned int n = 0;

	while (!n && !atomic_load(&r->done)) {
		sched_yield();
		pthread_mutex_lock(&r->t->lock);
		n = r->t->throttled;
		pthread_mutex_unlock(&r->t->lock);
	}
}

/* A send by the shedder ends a handler's wait. */
static void check_send_ends_wait(struct fs_table *t)
{
	struct throttled r = { .t = t };
	pthread_t th;

	if (pthread_create(&th, NULL, throttle_thread, &r)) {
		CHECK("throttle_thread", false);
		return;
	}
	await_throttled(&r);
	fs_shed_sent(t);
	pthread_join(th, NULL);
	CHECK("throttle_ends_at_a_send", r.ret == 0);
}

/*
 * With a bound of 8 a handler is held back past 10 inodes, while the
 * shedder has names to send: files left to pick, or names picked. A wait
 * that should not happen would take 10 s and fail.
 */
static void test_throttle(void)
{
	struct fs_table t;
	char name[16];
	int i;

	if (fs_table_init(&t, root_fd)) {
		CHECK("throttle_table_init", false);
		return;
	}
	fs_table_set_bound(&t, 8);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		make(&t, name, false);
	}
	CHECK("throttle_none_up_to_a_quarter_over",
	      fs_shed_throttle(&t, 10000) == 0);
	make(&t, "t10", false);
	CHECK("throttle_waits_past_a_quarter_over",
	      fs_shed_throttle(&t, 1) == -ETIMEDOUT);
	check_send_ends_wait(&t);
	pthread_mutex_lock(&t.lock);
	t.shed_at = 100;	/* as when no idle file was left to pick */
	pthread_mutex_unlock(&t.lock);
	CHECK("throttle_none_with_nothing_to_send",
	      fs_shed_throttle(&t, 10000) == 0);
	pthread_mutex_lock(&t.lock);
	fs_shed_picked_locked(&t, 3);
	pthread_mutex_unlock(&t.lock);
	CHECK("throttle_waits_while_names_picked_are_unsent",
	      fs_shed_throttle(&t, 1) == -ETIMEDOUT);
	fs_table_destroy(&t);
}

int main(void)
{
	struct fs_table t;
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK("shed_table_init", fs_table_init(&t, root_fd) == 0);
	test_pick(&t);
	test_bound_for();
	test_throttle();
	fs_table_destroy(&t);
	CHECK("keep_table_init", fs_table_init(&t, root_fd) == 0);
	test_keep(&t);
	fs_table_destroy(&t);
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return check_exit();
}
