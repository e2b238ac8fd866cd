// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_by_name - fsnotify 6/7, fuse 6/9: an event on a child the kernel
 * does not hold may come by name alone.  inotify and dnotify watchers of
 * the directory get it with the name, and the kernel takes no lookup and
 * makes no inode.  When a fanotify mark the event would reach needs the
 * child itself, or the kernel holds the name, nothing is delivered and
 * the answer is ENODATA; the same event pushed with the entry then
 * reaches everyone.  "Nothing delivered" is checked with a sentinel
 * event, which must be the next one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

#define MNT "/mnt/proto_by_name"
#define FAN_FID_NAME (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID)

static int in_root;

/* The next inotify event on the root is CREATE of sentinel name s. */
static bool nothing_before(const char *s)
{
	return vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE, 0, s) == 0 &&
	       vm_inotify_expect(in_root, IN_CREATE, s, NULL);
}

/* Child name of the root, made on the "server" only. */
static uint64_t remote_child(const char *name, mode_t mode)
{
	uint64_t id = 0;

	if (vmfs_remote_create(1, name, mode, &id))
		return 0;
	return id;
}

/* By name: inotify gets MODIFY, and the kernel made no dentry of b1. */
static void test_inotify(void)
{
	uint64_t b1 = remote_child("b1", S_IFREG | 0644);
	unsigned int lookups = vmfs_lookup_count();
	struct stat st;

	CHECK("inotify: remote create b1", b1 != 0);
	CHECK("inotify: MODIFY b1 by name", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_MODIFY, 0, "b1") == 0);
	CHECK("inotify: IN_MODIFY b1", vm_inotify_expect(in_root, IN_MODIFY,
	      "b1", NULL));
	CHECK("inotify: CLOSE_WRITE b1 by name", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_CLOSE_WRITE, 0, "b1") == 0);
	CHECK("inotify: IN_CLOSE_WRITE b1", vm_inotify_expect(in_root,
	      IN_CLOSE_WRITE, "b1", NULL));
	CHECK("inotify: no LOOKUP", vmfs_lookup_count() == lookups);
	CHECK("inotify: b1 still needs a LOOKUP", stat(MNT "/b1", &st) == 0 &&
	      vmfs_lookup_count() == lookups + 1);
}

/* A directory child: ATTRIB|ISDIR, as a local chmod of it reports. */
static void test_isdir(void)
{
	CHECK("isdir: remote mkdir bd", remote_child("bd", S_IFDIR | 0755));
	CHECK("isdir: ATTRIB|ISDIR bd by name", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_ISDIR, 0, "bd") == 0);
	CHECK("isdir: IN_ATTRIB|IN_ISDIR bd", vm_inotify_expect(in_root,
	      IN_ATTRIB | IN_ISDIR, "bd", NULL));
}

/* The kernel holds b1 since test_inotify's stat: the entry is needed. */
static void test_held(void)
{
	uint64_t b1 = 0, gen = 0, n = 0;

	CHECK("held: b1 held", vmfs_node(1, "b1", &b1, &gen) == 0 &&
	      vmfs_wait_nlookup(b1, 1, VM_WAIT_MS, &n));
	CHECK("held: MODIFY b1 by name is ENODATA", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_MODIFY, 0, "b1") == -ENODATA);
	CHECK("held: nothing delivered", nothing_before("s_held"));
	CHECK("held: pushed instead", vmfs_send_push(1, 0,
	      FUSE_FSNOTIFY_MODIFY, "b1") == 0);
	CHECK("held: IN_MODIFY b1", vm_inotify_expect(in_root, IN_MODIFY,
	      "b1", NULL));
}

/*
 * A fanotify FID mark reached by the event needs the child's fid: by
 * name is refused until the mark is gone; a mark that does not want the
 * event changes nothing.
 */
static void test_fanotify(int mark_flags, uint64_t events, const char *what)
{
	const char *v = mark_flags & FAN_MARK_FILESYSTEM ?
			"filesystem mark" : "inode mark";
	uint64_t id = remote_child(what, S_IFREG | 0644);
	int fan = fanotify_init(FAN_FID_NAME, O_RDONLY);
	char s[32];

	CHECK_IN(v, "fanotify: remote create", id != 0);
	CHECK_IN(v, "fanotify: FAN_ATTRIB mark", fan >= 0 &&
		 vm_fanotify_remote_mark(fan, mark_flags, events, MNT) == 0);
	CHECK_IN(v, "fanotify: MODIFY by name, not wanted by the mark",
	      vmfs_send_event(1, 0, FUSE_FSNOTIFY_MODIFY, 0, what) == 0);
	CHECK_IN(v, "fanotify: inotify IN_MODIFY", vm_inotify_expect(in_root,
	      IN_MODIFY, what, NULL));
	CHECK_IN(v, "fanotify: ATTRIB by name is ENODATA", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_ATTRIB, 0, what) == -ENODATA);
	snprintf(s, sizeof(s), "s_%s", what);
	CHECK_IN(v, "fanotify: nothing delivered", nothing_before(s));
	CHECK_IN(v, "fanotify: ATTRIB pushed", vmfs_send_push(1, 0,
	      FUSE_FSNOTIFY_ATTRIB, what) == 0);
	CHECK_IN(v, "fanotify: inotify IN_ATTRIB", vm_inotify_expect(in_root,
	      IN_ATTRIB, what, NULL));
	snprintf(s, sizeof(s), MNT "/%s", what);
	CHECK_IN(v, "fanotify: FAN_ATTRIB with the child's own fid",
	      vm_fanotify_expect_fid(fan, FAN_ATTRIB | FAN_REMOTE, what, s));
	close(fan);
}

/* dnotify on a directory hears of a child's change by name too. */
static void test_dnotify(void)
{
	uint64_t d = remote_child("dn", S_IFDIR | 0755), c = 0, gen = 0;
	int fd;

	CHECK("dnotify: remote mkdir dn, file dn/c", d != 0 &&
	      vmfs_remote_create(d, "c", S_IFREG | 0644, &c) == 0 &&
	      vmfs_node(1, "dn", &d, &gen) == 0);
	fd = open(MNT "/dn", O_RDONLY | O_DIRECTORY);
	CHECK("dnotify: DN_MODIFY on dn", fd >= 0 &&
	      !vm_dnotify_arm(fd, DN_MODIFY | DN_MULTISHOT));
	CHECK("dnotify: MODIFY dn/c by name", vmfs_send_event(d, gen,
	      FUSE_FSNOTIFY_MODIFY, 0, "c") == 0);
	CHECK("dnotify: signal for dn", vm_dnotify_signal(fd));
	close(fd);
}

/* Frames the kernel refuses, whatever the watchers. */
static void test_refused(void)
{
	uint64_t f = remote_child("bf", S_IFREG | 0644), fgen = 0;
	struct stat st;

	CHECK("refused: bf held", f && stat(MNT "/bf", &st) == 0 &&
	      vmfs_node(1, "bf", &f, &fgen) == 0);
	CHECK("refused: by name in a file", vmfs_send_event(f, fgen,
	      FUSE_FSNOTIFY_MODIFY, 0, "x") == -ENOTDIR);
	CHECK("refused: by name in an unknown directory",
	      vmfs_send_event(1, 7, FUSE_FSNOTIFY_MODIFY, 0, "x") == -ENOENT);
	CHECK("refused: nothing delivered", nothing_before("s_refused"));
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };

	/* Before vmfs starts its threads, so that they inherit it. */
	vm_dnotify_block();
	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("by name: mount vmfs", 0);
		return check_exit();
	}
	in_root = inotify_init1(IN_CLOEXEC);
	CHECK("by name: inotify watch on the root",
	      inotify_add_watch(in_root, MNT, IN_CREATE | IN_MODIFY |
				IN_ATTRIB | IN_CLOSE_WRITE) >= 0);
	CHECK("by name: protocol on", vmfs_fsnotify_on());
	test_inotify();
	test_isdir();
	test_held();
	test_fanotify(0, FAN_ATTRIB | FAN_EVENT_ON_CHILD, "bi");
	test_fanotify(FAN_MARK_FILESYSTEM, FAN_ATTRIB, "bs");
	test_dnotify();
	test_refused();
	close(in_root);
	vmfs_stop();
	return check_exit();
}
