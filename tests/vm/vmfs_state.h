/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmfs_state - what the parts of vmfs share, for vmfs*.c only (tests use
 * vmfs.h): the node table, the watch log and the connection, and the
 * table's helpers.  vmfs.c owns the table and the connection to
 * /dev/fuse, vmfs_ops.c answers the kernel's requests, vmfs_remote.c
 * makes the tests' remote changes and sends their notifications.
 *
 * Node ids are table slots + 1 and are never reused, so a node id always
 * names one object for the life of the mount, as the protocol requires;
 * each node also gets a distinct generation.  Removed nodes stay in the
 * table, marked dead, until the process ends.  Everything in the table is
 * guarded by vmfs.lock, which every helper below expects held (but
 * vmfs_deadline).  Each node counts the lookups the kernel holds
 * (entries replied or pushed, minus FORGETs), as a real server must.
 */
#ifndef VMFS_STATE_H
#define VMFS_STATE_H

#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "rnotify_proto.h"
#include "vmfs.h"

/* Enough for the tests of many watches and many inodes (t_proto_stall) */
#define VMFS_NODES	(1 << 17)
#define VMFS_WATCHES	64
#define VMFS_TIMEOUT	3600.0

struct vmfs_node {
	bool used;
	uint64_t generation;
	uint64_t parent;
	char name[FUSE_FSNOTIFY_NAME_MAX + 1];
	mode_t mode;
	off_t size;
	uint64_t nlookup;
};

struct vmfs_watch {
	uint64_t nodeid;
	uint32_t flags;
	uint64_t mask;
};

struct vmfs_state {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct vmfs_node *node;	/* VMFS_NODES of them, untouched until used */
	unsigned int nnodes;
	struct vmfs_watch watch[VMFS_WATCHES];
	unsigned int nwatches;
	unsigned int watch_count;
	bool hold_watch_replies;
	bool drop_watch_replies;
	uint64_t held[VMFS_HELD];	/* uniques of unanswered updates */
	unsigned int nheld;
	unsigned int lookups;
	struct vmfs_opts opts;
	uint64_t init_unique;
	bool offered;
	bool on;
	bool init_done;
	struct fuse_session *se;
	int fd;
	pthread_t thread;
	char mnt[256];
};

extern struct vmfs_state vmfs;
extern const struct fuse_lowlevel_ops vmfs_ops;

struct vmfs_node *vmfs_get(uint64_t nodeid);
uint64_t vmfs_find(uint64_t parent, const char *name);
int vmfs_add(uint64_t parent, const char *name, mode_t mode,
	     uint64_t *nodeid);
int vmfs_remove(uint64_t parent, const char *name, bool dir,
		uint64_t *nodeid);
int vmfs_move(uint64_t parent, const char *name, uint64_t newparent,
	      const char *newname);
void vmfs_stat(uint64_t nodeid, const struct vmfs_node *n, struct stat *st);
void vmfs_entry(uint64_t nodeid, struct fuse_entry_param *e);

/* timeout_ms from now on CLOCK_REALTIME, for pthread_cond_timedwait(). */
struct timespec vmfs_deadline(int timeout_ms);

#endif
