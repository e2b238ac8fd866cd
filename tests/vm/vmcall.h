/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmcall - run a call on a thread of its own and tell whether it went to
 * sleep in the kernel without returning: how the VM tests check that a
 * syscall waits for the FUSE server (stopped, or holding an answer).
 * Sleeping is read from /proc (state S or D), never guessed from time;
 * VM_WAIT_MS only bounds the wait for it.
 */
#ifndef VMCALL_H
#define VMCALL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

struct vm_call {
	int (*fn)(int fd);
	int fd;
	int ret;
	pid_t tid;
	atomic_bool started;
	atomic_bool done;
	pthread_t thread;
};

/* Starts fn(fd) on a new thread; false if no thread could be made. */
bool vm_call_start(struct vm_call *c, int (*fn)(int fd), int fd);

/* True if the call went to sleep in the kernel and has not returned. */
bool vm_call_sleeps(struct vm_call *c);

/* True if the call returns within timeout_ms (then join it). */
bool vm_call_wait(struct vm_call *c, int timeout_ms);

/* Waits for the call to return; its return value. */
int vm_call_join(struct vm_call *c);

#endif
