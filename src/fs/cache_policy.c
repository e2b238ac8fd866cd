// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How long the client kernel may keep what it is shown, and how all of
 * it is taken back.
 *
 * A FUSE server that cannot know when its backing store changes must let
 * the kernel's caches expire (entry_timeout, attr_timeout). Once delivery
 * says that the host watch sees every change of the export
 * (fs_cache_coherent(): a fanotify filesystem mark on a local file
 * system, delivery running), each change is invalidated before its event
 * is delivered, so names and attributes are kept until invalidated. Even
 * then an object keeps the short timeouts when the watch may miss its
 * changes:
 * - an object reached through another mount inside the export: the mark
 *   covers the root's mount's file system, and the scope places events
 *   by the host's tree, not by the mounts over it;
 * - a file with more than one link keeps short attributes: a link outside
 *   the export is outside the scope, and its writes there are dropped;
 * - a ghost (a gone object shown until its delete is replayed).
 * Its name stays: names inside the export are watched whatever the file.
 *
 * Where names and attributes are kept, so are three more caches, each
 * dropped by what drops the others:
 * - a missing name (a negative entry), which every host change that
 *   makes the name exist drops before its event: the replay's create or
 *   rename through the mount replaces it, or settle_name() drops it (a
 *   kernel with the series drops it itself). A name the host removed
 *   can be kept as missing before the replay of its removal, which must
 *   still find it: that replay drops the entry and acts again
 *   (replay_drop_kept_missing()). Only where the kernel takes
 *   FUSE_NOTIFY_INC_EPOCH: the drop one by one below has no record of
 *   missing names (those below a directory go with its name, those in
 *   the root would stay);
 * - a file's pages (FOPEN_KEEP_CACHE), where its attributes are kept: a
 *   write or truncate drops them with the attributes before its event;
 * - a directory's listing (FOPEN_CACHE_DIR): a change of its entries
 *   drops it before the event, as the kernel drops the directory's
 *   attributes and moves its change counter on each create, delete or
 *   rename through the mount or with the series, and the server drops
 *   the directory's pages where a replay did not change it.
 *
 * When events were lost (a host queue overflow) the kernel is told to drop
 * everything it holds: every node's attributes and pages, and every name
 * (FUSE_NOTIFY_INC_EPOCH where the kernel has it, else one by one).
 */
#include <errno.h>
#include <stdio.h>
#include <fuse_log.h>
#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_internal.h"
#include "names_shown.h"

/*
 * FUSE_NOTIFY_INC_EPOCH (Linux 6.16, protocol 7.44): every dentry the
 * kernel holds is looked up again before its next use. Not in the
 * headers of the libfuse and kernel this builds against.
 */
#define FS_NOTIFY_INC_EPOCH 8
#define FS_PROTO_MINOR_INC_EPOCH 44

/* Does the host watch see every change of in? */
static bool watched_whole(const struct fs *fs, const struct fs_inode *in)
{
	return atomic_load_explicit(&fs->coherent, memory_order_relaxed) &&
	       in && !in->ghost && in->own_mount;
}

void fs_cache_timeouts(const struct fs *fs, const struct fs_inode *in,
		       const struct stat *st, double *entry, double *attr)
{
	*entry = fs->entry_timeout;
	*attr = fs->attr_timeout;
	if (!watched_whole(fs, in))
		return;
	*entry = fs->entry_coherent;
	if (S_ISDIR(st->st_mode) || st->st_nlink <= 1)
		*attr = fs->attr_coherent;
}

double fs_cache_negative(const struct fs *fs, const struct fs_inode *dir)
{
	return fs->inc_epoch && watched_whole(fs, dir) ? fs->entry_coherent : 0;
}

bool fs_cache_keeps_pages(const struct fs *fs, const struct fs_inode *in,
			  const struct stat *st)
{
	return watched_whole(fs, in) && fs->attr_coherent > 0 &&
	       S_ISREG(st->st_mode) && st->st_nlink <= 1;
}

bool fs_cache_keeps_listing(const struct fs *fs, const struct fs_inode *dir)
{
	return watched_whole(fs, dir) && fs->entry_coherent > 0;
}

/* "until invalidated" or "for N s", into buf. */
static const char *lifetime(double t, char *buf, size_t size)
{
	if (t >= FS_CACHE_UNTIL_INVALIDATED)
		return "until invalidated";
	snprintf(buf, size, "for %g s", t);
	return buf;
}

void fs_cache_coherent(struct fs *fs, bool coherent, const char *why)
{
	char e[32], a[32];

	atomic_store(&fs->coherent, coherent);
	if (coherent)
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: caches: names kept %s, attributes %s, missing names %s, pages and listings %s (the host watch sees every change: fanotify on %s)\n",
			 lifetime(fs->entry_coherent, e, sizeof(e)),
			 lifetime(fs->attr_coherent, a, sizeof(a)),
			 fs->inc_epoch ? "as names" :
			 "not kept (the kernel has no FUSE_NOTIFY_INC_EPOCH)",
			 fs->attr_coherent > 0 ? "as attributes" : "not kept",
			 why);
	else
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: caches: names kept %s, attributes %s (%s)\n",
			 lifetime(fs->entry_timeout, e, sizeof(e)),
			 lifetime(fs->attr_timeout, a, sizeof(a)), why);
}

void fs_cache_init_seen(struct fs *fs, unsigned int proto_minor)
{
	fs->inc_epoch = proto_minor >= FS_PROTO_MINOR_INC_EPOCH;
}

/* Every node and every name the kernel holds, copied under the lock. */
struct cache_snapshot {
	uint64_t *nodes;
	size_t nnodes;
	struct cache_name {
		uint64_t parent;
		char *name;
	} *names;
	size_t nnames, names_cap;
	bool nomem;
};

static int snapshot_name(void *arg, uint64_t parent, const char *name)
{
	struct cache_snapshot *s = arg;
	struct cache_name *grown;

	if (s->nnames == s->names_cap) {
		size_t cap = s->names_cap ? 2 * s->names_cap : 1024;

		grown = realloc(s->names, cap * sizeof(*grown));
		if (!grown) {
			s->nomem = true;
			return -ENOMEM;
		}
		s->names = grown;
		s->names_cap = cap;
	}
	s->names[s->nnames].name = strdup(name);
	if (!s->names[s->nnames].name) {
		s->nomem = true;
		return -ENOMEM;
	}
	s->names[s->nnames++].parent = parent;
	return 0;
}

struct snapshot_walk {
	struct fs_table *t;
	struct cache_snapshot *s;
	bool with_names;
};

static void snapshot_node(struct hash_link *l, void *arg)
{
	struct fs_inode *in = fs_container_of(l, struct fs_inode, by_node);
	struct snapshot_walk *w = arg;

	if (!in->nlookup)
		return;
	w->s->nodes[w->s->nnodes++] = in->nodeid;
	if (w->with_names && !w->s->nomem)
		fs_names_each_locked(w->t, in, snapshot_name, w->s);
}

static void snapshot_take(struct fs *fs, struct cache_snapshot *s,
			  bool with_names)
{
	struct fs_table *t = &fs->table;
	struct snapshot_walk w = { .t = t, .s = s, .with_names = with_names };

	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&t->lock);
	s->nodes = malloc((t->by_node.count + 1) * sizeof(*s->nodes));
	if (s->nodes)
		hash_index_visit(&t->by_node, snapshot_node, &w);
	else
		s->nomem = true;
	pthread_mutex_unlock(&t->lock);
}

static void snapshot_free(struct cache_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nnames; i++)
		free(s->names[i].name);
	free(s->names);
	free(s->nodes);
}

/* 0, or a negative errno: the kernel refused it or does not know it. */
static int inc_epoch(struct fs *fs)
{
	struct fuse_out_header out = {
		.len = sizeof(out),
		.error = FS_NOTIFY_INC_EPOCH,
	};

	if (!fs->inc_epoch)
		return -ENOSYS;
	if (write(fuse_session_fd(fs->se), &out, sizeof(out)) != sizeof(out))
		return -errno;
	return 0;
}

void fs_cache_drop_all(struct fs *fs)
{
	struct cache_snapshot s;
	bool epoch;
	size_t i;

	if (!fs->se)
		return;
	epoch = !inc_epoch(fs);
	snapshot_take(fs, &s, !epoch);
	for (i = 0; i < s.nnames; i++)
		fs_inval_entry(fs, s.names[i].parent, s.names[i].name);
	for (i = 0; i < s.nnodes; i++)
		fs_inval_inode(fs, s.nodes[i]);
	fuse_log(s.nomem ? FUSE_LOG_ERR : FUSE_LOG_DEBUG,
		 "rnotifyfs: remote events were lost: the kernel's caches are dropped (%zu nodes, names by %s)%s\n",
		 s.nnodes, epoch ? "FUSE_NOTIFY_INC_EPOCH" : "name",
		 s.nomem ? "; out of memory: some are kept" : "");
	snapshot_free(&s);
}
