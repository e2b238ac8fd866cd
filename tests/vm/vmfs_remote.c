// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfs_remote - what a VM test does to vmfs from outside the mount (see
 * vmfs.h): remote changes to the table, notifications sent to the kernel
 * (events, pushed entries, renames and moves, raw frames), and the
 * counters and waits it reads the kernel's side of the exchange with.
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "protocol/proto_codec.h"
#include "../peer/proto_peer.h"
#include "vmfs.h"
#include "vmfs_state.h"

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

/* Build the push frame for node id, counting the lookup it carries. */
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
