// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode table (see inode_table.h for what it indexes).
 *
 * Lifetime. An inode is created with one kernel reference (nlookup 1) by
 * fs_table_learn() or fs_table_ghost(). The kernel adds references with
 * every entry we reply and drops them with FORGET. When nlookup reaches 0
 * the inode is unhashed at once (no index finds it any more, nor its names
 * in the names-shown index: see names_shown.c) and freed when the last
 * user drops its refs. Handlers and outside callers hold refs
 * (fs_table_get/put) while they use an inode's fd, so a FORGET racing a
 * request, or a caller outside FUSE, never sees a closed fd. The root
 * (node id 1) holds no kernel reference count and is freed only by
 * fs_table_destroy().
 *
 * Identity. Node ids come from a 64-bit counter and are never reused;
 * generations come from a second counter, so even a node id seen twice
 * would be told apart. A host id maps to at most one live real inode. A
 * ghost (fd -1: the backing object is gone) is indexed by its host id only
 * while no real inode claims it; a real object with the same host id (the
 * inode number was reused) takes the index over from the ghost. A real
 * inode's id carries the gen of its host file handle, and a host id asked
 * for with another gen is a different object: an event read about a
 * deleted file must not reach the file that reused its inode number
 * (while an inode holds its fd, the number cannot be reused).
 *
 * Fds. A real inode holds an O_PATH fd on its backing object, so that ops
 * walk no paths. But the kernel may know more objects than the process may
 * open (100,000 watched directories against a hard limit of 20,000 here):
 * beyond t->max_fds open fds, the least recently used idle inodes (refs 0,
 * on t->idle) have their fd closed; fs_table_get() opens it again by the
 * host file handle every real inode keeps in its tail. A user holding a
 * reference thus always sees one fixed fd. An object that is gone from the
 * backing store cannot be opened again: its inode gets fd -1 and answers
 * like a ghost. Only objects on the export root's file system are closed,
 * as their handles are decoded relative to it. An inode passed over for
 * closing goes to the head of t->cold, so that t->idle then t->cold, each
 * from head to tail, holds every idle inode from most to least recently
 * used: whatever is on t->idle was used after whatever was closed.
 *
 * Bound. The kernel forgets inodes only under its own memory pressure,
 * which a memory cgroup around the server never causes (the kernel's
 * inodes are charged to the client processes). Past t->max_inodes the
 * shedder (shed.c) asks the kernel to drop idle ones, least recently used
 * first (shed_pick.c); each such inode is marked shed_sent and counted in
 * t->shed_pending until its FORGET comes, or until a lookup hands it out
 * again. The kernel keeps a watched inode, whose FORGET never comes: the
 * shedder counts such an inode again once it has waited for it (shed.c).
 *
 * Locking. One mutex, t->lock, protects every index, the names-shown
 * index, the idle list, and nlookup/refs/the index bits of every inode,
 * and fd while refs is 0. It is held only for in-memory work and close()
 * of O_PATH fds, which waits for nothing: name_to_handle_at(), fstatfs()
 * and open_by_handle_at(), which may wait for a slow backing store, run
 * without it. No request ever waits for the kernel or for another
 * request while holding it. nodeid, generation, type, id, ghost and the
 * tail (a ghost's stat or the host handle) never change after creation
 * and are read without it, as is fd by anyone holding a reference.
 *
 * Memory. An inode is most of what a watched directory costs, so it is
 * one allocation: attributes are not kept (but a ghost's), the handle is
 * inline, the indexes are hash tables linked through the inode itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "inode_index.h"
#include "inode_table.h"
#include "util/log_out.h"
#include "util/mono_wait.h"
#include "names_shown.h"

#define FS_TABLE_ROOT 1	/* FUSE_ROOT_ID */

union fs_handle_buf {
	struct file_handle fh;
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

/*
 * The host handle of fd, as fanotify reports it, and the id of the mount
 * fd is on; false if none.
 */
static bool handle_of(int fd, union fs_handle_buf *u, int *mnt)
{
	u->fh.handle_bytes = MAX_HANDLE_SZ;
	return !name_to_handle_at(fd, "", &u->fh, mnt, AT_EMPTY_PATH);
}

/* The mount id of fd, -1 if its file system gives no handles. */
static int mount_id_of(int fd)
{
	union fs_handle_buf u;
	int mnt;

	return handle_of(fd, &u, &mnt) ? mnt : -1;
}

/*
 * Table lock held, and a reference on in: gives an inode whose fd was
 * closed its fd back. The lock is dropped around open_by_handle_at(),
 * which may wait for a slow backing store (NFS); the reference keeps in
 * alive and off the idle list meanwhile, and its handle never changes.
 * If another user reopened it first, that fd stays.
 */
static bool inode_reopen(struct fs_table *t, struct fs_inode *in)
{
	union fs_handle_buf u;
	int fd;

	if (in->fd >= 0)
		return true;
	if (!in->fh_len || !rn_id_known(&in->id))
		return false;	/* a ghost */
	u.fh.handle_bytes = in->fh_len;
	u.fh.handle_type = in->fh_type;
	memcpy(u.fh.f_handle, in->tail, in->fh_len);
	pthread_mutex_unlock(&t->lock);
	fd = open_by_handle_at(t->mount_fd, &u.fh, O_PATH | O_CLOEXEC);
	pthread_mutex_lock(&t->lock);
	if (fd < 0)
		return in->fd >= 0;
	if (in->fd >= 0) {
		close(fd);	/* O_PATH: close() waits for nothing */
		return true;
	}
	in->fd = fd;
	t->nfds++;
	return true;
}

/* Table lock held: closes an idle inode's fd; its handle reopens it. */
static void idle_close(struct fs_table *t, struct fs_inode *in)
{
	if (!in->root_mount)
		return;
	close(in->fd);
	in->fd = -1;
	t->nfds--;
}

/*
 * Table lock held: in has no users now. Puts it first on the idle list
 * (on the cold one if it has no fd) and closes the fds at the idle list's
 * end while too many are open.
 */
static void idle_add(struct fs_table *t, struct fs_inode *in)
{
	struct fs_inode *old;

	if (in->nodeid == FS_TABLE_ROOT)
		return;
	if (in->fd < 0) {
		fs_list_add(&t->cold, &in->idle);
		return;
	}
	fs_list_add(&t->idle, &in->idle);
	while (t->nfds > t->max_fds && t->mount_fd >= 0 &&
	       !fs_list_empty(&t->idle)) {
		old = fs_container_of(t->idle.prev, struct fs_inode, idle);
		fs_list_del(&old->idle);
		idle_close(t, old);
		fs_list_add(&t->cold, &old->idle);
	}
}

unsigned long fs_table_live_locked(const struct fs_table *t)
{
	return t->by_node.count - 1 - t->shed_pending;
}

/*
 * Table lock held: a new inode may take the table past its bound, or
 * past it counting the files asked for, which the shedder checks for
 * files the kernel kept (shed.c): once, as the count crosses it.
 */
static void shed_wake_if_due(struct fs_table *t)
{
	unsigned long live = fs_table_live_locked(t);

	if (t->max_inodes && (live > t->shed_at ||
			      live + t->shed_pending == t->max_inodes + 1))
		pthread_cond_signal(&t->shed_cond);
}

/* Table lock held: the kernel holds in again, or forgot it. */
static void shed_settle(struct fs_table *t, struct fs_inode *in)
{
	in->shed_kept = false;
	if (!in->shed_sent)
		return;
	in->shed_sent = false;
	t->shed_pending--;
}

void fs_table_set_bound(struct fs_table *t, unsigned long max)
{
	pthread_mutex_lock(&t->lock);
	t->max_inodes = max;
	t->shed_low = max - max / 10;
	t->shed_at = max;
	shed_wake_if_due(t);
	pthread_mutex_unlock(&t->lock);
}

/*
 * A new hashed inode for fd (-1: a ghost with attributes st). A real
 * inode's id carries the gen of its handle, kept in the tail.
 */
/* Reached through another mount, but of the root's file system? */
static bool on_root_fs(const struct fs_table *t, int fd,
		       const struct stat *st)
{
	struct fs_identity id;

	return t->root_fs_known && !fs_identity_of(fd, st, &id) &&
	       fs_identity_equal(&id, &t->root_fs);
}

/*
 * What the table keeps of a backing object's fd, found before the table
 * lock is taken: on a slow backing store (NFS) fstatfs() waits for it.
 */
struct fd_probe {
	union fs_handle_buf u;
	bool has_fh;
	bool root_mount;
	bool own_mount;
};

static void fd_probe(const struct fs_table *t, int fd, const struct stat *st,
		     struct fd_probe *p)
{
	int mnt;

	p->has_fh = handle_of(fd, &p->u, &mnt);
	p->own_mount = p->has_fh && mnt == t->mnt_id;
	p->root_mount = p->own_mount || (p->has_fh && on_root_fs(t, fd, st));
}

/* Whether in's handle is p's: the same object, not a reused number. */
static bool probe_is(const struct fd_probe *p, const struct fs_inode *in)
{
	return p->has_fh && in->fh_len == p->u.fh.handle_bytes &&
	       in->fh_type == p->u.fh.handle_type &&
	       !memcmp(in->tail, p->u.fh.f_handle, in->fh_len);
}

/* Table lock held (but at init): a new inode for fd, probed as p. */
static struct fs_inode *inode_new(struct fs_table *t, int fd,
				  const struct stat *st,
				  const struct fd_probe *p)
{
	bool has_fh = fd >= 0 && p->has_fh;
	size_t tail = fd < 0 ? sizeof(*st) : has_fh ? p->u.fh.handle_bytes : 0;
	struct fs_inode *in = calloc(1, sizeof(*in) + tail);

	if (!in)
		return NULL;
	if (fd < 0) {
		in->ghost = true;
		memcpy(in->tail, st, sizeof(*st));
	} else if (has_fh) {
		in->fh_type = p->u.fh.handle_type;
		in->fh_len = p->u.fh.handle_bytes;
		memcpy(in->tail, p->u.fh.f_handle, in->fh_len);
		in->id.gen = rn_handle_gen(in->fh_type, in->tail, in->fh_len);
		in->root_mount = p->root_mount;
		in->own_mount = p->own_mount;
	}
	in->nodeid = t->next_node++;
	in->generation = ++t->next_gen;
	in->id.dev = st->st_dev;
	in->id.ino = st->st_ino;
	in->fd = fd;
	in->type = st->st_mode & S_IFMT;
	in->nlookup = 1;
	fs_list_init(&in->idle);
	hash_index_add(&t->by_node, &in->by_node);
	in->hashed = true;
	if (fd >= 0 && in->nodeid != FS_TABLE_ROOT)
		t->nfds++;
	shed_wake_if_due(t);
	return in;
}

static void inode_free(struct fs_inode *in)
{
	if (in->fd >= 0)
		close(in->fd);
	free(in);
}

static void inode_unhash(struct fs_table *t, struct fs_inode *in)
{
	fs_list_del(&in->idle);
	if (in->fd >= 0)
		t->nfds--;	/* closed when freed, soon */
	shed_settle(t, in);
	/* Below the low mark: a shedder that found too little tries again. */
	if (fs_table_live_locked(t) <= t->shed_low)
		t->shed_at = t->max_inodes;
	fs_names_forget_locked(t, in);
	fs_index_del(t, in);
	in->hashed = false;
}

/* Half the fds this process may open; the rest for open files. */
static unsigned long fds_for_inodes(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 1UL << 20;
	return rl.rlim_cur / 2 > 16 ? rl.rlim_cur / 2 : 16;
}

static void indexes_destroy(struct fs_table *t)
{
	fs_index_destroy(t);
	hash_index_destroy(&t->names);
}

int fs_table_init(struct fs_table *t, int root_fd)
{
	struct fs_inode *root;
	struct fd_probe probe;
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (fstatat(root_fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return -errno;
	t->mnt_id = mount_id_of(root_fd);
	t->root_fs_known = !fs_identity_of(root_fd, &st, &t->root_fs);
	if (fs_index_init(t) || fs_names_init(t))
		goto nomem;
	t->next_node = FS_TABLE_ROOT;
	fd_probe(t, root_fd, &st, &probe);
	root = inode_new(t, root_fd, &st, &probe);
	if (!root)
		goto nomem;
	fs_index_add_id(t, root);
	fs_index_add_handle(t, root);
	pthread_mutex_init(&t->lock, NULL);
	mono_cond_init(&t->shed_cond);
	mono_cond_init(&t->sent_cond);
	fs_list_init(&t->idle);
	fs_list_init(&t->cold);
	t->max_fds = fds_for_inodes();
	/* -1 (no fd is ever closed) if it cannot be opened. */
	t->mount_fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return 0;
nomem:
	indexes_destroy(t);
	return -ENOMEM;
}

static void free_node(struct hash_link *l)
{
	struct fs_inode *in = fs_container_of(l, struct fs_inode, by_node);

	/* The root's fd belongs to the caller of fs_table_init(). */
	if (in->nodeid == FS_TABLE_ROOT)
		in->fd = -1;
	inode_free(in);
}

void fs_table_destroy(struct fs_table *t)
{
	fs_names_destroy(t);
	hash_index_each(&t->by_node, free_node);
	indexes_destroy(t);
	if (t->mount_fd >= 0)
		close(t->mount_fd);
	pthread_cond_destroy(&t->shed_cond);
	pthread_cond_destroy(&t->sent_cond);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

struct fs_inode *fs_table_get(struct fs_table *t, uint64_t nodeid)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = fs_index_node(t, nodeid);
	if (in && !in->refs++)
		fs_list_del(&in->idle);
	if (in)
		inode_reopen(t, in);
	pthread_mutex_unlock(&t->lock);
	return in;
}

void fs_table_put(struct fs_table *t, struct fs_inode *in)
{
	bool dead;

	if (!in)
		return;
	pthread_mutex_lock(&t->lock);
	dead = --in->refs == 0 && !in->hashed;
	if (!in->refs && in->hashed)
		idle_add(t, in);
	pthread_mutex_unlock(&t->lock);
	if (dead)
		inode_free(in);
}

/* Table lock held: a new real inode for fd, claiming its host id. */
static struct fs_inode *learn_new(struct fs_table *t, int fd,
				  const struct stat *st,
				  const struct fd_probe *p,
				  struct fs_inode *ghost)
{
	struct fs_inode *in = inode_new(t, fd, st, p);

	if (!in)
		return NULL;
	if (ghost) {
		hash_index_del(&t->by_id, &ghost->by_id);
		ghost->id_indexed = false;
	}
	fs_index_add_handle(t, in);
	fs_index_add_id(t, in);
	if (!in->refs)
		idle_add(t, in);
	return in;
}

struct fs_inode *fs_table_learn(struct fs_table *t, int fd,
				const struct stat *st)
{
	struct rn_id id = { .dev = st->st_dev, .ino = st->st_ino };
	struct fd_probe probe;
	struct fs_inode *in;

	fd_probe(t, fd, st, &probe);
	pthread_mutex_lock(&t->lock);
	in = fs_index_id(t, &id);
	/*
	 * A known object whose fd was closed takes the new fd; one that
	 * is gone (another object has its number now) turns into a ghost.
	 */
	if (in && in->fd < 0 && probe_is(&probe, in)) {
		in->fd = fd;
		t->nfds++;
		fd = -1;
	}
	if (in && in->fd >= 0) {
		in->nlookup++;
		shed_settle(t, in);
		if (!in->refs) {
			fs_list_del(&in->idle);
			idle_add(t, in);
		}
		pthread_mutex_unlock(&t->lock);
		if (fd >= 0)
			close(fd);
		return in;
	}
	in = learn_new(t, fd, st, &probe, in);
	pthread_mutex_unlock(&t->lock);
	if (!in) {
		fuse_log(FUSE_LOG_ERR, LOG_PER_REQUEST
			 "out of memory: no inode for an entry (ENOMEM)\n");
		close(fd);
	}
	return in;
}

struct fs_inode *fs_table_ghost(struct fs_table *t, const struct stat *st)
{
	struct rn_id id = { .dev = st->st_dev, .ino = st->st_ino };
	struct stat gst = *st;
	struct fs_inode *in;

	if (!st->st_ino)
		gst.st_dev = 0;
	pthread_mutex_lock(&t->lock);
	in = inode_new(t, -1, &gst, NULL);
	if (in && st->st_ino && !fs_index_id(t, &id))
		fs_index_add_id(t, in);
	pthread_mutex_unlock(&t->lock);
	return in;
}

bool fs_table_lookup_again(struct fs_table *t, struct fs_inode *in)
{
	bool ok;

	pthread_mutex_lock(&t->lock);
	ok = in->hashed;
	if (ok) {
		in->nlookup++;
		shed_settle(t, in);
	}
	pthread_mutex_unlock(&t->lock);
	return ok;
}

bool fs_table_first_ref(struct fs_table *t, const struct fs_inode *in)
{
	bool first;

	pthread_mutex_lock(&t->lock);
	first = in->nlookup == 1;
	pthread_mutex_unlock(&t->lock);
	return first;
}

void fs_table_forget(struct fs_table *t, uint64_t nodeid, uint64_t n)
{
	struct fs_inode *in;
	bool dead = false;

	pthread_mutex_lock(&t->lock);
	in = fs_index_node(t, nodeid);
	if (in && nodeid != FS_TABLE_ROOT) {
		in->nlookup -= n < in->nlookup ? n : in->nlookup;
		if (!in->nlookup) {
			inode_unhash(t, in);
			dead = !in->refs;
		}
	}
	pthread_mutex_unlock(&t->lock);
	if (dead)
		inode_free(in);
}

struct held_nodes {
	uint64_t *ids;
	long n;
};

static void held_node(struct hash_link *l, void *arg)
{
	struct fs_inode *in = fs_container_of(l, struct fs_inode, by_node);
	struct held_nodes *h = arg;

	if (in->nlookup && in->nodeid != FS_TABLE_ROOT)
		h->ids[h->n++] = in->nodeid;
}

/* Ids first: forgetting a node takes it out of the index walked. */
long fs_table_forget_all(struct fs_table *t)
{
	struct held_nodes h = { 0 };
	long i;

	pthread_mutex_lock(&t->lock);
	h.ids = malloc((t->by_node.count + 1) * sizeof(*h.ids));
	if (h.ids)
		hash_index_visit(&t->by_node, held_node, &h);
	pthread_mutex_unlock(&t->lock);
	if (!h.ids)
		return -ENOMEM;
	for (i = 0; i < h.n; i++)
		fs_table_forget(t, h.ids[i], UINT64_MAX);
	free(h.ids);
	return h.n;
}

int fs_table_stat(struct fs_inode *in, struct stat *st)
{
	if (in->fd >= 0)
		return fstatat(in->fd, "", st,
			       AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	if (!in->ghost)
		return -ESTALE;
	memcpy(st, in->tail, sizeof(*st));
	return 0;
}
