/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The default bound on inodes: derived from the memory limit of the
 * memory cgroup the server runs in (cgroup v1 or v2), none without one.
 */
#ifndef RNOTIFY_FS_SHED_BOUND_H
#define RNOTIFY_FS_SHED_BOUND_H

#include <stdint.h>

/*
 * What an inode the kernel holds costs the server's memory cgroup, bytes:
 * the table's inode and name (about 230 B), and the kernel's O_PATH file,
 * dentry and backing inode that its fd pins, which are charged to the
 * server too (measured by tests/stress/memcg.py: see the README).
 */
#define FS_SHED_INODE_COST 2048
#define FS_SHED_MIN 1024	/* the bound is never lower */

/* The memory limit in bytes of this process's cgroup; 0 if none. */
uint64_t fs_shed_memory_limit(void);
/*
 * The bound for a limit: a quarter of it for inodes (the rest for
 * threads, buffers, open files, the event queue), at least FS_SHED_MIN;
 * 0 (no bound) for no limit.
 */
unsigned long fs_shed_bound_for(uint64_t limit);

#endif
