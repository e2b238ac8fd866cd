// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfs - in-memory FUSE server for the VM tests (see vmfs.h): the node
 * table (its invariants: vmfs_state.h), the connection to /dev/fuse
 * through libfuse's custom I/O hooks (watch updates and INIT seen before
 * libfuse), and starting and stopping the server.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "protocol/proto_codec.h"
#include "../peer/proto_peer.h"
#include "vmfs.h"
#include "vmfs_state.h"
#include "vmwatch.h"

struct vmfs_state vmfs = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
};

struct vmfs_node *vmfs_get(uint64_t nodeid)
{
	if (nodeid < 1 || nodeid > vmfs.nnodes)
		return NULL;
	return vmfs.node[nodeid - 1].used ? &vmfs.node[nodeid - 1] : NULL;
}

uint64_t vmfs_find(uint64_t parent, const char *name)
{
	unsigned int i;

	for (i = 1; i < vmfs.nnodes; i++)
		if (vmfs.node[i].used && vmfs.node[i].parent == parent &&
		    !strcmp(vmfs.node[i].name, name))
			return i + 1;
	return 0;
}

int vmfs_add(uint64_t parent, const char *name, mode_t mode,
	     uint64_t *nodeid)
{
	struct vmfs_node *n;

	if (!vmfs_get(parent) || !S_ISDIR(vmfs_get(parent)->mode))
		return -ENOENT;
	if (strlen(name) > FUSE_FSNOTIFY_NAME_MAX)
		return -ENAMETOOLONG;
	if (vmfs_find(parent, name))
		return -EEXIST;
	if (vmfs.nnodes == VMFS_NODES)
		return -ENOSPC;
	n = &vmfs.node[vmfs.nnodes++];
	n->used = true;
	n->generation = 1000 + vmfs.nnodes;
	n->parent = parent;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->mode = mode;
	n->size = 0;
	*nodeid = vmfs.nnodes;
	return 0;
}

static bool vmfs_has_children(uint64_t nodeid)
{
	unsigned int i;

	for (i = 1; i < vmfs.nnodes; i++)
		if (vmfs.node[i].used && vmfs.node[i].parent == nodeid)
			return true;
	return false;
}

int vmfs_remove(uint64_t parent, const char *name, bool dir,
		uint64_t *nodeid)
{
	uint64_t id = vmfs_find(parent, name);
	struct vmfs_node *n = vmfs_get(id);

	if (!n)
		return -ENOENT;
	if (dir != !!S_ISDIR(n->mode))
		return dir ? -ENOTDIR : -EISDIR;
	if (dir && vmfs_has_children(id))
		return -ENOTEMPTY;
	n->used = false;
	if (nodeid)
		*nodeid = id;
	return 0;
}

void vmfs_stat(uint64_t nodeid, const struct vmfs_node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = nodeid;
	st->st_mode = n->mode;
	st->st_nlink = S_ISDIR(n->mode) ? 2 : 1;
	st->st_size = n->size;
	st->st_blksize = 4096;
}

/* Fill e for nodeid; the caller holds the lock. */
void vmfs_entry(uint64_t nodeid, struct fuse_entry_param *e)
{
	struct vmfs_node *n = vmfs_get(nodeid);

	memset(e, 0, sizeof(*e));
	e->ino = nodeid;
	e->generation = n->generation;
	e->attr_timeout = VMFS_TIMEOUT;
	e->entry_timeout = VMFS_TIMEOUT;
	vmfs_stat(nodeid, n, &e->attr);
}

/* Lock held: parent/name becomes newparent/newname, replacing a file. */
int vmfs_move(uint64_t parent, const char *name, uint64_t newparent,
	      const char *newname)
{
	uint64_t id = vmfs_find(parent, name);
	uint64_t old = vmfs_find(newparent, newname);

	if (!id || !vmfs_get(newparent))
		return -ENOENT;
	if (old && old != id && S_ISDIR(vmfs_get(old)->mode))
		return -EISDIR;
	if (old && old != id)
		vmfs_get(old)->used = false;
	vmfs_get(id)->parent = newparent;
	snprintf(vmfs_get(id)->name, sizeof(vmfs_get(id)->name), "%s",
		 newname);
	return 0;
}

/*
 * Record a watch update and answer it, unless answers are held; never
 * seen by libfuse.
 */
static void vmfs_handle_watch(int fd, const void *buf, size_t len)
{
	unsigned char reply[16];
	struct proto_watch w;
	bool held = false;
	unsigned int i;
	int err, n;

	err = proto_decode_watch(buf, len, &w);
	if (err) {
		fprintf(stderr, "vmfs: bad FUSE_FSNOTIFY (%d)\n", err);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	for (i = 0; i < vmfs.nwatches; i++)
		if (vmfs.watch[i].nodeid == w.nodeid &&
		    vmfs.watch[i].flags == w.flags)
			break;
	if (i < VMFS_WATCHES) {
		vmfs.watch[i].nodeid = w.nodeid;
		vmfs.watch[i].flags = w.flags;
		vmfs.watch[i].mask = w.mask;
		if (i == vmfs.nwatches)
			vmfs.nwatches++;
	}
	vmfs.watch_count++;
	if (vmfs.drop_watch_replies) {
		held = true;
	} else if (vmfs.hold_watch_replies && vmfs.nheld < VMFS_HELD) {
		vmfs.held[vmfs.nheld++] = w.unique;
		held = true;
	}
	pthread_cond_broadcast(&vmfs.changed);
	pthread_mutex_unlock(&vmfs.lock);
	if (held)
		return;

	n = proto_encode_reply(reply, sizeof(reply), w.unique, 0);
	if (n > 0 && write(fd, reply, n) != n)
		perror("vmfs: reply to FUSE_FSNOTIFY");
}

static void vmfs_note_init(const void *buf, size_t len)
{
	uint64_t unique, flags;

	if (proto_decode_init(buf, len, &unique, &flags))
		return;
	vmfs.init_unique = unique;
	vmfs.offered = !!(flags & FUSE_HAS_FSNOTIFY);
}

static ssize_t vmfs_io_read(int fd, void *buf, size_t len, void *data)
{
	struct fuse_in_header ih;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, len);
		if (n < (ssize_t)sizeof(ih))
			return n;
		memcpy(&ih, buf, sizeof(ih));
		if (ih.opcode == FUSE_INIT)
			vmfs_note_init(buf, n);
		if (!proto_is_watch(buf, n))
			return n;
		vmfs_handle_watch(fd, buf, n);
	}
}

static ssize_t vmfs_io_writev(int fd, struct iovec *iov, int count,
			      void *data)
{
	struct fuse_out_header oh;
	ssize_t n;

	/* Add FUSE_HAS_FSNOTIFY to libfuse's INIT reply when asked to. */
	if (vmfs.opts.fsnotify && vmfs.offered && !vmfs.on &&
	    proto_init_reply_add(iov, count, vmfs.init_unique,
				 FUSE_HAS_FSNOTIFY))
		vmfs.on = true;
	n = writev(fd, iov, count);
	if (count < 1 || iov[0].iov_len < sizeof(oh))
		return n;
	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	if (oh.unique && oh.unique == vmfs.init_unique) {
		pthread_mutex_lock(&vmfs.lock);
		vmfs.init_done = true;
		pthread_cond_broadcast(&vmfs.changed);
		pthread_mutex_unlock(&vmfs.lock);
	}
	return n;
}

static const struct fuse_custom_io vmfs_io = {
	.read	= vmfs_io_read,
	.writev	= vmfs_io_writev,
};

static void *vmfs_loop(void *arg)
{
	fuse_session_loop(vmfs.se);
	return NULL;
}

static int vmfs_mount(const char *mnt)
{
	char opts[128];

	vmfs.fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (vmfs.fd < 0)
		return -errno;
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40755,user_id=0,group_id=0,allow_other%s",
		 vmfs.fd, vmfs.opts.no_remote_events || vm_posting() < 3 ?
		 "" : ",remote_events");
	if (mount("vmfs", mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		int err = -errno;

		close(vmfs.fd);
		return err;
	}
	return 0;
}

struct timespec vmfs_deadline(int timeout_ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	return until;
}

/* mount(2) returns before INIT is answered: wait for our reply to it. */
static int vmfs_wait_init(void)
{
	struct timespec until = vmfs_deadline(5000);
	int err = 0;

	pthread_mutex_lock(&vmfs.lock);
	while (!vmfs.init_done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&vmfs.changed, &vmfs.lock,
					     &until);
	pthread_mutex_unlock(&vmfs.lock);
	return vmfs.init_done ? 0 : -ETIMEDOUT;
}

int vmfs_start(const char *mnt, const struct vmfs_opts *opts)
{
	char *argv[] = { "vmfs", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	int err;

	vmfs.opts = *opts;
	if (!vmfs.node)
		vmfs.node = calloc(VMFS_NODES, sizeof(*vmfs.node));
	if (!vmfs.node)
		return -ENOMEM;
	vmfs.nnodes = 1;
	vmfs.node[0] = (struct vmfs_node){ .used = true, .generation = 0,
					   .mode = S_IFDIR | 0755 };
	snprintf(vmfs.mnt, sizeof(vmfs.mnt), "%s", mnt);
	vmfs.se = fuse_session_new(&args, &vmfs_ops, sizeof(vmfs_ops), NULL);
	if (!vmfs.se)
		return -ENOMEM;
	err = vmfs_mount(mnt);
	if (!err && fuse_session_custom_io(vmfs.se, &vmfs_io, vmfs.fd))
		err = -EIO;
	if (!err)
		err = -pthread_create(&vmfs.thread, NULL, vmfs_loop, NULL);
	if (!err)
		err = vmfs_wait_init();
	if (err)
		fprintf(stderr, "vmfs: start on %s: %s\n", mnt, strerror(-err));
	return err;
}

void vmfs_stop(void)
{
	if (umount2(vmfs.mnt, 0) == 0)
		pthread_join(vmfs.thread, NULL);
	else
		umount2(vmfs.mnt, MNT_DETACH);
}

