/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmserver_probe - what a VM test reads of a running rnotifyfs and of
 * its mount besides events: the inodes the server holds (its O_PATH
 * fds), a watch or mark added while the server is stopped, and a file's
 * content through the mount.
 */
#ifndef VMSERVER_PROBE_H
#define VMSERVER_PROBE_H

#include <stdbool.h>
#include <sys/types.h>

/* SIGSTOP; true once the server is seen stopped. */
bool vm_server_pause(pid_t pid);

/*
 * A watch is in effect on the server when the call that added it
 * returns (kernel: fsnotify 4/7, fuse 5/9): with the server stopped, add(fd) must
 * wait in the kernel; the server resumed, it returns. *waited says
 * whether it waited; the return is add()'s, or -1. mnt is stat()ed
 * first, so that its attributes are cached (60 s) and add asks the
 * server for the mask only.
 */
int vm_server_add_paused(pid_t pid, const char *mnt, int (*add)(int fd),
			 int fd, bool *waited);

/* The server keeps an O_PATH fd for each inode the kernel holds. */
bool vm_server_holds(pid_t pid, const char *path);

/* FORGET is asynchronous: wait (VM_WAIT_MS) for the server to let go. */
bool vm_server_releases(pid_t pid, const char *path);

/* path reads want exactly (up to 63 bytes). */
bool vm_reads(const char *path, const char *want);

#endif
