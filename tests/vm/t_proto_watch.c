// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_watch - fsnotify 3/7, fuse 5/9: the combined mask of local marks reaches
 * the server as FUSE_FSNOTIFY, for inotify and fanotify inode marks and
 * for a fanotify filesystem mark, and drops to 0 on inotify_rm_watch,
 * on fanotify mark removal and when the watching process exits. Patch
 * 12: a node's next update is sent only once the one before is answered.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmcall.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_watch"
#define WAIT(id, flags, set, clear) \
	vmfs_wait_mask((id), (flags), (set), (clear), VM_WAIT_MS, &mask)

static uint64_t mask;

static uint64_t node(const char *name)
{
	uint64_t id = 0, gen;

	vmfs_node(1, name, &id, &gen);
	return id;
}

static void test_inotify_and_fanotify(void)
{
	uint64_t f;
	int ifd = inotify_init1(IN_CLOEXEC), wd;
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	CHECK("watch: local mknod f", mknod(MNT "/f", S_IFREG | 0644, 0) == 0);
	f = node("f");
	wd = inotify_add_watch(ifd, MNT "/f", IN_MODIFY | IN_ATTRIB);
	CHECK("watch: inotify_add_watch f", wd >= 0);
	CHECK("watch: inotify mask reaches server",
	      WAIT(f, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_MODIFY |
		   FUSE_FSNOTIFY_ATTRIB, FUSE_FSNOTIFY_CLOSE_WRITE));
	CHECK("watch: fanotify inode mark on f",
	      vm_fanotify_remote_mark(fan, 0, FAN_CLOSE_WRITE, MNT "/f") == 0);
	CHECK("watch: combined inotify|fanotify mask",
	      WAIT(f, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_MODIFY |
		   FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_CLOSE_WRITE, 0));
	CHECK("watch: inotify_rm_watch", inotify_rm_watch(ifd, wd) == 0);
	CHECK("watch: inotify bits leave the mask",
	      WAIT(f, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_CLOSE_WRITE,
		   FUSE_FSNOTIFY_MODIFY | FUSE_FSNOTIFY_ATTRIB));
	CHECK("watch: fanotify mark removed",
	      fanotify_mark(fan, FAN_MARK_REMOVE, FAN_CLOSE_WRITE, AT_FDCWD,
			    MNT "/f") == 0);
	CHECK("watch: mask 0 after the last mark", WAIT(f, FUSE_FSNOTIFY_INODE,
	      0, ~0ULL) && mask == 0);

	wd = inotify_add_watch(ifd, MNT, IN_CREATE | IN_DELETE);
	CHECK("watch: directory watch carries EVENT_ON_CHILD",
	      WAIT(1, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_CREATE |
		   FUSE_FSNOTIFY_DELETE | FUSE_FSNOTIFY_EVENT_ON_CHILD, 0));
	CHECK("watch: only event bits are forwarded",
	      !(mask & ~(uint64_t)FUSE_FSNOTIFY_WATCH_EVENTS));
	close(ifd);
	CHECK("watch: closing the inotify fd sends mask 0",
	      WAIT(1, FUSE_FSNOTIFY_INODE, 0, ~0ULL) && mask == 0);

	CHECK("watch: fanotify filesystem mark",
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
			    FAN_MARK_REMOTE, FAN_CREATE | FAN_ONDIR, AT_FDCWD,
			    MNT) == 0);
	CHECK("watch: filesystem scope on the root",
	      WAIT(1, FUSE_FSNOTIFY_FILESYSTEM, FUSE_FSNOTIFY_CREATE |
		   FUSE_FSNOTIFY_ISDIR, 0));
	close(fan);
	CHECK("watch: filesystem mask 0 on close",
	      WAIT(1, FUSE_FSNOTIFY_FILESYSTEM, 0, ~0ULL) && mask == 0);
}

static int watch_h(int fd)
{
	return inotify_add_watch(fd, MNT "/h", IN_MODIFY);
}

/*
 * The server holds its answer to h's mask 0 (inotify_rm_watch); adding
 * the watch again must wait, with its mask unsent, until the server
 * answers: a server answering in another order would end with mask 0. A
 * lookup after the add sleeps is the sentinel: the kernel queues requests
 * in order, and the server reads them in order, so a mask sent before
 * the lookup has been counted by the time the lookup is answered.
 */
static void test_updates_in_order(void)
{
	int ifd = inotify_init1(IN_CLOEXEC), wd;
	struct vm_call call;
	struct stat st;
	unsigned int n;
	bool started;
	uint64_t h;

	CHECK("order: local mknod h", mknod(MNT "/h", S_IFREG | 0644, 0) == 0);
	h = node("h");
	wd = watch_h(ifd);
	CHECK("order: watch h", wd >= 0 && WAIT(h, FUSE_FSNOTIFY_INODE,
	      FUSE_FSNOTIFY_MODIFY, 0));
	vmfs_hold_watch_replies();
	CHECK("order: inotify_rm_watch h", inotify_rm_watch(ifd, wd) == 0);
	CHECK("order: mask 0 sent, its answer held",
	      WAIT(h, FUSE_FSNOTIFY_INODE, 0, ~0ULL) && mask == 0);
	n = vmfs_watch_count();
	started = vm_call_start(&call, watch_h, ifd);
	CHECK("order: watching h again waits", started &&
	      vm_call_sleeps(&call));
	CHECK("order: sentinel lookup", stat(MNT "/order-sentinel", &st) < 0 &&
	      errno == ENOENT);
	CHECK("order: the new mask is not sent before the answer",
	      vmfs_watch_count() == n);
	CHECK("order: server answers", vmfs_release_watch_replies());
	CHECK("order: the watch is back", started && vm_call_join(&call) >= 0);
	CHECK("order: the server ends with the new mask",
	      WAIT(h, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_MODIFY, 0));
	close(ifd);
}

/* A watcher that exits without removing its watch. */
static void test_process_exit(void)
{
	int ready[2], hold[2];
	uint64_t g;
	pid_t pid;
	char c = 0;

	CHECK("exit: local mknod g", mknod(MNT "/g", S_IFREG | 0644, 0) == 0);
	g = node("g");
	CHECK("exit: pipes", pipe(ready) == 0 && pipe(hold) == 0);
	pid = fork();
	if (pid == 0) {
		int fd = inotify_init1(0);

		close(hold[1]);
		inotify_add_watch(fd, MNT "/g", IN_MODIFY);
		(void)!write(ready[1], &c, 1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	CHECK("exit: child watching", read(ready[0], &c, 1) == 1);
	CHECK("exit: child's mask reaches server",
	      WAIT(g, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_MODIFY, 0));
	close(hold[1]);
	CHECK("exit: child exited", waitpid(pid, NULL, 0) == pid);
	CHECK("exit: mask 0 after process exit",
	      WAIT(g, FUSE_FSNOTIFY_INODE, 0, ~0ULL) && mask == 0);
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("watch: mount vmfs", 0);
		return check_exit();
	}
	/* Any reply means INIT is done. */
	CHECK("watch: mount answers", access(MNT, F_OK) == 0);
	CHECK("watch: kernel offers FUSE_HAS_FSNOTIFY", vmfs_kernel_offered());
	CHECK("watch: server accepted it", vmfs_fsnotify_on());
	test_inotify_and_fanotify();
	test_updates_in_order();
	test_process_exit();
	vmfs_stop();
	return check_exit();
}
