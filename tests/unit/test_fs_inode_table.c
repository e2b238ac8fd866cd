// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the inode table's identity and names: node ids,
 * generations, lookup counts, ghosts, a host id's handle gen, the
 * names-shown index (hard links, rename, exchange, forget), name
 * validation and the fd bound. They run on a scratch directory under
 * /tmp (fs_table_fixture.h); no FUSE mount is involved. File handles,
 * held objects and mounts inside the export: test_fs_table_handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fs/inode_table.h"
#include "fs/name_validate.h"
#include "fs/names_shown.h"
#include "fs_table_fixture.h"

CHECK_MAIN_DEFS;

static bool known(struct fs_table *t, struct fs_inode *in, uint64_t *node)
{
	uint32_t gen;

	return fs_table_node_of(t, &in->id, node, &gen);
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

/* A guest rebooted: every node it held goes, the root stays. */
static void test_forget_all(struct fs_table *t)
{
	struct fs_inode *b1, *b2, *held;
	uint64_t node1, node2;
	int fd2;

	make_file("b1");
	make_file("b2");
	b1 = learn(t, "b1");
	b2 = learn(t, "b2");
	if (!b1 || !b2 || learn(t, "b2") != b2) {
		CHECK("forget_all_setup", false);
		return;
	}
	node1 = b1->nodeid;
	node2 = b2->nodeid;
	fd2 = b2->fd;
	held = fs_table_get(t, node1);	/* a delivery thread's */
	CHECK("forget_all_counts_held_nodes", fs_table_forget_all(t) == 2);
	CHECK("forget_all_unreachable", !fs_table_get(t, node1) &&
	      !fs_table_get(t, node2));
	CHECK("forget_all_closes_fds", fd2 >= 0 && fcntl(fd2, F_GETFD) < 0);
	CHECK("forget_all_in_use_stays_open", fcntl(held->fd, F_GETFD) >= 0);
	fs_table_put(t, held);
	held = fs_table_get(t, 1);
	CHECK("forget_all_keeps_root", held && held->nodeid == 1);
	fs_table_put(t, held);
	CHECK("forget_all_again_none", fs_table_forget_all(t) == 0);
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
	struct fs_table t;

	CHECK("table_init", fixture_open(&t) == 0);
	test_root(&t);
	test_lookup_counts(&t);
	test_ref_outlives_forget(&t);
	test_forget_all(&t);
	test_ghosts(&t);
	test_reused_ino(&t);
	test_names(&t);
	test_names_dead_dir(&t);
	test_fd_limit(&t);
	test_name_check();
	if (!fixture_close(&t))
		return 1;
	return check_exit();
}
