// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_notify_delete - fixes 1/2: FUSE_NOTIFY_DELETE reaches the parent's
 * watchers as IN_DELETE with the name (stock kernels report only
 * DELETE_SELF to a watch on the child), local events still arrive once.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/notify_delete"
#define DIR_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		    IN_ATTRIB | IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE_SELF)

static void test_file(int pfd)
{
	uint64_t id = 0;
	int ffd = inotify_init1(IN_CLOEXEC);

	CHECK("delete: local mknod", mknod(MNT "/f", S_IFREG | 0644, 0) == 0);
	CHECK("delete: local IN_CREATE f",
	      vm_inotify_expect(pfd, IN_CREATE, "f", NULL));
	CHECK("delete: watch the file", inotify_add_watch(ffd, MNT "/f",
	      IN_DELETE_SELF) >= 0);

	CHECK("delete: remote remove", vmfs_remote_remove(1, "f", &id) == 0);
	CHECK("delete: FUSE_NOTIFY_DELETE accepted",
	      vmfs_notify_delete(1, id, "f") == 0);
	CHECK("delete: parent gets IN_DELETE f",
	      vm_inotify_expect(pfd, IN_DELETE, "f", NULL));
	CHECK("delete: file gets IN_DELETE_SELF",
	      vm_inotify_expect(ffd, IN_DELETE_SELF, "", NULL));
	CHECK("delete: file gets IN_IGNORED",
	      vm_inotify_expect(ffd, IN_IGNORED, "", NULL));
	CHECK("delete: name is gone", access(MNT "/f", F_OK) == -1 &&
	      errno == ENOENT);
	close(ffd);
}

static void test_dir(int pfd)
{
	uint64_t id = 0;

	CHECK("delete: local mkdir", mkdir(MNT "/d", 0755) == 0);
	CHECK("delete: local IN_CREATE|IN_ISDIR d",
	      vm_inotify_expect(pfd, IN_CREATE | IN_ISDIR, "d", NULL));
	CHECK("delete: remote rmdir", vmfs_remote_remove(1, "d", &id) == 0);
	CHECK("delete: FUSE_NOTIFY_DELETE dir accepted",
	      vmfs_notify_delete(1, id, "d") == 0);
	CHECK("delete: parent gets IN_DELETE|IN_ISDIR d",
	      vm_inotify_expect(pfd, IN_DELETE | IN_ISDIR, "d", NULL));
}

/* A name the kernel never looked up: -ENOENT and no event. */
static void test_unknown(int pfd)
{
	uint64_t id = 0;

	CHECK("delete: remote create, never looked up",
	      vmfs_remote_create(1, "ghost", S_IFREG | 0644, &id) == 0);
	CHECK("delete: remote remove ghost",
	      vmfs_remote_remove(1, "ghost", NULL) == 0);
	CHECK("delete: unknown name gets ENOENT",
	      vmfs_notify_delete(1, id, "ghost") == -ENOENT);
	CHECK("delete: local sentinel mkdir s1", mkdir(MNT "/s1", 0755) == 0);
	CHECK("delete: next event is the sentinel (no ghost event)",
	      vm_inotify_expect(pfd, IN_CREATE | IN_ISDIR, "s1", NULL));
}

/* Local unlink: IN_DELETE exactly once (no doubled event). */
static void test_local(int pfd)
{
	CHECK("delete: local create g", mknod(MNT "/g", S_IFREG | 0644, 0)
	      == 0);
	CHECK("delete: IN_CREATE g", vm_inotify_expect(pfd, IN_CREATE, "g",
	      NULL));
	CHECK("delete: local unlink g", unlink(MNT "/g") == 0);
	CHECK("delete: local IN_DELETE g",
	      vm_inotify_expect(pfd, IN_DELETE, "g", NULL));
	CHECK("delete: local sentinel mkdir s2", mkdir(MNT "/s2", 0755) == 0);
	CHECK("delete: local IN_DELETE only once",
	      vm_inotify_expect(pfd, IN_CREATE | IN_ISDIR, "s2", NULL));
}

int main(void)
{
	struct vmfs_opts opts = { 0 };
	int pfd;

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("delete: mount vmfs", 0);
		return check_exit();
	}
	pfd = inotify_init1(IN_CLOEXEC);
	CHECK("delete: watch the root", inotify_add_watch(pfd, MNT,
	      DIR_EVENTS) >= 0);
	test_file(pfd);
	test_dir(pfd);
	test_unknown(pfd);
	test_local(pfd);
	close(pfd);
	vmfs_stop();
	return check_exit();
}
