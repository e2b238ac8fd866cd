// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holding a burst of round trips through our own mount on one CPU.
 *
 * A replay is a system call on the mount: the replayer sleeps while a
 * request worker answers, then the worker sleeps while the replayer goes
 * on, several times per event. The scheduler wakes each of them on an
 * idle CPU if there is one, so on a quiet machine every round trip pays
 * two cross-CPU wake-ups (in a VM, an interrupt and an exit from idle
 * each), and the CPUs sit idle half the time: a backlog drained with
 * the whole server on one CPU went about twice as fast as with the
 * threads free (bench/PROFILE.md has the measurements).
 *
 * So while the replayer has a backlog it holds itself and the request
 * workers on the CPU it runs on, and sends them home when the backlog is
 * gone. The CPU is the one the scheduler chose, never a fixed one; home
 * is the process's CPUs at the start (a taskset is kept). A lone event is
 * not held: the moves cost more than they save on one event.
 *
 * Locking: lock protects every field. Members join and leave from their
 * own threads at any time. The replayer's role passes from one pump
 * thread to the other as soon as the queue is empty, so the next holder
 * may gather before the last one has released: the members follow the
 * newest holder. The affinity calls are made under the lock, so a thread
 * that joins never misses a gather or a release.
 */
#include <string.h>
#include <unistd.h>

#include "cpu_pin.h"

void cpu_pin_init(struct cpu_pin *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	if (sched_getaffinity(0, sizeof(p->home), &p->home))
		memset(&p->home, 0xff, sizeof(p->home));
	p->cpu = -1;
}

void cpu_pin_destroy(struct cpu_pin *p)
{
	pthread_mutex_destroy(&p->lock);
}

/* Best effort: a thread left where it was is only slower. */
static void move_to_cpu(pid_t tid, int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(tid, sizeof(one), &one);
}

/*
 * Home may have shrunk since the start (a cpuset changed): then every CPU
 * the kernel still allows, so that no thread stays held on one.
 */
static void move_home(const struct cpu_pin *p, pid_t tid)
{
	cpu_set_t all;

	if (!sched_setaffinity(tid, sizeof(p->home), &p->home))
		return;
	memset(&all, 0xff, sizeof(all));
	sched_setaffinity(tid, sizeof(all), &all);
}

void cpu_pin_join(struct cpu_pin *p)
{
	pid_t tid = gettid();

	pthread_mutex_lock(&p->lock);
	if (p->nmembers < CPU_PIN_MEMBERS) {
		p->members[p->nmembers++] = tid;
		if (p->cpu >= 0)
			move_to_cpu(tid, p->cpu);
	}
	pthread_mutex_unlock(&p->lock);
}

void cpu_pin_leave(struct cpu_pin *p)
{
	pid_t tid = gettid();
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->nmembers; i++) {
		if (p->members[i] == tid) {
			p->members[i] = p->members[--p->nmembers];
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

void cpu_pin_gather(struct cpu_pin *p)
{
	int cpu = sched_getcpu();
	unsigned int i;

	if (cpu < 0)
		return;
	pthread_mutex_lock(&p->lock);
	p->cpu = cpu;
	p->holder = gettid();
	move_to_cpu(0, cpu);
	for (i = 0; i < p->nmembers; i++)
		move_to_cpu(p->members[i], cpu);
	pthread_mutex_unlock(&p->lock);
}

void cpu_pin_release(struct cpu_pin *p)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	move_home(p, 0);
	if (p->cpu >= 0 && p->holder == gettid()) {
		p->cpu = -1;
		for (i = 0; i < p->nmembers; i++)
			move_home(p, p->members[i]);
	}
	pthread_mutex_unlock(&p->lock);
}
