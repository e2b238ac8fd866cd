// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of holding threads on one CPU (src/util/cpu_pin.c), on real
 * threads and the kernel's real affinity masks: a gather holds the
 * holder and every member on the holder's CPU, a thread that joins while
 * they are held goes there too, a thread that left is not moved, a later
 * holder takes the members over (the first holder's release then sends
 * only itself home), and a release sends everyone back to the process's
 * CPUs at the start. On one CPU a held mask and home are the same: only
 * the last is checked, and the rest says SKIP.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <unistd.h>

#include "../lib/check.h"
#include "util/cpu_pin.h"

CHECK_MAIN_DEFS;

#define MEMBERS 3

struct member {
	struct cpu_pin *pin;
	pthread_t thread;
	pid_t tid;
	bool stays;	/* false: joins and leaves at once */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;
static bool done;

static void *member_main(void *arg)
{
	struct member *m = arg;

	cpu_pin_join(m->pin);
	if (!m->stays)
		cpu_pin_leave(m->pin);
	pthread_mutex_lock(&lock);
	m->tid = gettid();
	ready++;
	pthread_cond_broadcast(&cond);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Returns once the thread has joined (and left, unless it stays). */
static void member_start(struct member *m, struct cpu_pin *pin, bool stays)
{
	int want;

	m->pin = pin;
	m->stays = stays;
	pthread_mutex_lock(&lock);
	want = ready + 1;
	pthread_create(&m->thread, NULL, member_main, m);
	while (ready < want)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static bool on_only(pid_t tid, int cpu)
{
	cpu_set_t set;

	return !sched_getaffinity(tid, sizeof(set), &set) &&
	       CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

static bool at_home(pid_t tid, const cpu_set_t *home)
{
	cpu_set_t set;

	return !sched_getaffinity(tid, sizeof(set), &set) &&
	       CPU_EQUAL(&set, home);
}

static bool all_on_only(const struct member *m, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (!on_only(m[i].tid, cpu))
			return false;
	return true;
}

static bool all_home(const struct member *m, int n, const cpu_set_t *home)
{
	int i;

	for (i = 0; i < n; i++)
		if (!at_home(m[i].tid, home))
			return false;
	return true;
}

static void test_gather_release(struct cpu_pin *pin, struct member *m,
				const cpu_set_t *home)
{
	struct member late, left;
	int cpu;

	member_start(&left, pin, false);
	cpu_pin_gather(pin);
	cpu = sched_getcpu();
	CHECK("cpu_pin_holder_held", on_only(0, cpu));
	CHECK("cpu_pin_members_held", all_on_only(m, MEMBERS, cpu));
	CHECK("cpu_pin_left_member_not_held", at_home(left.tid, home));
	member_start(&late, pin, true);
	CHECK("cpu_pin_late_member_held", on_only(late.tid, cpu));
	cpu_pin_release(pin);
	CHECK("cpu_pin_holder_home", at_home(0, home));
	CHECK("cpu_pin_members_home", all_home(m, MEMBERS, home));
	CHECK("cpu_pin_late_member_home", at_home(late.tid, home));
}

/* Another CPU of home than cpu. */
static int other_cpu(const cpu_set_t *home, int cpu)
{
	int i;

	for (i = 0; i < CPU_SETSIZE; i++)
		if (i != cpu && CPU_ISSET(i, home))
			return i;
	return -1;
}

struct holder {
	struct cpu_pin *pin;
	int cpu;	/* where it runs when it gathers */
};

/* The next replayer: gathers on its own CPU and is still holding. */
static void *holder_main(void *arg)
{
	struct holder *h = arg;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(h->cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	cpu_pin_gather(h->pin);
	return NULL;
}

static void test_takeover(struct cpu_pin *pin, struct member *m,
			  const cpu_set_t *home)
{
	struct holder next = { .pin = pin };
	pthread_t t;

	cpu_pin_gather(pin);
	next.cpu = other_cpu(home, sched_getcpu());
	pthread_create(&t, NULL, holder_main, &next);
	pthread_join(t, NULL);
	cpu_pin_release(pin);
	CHECK("cpu_pin_replaced_holder_home", at_home(0, home));
	CHECK("cpu_pin_members_follow_newest_holder",
	      all_on_only(m, MEMBERS, next.cpu));
	/* The next holder has gone: become the holder, and release. */
	cpu_pin_gather(pin);
	cpu_pin_release(pin);
	CHECK("cpu_pin_members_home_after_takeover",
	      all_home(m, MEMBERS, home));
}

int main(void)
{
	struct member m[MEMBERS];
	struct cpu_pin pin;
	cpu_set_t home;
	int i;

	sched_getaffinity(0, sizeof(home), &home);
	cpu_pin_init(&pin);
	if (CPU_COUNT(&home) < 2) {
		cpu_pin_gather(&pin);
		cpu_pin_release(&pin);
		CHECK("cpu_pin_one_cpu_home_kept", at_home(0, &home));
		printf("SKIP cpu_pin: the rest needs two CPUs\n");
		return check_exit();
	}
	for (i = 0; i < MEMBERS; i++)
		member_start(&m[i], &pin, true);
	test_gather_release(&pin, m, &home);
	test_takeover(&pin, m, &home);
	pthread_mutex_lock(&lock);
	done = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	cpu_pin_destroy(&pin);
	return check_exit();
}
