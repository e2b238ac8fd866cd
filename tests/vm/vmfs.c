// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfs - in-memory FUSE server for the VM tests (see vmfs.h).
 *
 * Node ids are table slots + 1 and are never reused, so a node id always
 * names one object for the life of the mount, as the protocol requires;
 * each node also gets a distinct generation.  Removed nodes stay in the
 * table, marked dead, until the process ends.  Everything in the table is
 * guarded by vmfs.lock.  Each node counts the lookups the kernel holds
 * (entries replied or pushed, minus FORGETs), as a real server must.
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

#include "../../src/deliver/proto_codec.h"
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

static struct {
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
} vmfs = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
};

static struct vmfs_node *vmfs_get(uint64_t nodeid)
{
	if (nodeid < 1 || nodeid > vmfs.nnodes)
		return NULL;
	return vmfs.node[nodeid - 1].used ? &vmfs.node[nodeid - 1] : NULL;
}

static uint64_t vmfs_find(uint64_t parent, const char *name)
{
	unsigned int i;

	for (i = 1; i < vmfs.nnodes; i++)
		if (vmfs.node[i].used && vmfs.node[i].parent == parent &&
		    !strcmp(vmfs.node[i].name, name))
			return i + 1;
	return 0;
}

static int vmfs_add(uint64_t parent, const char *name, mode_t mode,
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

static int vmfs_remove(uint64_t parent, const char *name, bool dir,
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

static void vmfs_stat(uint64_t nodeid, const struct vmfs_node *n,
		      struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = nodeid;
	st->st_mode = n->mode;
	st->st_nlink = S_ISDIR(n->mode) ? 2 : 1;
	st->st_size = n->size;
	st->st_blksize = 4096;
}

/* Fill e for nodeid; the caller holds the lock. */
static void vmfs_entry(uint64_t nodeid, struct fuse_entry_param *e)
{
	struct vmfs_node *n = vmfs_get(nodeid);

	memset(e, 0, sizeof(*e));
	e->ino = nodeid;
	e->generation = n->generation;
	e->attr_timeout = VMFS_TIMEOUT;
	e->entry_timeout = VMFS_TIMEOUT;
	vmfs_stat(nodeid, n, &e->attr);
}

static void vmfs_reply_entry(fuse_req_t req, int err, uint64_t nodeid)
{
	struct fuse_entry_param e;

	if (err) {
		pthread_mutex_unlock(&vmfs.lock);
		fuse_reply_err(req, -err);
		return;
	}
	vmfs_entry(nodeid, &e);
	vmfs_get(nodeid)->nlookup++;
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_entry(req, &e);
}

static void vmfs_init(void *userdata, struct fuse_conn_info *conn)
{
	if (vmfs.opts.export_support)
		conn->want |= FUSE_CAP_EXPORT_SUPPORT;
}

static void vmfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t id;

	pthread_mutex_lock(&vmfs.lock);
	vmfs.lookups++;
	id = vmfs_find(parent, name);
	vmfs_reply_entry(req, id ? 0 : -ENOENT, id);
}

/* Removed nodes stay in the table: count their FORGETs too. */
static void vmfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	pthread_mutex_lock(&vmfs.lock);
	if (ino >= 1 && ino <= vmfs.nnodes)
		vmfs.node[ino - 1].nlookup -= nlookup;
	pthread_cond_broadcast(&vmfs.changed);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_none(req);
}

static void vmfs_getattr(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	struct vmfs_node *n;
	struct stat st;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(ino);
	if (n)
		vmfs_stat(ino, n, &st);
	pthread_mutex_unlock(&vmfs.lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, VMFS_TIMEOUT);
}

static void vmfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			 int to_set, struct fuse_file_info *fi)
{
	struct vmfs_node *n;
	struct stat st;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(ino);
	if (n && (to_set & FUSE_SET_ATTR_MODE))
		n->mode = (n->mode & S_IFMT) | (attr->st_mode & 07777);
	if (n && (to_set & FUSE_SET_ATTR_SIZE))
		n->size = attr->st_size;
	if (n)
		vmfs_stat(ino, n, &st);
	pthread_mutex_unlock(&vmfs.lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, VMFS_TIMEOUT);
}

static void vmfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode, dev_t rdev)
{
	uint64_t id = 0;
	int err;

	if (!S_ISREG(mode)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, mode, &id);
	vmfs_reply_entry(req, err, id);
}

static void vmfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		       mode_t mode)
{
	uint64_t id = 0;
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, S_IFDIR | (mode & 07777), &id);
	vmfs_reply_entry(req, err, id);
}

static void vmfs_create(fuse_req_t req, fuse_ino_t parent, const char *name,
			mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	uint64_t id = 0;
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, S_IFREG | (mode & 07777), &id);
	if (!err) {
		vmfs_entry(id, &e);
		vmfs_get(id)->nlookup++;
	}
	pthread_mutex_unlock(&vmfs.lock);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_create(req, &e, fi);
}

static void vmfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_remove(parent, name, false, NULL);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_err(req, -err);
}

static void vmfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_remove(parent, name, true, NULL);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_err(req, -err);
}

/* Lock held: parent/name becomes newparent/newname, replacing a file. */
static int vmfs_move(uint64_t parent, const char *name, uint64_t newparent,
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

static void vmfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
			fuse_ino_t newparent, const char *newname,
			unsigned int flags)
{
	int err;

	if (flags) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_move(parent, name, newparent, newname);
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_err(req, -err);
}

static void vmfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		       size_t size, off_t off, struct fuse_file_info *fi)
{
	struct vmfs_node *n;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(ino);
	if (n && off + (off_t)size > n->size)
		n->size = off + size;
	pthread_mutex_unlock(&vmfs.lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_write(req, size);
}

/* File contents are not kept: reads see zeros up to the size. */
static void vmfs_read(fuse_req_t req, fuse_ino_t ino, size_t size,
		      off_t off, struct fuse_file_info *fi)
{
	fuse_reply_buf(req, NULL, 0);
}

static void vmfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			 off_t off, struct fuse_file_info *fi)
{
	char *buf = calloc(1, size);
	size_t used = 0, len;
	unsigned int i;
	struct stat st;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&vmfs.lock);
	for (i = off; i < vmfs.nnodes; i++) {
		struct vmfs_node *n = &vmfs.node[i];

		if (!n->used || n->parent != ino || i == 0)
			continue;
		vmfs_stat(i + 1, n, &st);
		len = fuse_add_direntry(req, buf + used, size - used, n->name,
					&st, i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	pthread_mutex_unlock(&vmfs.lock);
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static const struct fuse_lowlevel_ops vmfs_ops = {
	.init		= vmfs_init,
	.lookup		= vmfs_lookup,
	.forget		= vmfs_forget,
	.getattr	= vmfs_getattr,
	.setattr	= vmfs_setattr,
	.mknod		= vmfs_mknod,
	.mkdir		= vmfs_mkdir,
	.create		= vmfs_create,
	.unlink		= vmfs_unlink,
	.rmdir		= vmfs_rmdir,
	.rename		= vmfs_rename,
	.read		= vmfs_read,
	.write		= vmfs_write,
	.readdir	= vmfs_readdir,
};

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
		 "fd=%d,rootmode=40755,user_id=0,group_id=0,allow_other",
		 vmfs.fd);
	if (mount("vmfs", mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		int err = -errno;

		close(vmfs.fd);
		return err;
	}
	return 0;
}

static struct timespec vmfs_deadline(int timeout_ms)
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

int vmfs_remote_create(uint64_t parent, const char *name, mode_t mode,
		       uint64_t *nodeid)
{
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_add(parent, name, mode, nodeid);
	pthread_mutex_unlock(&vmfs.lock);
	return err;
}

int vmfs_remote_remove(uint64_t parent, const char *name, uint64_t *nodeid)
{
	uint64_t id;
	int err;

	pthread_mutex_lock(&vmfs.lock);
	id = vmfs_find(parent, name);
	err = id ? vmfs_remove(parent, name, S_ISDIR(vmfs_get(id)->mode),
			       nodeid) : -ENOENT;
	pthread_mutex_unlock(&vmfs.lock);
	return err;
}

int vmfs_node(uint64_t parent, const char *name, uint64_t *nodeid,
	      uint64_t *generation)
{
	uint64_t id;

	pthread_mutex_lock(&vmfs.lock);
	id = vmfs_find(parent, name);
	*nodeid = id;
	*generation = id ? vmfs_get(id)->generation : 0;
	pthread_mutex_unlock(&vmfs.lock);
	return id ? 0 : -ENOENT;
}

int vmfs_notify_delete(uint64_t parent, uint64_t child, const char *name)
{
	return fuse_lowlevel_notify_delete(vmfs.se, parent, child, name,
					   strlen(name));
}

int vmfs_send_event(uint64_t nodeid, uint64_t generation, uint32_t mask,
		    uint32_t cookie, const char *name)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = {
		.nodeid = nodeid, .generation = generation, .mask = mask,
		.cookie = cookie, .namelen = name ? strlen(name) : 0,
		.name = name,
	};
	int len = proto_encode_event(buf, sizeof(buf), &ev);

	return len < 0 ? len : vmfs_write_frame(buf, len);
}

/* Build the push frame for parent/name, counting the lookup it carries. */
static int vmfs_push_frame_id(uint64_t id, struct proto_event *ev, void *buf,
			      size_t size)
{
	struct fuse_entry_param e;
	int len;

	vmfs_entry(id, &e);
	ev->has_entry = true;
	proto_entry_fill(&ev->entry, e.ino, e.generation, &e.attr,
			 e.entry_timeout, e.attr_timeout);
	len = proto_encode_event(buf, size, ev);
	if (len > 0)
		vmfs_get(id)->nlookup++;
	return len;
}

static int vmfs_push_frame(uint64_t parent, const char *name,
			   struct proto_event *ev, void *buf, size_t size)
{
	uint64_t id = vmfs_find(parent, name);

	return id ? vmfs_push_frame_id(id, ev, buf, size) : -ENOENT;
}

/* The kernel took no lookup if it refused the frame. */
static void vmfs_push_undo(uint64_t id)
{
	pthread_mutex_lock(&vmfs.lock);
	vmfs.node[id - 1].nlookup--;
	pthread_mutex_unlock(&vmfs.lock);
}

int vmfs_send_push(uint64_t parent, uint64_t generation, uint32_t mask,
		   const char *name)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = {
		.nodeid = parent, .generation = generation, .mask = mask,
		.namelen = strlen(name), .name = name,
	};
	int len, err;

	pthread_mutex_lock(&vmfs.lock);
	len = vmfs_push_frame(parent, name, &ev, buf, sizeof(buf));
	pthread_mutex_unlock(&vmfs.lock);
	if (len < 0)
		return len;
	err = vmfs_write_frame(buf, len);
	if (err)
		vmfs_push_undo(ev.entry.nodeid);
	return err;
}

int vmfs_send_push_node(uint64_t nodeid, uint32_t mask)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = { .mask = mask };
	struct vmfs_node *n, *dir;
	int len, err;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(nodeid);
	dir = n ? vmfs_get(n->parent) : NULL;
	len = -ENOENT;
	if (dir) {
		ev.nodeid = n->parent;
		ev.generation = dir->generation;
		ev.namelen = strlen(n->name);
		ev.name = n->name;
		len = vmfs_push_frame_id(nodeid, &ev, buf, sizeof(buf));
	}
	pthread_mutex_unlock(&vmfs.lock);
	if (len < 0)
		return len;
	err = vmfs_write_frame(buf, len);
	if (err)
		vmfs_push_undo(nodeid);
	return err;
}

int vmfs_remote_create_many(uint64_t parent, const char *prefix,
			    unsigned int count, mode_t mode, uint64_t *first)
{
	struct vmfs_node *n;
	unsigned int i;
	int err = 0;

	pthread_mutex_lock(&vmfs.lock);
	if (!vmfs_get(parent) || !S_ISDIR(vmfs_get(parent)->mode))
		err = -ENOENT;
	else if (count > VMFS_NODES - vmfs.nnodes)
		err = -ENOSPC;
	*first = vmfs.nnodes + 1;
	for (i = 0; !err && i < count; i++) {
		n = &vmfs.node[vmfs.nnodes++];
		n->used = true;
		n->generation = 1000 + vmfs.nnodes;
		n->parent = parent;
		snprintf(n->name, sizeof(n->name), "%s%u", prefix, i);
		n->mode = mode;
		n->size = 0;
	}
	pthread_mutex_unlock(&vmfs.lock);
	return err;
}

void vmfs_drop_watch_replies(void)
{
	pthread_mutex_lock(&vmfs.lock);
	vmfs.drop_watch_replies = true;
	pthread_mutex_unlock(&vmfs.lock);
}

int vmfs_remote_rename(uint64_t parent, const char *name,
		       uint64_t newparent, const char *newname)
{
	int err;

	pthread_mutex_lock(&vmfs.lock);
	err = vmfs_move(parent, name, newparent, newname);
	pthread_mutex_unlock(&vmfs.lock);
	return err;
}

int vmfs_encode_move(uint64_t parent, uint64_t generation, const char *name,
		     uint64_t newparent, uint64_t newgeneration,
		     const char *newname, uint32_t cookie, void *buf,
		     size_t size)
{
	uint32_t moves = FUSE_FSNOTIFY_MOVED_FROM | FUSE_FSNOTIFY_MOVED_TO;
	struct proto_event ev = {
		.nodeid = parent, .generation = generation,
		.mask = FUSE_FSNOTIFY_RENAME | (cookie ? moves : 0),
		.cookie = cookie,
		.namelen = strlen(name), .name = name,
		.newdir = newparent, .newdir_generation = newgeneration,
		.newnamelen = strlen(newname), .newname = newname,
		.has_entry = true,
	};
	struct fuse_entry_param e;
	uint64_t id;
	int len = -ENOENT;

	pthread_mutex_lock(&vmfs.lock);
	id = vmfs_find(newparent, newname);
	if (id) {
		vmfs_entry(id, &e);
		if (S_ISDIR(vmfs_get(id)->mode))
			ev.mask |= FUSE_FSNOTIFY_ISDIR;
		proto_entry_fill(&ev.entry, e.ino, e.generation, &e.attr,
				 e.entry_timeout, e.attr_timeout);
		len = proto_encode_event(buf, size, &ev);
	}
	pthread_mutex_unlock(&vmfs.lock);
	return len;
}

int vmfs_encode_rename(uint64_t parent, uint64_t generation,
		       const char *name, uint64_t newparent,
		       uint64_t newgeneration, const char *newname,
		       void *buf, size_t size)
{
	return vmfs_encode_move(parent, generation, name, newparent,
				newgeneration, newname, 0, buf, size);
}

/* The tests make no remote change while a frame is on its way. */
int vmfs_send_move(uint64_t parent, uint64_t generation, const char *name,
		   uint64_t newparent, uint64_t newgeneration,
		   const char *newname, uint32_t cookie)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	uint64_t id;
	int len, err;

	len = vmfs_encode_move(parent, generation, name, newparent,
			       newgeneration, newname, cookie, buf,
			       sizeof(buf));
	if (len < 0)
		return len;
	pthread_mutex_lock(&vmfs.lock);
	id = vmfs_find(newparent, newname);
	vmfs_get(id)->nlookup++;
	pthread_mutex_unlock(&vmfs.lock);
	err = vmfs_write_frame(buf, len);
	if (err)
		vmfs_push_undo(id);
	return err;
}

int vmfs_send_rename(uint64_t parent, uint64_t generation, const char *name,
		     uint64_t newparent, uint64_t newgeneration,
		     const char *newname)
{
	return vmfs_send_move(parent, generation, name, newparent,
			      newgeneration, newname, 0);
}

int vmfs_remote_resize(uint64_t nodeid, off_t size)
{
	struct vmfs_node *n;

	pthread_mutex_lock(&vmfs.lock);
	n = vmfs_get(nodeid);
	if (n)
		n->size = size;
	pthread_mutex_unlock(&vmfs.lock);
	return n ? 0 : -ENOENT;
}

/* A counter the server thread updates, read under the lock. */
static unsigned int vmfs_counter(const unsigned int *counter)
{
	unsigned int n;

	pthread_mutex_lock(&vmfs.lock);
	n = *counter;
	pthread_mutex_unlock(&vmfs.lock);
	return n;
}

unsigned int vmfs_lookup_count(void)
{
	return vmfs_counter(&vmfs.lookups);
}

bool vmfs_wait_nlookup(uint64_t nodeid, uint64_t want, int timeout_ms,
		       uint64_t *got)
{
	struct timespec until = vmfs_deadline(timeout_ms);
	int err = 0;

	pthread_mutex_lock(&vmfs.lock);
	while (vmfs.node[nodeid - 1].nlookup != want && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&vmfs.changed, &vmfs.lock,
					     &until);
	*got = vmfs.node[nodeid - 1].nlookup;
	pthread_mutex_unlock(&vmfs.lock);
	return *got == want;
}

int vmfs_write_frame(const void *buf, size_t len)
{
	ssize_t n = write(vmfs.fd, buf, len);

	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

bool vmfs_kernel_offered(void)
{
	return vmfs.offered;
}

bool vmfs_fsnotify_on(void)
{
	return vmfs.on;
}

unsigned int vmfs_watch_count(void)
{
	return vmfs_counter(&vmfs.watch_count);
}

void vmfs_hold_watch_replies(void)
{
	pthread_mutex_lock(&vmfs.lock);
	vmfs.hold_watch_replies = true;
	pthread_mutex_unlock(&vmfs.lock);
}

bool vmfs_release_watch_replies(void)
{
	uint64_t held[VMFS_HELD];
	unsigned char reply[16];
	unsigned int i, n;
	bool ok = true;
	int len;

	pthread_mutex_lock(&vmfs.lock);
	vmfs.hold_watch_replies = false;
	n = vmfs.nheld;
	memcpy(held, vmfs.held, n * sizeof(held[0]));
	vmfs.nheld = 0;
	pthread_mutex_unlock(&vmfs.lock);
	for (i = 0; i < n; i++) {
		len = proto_encode_reply(reply, sizeof(reply), held[i], 0);
		ok = ok && len > 0 && !vmfs_write_frame(reply, len);
	}
	return ok;
}

static bool vmfs_mask_ok(uint64_t nodeid, uint32_t flags, uint64_t set,
			 uint64_t clear, uint64_t *mask)
{
	unsigned int i;

	for (i = 0; i < vmfs.nwatches; i++) {
		if (vmfs.watch[i].nodeid != nodeid ||
		    vmfs.watch[i].flags != flags)
			continue;
		*mask = vmfs.watch[i].mask;
		return (*mask & set) == set && !(*mask & clear);
	}
	return false;
}

bool vmfs_wait_mask(uint64_t nodeid, uint32_t flags, uint64_t want_set,
		    uint64_t want_clear, int timeout_ms, uint64_t *mask)
{
	struct timespec until = vmfs_deadline(timeout_ms);
	bool ok;
	int err = 0;

	*mask = ~0ULL;
	pthread_mutex_lock(&vmfs.lock);
	while (!(ok = vmfs_mask_ok(nodeid, flags, want_set, want_clear, mask))
	       && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&vmfs.changed, &vmfs.lock,
					     &until);
	pthread_mutex_unlock(&vmfs.lock);
	return ok;
}
