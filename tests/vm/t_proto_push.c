// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_push - fuse 6/9: an object event on a child the kernel never
 * looked up, pushed with the child's entry.  The kernel instantiates the
 * child without a LOOKUP, inotify sees CREATE then MODIFY with the name,
 * fanotify FID groups (filesystem and directory marks) see the child's
 * own fid, stat shows the pushed attributes, and the lookup the push
 * carried comes back in FORGET once the kernel drops the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmcache.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_push"
#define FAN_FID_NAME (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID)

static int in_dir, fan_fs, fan_dir;

static bool size_is(const char *path, off_t size)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size == size;
}

/* Remote create + write of p1: CREATE, then MODIFY pushed with p1's entry. */
static void test_create_modify(uint64_t *p1)
{
	unsigned int lookups;
	uint64_t n = 0;

	CHECK("push: remote create p1", vmfs_remote_create(1, "p1",
	      S_IFREG | 0644, p1) == 0);
	CHECK("push: remote write p1", vmfs_remote_resize(*p1, 11) == 0);
	lookups = vmfs_lookup_count();
	CHECK("push: CREATE notify", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_CREATE, 0, "p1") == 0);
	CHECK("push: MODIFY pushed", vmfs_send_push(1, 0, FUSE_FSNOTIFY_MODIFY,
	      "p1") == 0);
	CHECK("push: inotify CREATE p1", vm_inotify_expect(in_dir, IN_CREATE,
	      "p1", NULL));
	CHECK("push: inotify MODIFY p1, in order", vm_inotify_expect(in_dir,
	      IN_MODIFY, "p1", NULL));
	CHECK("push: fanotify fs mark FAN_CREATE p1",
	      vm_fanotify_expect(fan_fs, FAN_CREATE | FAN_REMOTE, "p1"));
	CHECK("push: fanotify fs mark FAN_MODIFY with p1's own fid",
	      vm_fanotify_expect_fid(fan_fs, FAN_MODIFY | FAN_REMOTE, "p1",
				     MNT "/p1"));
	CHECK("push: fanotify dir mark FAN_MODIFY with p1's own fid",
	      vm_fanotify_expect_fid(fan_dir, FAN_MODIFY | FAN_REMOTE, "p1",
				     MNT "/p1"));
	/* Unannounced: only the pushed attributes can say 11 now. */
	CHECK("push: remote resize, not notified", vmfs_remote_resize(*p1, 99)
	      == 0);
	CHECK("push: stat shows the pushed size", size_is(MNT "/p1", 11));
	CHECK("push: no LOOKUP round trip", vmfs_lookup_count() == lookups);
	CHECK("push: the kernel holds one lookup",
	      vmfs_wait_nlookup(*p1, 1, VM_WAIT_MS, &n));
}

/* A child the kernel holds already: attributes updated, one more lookup. */
static void test_known_child(uint64_t p1)
{
	uint64_t n = 0;

	CHECK("known: remote truncate p1", vmfs_remote_resize(p1, 3) == 0);
	CHECK("known: ATTRIB pushed", vmfs_send_push(1, 0, FUSE_FSNOTIFY_ATTRIB,
	      "p1") == 0);
	CHECK("known: inotify ATTRIB p1", vm_inotify_expect(in_dir, IN_ATTRIB,
	      "p1", NULL));
	CHECK("known: stat shows the new size", size_is(MNT "/p1", 3));
	CHECK("known: the kernel holds two lookups",
	      vmfs_wait_nlookup(p1, 2, VM_WAIT_MS, &n));
	CHECK("known: drop_caches", vm_drop_caches());
	CHECK("known: FORGET gives both back",
	      vmfs_wait_nlookup(p1, 0, VM_WAIT_MS, &n));
}

/* A directory: ISDIR, and a fresh child of it is reachable through it. */
static void test_directory(void)
{
	uint64_t d = 0, n = 0;

	CHECK("dir: remote mkdir pd", vmfs_remote_create(1, "pd",
	      S_IFDIR | 0755, &d) == 0);
	CHECK("dir: ATTRIB|ISDIR pushed", vmfs_send_push(1, 0,
	      FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_ISDIR, "pd") == 0);
	CHECK("dir: inotify ATTRIB|ISDIR pd", vm_inotify_expect(in_dir,
	      IN_ATTRIB | IN_ISDIR, "pd", NULL));
	CHECK("dir: the kernel holds one lookup",
	      vmfs_wait_nlookup(d, 1, VM_WAIT_MS, &n));
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };
	uint64_t p1 = 0;

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("push: mount vmfs", 0);
		return check_exit();
	}
	in_dir = inotify_init1(IN_CLOEXEC);
	fan_fs = fanotify_init(FAN_FID_NAME, O_RDONLY);
	fan_dir = fanotify_init(FAN_FID_NAME, O_RDONLY);
	CHECK("push: inotify watch on the root", inotify_add_watch(in_dir, MNT,
	      IN_CREATE | IN_MODIFY | IN_ATTRIB) >= 0);
	CHECK("push: fanotify FID filesystem mark", fanotify_mark(fan_fs,
	      FAN_MARK_ADD | FAN_MARK_FILESYSTEM | FAN_MARK_REMOTE,
	      FAN_CREATE | FAN_MODIFY, AT_FDCWD, MNT) == 0);
	CHECK("push: fanotify FID directory mark",
	      vm_fanotify_remote_mark(fan_dir, 0, FAN_MODIFY |
				      FAN_EVENT_ON_CHILD, MNT) == 0);
	CHECK("push: protocol on", vmfs_fsnotify_on());
	test_create_modify(&p1);
	test_known_child(p1);
	test_directory();
	close(fan_dir);
	close(fan_fs);
	close(in_dir);
	vmfs_stop();
	return check_exit();
}
