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
 * the table's inode and name (about 200 B of heap), and the kernel's
 * O_PATH file (250 B) and, when the server's lookup was the first, the
 * backing dentry and inode its fd pins (1.3 KiB on ext4), which are
 * charged to the server too (measured in a v1 memory cgroup, 6.18).
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
