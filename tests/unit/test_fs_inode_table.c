// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the passthrough's pure parts: the inode table (node ids,
 * generations, lookup counts, ghosts, handles), the names-shown
 * index (hard links, rename, exchange, forget) and name validation. They
 * run on a scratch directory under /tmp; no FUSE mount is involved (one
 * test mounts a tmpfs inside it, in a mount namespace of its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fs/inode_table.h"
#include "fs/name_validate.h"
#include "fs/names_shown.h"

CHECK_MAIN_DEFS;

static char dir[] = "/tmp/test_fs_XXXXXX";
static int root_fd;

/*
 * Learns dir/name the way lookup does, its st_dev XOR flip (1: as if on
 * another file system); NULL if it does not exist.
 */
static struct fs_inode *learn_flip(struct fs_table *t, const char *name,
				   dev_t flip)
{
	struct stat st;
	int fd = openat(root_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstatat(fd, "", &st, AT_EMPTY_PATH)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	st.st_dev ^= flip;
	return fs_table_learn(t, fd, &st);
}

static struct fs_inode *learn(struct fs_table *t, const char *name)
{
	return learn_flip(t, name, 0);
}

static bool known(struct fs_table *t, struct fs_inode *in, uint64_t *node)
{
	uint32_t gen;

	return fs_table_node_of(t, &in->id, node, &gen);
}

static void make_file(const char *name)
{
	int fd = openat(root_fd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

static void test_root(struct fs_table *t)
{
	struct fs_inode *root = fs_table_get(t, 1);
	uint64_t node = 0;

	CHECK("table_root_is_node_1", root && root->nodeid == 1);
	CHECK("table_root_by_id", root && known(t, root, &node) && node == 1);
	fs_table_forget(t, 1, 100);
	CHECK("table_root_never_forgotten", fs_table_get(t, 1) == root);
	fs_table_put(t, root);
	fs_table_put(t, root);
}

static void test_lookup_counts(struct fs_table *t)
{
	struct fs_inode *a = learn(t, "a"), *again;
	uint64_t node_a, node = 0, gen_a;

	CHECK("table_learn_new", a && a->nodeid > 1 && a->fd >= 0);
	if (!a)
		return;
	node_a = a->nodeid;
	gen_a = a->generation;
	CHECK("table_first_ref_of_new", fs_table_first_ref(t, a));
	again = learn(t, "a");
	CHECK("table_learn_same_object_same_node", again == a);
	CHECK("table_learn_counts", a->nlookup == 2);
	CHECK("table_no_first_ref_when_held", !fs_table_first_ref(t, a));
	fs_table_forget(t, node_a, 1);
	CHECK("table_forget_partial_keeps", known(t, a, &node) &&
	      node == node_a);
	fs_table_forget(t, node_a, 1);
	CHECK("table_forget_all_drops", fs_table_get(t, node_a) == NULL);
	a = learn(t, "a");
	CHECK("table_node_id_never_reused", a && a->nodeid > node_a);
	CHECK("table_generation_grows", a && a->generation > gen_a);
	if (a)
		fs_table_forget(t, a->nodeid, 1);
}

static void test_ref_outlives_forget(struct fs_table *t)
{
	struct fs_inode *a = learn(t, "a"), *held;
	uint64_t node;

	if (!a) {
		CHECK("table_ref_learn", a != NULL);
		return;
	}
	node = a->nodeid;
	held = fs_table_get(t, node);
	fs_table_forget(t, node, 1);
	CHECK("table_forgotten_unreachable", fs_table_get(t, node) == NULL);
	CHECK("table_held_fd_still_open", fcntl(held->fd, F_GETFD) >= 0);
	fs_table_put(t, held);
}

static void test_ghosts(struct fs_table *t)
{
	struct stat st = { .st_mode = S_IFREG | 0644, .st_size = 7 };
	struct fs_inode *g = fs_table_ghost(t, &st), *g2, *real;
	struct rn_id id;
	uint64_t node = 0;

	CHECK("ghost_fresh_has_no_fd", g && g->fd == -1);
	CHECK("ghost_fresh_has_no_id", g && !fs_table_id_of(t, g->nodeid,
							     &id));
	if (g)
		fs_table_forget(t, g->nodeid, 1);
	make_file("b");
	fstatat(root_fd, "b", &st, 0);
	g2 = fs_table_ghost(t, &st);
	CHECK("ghost_with_ino_indexed", g2 && known(t, g2, &node) &&
	      node == g2->nodeid);
	real = learn(t, "b");
	CHECK("ghost_real_object_is_new_node", real && g2 && real != g2 &&
	      real->fd >= 0);
	CHECK("ghost_real_object_takes_id", real && known(t, real, &node) &&
	      node == real->nodeid);
	if (g2)
		fs_table_forget(t, g2->nodeid, 1);
	CHECK("ghost_forget_keeps_real", real && known(t, real, &node) &&
	      node == real->nodeid);
	if (real)
		fs_table_forget(t, real->nodeid, 1);
}

/* Room for any file handle. */
union handle_buf {
	struct file_handle fh;
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

static bool handle_of(const char *name, struct file_handle *fh, int *mnt)
{
	fh->handle_bytes = MAX_HANDLE_SZ;
	return !name_to_handle_at(root_fd, name, fh, mnt, 0);
}

/*
 * A host id carries the gen of the object's file handle, as fanotify
 * reports it: an event about a deleted file whose inode number was reused
 * must not find the new file's node.
 */
static void test_reused_ino(struct fs_table *t)
{
	union handle_buf u;
	struct fs_inode *e;
	struct rn_id id;
	uint64_t node = 0;
	uint32_t gen;
	int mnt;

	make_file("e");
	e = learn(t, "e");
	if (!e || !handle_of("e", &u.fh, &mnt)) {
		CHECK("reused_ino_setup", false);
		return;
	}
	id = e->id;
	id.gen = rn_handle_gen(u.fh.handle_type, u.fh.f_handle,
			       u.fh.handle_bytes);
	CHECK("reused_ino_gen_is_the_handles", e->id.gen == id.gen);
	CHECK("reused_ino_same_gen_found",
	      fs_table_node_of(t, &id, &node, &gen) && node == e->nodeid);
	id.gen++;
	CHECK("reused_ino_other_gen_not_found",
	      !fs_table_node_of(t, &id, &node, &gen));
	id.gen = 0;
	CHECK("reused_ino_unknown_gen_found",
	      fs_table_node_of(t, &id, &node, &gen) && node == e->nodeid);
	CHECK("node_live_while_known",
	      fs_table_node_live(t, e->nodeid, &gen) &&
	      gen == e->generation);
	fs_table_forget(t, e->nodeid, 1);
	CHECK("node_not_live_once_forgotten",
	      !fs_table_node_live(t, node, &gen));
	unlinkat(root_fd, "e", 0);
}

static void test_dir_handles(struct fs_table *t)
{
	union handle_buf u;
	struct fs_inode *d;
	struct rn_id id = { 0 };
	int mnt;

	mkdirat(root_fd, "d", 0755);
	if (!handle_of("d", &u.fh, &mnt)) {
		CHECK("handle_supported", false);
		return;
	}
	d = learn(t, "d");
	unlinkat(root_fd, "d", AT_REMOVEDIR);
	CHECK("handle_resolves_removed_dir", d &&
	      fs_table_resolve_handle(t, u.fh.f_handle, u.fh.handle_bytes,
				      u.fh.handle_type, &id) &&
	      rn_id_equal(&id, &d->id));
	CHECK("handle_wrong_type_unknown",
	      !fs_table_resolve_handle(t, u.fh.f_handle, u.fh.handle_bytes,
				       u.fh.handle_type + 1, &id));
	if (d)
		fs_table_forget(t, d->nodeid, 1);
	CHECK("handle_gone_after_forget",
	      !fs_table_resolve_handle(t, u.fh.f_handle, u.fh.handle_bytes,
				       u.fh.handle_type, &id));
}

static int held(struct fs_table *t, const struct file_handle *fh,
		struct rn_id *id)
{
	return fs_table_held_handle(t, fh->f_handle, fh->handle_bytes,
				    fh->handle_type, id);
}

/* A real inode /proc's file system gives no handle for. */
static struct fs_inode *learn_no_handle(struct fs_table *t)
{
	struct stat st;
	int fd = open("/proc/self/status", O_PATH | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return fs_table_learn(t, fd, &st);
}

static void test_held_handles(struct fs_table *t)
{
	union handle_buf u;
	struct fs_inode *f, *p;
	struct rn_id id = { 0 };
	int mnt;

	make_file("hf");
	if (!handle_of("hf", &u.fh, &mnt)) {
		CHECK("held_handle_supported", false);
		return;
	}
	CHECK("held_handle_unknown_file_not_held", held(t, &u.fh, &id) == 0);
	f = learn(t, "hf");
	unlinkat(root_fd, "hf", 0);
	CHECK("held_handle_file_found_once_gone", f &&
	      held(t, &u.fh, &id) == 1 && rn_id_equal(&id, &f->id));
	p = learn_no_handle(t);
	if (f)
		fs_table_forget(t, f->nodeid, 1);
	CHECK("held_handle_cannot_tell_past_an_inode_without_handle",
	      p && held(t, &u.fh, &id) == -EAGAIN);
	if (p)
		fs_table_forget(t, p->nodeid, 1);
	CHECK("held_handle_sure_again_once_it_is_forgotten",
	      held(t, &u.fh, &id) == 0);
	make_file("hg");
	if (!handle_of("hg", &u.fh, &mnt)) {
		CHECK("held_handle_supported", false);
		return;
	}
	f = learn_flip(t, "hg", 1);
	CHECK("held_handle_found_with_another_dev_on_the_root_mount",
	      f && held(t, &u.fh, &id) == 1 && rn_id_equal(&id, &f->id));
	if (f)
		fs_table_forget(t, f->nodeid, 1);
	unlinkat(root_fd, "hg", 0);
}

static bool resolves(struct fs_table *t, const struct file_handle *fh,
		     struct rn_id *id)
{
	return fs_table_resolve_handle(t, fh->f_handle, fh->handle_bytes,
				       fh->handle_type, id);
}

/*
 * A mount namespace of our own, so that a mount made here is seen by
 * this process only and ends with it. Made before any fd is opened: an
 * fd opened in the old namespace would not see the new one's mounts.
 */
static bool private_mounts(void)
{
	return !unshare(CLONE_NEWNS) &&
	       !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* A tmpfs at dir/m; false if not mounted. */
static bool mount_inside(bool private)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/m", dir);
	return private && !mkdirat(root_fd, "m", 0755) &&
	       !mount("tmpfs", path, "tmpfs", 0, "size=1m");
}

/* Takes a reference and drops it: in becomes idle. */
static void use(struct fs_table *t, struct fs_inode *in)
{
	fs_table_put(t, fs_table_get(t, in->nodeid));
}

/* Learned: f on the tmpfs at m, g on the root's mount. */
static void check_mounts_apart(struct fs_table *t, struct fs_inode *f,
			       struct fs_inode *g)
{
	union handle_buf u;
	unsigned long saved = t->max_fds;
	struct rn_id id = { 0 };
	int mnt;

	CHECK("other_mount_has_handle", handle_of("m/f", &u.fh, &mnt));
	CHECK("other_mount_cannot_tell_if_held",
	      held(t, &u.fh, &id) == -EAGAIN);
	CHECK("other_mount_not_resolved", !resolves(t, &u.fh, &id));
	CHECK("root_mount_resolved", handle_of("rf", &u.fh, &mnt) &&
	      resolves(t, &u.fh, &id) && rn_id_equal(&id, &g->id));
	t->max_fds = 0;
	use(t, g);
	use(t, f);
	CHECK("fd_closed_past_the_fd_bound_on_root_mount_only",
	      g->fd < 0 && f->fd >= 0);
	t->max_fds = saved;
}

/*
 * An object learned on a mount inside the export, here another file
 * system: its handle may look like one of the export's, which is what
 * the filesystem mark reports. So it is never taken for the export's
 * (held: cannot tell; resolve: unknown), and its fd is kept open: its
 * handle would not reopen at the root's mount. A file of the root's
 * mount is the control.
 */
static void test_other_mount(struct fs_table *t, bool private)
{
	struct fs_inode *f, *g;
	char path[64];

	if (!mount_inside(private)) {
		CHECK("other_mount_setup", false);
		return;
	}
	make_file("m/f");
	make_file("rf");
	f = learn(t, "m/f");
	g = learn(t, "rf");
	CHECK("other_mount_learned", f && g);
	if (f && g)
		check_mounts_apart(t, f, g);
	if (f)
		fs_table_forget(t, f->nodeid, 1);
	if (g)
		fs_table_forget(t, g->nodeid, 1);
	unlinkat(root_fd, "rf", 0);
	snprintf(path, sizeof(path), "%s/m", dir);
	umount(path);
}

/* dir/bsrc bound at dir/bm; false if not mounted. */
static bool bind_inside(bool private)
{
	char src[64], path[64];

	snprintf(src, sizeof(src), "%s/bsrc", dir);
	snprintf(path, sizeof(path), "%s/bm", dir);
	return private && !mkdirat(root_fd, "bsrc", 0755) &&
	       !mkdirat(root_fd, "bm", 0755) &&
	       !mount(src, path, NULL, MS_BIND, NULL);
}

/*
 * A bind mount of the root's own file system inside the export: another
 * mount, but its handles are the root's, so an object learned through it
 * is the export's like any other (resolved, held, its fd closed past the
 * bound and reopened at the root's mount).
 */
static void test_bind_mount(struct fs_table *t, bool private)
{
	union handle_buf u;
	unsigned long saved = t->max_fds;
	struct rn_id id = { 0 };
	struct fs_inode *f;
	char path[64];
	int mnt;

	if (!bind_inside(private)) {
		CHECK("bind_mount_setup", false);
		return;
	}
	make_file("bsrc/bf");
	f = learn(t, "bm/bf");
	CHECK("bind_mount_learned", f && handle_of("bm/bf", &u.fh, &mnt));
	if (f) {
		CHECK("bind_mount_resolved", resolves(t, &u.fh, &id) &&
		      rn_id_equal(&id, &f->id));
		CHECK("bind_mount_held", held(t, &u.fh, &id) == 1);
		t->max_fds = 0;
		use(t, f);
		CHECK("bind_mount_fd_closed_past_the_bound", f->fd < 0);
		t->max_fds = saved;
		CHECK("bind_mount_fd_reopened", fs_table_get(t, f->nodeid) ==
		      f && f->fd >= 0);
		fs_table_put(t, f);
		fs_table_forget(t, f->nodeid, 1);
	}
	snprintf(path, sizeof(path), "%s/bm", dir);
	umount(path);
}

static bool shows(struct fs_table *t, uint64_t parent, const char *name,
		  uint64_t want)
{
	uint64_t node = 0;

	return fs_names_find(t, parent, name, &node) && node == want;
}

static void test_names(struct fs_table *t)
{
	struct fs_inode *a, *b, *c, *d;
	uint64_t node;

	make_file("a");
	make_file("b");
	make_file("c");
	mkdirat(root_fd, "sub", 0755);
	a = learn(t, "a");
	b = learn(t, "b");
	c = learn(t, "c");
	d = learn(t, "sub");
	if (!a || !b || !c || !d) {
		CHECK("names_setup", false);
		return;
	}
	CHECK("names_show_unknown_node",
	      fs_names_show(t, 1, "x", 999999) == -ENOENT);
	fs_names_show(t, 1, "a", a->nodeid);
	fs_names_show(t, 1, "h", a->nodeid);
	CHECK("names_hard_link_both", shows(t, 1, "a", a->nodeid) &&
	      shows(t, 1, "h", a->nodeid));
	fs_names_hide(t, 1, "a");
	CHECK("names_hide_one_link", !fs_names_find(t, 1, "a", &node) &&
	      shows(t, 1, "h", a->nodeid));
	fs_names_rename(t, 1, "h", d->nodeid, "x", 0);
	CHECK("names_rename_moves", !fs_names_find(t, 1, "h", &node) &&
	      shows(t, d->nodeid, "x", a->nodeid));
	fs_names_show(t, 1, "b", b->nodeid);
	fs_names_rename(t, d->nodeid, "x", 1, "b", RENAME_EXCHANGE);
	CHECK("names_exchange_swaps", shows(t, d->nodeid, "x", b->nodeid) &&
	      shows(t, 1, "b", a->nodeid));
	fs_names_show(t, 1, "c", c->nodeid);
	fs_names_rename(t, 1, "b", 1, "c", 0);
	CHECK("names_rename_overwrites", shows(t, 1, "c", a->nodeid) &&
	      !fs_names_find(t, 1, "b", &node));
	fs_names_rename(t, 1, "nothing", 1, "c", 0);
	CHECK("names_rename_unshown_source_hides_target",
	      !fs_names_find(t, 1, "c", &node));
	fs_names_show(t, 1, "c", c->nodeid);
	fs_names_show(t, 1, "c2", c->nodeid);
	fs_table_forget(t, c->nodeid, 1);
	CHECK("names_forget_child_drops_all",
	      !fs_names_find(t, 1, "c", &node) &&
	      !fs_names_find(t, 1, "c2", &node));
	node = d->nodeid;
	fs_table_forget(t, node, 1);
	CHECK("names_forget_dir_drops_children",
	      !fs_names_find(t, node, "x", &node));
	fs_table_forget(t, a->nodeid, 1);
	fs_table_forget(t, b->nodeid, 1);
}

/*
 * A hard-linked file outlives a forgotten directory it was shown in: that
 * name is no longer found, its other name is, and the dead entry goes
 * when the file is shown again.
 */
static void test_names_dead_dir(struct fs_table *t)
{
	struct fs_inode *f, *d;
	uint64_t node, dnode;
	size_t before;

	make_file("hl");
	mkdirat(root_fd, "dd", 0755);
	f = learn(t, "hl");
	d = learn(t, "dd");
	if (!f || !d) {
		CHECK("names_dead_dir_setup", false);
		return;
	}
	dnode = d->nodeid;
	fs_names_show(t, dnode, "link", f->nodeid);
	fs_names_show(t, 1, "hl", f->nodeid);
	before = t->names.count;
	fs_table_forget(t, dnode, 1);
	CHECK("names_dead_dir_not_found", !fs_names_find(t, dnode, "link",
							 &node) &&
	      shows(t, 1, "hl", f->nodeid));
	fs_names_show(t, 1, "hl2", f->nodeid);
	CHECK("names_dead_dir_entry_pruned_on_show",
	      t->names.count == before && shows(t, 1, "hl", f->nodeid) &&
	      shows(t, 1, "hl2", f->nodeid));
	fs_table_forget(t, f->nodeid, 1);
	CHECK("names_dead_dir_child_forgotten",
	      t->names.count == before - 2);
}

static void test_name_check(void)
{
	char longname[NAME_MAX + 2];

	memset(longname, 'n', sizeof(longname));
	longname[NAME_MAX] = '\0';
	CHECK("name_plain_ok", fs_name_validate("a.b", false) == 0);
	CHECK("name_max_ok", fs_name_validate(longname, false) == 0);
	longname[NAME_MAX] = 'n';
	longname[NAME_MAX + 1] = '\0';
	CHECK("name_too_long", fs_name_validate(longname, false) ==
	      -ENAMETOOLONG);
	CHECK("name_empty", fs_name_validate("", false) == -EINVAL);
	CHECK("name_slash", fs_name_validate("a/b", false) == -EINVAL);
	CHECK("name_dotdot_slash", fs_name_validate("../etc", true) == -EINVAL);
	CHECK("name_dot_refused", fs_name_validate(".", false) == -EINVAL);
	CHECK("name_dotdot_refused", fs_name_validate("..", false) == -EINVAL);
	CHECK("name_dots_allowed", fs_name_validate("..", true) == 0);
}

/*
 * More known objects than fds allowed: idle inodes are closed, oldest
 * first, and opened again by handle when used; a gone one is a ghost.
 */
static void test_fd_limit(struct fs_table *t)
{
	struct fs_inode *in[10], *got;
	unsigned long saved = t->max_fds;
	char name[8];
	struct stat st;
	int i;

	t->max_fds = 3;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		make_file(name);
		in[i] = learn(t, name);
	}
	CHECK("fds_bounded", t->nfds <= 3);
	CHECK("fds_oldest_closed", in[0] && in[0]->fd == -1 && in[9] &&
	      in[9]->fd >= 0);
	got = in[0] ? fs_table_get(t, in[0]->nodeid) : NULL;
	CHECK("fds_reopened_by_handle", got && got->fd >= 0 &&
	      !fstatat(got->fd, "", &st, AT_EMPTY_PATH) &&
	      st.st_ino == got->id.ino);
	fs_table_put(t, got);
	CHECK("fds_bounded_after_reuse", t->nfds <= 3);
	got = learn(t, "c1");
	CHECK("fds_learn_closed_same_node", got && got == in[1]);
	unlinkat(root_fd, "c2", 0);
	got = in[2] ? fs_table_get(t, in[2]->nodeid) : NULL;
	CHECK("fds_gone_object_has_no_fd", got && got->fd == -1);
	fs_table_put(t, got);
	t->max_fds = saved;
}

int main(void)
{
	bool private = private_mounts();
	struct fs_table t;
	char cmd[64];

	if (!mkdtemp(dir))
		return 1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	make_file("a");
	CHECK("table_init", fs_table_init(&t, root_fd) == 0);
	test_root(&t);
	test_lookup_counts(&t);
	test_ref_outlives_forget(&t);
	test_ghosts(&t);
	test_dir_handles(&t);
	test_held_handles(&t);
	test_other_mount(&t, private);
	test_bind_mount(&t, private);
	test_reused_ino(&t);
	test_names(&t);
	test_names_dead_dir(&t);
	test_fd_limit(&t);
	test_name_check();
	fs_table_destroy(&t);
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return check_exit();
}
