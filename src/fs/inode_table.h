/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode table: every object the client kernel holds a reference to,
 * indexed by node id (the kernel's name), by host id (st_dev, st_ino; the
 * watcher's name) and by host file handle (fanotify's name, kept even
 * after the object is gone from the backing store).
 * See inode_table.c for the locking and lifetime rules, and for how the
 * fds of idle inodes are closed when there are too many.
 */
#ifndef RNOTIFY_FS_INODE_TABLE_H
#define RNOTIFY_FS_INODE_TABLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "event/event.h"
#include "fs_list.h"
#include "fs_identity.h"
#include "hash_index.h"

struct fs_name;

/*
 * 112 bytes and the tail, in one allocation: about half of what a watched
 * directory costs the server.
 */
struct fs_inode {
	/* Fixed for the inode's life: read without the lock. */
	uint64_t nodeid;
	struct rn_id id;	/* {0, 0} for a ghost of its own */
	uint32_t generation;

	/*
	 * O_PATH|O_NOFOLLOW; -1 for a ghost or a gone object. Fixed while
	 * refs > 0 (read without the lock then); may be closed while idle.
	 */
	int fd;

	int fh_type;		/* the host file handle, in the tail */
	uint8_t fh_len;		/* 0: no handle */
	/*
	 * The handle was taken on the backing root's file system: on its
	 * mount, or on a bind mount of that file system (fs_identity.h). It
	 * reopens at mount_fd, and it is the one the filesystem mark
	 * reports. Another mount inside the export may be another file
	 * system whose handles look alike; a btrfs subvolume, on the same
	 * mount, is not one.
	 */
	bool root_mount;
	/*
	 * Reached through the backing root's own mount: the filesystem mark
	 * sees its changes and the scope places them (cache_policy.c).
	 */
	bool own_mount;
	bool ghost;		/* the tail is the ghost's attributes */
	uint16_t type;		/* S_IFMT bits of st_mode */

	/* The boundary epoch it was last found inside at (boundary.c). */
	atomic_uint inside_epoch;

	/* Open files' io mode, under passthrough.c's lock (passthrough.h). */
	int32_t io_opens;
	int32_t backing_id;

	/* Everything below is protected by the table lock. */
	uint64_t nlookup;	/* references the kernel holds */
	unsigned int refs;	/* references held while in use */
	uint8_t hashed : 1;	/* reachable through the indexes */
	uint8_t id_indexed : 1;
	uint8_t fh_indexed : 1;
	uint8_t shed_sent : 1;	/* the kernel was asked to forget it */
	uint8_t shed_kept : 1;	/* ... and kept it: not asked again */
	struct fs_list idle;	/* on t->idle or t->cold: no refs */
	struct fs_name *names;	/* names_shown entries naming this node */
	struct hash_link by_node, by_id, by_handle;

	/* Fixed: a ghost's struct stat, or a real inode's host handle. */
	uint64_t tail[];
};

struct fs_table {
	pthread_mutex_t lock;
	struct hash_index by_node;
	struct hash_index by_id;
	struct hash_index by_handle;
	/* Real inodes by_handle misses: no handle, or another's. */
	unsigned long unindexed;
	int mnt_id;		/* the backing root's mount, -1: no handles */
	struct fs_identity root_fs;	/* its file system */
	bool root_fs_known;
	struct hash_index names;	/* see names_shown.c */
	uint64_t next_node;
	uint32_t next_gen;
	struct fs_list idle;	/* idle inodes with an fd, most recent first */
	struct fs_list cold;	/* idle inodes older than all of those */
	unsigned long nfds;	/* inode fds open, the root's aside */
	unsigned long max_fds;	/* beyond it, idle inodes' fds are closed */
	int mount_fd;		/* backing root, for open_by_handle_at() */

	/* The bound on inodes (0: none) and its shedder: see shed.h. */
	unsigned long max_inodes;
	unsigned long shed_low;		/* shedding stops here */
	unsigned long shed_at;		/* the shedder is woken past this */
	unsigned long shed_pending;	/* shed_sent inodes still hashed */
	pthread_cond_t shed_cond;	/* with lock: wakes the shedder */
	bool shed_stop;
	/* See shed_throttle.c. */
	unsigned long shed_unsent;	/* names picked, not sent yet */
	unsigned long shed_sends;	/* names sent, ever */
	unsigned int throttled;		/* handlers waiting for a send */
	pthread_cond_t sent_cond;	/* with lock: a name was sent */
};

/* Sets max_fds from the fd limit; tests may lower it afterwards. */
int fs_table_init(struct fs_table *t, int root_fd);
void fs_table_destroy(struct fs_table *t);

/* A node in use by a handler: refs + 1, NULL if unknown. */
struct fs_inode *fs_table_get(struct fs_table *t, uint64_t nodeid);
void fs_table_put(struct fs_table *t, struct fs_inode *in);

/*
 * Hands out a kernel reference (nlookup + 1) for the backing object open
 * as fd with attributes st. Takes ownership of fd: it is closed if the
 * object is already known. NULL (fd closed) on allocation failure.
 */
struct fs_inode *fs_table_learn(struct fs_table *t, int fd,
				const struct stat *st);

/* A ghost with attributes st and one kernel reference; NULL if no memory. */
struct fs_inode *fs_table_ghost(struct fs_table *t, const struct stat *st);

/* One more kernel reference to a node already known; false if forgotten. */
bool fs_table_lookup_again(struct fs_table *t, struct fs_inode *in);

/*
 * Before replying an entry for in: is the reference being handed out the
 * kernel's only one, so that the reply adds an inode to those the kernel
 * holds? (A node known to the kernel cannot go before the reply: the
 * kernel cannot forget a reference it has not been given.)
 */
bool fs_table_first_ref(struct fs_table *t, const struct fs_inode *in);

/* The kernel drops n references; the root is never dropped. */
void fs_table_forget(struct fs_table *t, uint64_t nodeid, uint64_t n);

/*
 * The kernel that held the references is gone (a virtio-fs guest that
 * rebooted): every node but the root loses all of them. Returns how many
 * nodes were held, or -ENOMEM (then none is dropped).
 */
long fs_table_forget_all(struct fs_table *t);

/*
 * The attributes of an inode the caller holds a reference to: fresh from
 * the backing object, or a ghost's. 0, or -ESTALE if it is gone.
 */
int fs_table_stat(struct fs_inode *in, struct stat *st);

bool fs_table_node_of(struct fs_table *t, const struct rn_id *id,
		      uint64_t *nodeid, uint32_t *generation);
bool fs_table_id_of(struct fs_table *t, uint64_t nodeid, struct rn_id *id);
/* Is the node still known (not forgotten), and with which generation? */
bool fs_table_node_live(struct fs_table *t, uint64_t nodeid,
			uint32_t *generation);
/* The id of the object learned on the root's mount with this handle. */
bool fs_table_resolve_handle(struct fs_table *t, const void *handle,
			     size_t len, int type, struct rn_id *id);
/*
 * Is the object with this host handle, on the backing root's file system,
 * one the table holds? 1 with its *id; 0 if certainly not; -EAGAIN if the
 * table cannot tell (some real inode is not found by its handle, or the
 * one found was learned on another mount).
 */
int fs_table_held_handle(struct fs_table *t, const void *handle, size_t len,
			 int type, struct rn_id *id);

/*
 * Bounds the inodes kept (0: no bound): past max, the shedder (shed.h)
 * asks the kernel to forget idle ones down to 90% of it.
 */
void fs_table_set_bound(struct fs_table *t, unsigned long max);
/* Inodes hashed, the root and those being shed aside; lock held. */
unsigned long fs_table_live_locked(const struct fs_table *t);

/* Table lock held: the live node with this id, or NULL. */
struct fs_inode *fs_table_node_locked(struct fs_table *t, uint64_t nodeid);

#endif
