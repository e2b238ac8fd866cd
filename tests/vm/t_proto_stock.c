// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_stock - a server that does not accept FUSE_HAS_FSNOTIFY sees a
 * stock kernel: no FUSE_FSNOTIFY request, FUSE_NOTIFY_FSNOTIFY refused
 * like any unknown notify code, local events unchanged.
 * It runs at every posting (vm_posting()): before posting 3 the kernel
 * is a stock one for the protocol and does not even offer the flag.
 *
 * "No request" is checked after a full round trip through the server
 * (a watch, a local create and its event): with the extension off the
 * kernel decides synchronously, in the mark hook, not to queue anything.
 */
#include <errno.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_stock"

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = false };
	int fd;

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("stock: mount vmfs", 0);
		return check_exit();
	}
	fd = inotify_init1(IN_CLOEXEC);
	CHECK("stock: watch the root", inotify_add_watch(fd, MNT, IN_CREATE)
	      >= 0);
	CHECK("stock: kernel offers the flag from posting 3",
	      vmfs_kernel_offered() == (vm_posting() >= 3));
	CHECK("stock: server did not accept it", !vmfs_fsnotify_on());
	CHECK("stock: local mknod", mknod(MNT "/a", S_IFREG | 0644, 0) == 0);
	CHECK("stock: local IN_CREATE", vm_inotify_expect(fd, IN_CREATE, "a",
	      NULL));
	CHECK("stock: no FUSE_FSNOTIFY request", vmfs_watch_count() == 0);
	CHECK("stock: notification refused with EINVAL",
	      vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE, 0, "x") == -EINVAL);
	CHECK("stock: local mknod sentinel", mknod(MNT "/s", S_IFREG | 0644,
	      0) == 0);
	CHECK("stock: next event is the sentinel",
	      vm_inotify_expect(fd, IN_CREATE, "s", NULL));
	close(fd);
	vmfs_stop();
	return check_exit();
}
