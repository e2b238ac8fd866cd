// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The inode table (see inode_table.h for what it indexes).
 *
 * Lifetime. An inode is created with one kernel reference (nlookup 1) by
 * fs_table_learn() or fs_table_ghost(). The kernel adds references with
 * every entry we reply and drops them with FORGET. When nlookup reaches 0
 * the inode is unhashed at once (no index finds it any more; its names in
 * the names-shown index go with it) and freed when the last user drops
 * its refs. Handlers and outside callers hold refs (fs_table_get/put)
 * while they use an inode's fd, so a FORGET racing a request, or a caller
 * outside FUSE, never sees a closed fd. The root (node id 1) holds no
 * kernel reference count and is freed only by fs_table_destroy().
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
 * Fds. A real inode holds an O_PATH fd on its backing object, so that
 * ops walk no paths. But the kernel may know more objects than the
 * process may open (100,000 watched directories against a hard limit of
 * 20,000 here): beyond t->max_fds open fds, the least recently used idle
 * inodes (refs 0, on t->idle) have their fd closed and keep a file handle
 * instead; fs_table_get() opens it again by handle. A user holding a
 * reference thus always sees one fixed fd. An object that is gone from
 * the backing store cannot be opened again: its inode gets fd -1 and
 * answers like a ghost. Only objects on the export root's file system are
 * closed, as their handles are decoded relative to it.
 *
 * Locking. One mutex, t->lock, protects every index, the names-shown
 * index, the idle list, and nlookup/refs/hashed/fh of every inode, and
 * fd while refs is 0. It is held only for in-memory work plus
 * name_to_handle_at(), open_by_handle_at() and close() of O_PATH fds; no
 * request ever waits for the kernel or for another request while holding
 * it. nodeid, generation, type, id and ghost_st never change after
 * creation and are read without it, as is fd by anyone holding a
 * reference. Attributes are not kept (but a ghost's): 144 bytes an inode
 * is most of what a watched directory costs.
 */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "inode_table.h"
#include "names_shown.h"

#define FS_TABLE_ROOT 1	/* FUSE_ROOT_ID */

struct fs_handle {
	int type;
	unsigned int len;
	unsigned char bytes[];
};

static int cmp_node(const void *a, const void *b)
{
	const struct fs_inode *x = a, *y = b;

	return x->nodeid < y->nodeid ? -1 : x->nodeid > y->nodeid;
}

static int cmp_id(const void *a, const void *b)
{
	const struct fs_inode *x = a, *y = b;

	if (x->id.dev != y->id.dev)
		return x->id.dev < y->id.dev ? -1 : 1;
	return x->id.ino < y->id.ino ? -1 : x->id.ino > y->id.ino;
}

static int cmp_handle(const void *a, const void *b)
{
	const struct fs_handle *x = ((const struct fs_inode *)a)->fh;
	const struct fs_handle *y = ((const struct fs_inode *)b)->fh;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->bytes, y->bytes, x->len);
}

static struct fs_inode *find_node(struct fs_table *t, uint64_t nodeid)
{
	struct fs_inode key = { .nodeid = nodeid };
	void **hit = tfind(&key, &t->by_node, cmp_node);

	return hit ? *hit : NULL;
}

static struct fs_inode *find_id(struct fs_table *t, const struct rn_id *id)
{
	struct fs_inode key = { .id = *id };
	void **hit = tfind(&key, &t->by_id, cmp_id);

	return hit ? *hit : NULL;
}

struct fs_inode *fs_table_node_locked(struct fs_table *t, uint64_t nodeid)
{
	return find_node(t, nodeid);
}

/* A directory's host handle, as fanotify reports it; NULL if none. */
static struct fs_handle *handle_of(int fd)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct fs_handle *h;
	int mnt;

	u.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &u.fh, &mnt, AT_EMPTY_PATH))
		return NULL;
	h = malloc(sizeof(*h) + u.fh.handle_bytes);
	if (!h)
		return NULL;
	h->type = u.fh.handle_type;
	h->len = u.fh.handle_bytes;
	memcpy(h->bytes, u.fh.f_handle, h->len);
	return h;
}

/* Table lock held: gives an inode whose fd was closed its fd back. */
static bool inode_reopen(struct fs_table *t, struct fs_inode *in)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;

	if (in->fd >= 0)
		return true;
	if (!in->fh || !rn_id_known(&in->id))
		return false;	/* a ghost */
	u.fh.handle_bytes = in->fh->len;
	u.fh.handle_type = in->fh->type;
	memcpy(u.fh.f_handle, in->fh->bytes, in->fh->len);
	in->fd = open_by_handle_at(t->mount_fd, &u.fh, O_PATH | O_CLOEXEC);
	if (in->fd < 0)
		return false;
	t->nfds++;
	return true;
}

/* Table lock held: closes an idle inode's fd, keeping a handle. */
static void idle_close(struct fs_table *t, struct fs_inode *in)
{
	struct fs_inode *root = find_node(t, FS_TABLE_ROOT);

	if (in->id.dev != root->id.dev)
		return;
	if (!in->fh)
		in->fh = handle_of(in->fd);
	if (!in->fh)
		return;
	close(in->fd);
	in->fd = -1;
	t->nfds--;
}

/*
 * Table lock held: in has an fd and no users now. Puts it first on the
 * idle list and closes the fds at its end while too many are open.
 */
static void idle_add(struct fs_table *t, struct fs_inode *in)
{
	struct fs_inode *old;

	if (in->nodeid == FS_TABLE_ROOT || in->fd < 0 || t->mount_fd < 0)
		return;
	fs_list_add(&t->idle, &in->idle);
	while (t->nfds > t->max_fds && !fs_list_empty(&t->idle)) {
		old = fs_container_of(t->idle.prev, struct fs_inode, idle);
		fs_list_del(&old->idle);
		idle_close(t, old);
	}
}

static uint32_t gen_of(const struct fs_handle *h)
{
	return h ? rn_handle_gen(h->type, h->bytes, h->len) : 0;
}

static void index_handle(struct fs_table *t, struct fs_inode *in)
{
	void **slot;

	in->fh = handle_of(in->fd);
	in->id.gen = gen_of(in->fh);
	if (!in->fh)
		return;
	slot = tsearch(in, &t->by_handle, cmp_handle);
	in->fh_indexed = slot && *slot == in;
}

/* A file's gen; its handle is kept only if its fd is closed when idle. */
static void file_gen(struct fs_inode *in)
{
	struct fs_handle *h = handle_of(in->fd);

	in->id.gen = gen_of(h);
	free(h);
}

static struct fs_inode *inode_new(struct fs_table *t, int fd,
				  const struct stat *st)
{
	struct fs_inode *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	if (fd < 0) {
		in->ghost_st = malloc(sizeof(*st));
		if (!in->ghost_st) {
			free(in);
			return NULL;
		}
		*in->ghost_st = *st;
	}
	in->nodeid = t->next_node++;
	in->generation = ++t->next_gen;
	in->id.dev = st->st_dev;
	in->id.ino = st->st_ino;
	in->fd = fd;
	in->type = st->st_mode & S_IFMT;
	in->nlookup = 1;
	fs_list_init(&in->names);
	fs_list_init(&in->children);
	fs_list_init(&in->idle);
	if (!tsearch(in, &t->by_node, cmp_node)) {
		free(in->ghost_st);
		free(in);
		return NULL;
	}
	in->hashed = true;
	if (fd >= 0 && in->nodeid != FS_TABLE_ROOT)
		t->nfds++;
	return in;
}

static void inode_free(struct fs_inode *in)
{
	if (in->fd >= 0)
		close(in->fd);
	free(in->fh);
	free(in->ghost_st);
	free(in);
}

static void inode_unhash(struct fs_table *t, struct fs_inode *in)
{
	fs_list_del(&in->idle);
	if (in->fd >= 0)
		t->nfds--;	/* closed when freed, soon */
	fs_names_forget_locked(t, in);
	tdelete(in, &t->by_node, cmp_node);
	if (in->id_indexed)
		tdelete(in, &t->by_id, cmp_id);
	if (in->fh_indexed)
		tdelete(in, &t->by_handle, cmp_handle);
	in->id_indexed = false;
	in->fh_indexed = false;
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

int fs_table_init(struct fs_table *t, int root_fd)
{
	struct fs_inode *root;
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (fstatat(root_fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return -errno;
	pthread_mutex_init(&t->lock, NULL);
	fs_list_init(&t->idle);
	t->max_fds = fds_for_inodes();
	/* -1 (no fd is ever closed) if it cannot be opened. */
	t->mount_fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->next_node = FS_TABLE_ROOT;
	root = inode_new(t, root_fd, &st);
	if (!root)
		return -ENOMEM;
	root->id_indexed = tsearch(root, &t->by_id, cmp_id) != NULL;
	index_handle(t, root);
	return 0;
}

static void free_node(void *p)
{
	struct fs_inode *in = p;

	/* The root's fd belongs to the caller of fs_table_init(). */
	if (in->nodeid == FS_TABLE_ROOT)
		in->fd = -1;
	inode_free(in);
}

/* The by_id and by_handle trees share their inodes with by_node. */
static void free_nothing(void *p)
{
}

void fs_table_destroy(struct fs_table *t)
{
	fs_names_destroy(t);
	tdestroy(t->by_id, free_nothing);
	tdestroy(t->by_handle, free_nothing);
	tdestroy(t->by_node, free_node);
	if (t->mount_fd >= 0)
		close(t->mount_fd);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

struct fs_inode *fs_table_get(struct fs_table *t, uint64_t nodeid)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_node(t, nodeid);
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
				  struct fs_inode *ghost)
{
	struct fs_inode *in = inode_new(t, fd, st);

	if (!in)
		return NULL;
	if (ghost) {
		tdelete(ghost, &t->by_id, cmp_id);
		ghost->id_indexed = false;
	}
	if (S_ISDIR(st->st_mode))
		index_handle(t, in);
	else
		file_gen(in);
	in->id_indexed = tsearch(in, &t->by_id, cmp_id) != NULL;
	if (!in->refs)
		idle_add(t, in);
	return in;
}

struct fs_inode *fs_table_learn(struct fs_table *t, int fd,
				const struct stat *st)
{
	struct rn_id id = { .dev = st->st_dev, .ino = st->st_ino };
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_id(t, &id);
	/* A closed inode that cannot be opened again is gone: a ghost. */
	if (in && inode_reopen(t, in)) {
		in->nlookup++;
		if (!in->refs) {
			fs_list_del(&in->idle);
			idle_add(t, in);
		}
		pthread_mutex_unlock(&t->lock);
		close(fd);
		return in;
	}
	in = learn_new(t, fd, st, in);
	pthread_mutex_unlock(&t->lock);
	if (!in)
		close(fd);
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
	in = inode_new(t, -1, &gst);
	if (in && st->st_ino && !find_id(t, &id))
		in->id_indexed = tsearch(in, &t->by_id, cmp_id) != NULL;
	pthread_mutex_unlock(&t->lock);
	return in;
}

bool fs_table_lookup_again(struct fs_table *t, struct fs_inode *in)
{
	bool ok;

	pthread_mutex_lock(&t->lock);
	ok = in->hashed;
	if (ok)
		in->nlookup++;
	pthread_mutex_unlock(&t->lock);
	return ok;
}

void fs_table_forget(struct fs_table *t, uint64_t nodeid, uint64_t n)
{
	struct fs_inode *in;
	bool dead = false;

	pthread_mutex_lock(&t->lock);
	in = find_node(t, nodeid);
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

int fs_table_stat(struct fs_inode *in, struct stat *st)
{
	if (in->fd >= 0)
		return fstatat(in->fd, "", st,
			       AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	if (!in->ghost_st)
		return -ESTALE;
	*st = *in->ghost_st;
	return 0;
}

bool fs_table_node_of(struct fs_table *t, const struct rn_id *id,
		      uint64_t *nodeid, uint32_t *generation)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_id(t, id);
	if (in && !rn_gen_match(in->id.gen, id->gen))
		in = NULL;	/* its inode number, another object */
	if (in) {
		*nodeid = in->nodeid;
		*generation = in->generation;
	}
	pthread_mutex_unlock(&t->lock);
	return in != NULL;
}

bool fs_table_node_live(struct fs_table *t, uint64_t nodeid,
			uint32_t *generation)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_node(t, nodeid);
	if (in)
		*generation = in->generation;
	pthread_mutex_unlock(&t->lock);
	return in != NULL;
}

bool fs_table_id_of(struct fs_table *t, uint64_t nodeid, struct rn_id *id)
{
	struct fs_inode *in;

	pthread_mutex_lock(&t->lock);
	in = find_node(t, nodeid);
	if (in)
		*id = in->id;
	pthread_mutex_unlock(&t->lock);
	return in && rn_id_known(id);
}

bool fs_table_resolve_handle(struct fs_table *t, const void *handle,
			     size_t len, int type, struct rn_id *id)
{
	struct fs_handle *h;
	struct fs_inode key, *in = NULL;
	void **hit;

	if (len > MAX_HANDLE_SZ)
		return false;
	h = malloc(sizeof(*h) + len);
	if (!h)
		return false;
	h->type = type;
	h->len = len;
	memcpy(h->bytes, handle, len);
	key.fh = h;
	pthread_mutex_lock(&t->lock);
	hit = tfind(&key, &t->by_handle, cmp_handle);
	if (hit) {
		in = *hit;
		*id = in->id;
	}
	pthread_mutex_unlock(&t->lock);
	free(h);
	return in != NULL;
}
