/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmserver - run /bin/rnotifyfs (the real server, linked statically into
 * the initramfs) in the foreground on a backing directory and a mount
 * point of the VM, and stop it the way a user would.
 */
#ifndef VMSERVER_H
#define VMSERVER_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Starts rnotifyfs -f -o opts backing mnt and waits (bounded) until mnt
 * is a different file system than its parent directory. Returns the
 * server's pid, or -1 if it did not mount.
 */
pid_t vm_server_start(const char *backing, const char *mnt,
		      const char *opts);

/* The same with -d, its standard error written to the file log. */
pid_t vm_server_start_logged(const char *backing, const char *mnt,
			     const char *opts, const char *log);

/*
 * A remote change: text written to path on the backing store in one
 * write (open with O_WRONLY | O_CREAT | flags, 0644); true if it all went.
 */
bool vm_put(const char *path, const char *text, int flags);

/* SIGTERM; true if it exited 0 within the bound (it unmounts itself). */
bool vm_server_stop(pid_t pid);

/*
 * Waits, without a signal, for the server to exit: true if it exited 0
 * within the bound; killed if it had not.
 */
bool vm_server_wait(pid_t pid);

#endif
