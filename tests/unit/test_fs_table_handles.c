// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the inode table's file handles: a removed directory
 * resolved by its handle, whether a handle's object is held (with an
 * inode that has no handle in the table, with another st_dev), and
 * mounts inside the export: another file system's objects are never
 * taken for the export's, a bind mount's are. They run on a scratch
 * directory under /tmp (fs_table_fixture.h), in a mount namespace of
 * their own; no FUSE mount is involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fs/inode_table.h"
#include "fs_table_fixture.h"

CHECK_MAIN_DEFS;

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

int main(void)
{
	bool private = private_mounts();
	struct fs_table t;

	if (fixture_open(&t)) {
		printf("FAIL table_handles_setup: no scratch table\n");
		return 1;
	}
	test_dir_handles(&t);
	test_held_handles(&t);
	test_other_mount(&t, private);
	test_bind_mount(&t, private);
	if (!fixture_close(&t))
		return 1;
	return check_exit();
}
