// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_no_alias - remote events in a watched directory whose dentry
 * the kernel dropped.  A watch keeps the directory's inode but not its
 * dentry: memory pressure (here drop_caches) or a remote create's
 * invalidation racing with the lookup that set the watch leaves the
 * inode with no name.  A child event by name, or with the child's entry,
 * must reach the watchers all the same, as a local change to that
 * directory reaches them through the inode alone.  So must an event on a
 * file with a watch of its own, whose dentry went the same way.  The
 * kernel links a pushed child under a disconnected dentry of the
 * directory then, which does not stay cached: the child's handle in the
 * event cannot be read again from its path, so the checks compare it
 * with the directory's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmcache.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/na_backing"
#define M "/mnt/na_mount"
#define FAN_FID_NAME (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID)

/* inotify alone: the event goes by name. */
static void test_by_name(void)
{
	int in = inotify_init1(IN_CLOEXEC);

	CHECK("by name: mkdir n on the mount", !mkdir(M "/n", 0755));
	CHECK("by name: inotify watch on n for IN_MODIFY", in >= 0 &&
	      inotify_add_watch(in, M "/n", IN_MODIFY | IN_CLOSE_WRITE) >= 0);
	CHECK("by name: drop_caches", vm_drop_caches());
	CHECK("by name: remote write of n/f", vm_put(B "/n/f", "x", 0));
	CHECK("by name: IN_MODIFY f", vm_inotify_expect(in, IN_MODIFY, "f",
							NULL));
	CHECK("by name: IN_CLOSE_WRITE f",
	      vm_inotify_expect(in, IN_CLOSE_WRITE, "f", NULL));
	close(in);
}

/* A fanotify FID mark on the directory: the child goes with its entry. */
static void test_with_entry(void)
{
	int fan = fanotify_init(FAN_FID_NAME, O_RDONLY);

	CHECK("with entry: mkdir e on the mount", !mkdir(M "/e", 0755));
	CHECK("with entry: FAN_MODIFY on e's children", fan >= 0 &&
	      !vm_fanotify_remote_mark(fan, 0, FAN_MODIFY | FAN_EVENT_ON_CHILD,
				       M "/e"));
	CHECK("with entry: drop_caches", vm_drop_caches());
	CHECK("with entry: remote write of e/f", vm_put(B "/e/f", "x", 0));
	CHECK("with entry: FAN_MODIFY f with its own fid",
	      vm_fanotify_expect_child(fan, FAN_REMOTE | FAN_MODIFY, "f",
				       M "/e"));
	close(fan);
}

/* A FAN_REPORT_TARGET_FID mark: a new entry goes with its child. */
static void test_new_entry(void)
{
	int fan = fanotify_init(FAN_FID_NAME | FAN_REPORT_TARGET_FID,
				O_RDONLY);

	CHECK("new entry: mkdir t on the mount", !mkdir(M "/t", 0755));
	CHECK("new entry: TARGET_FID FAN_CREATE on t", fan >= 0 &&
	      !vm_fanotify_remote_mark(fan, 0, FAN_CREATE, M "/t"));
	CHECK("new entry: drop_caches", vm_drop_caches());
	CHECK("new entry: remote mknod of t/g",
	      !mknod(B "/t/g", S_IFREG | 0644, 0));
	CHECK("new entry: FAN_CREATE g with its own fid",
	      vm_fanotify_expect_child(fan, FAN_REMOTE | FAN_CREATE, "g",
				       M "/t"));
	close(fan);
}

/* "label: what", for a check's name (one at a time). */
static const char *named(const char *label, const char *what)
{
	static char name[128];

	snprintf(name, sizeof(name), "%s: %s", label, what);
	return name;
}

/*
 * h made remotely in o (made through the mount), once its CREATE reached
 * the mount: a host watcher that is inotify watches o only once it read
 * o's creation (README Limits), and a file written through the mount
 * would be the server's own until its RELEASE, which comes late.
 */
static bool remote_file(const char *backing, const char *dir)
{
	char remote[64];
	int in = inotify_init1(IN_CLOEXEC);
	bool seen;

	snprintf(remote, sizeof(remote), "%s/o/h", backing);
	seen = in >= 0 && inotify_add_watch(in, dir, IN_CREATE) >= 0 &&
	       vm_put(remote, "x", 0) &&
	       vm_inotify_expect(in, IN_CREATE, "h", NULL);
	if (in >= 0)
		close(in);
	return seen;
}

/*
 * A file with a watch of its own, in a watched directory (mnt/o): the
 * kernel holds its inode, and its watch gets the event by its node; the
 * directory's watch gets it with the name only through the file's
 * dentry, which the server has it link again.
 */
static void test_held(const char *label, const char *backing,
		      const char *mnt)
{
	char dir[64], file[64], remote[64];
	int in = inotify_init1(IN_CLOEXEC);

	snprintf(dir, sizeof(dir), "%s/o", mnt);
	snprintf(file, sizeof(file), "%s/o/h", mnt);
	snprintf(remote, sizeof(remote), "%s/o/h", backing);
	CHECK(named(label, "mkdir o on the mount, remote o/h"),
	      !mkdir(dir, 0755) && remote_file(backing, dir));
	CHECK(named(label, "inotify watches on o and on o/h for IN_MODIFY"),
	      in >= 0 && inotify_add_watch(in, dir, IN_MODIFY) >= 0 &&
	      inotify_add_watch(in, file, IN_MODIFY) >= 0);
	CHECK(named(label, "drop_caches"), vm_drop_caches());
	CHECK(named(label, "remote write of o/h"),
	      vm_put(remote, "y", O_APPEND));
	CHECK(named(label, "IN_MODIFY h to o's watch"),
	      vm_inotify_expect(in, IN_MODIFY, "h", NULL));
	CHECK(named(label, "IN_MODIFY to h's own watch"),
	      vm_inotify_expect(in, IN_MODIFY, "", NULL));
	close(in);
}

/*
 * The same file removed on the host: its watch gets DELETE_SELF and
 * IGNORED, the directory's DELETE, in a local unlink's order.
 */
static void test_held_removed(void)
{
	int in = inotify_init1(IN_CLOEXEC);

	CHECK("removed: mkdir r and write r/h on the mount",
	      !mkdir(M "/r", 0755) && vm_put(M "/r/h", "x", 0));
	CHECK("removed: inotify watches on r for IN_DELETE, r/h for IN_DELETE_SELF",
	      in >= 0 && inotify_add_watch(in, M "/r", IN_DELETE) >= 0 &&
	      inotify_add_watch(in, M "/r/h", IN_DELETE_SELF) >= 0);
	CHECK("removed: drop_caches", vm_drop_caches());
	CHECK("removed: remote unlink of r/h", !unlink(B "/r/h"));
	CHECK("removed: IN_DELETE_SELF to h's watch",
	      vm_inotify_expect(in, IN_DELETE_SELF, "", NULL));
	CHECK("removed: IN_IGNORED to h's watch",
	      vm_inotify_expect(in, IN_IGNORED, "", NULL));
	CHECK("removed: IN_DELETE h to r's watch",
	      vm_inotify_expect(in, IN_DELETE, "h", NULL));
	close(in);
}

/* The same with the host watched by inotify, whose events name no object */
static void test_held_inotify(void)
{
	pid_t pid = vm_server_start(B "_i", M "_i",
				    "delivery=protocol,watch=inotify");

	CHECK("held inotify: server mounts", pid > 0);
	if (pid <= 0)
		return;
	test_held("held inotify", B "_i", M "_i");
	CHECK("held inotify: SIGTERM: exits 0", vm_server_stop(pid));
}

int main(void)
{
	pid_t pid;

	pid = vm_server_start(B, M, "delivery=protocol");
	CHECK("no alias: server mounts", pid > 0);
	if (pid <= 0)
		return check_exit();
	test_by_name();
	test_with_entry();
	test_new_entry();
	test_held("held", B, M);
	test_held_removed();
	CHECK("no alias: SIGTERM: exits 0", vm_server_stop(pid));
	test_held_inotify();
	return check_exit();
}
