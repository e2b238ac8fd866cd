/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Putting the threads of a round trip through our own mount on one CPU
 * while a burst of them lasts (cpu_pin.c says why).
 */
#ifndef RNOTIFY_UTIL_CPU_PIN_H
#define RNOTIFY_UTIL_CPU_PIN_H

#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

/* Members at most: more than the request loop's workers (main.c checks). */
#define CPU_PIN_MEMBERS 16

struct cpu_pin {
	pthread_mutex_t lock;
	cpu_set_t home;		/* the process's CPUs at the start */
	pid_t members[CPU_PIN_MEMBERS];
	unsigned int nmembers;
	int cpu;		/* where members are held, or -1 */
	pid_t holder;		/* who gathered them there */
};

/* Takes the calling thread's CPUs as the home of every member. */
void cpu_pin_init(struct cpu_pin *p);
void cpu_pin_destroy(struct cpu_pin *p);

/*
 * The calling thread answers the mount's requests from now on (join) or
 * no longer (leave). A thread that joins while the others are held goes
 * to their CPU. A full set leaves a thread out: it is merely not moved.
 */
void cpu_pin_join(struct cpu_pin *p);
void cpu_pin_leave(struct cpu_pin *p);

/*
 * Holds the calling thread and every member on the CPU the caller runs
 * on, until the same thread calls cpu_pin_release(), which sends them all
 * home. A later gather by another thread takes the members over: the
 * first holder's release then sends only itself home.
 */
void cpu_pin_gather(struct cpu_pin *p);
void cpu_pin_release(struct cpu_pin *p);

#endif
