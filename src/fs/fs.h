/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The file system: libfuse low-level ops that serve a backing directory
 * (the export). What the process and the session use of it: its life,
 * its ops, the session's hooks. Delivery uses fs/remote.h, and nothing
 * else of fs/.
 *
 * Node ids are the kernel's names for our inodes. Host ids (struct rn_id,
 * st_dev + st_ino on the backing store) are the watcher's. The inode table
 * maps both ways.
 */
#ifndef RNOTIFY_FS_FS_H
#define RNOTIFY_FS_FS_H

#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct fs;

/*
 * A lifetime the kernel keeps a name or attributes for until it is told
 * otherwise (a year: any longer means the same to it).
 */
#define FS_CACHE_UNTIL_INVALIDATED (365 * 86400.0)

struct fs_config {
	const char *backing;	/* path of the exported directory */
	double entry_timeout;	/* seconds the kernel may cache names */
	double attr_timeout;	/* seconds the kernel may cache attributes */
	/*
	 * The same, for objects whose every change the host watch sees, once
	 * delivery says it does (fs_cache_coherent(), cache_policy.c).
	 */
	double entry_coherent;
	double attr_coherent;
	long max_inodes;	/* < 0: from the memory cgroup; 0: no bound */
	bool debug;
	/*
	 * Callers live in another kernel (a virtiofs guest): their pids mean
	 * nothing here, so no supplementary groups are looked up for them.
	 */
	bool guest_callers;
};

/* Opens the backing directory; NULL with errno set on failure. */
struct fs *fs_new(const struct fs_config *cfg);
void fs_destroy(struct fs *fs);

/* The low-level ops table; userdata for fuse_session_new() is the fs. */
const struct fuse_lowlevel_ops *fs_ops(void);

/* Needed for invalidations: set once the session exists. */
void fs_set_session(struct fs *fs, struct fuse_session *se);

/*
 * Between two sessions of a virtio-fs guest (it unmounted, or rebooted
 * with no DESTROY): the next one serves a kernel that holds none of the
 * last one's nodes and will release none of its open directories, so
 * they are dropped, as virtiofsd drops its inodes at a second INIT.
 * Counts them in *nodes and *dirs; -ENOMEM if the nodes could not be
 * listed (then they stay until the server exits).
 */
int fs_forget_last_kernel(struct fs *fs, long *nodes, unsigned long *dirs);

/*
 * A slot for the session layer's own state: libfuse's I/O hooks reach it
 * only through their userdata, the fs. The fs never looks inside.
 */
void fs_set_session_state(struct fs *fs, void *state);
void *fs_session_state(const struct fs *fs);

/*
 * Stops asking the kernel to forget inodes (the bound's shedder, started
 * at INIT): call it while the session still serves, as the shedder's
 * notifications wait for the kernel's directory locks.
 */
void fs_stop_shedding(struct fs *fs);

/*
 * The kernel drops nlookup of its references to a node (FUSE_FORGET);
 * at 0 the node and its fd are freed. Allocates nothing, so it works at
 * the memory limit. No reply: the caller answers the kernel, if at all.
 */
void fs_forget(struct fs *fs, uint64_t nodeid, uint64_t nlookup);

/*
 * FUSE passthrough of reading opens (passthrough.h): want says whether the
 * session may offer it at INIT (-o passthrough=off: no); wanted is asked
 * by the session's INIT hook; start is told once the INIT reply accepted
 * it on fuse_fd; patch sees each reply this thread writes and marks the
 * open reply that passthrough prepared.
 */
void fs_passthrough_want(struct fs *fs, bool want);
bool fs_passthrough_wanted(const struct fs *fs);
void fs_passthrough_start(struct fs *fs, int fuse_fd);
void fs_passthrough_patch(struct iovec *iov, int count);

#endif
