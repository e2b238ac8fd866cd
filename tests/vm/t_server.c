// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server - rnotifyfs itself on the patched kernel, in protocol mode,
 * for a file's life: it negotiates the protocol at INIT
 * (delivery=protocol refuses to run otherwise), a watch or mark added on
 * the mount (inotify, dnotify, fanotify) is in effect on the server when
 * the call returns (it waits while the server is stopped), a rename
 * reaches FAN_RENAME and DN_RENAME watchers, and a remote create, write,
 * append, chmod, rename and unlink reach inotify and fanotify watchers on
 * the mount as notifications: fresh content and attributes after them,
 * a new child pushed with its entry (the lookup count exact; not pushed
 * once the name leads to another file), a new child's own fid for
 * FAN_REPORT_TARGET_FID groups, rename cookies, DELETE_SELF/IGNORED.
 * Directories and the export's edge: t_server_tree; the end of a burst:
 * t_server_burst; other options (replay, watch=inotify, an overflow):
 * t_server_options.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmcache.h"
#include "vmserver.h"
#include "vmserver_probe.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/srv_backing"
#define M "/mnt/srv_mount"
#define IN_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)

static pid_t server;
static int in_dir;

static int add_root_watch(int fd)
{
	return inotify_add_watch(fd, M, IN_EVENTS);
}

/*
 * The root watch, added while the server is stopped; then a remote
 * write of a file the kernel never looked up, made at once: its MODIFY
 * and CLOSE_WRITE are sent only once the server has the root's mask.
 */
static void test_add_watch_waits(void)
{
	bool waited;

	CHECK("add watch: returns a watch",
	      vm_server_add_paused(server, M, add_root_watch, in_dir,
				   &waited) >= 0);
	CHECK("add watch: inotify_add_watch waited for the stopped server",
	      waited);
	CHECK("add watch: remote write of aw", vm_put(B "/aw", "x", 0));
	CHECK("add watch: CREATE aw", vm_inotify_expect(in_dir, IN_CREATE,
	      "aw", NULL));
	CHECK("add watch: MODIFY aw", vm_inotify_expect(in_dir, IN_MODIFY,
	      "aw", NULL));
	CHECK("add watch: CLOSE_WRITE aw", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "aw", NULL));
	CHECK("add watch: remote unlink", unlink(B "/aw") == 0);
	CHECK("add watch: DELETE aw next", vm_inotify_expect(in_dir,
	      IN_DELETE, "aw", NULL));
}

static int add_dnotify(int fd)
{
	return fcntl(fd, F_NOTIFY, DN_CREATE | DN_MULTISHOT);
}

/*
 * dnotify (fcntl F_NOTIFY) on a directory no other watch covers waits
 * for the stopped server as inotify_add_watch() does, and a remote
 * create there, of a file the kernel never looked up, then signals it.
 */
static void test_dnotify_waits(void)
{
	bool waited = false;
	int fd;

	CHECK("dnotify: remote mkdir dn", mkdir(B "/dn", 0755) == 0);
	CHECK("dnotify: CREATE,ISDIR dn", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "dn", NULL));
	fd = open(M "/dn", O_RDONLY | O_DIRECTORY);
	/*
	 * Blocked before vm_call's thread starts, so it inherits that. The
	 * owner is this process: F_NOTIFY would make it the calling thread
	 * (if none is set), and vm_call's is gone when the signal comes.
	 */
	CHECK("dnotify: dn opened, SIGRTMIN blocked and set", fd >= 0 &&
	      !vm_dnotify_block() &&
	      !fcntl(fd, F_SETSIG, SIGRTMIN) &&
	      !fcntl(fd, F_SETOWN, getpid()));
	CHECK("dnotify: F_NOTIFY set",
	      vm_server_add_paused(server, M, add_dnotify, fd, &waited) == 0);
	CHECK("dnotify: F_NOTIFY waited for the stopped server", waited);
	CHECK("dnotify: remote create of dn/dx", vm_put(B "/dn/dx", "", 0));
	CHECK("dnotify: SIGRTMIN for dn's fd", vm_dnotify_signal(fd));
	close(fd);
	CHECK("dnotify: remote cleanup", !unlink(B "/dn/dx") &&
	      !rmdir(B "/dn"));
	CHECK("dnotify: DELETE,ISDIR dn", vm_inotify_expect(in_dir,
	      IN_DELETE | IN_ISDIR, "dn", NULL));
}

/*
 * A remote rename in a directory only fanotify (a filesystem mark) and
 * dnotify DN_RENAME watch: FAN_RENAME with both names (kernel: fuse 7/9),
 * then MOVED_FROM and MOVED_TO, each with the file's own fid, as a local
 * rename reports them (fuse 7/9), and dnotify's signal.
 */
static void test_fan_rename(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET,
				O_RDONLY);
	int fd;

	CHECK("FAN_RENAME: filesystem mark", fan >= 0 &&
	      !vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM, FAN_RENAME |
				       FAN_MOVED_FROM | FAN_MOVED_TO |
				       FAN_ONDIR, M));
	CHECK("FAN_RENAME: remote mkdir rnd", mkdir(B "/rnd", 0755) == 0);
	CHECK("FAN_RENAME: CREATE,ISDIR rnd", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "rnd", NULL));
	fd = open(M "/rnd", O_RDONLY | O_DIRECTORY);
	/* SIGRTMIN is blocked (test_dnotify_waits), so it queues. */
	CHECK("FAN_RENAME: dnotify DN_RENAME on rnd", fd >= 0 &&
	      !vm_dnotify_arm(fd, DN_RENAME | DN_MULTISHOT));
	CHECK("FAN_RENAME: remote write of rnd/r1", vm_put(B "/rnd/r1", "x", 0));
	CHECK("FAN_RENAME: remote rename to rnd/r2",
	      rename(B "/rnd/r1", B "/rnd/r2") == 0);
	CHECK("FAN_RENAME: r1 -> r2 with r2's own fid",
	      vm_fanotify_expect_rename(fan, FAN_REMOTE | FAN_RENAME, "r1",
					"r2", M "/rnd/r2"));
	CHECK("FAN_RENAME: then MOVED_FROM r1, r2's own fid",
	      vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_MOVED_FROM, "r1",
				     M "/rnd/r2"));
	CHECK("FAN_RENAME: then MOVED_TO r2, r2's own fid",
	      vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_MOVED_TO, "r2",
				     M "/rnd/r2"));
	CHECK("FAN_RENAME: dnotify signal for rnd", vm_dnotify_signal(fd));
	close(fd);
	close(fan);
	CHECK("FAN_RENAME: remote cleanup", !unlink(B "/rnd/r2") &&
	      !rmdir(B "/rnd"));
	CHECK("FAN_RENAME: DELETE,ISDIR rnd", vm_inotify_expect(in_dir,
	      IN_DELETE | IN_ISDIR, "rnd", NULL));
}

static void test_check_says_protocol(void)
{
	char line[256];
	bool said = false;
	FILE *p = popen("/bin/rnotifyfs --check " B, "r");

	while (p && fgets(line, sizeof(line), p))
		said |= !strcmp(line, "mode at mount:    protocol\n");
	CHECK("check: --check says protocol", p && !pclose(p) && said);
}

static bool same_mtime(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_mtim.tv_sec == sb.st_mtim.tv_sec &&
	       sa.st_mtim.tv_nsec == sb.st_mtim.tv_nsec;
}

static bool mode_is(const char *path, mode_t mode)
{
	struct stat st;

	return !stat(path, &st) && (st.st_mode & 07777) == mode;
}

/*
 * A file the kernel never looked up, watched by inotify alone: its
 * MODIFY goes by name, and the server keeps no inode for it. The
 * kernel's cached attributes of the directory (stat before the change)
 * and of the file are stale once the event arrives.
 */
static void test_create_write(void)
{
	struct stat st;

	CHECK("create: root attributes cached", stat(M, &st) == 0);
	CHECK("create: remote write", vm_put(B "/f1", "hello", O_TRUNC));
	CHECK("create: CREATE f1", vm_inotify_expect(in_dir, IN_CREATE, "f1",
	      NULL));
	CHECK("create: directory mtime fresh after CREATE",
	      same_mtime(M, B));
	CHECK("create: MODIFY f1 (by name)",
	      vm_inotify_expect(in_dir, IN_MODIFY, "f1", NULL));
	CHECK("create: CLOSE_WRITE f1", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "f1", NULL));
	CHECK("create: the server holds no inode for f1",
	      !vm_server_holds(server, B "/f1"));
	CHECK("create: content through the mount", vm_reads(M "/f1", "hello"));
	CHECK("append: remote", vm_put(B "/f1", " world", O_APPEND));
	CHECK("append: MODIFY f1", vm_inotify_expect(in_dir, IN_MODIFY, "f1",
	      NULL));
	CHECK("append: CLOSE_WRITE f1", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "f1", NULL));
	CHECK("append: new content, not the cached one",
	      vm_reads(M "/f1", "hello world"));
	CHECK("chmod: remote", chmod(B "/f1", 0600) == 0);
	CHECK("chmod: ATTRIB f1", vm_inotify_expect(in_dir, IN_ATTRIB, "f1",
	      NULL));
	CHECK("chmod: new mode through the mount", mode_is(M "/f1", 0600));
}

/*
 * Remote create + write of a file the kernel never looked up: MODIFY
 * comes pushed with the file's entry. A fanotify FID group sees the
 * file's own fid; the lookup the push counted on the server comes back
 * with the kernel's FORGET once it drops the file, freeing the inode.
 */
static void test_push(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
				FAN_REPORT_FID, O_RDONLY);
	struct stat sb, sm;

	CHECK("push: fanotify FID filesystem mark on the mount", fan >= 0 &&
	      vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM, FAN_CREATE |
				      FAN_MODIFY, M) == 0);
	CHECK("push: remote create + write", vm_put(B "/pf", "pushed", 0));
	CHECK("push: CREATE pf", vm_inotify_expect(in_dir, IN_CREATE, "pf",
	      NULL));
	CHECK("push: then MODIFY pf", vm_inotify_expect(in_dir, IN_MODIFY,
	      "pf", NULL));
	CHECK("push: then CLOSE_WRITE pf", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "pf", NULL));
	CHECK("push: fanotify FAN_CREATE pf", vm_fanotify_expect(fan,
	      FAN_REMOTE | FAN_CREATE, "pf"));
	CHECK("push: fanotify FAN_MODIFY with pf's own fid",
	      vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_MODIFY, "pf",
				     M "/pf"));
	CHECK("push: stat through the mount matches the backing file",
	      !stat(B "/pf", &sb) && !stat(M "/pf", &sm) &&
	      sm.st_size == 6 && sm.st_ino == sb.st_ino &&
	      same_mtime(M "/pf", B "/pf"));
	CHECK("push: the server holds pf", vm_server_holds(server, B "/pf"));
	CHECK("push: drop_caches", vm_drop_caches());
	CHECK("push: FORGET frees the server's inode (count exact)",
	      vm_server_releases(server, B "/pf"));
	close(fan);
}

/*
 * While the server is stopped, tk is written, then replaced by another
 * file renamed over it. When the server reads the write, the name leads
 * to the other file. For inotify alone the writes go by name, as they
 * were made: the native sequence. With a fanotify FID group wanting them
 * the kernel asks for the written object's entry, and the server must
 * not push the file the name now leads to (the group would get the wrong
 * file's fid): the MODIFY and CLOSE_WRITE of the old file, and those of
 * tk.new (a name gone by then), are not delivered; the names' own events
 * are, in order. The group has a sentinel of its own: a remote write to
 * another file, tks, made before the mark and held open, so that its
 * MODIFY stands alone (unread events of one object would merge). The
 * group's first event must be that MODIFY, with tks's fid: nothing about
 * tk came before it. Each variant's checks carry its name (CHECK_IN).
 */
static void expect_written(const char *v, const char *name, bool delivered)
{
	bool tk = !strcmp(name, "tk");

	if (!delivered)
		return;
	CHECK_IN(v, tk ? "taken over: MODIFY tk by name" :
		 "taken over: MODIFY tk.new by name",
		 vm_inotify_expect(in_dir, IN_MODIFY, name, NULL));
	CHECK_IN(v, tk ? "taken over: CLOSE_WRITE tk by name" :
		 "taken over: CLOSE_WRITE tk.new by name",
		 vm_inotify_expect(in_dir, IN_CLOSE_WRITE, name, NULL));
}

static void test_push_taken_over(bool fanotify)
{
	const char *v = fanotify ? "fanotify FID group" : "inotify alone";
	int fan = -1, sentinel;
	uint32_t c1 = 0, c2 = 0;

	CHECK_IN(v, "taken over: remote create of tks",
		 vm_put(B "/tks", "", 0));
	CHECK_IN(v, "taken over: CREATE tks",
		 vm_inotify_expect(in_dir, IN_CREATE, "tks", NULL));
	CHECK_IN(v, "taken over: CLOSE_WRITE tks",
		 vm_inotify_expect(in_dir, IN_CLOSE_WRITE, "tks", NULL));
	if (fanotify) {
		fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
				    FAN_REPORT_FID, O_RDONLY);
		CHECK_IN(v, "taken over: filesystem mark for MODIFY and "
			 "CLOSE_WRITE", fan >= 0 &&
			 !vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM,
						  FAN_MODIFY | FAN_CLOSE_WRITE,
						  M));
	}
	CHECK_IN(v, "taken over: server stopped", vm_server_pause(server));
	CHECK_IN(v, "taken over: remote write of tk",
		 vm_put(B "/tk", "old", 0));
	CHECK_IN(v, "taken over: remote tk.new renamed over tk",
		 vm_put(B "/tk.new", "new", 0) &&
		 !rename(B "/tk.new", B "/tk"));
	CHECK_IN(v, "taken over: server resumed", !kill(server, SIGCONT));
	CHECK_IN(v, "taken over: CREATE tk",
		 vm_inotify_expect(in_dir, IN_CREATE, "tk", NULL));
	expect_written(v, "tk", !fanotify);
	CHECK_IN(v, "taken over: CREATE tk.new next",
		 vm_inotify_expect(in_dir, IN_CREATE, "tk.new", NULL));
	expect_written(v, "tk.new", !fanotify);
	CHECK_IN(v, "taken over: MOVED_FROM tk.new next",
		 vm_inotify_expect(in_dir, IN_MOVED_FROM, "tk.new", &c1));
	CHECK_IN(v, "taken over: MOVED_TO tk, same cookie",
		 vm_inotify_expect(in_dir, IN_MOVED_TO, "tk", &c2) &&
		 c1 && c1 == c2);
	CHECK_IN(v, "taken over: tk through the mount is the new file",
		 vm_reads(M "/tk", "new"));
	sentinel = open(B "/tks", O_WRONLY | O_APPEND);
	CHECK_IN(v, "taken over: remote write to tks, held open (the sentinel)",
		 sentinel >= 0 && write(sentinel, "+", 1) == 1);
	CHECK_IN(v, "taken over: MODIFY tks next",
		 vm_inotify_expect(in_dir, IN_MODIFY, "tks", NULL));
	if (fanotify)
		CHECK_IN(v, "taken over: the group's first event is tks's "
			 "FAN_MODIFY, with tks's fid",
			 vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_MODIFY,
						"tks", M "/tks"));
	CHECK_IN(v, "taken over: tks closed",
		 sentinel >= 0 && !close(sentinel));
	CHECK_IN(v, "taken over: CLOSE_WRITE tks next",
		 vm_inotify_expect(in_dir, IN_CLOSE_WRITE, "tks", NULL));
	if (fanotify) {
		CHECK_IN(v, "taken over: then the group's FAN_CLOSE_WRITE tks",
			 vm_fanotify_expect_fid(fan,
						FAN_REMOTE | FAN_CLOSE_WRITE,
						"tks", M "/tks"));
		close(fan);
	}
	CHECK_IN(v, "taken over: remote unlink of tk and tks",
		 !unlink(B "/tk") && !unlink(B "/tks"));
	CHECK_IN(v, "taken over: DELETE tk next",
		 vm_inotify_expect(in_dir, IN_DELETE, "tk", NULL));
	CHECK_IN(v, "taken over: DELETE tks next",
		 vm_inotify_expect(in_dir, IN_DELETE, "tks", NULL));
}

/*
 * A fanotify FAN_REPORT_TARGET_FID group gets a remote create's and
 * move's own child fid (the kernel asks, the server pushes the entry:
 * kernel: fuse 6/9). A name gone again before the server read its create
 * still reaches every watcher, without the child.
 */
static void test_target_fid(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
				FAN_REPORT_FID | FAN_REPORT_TARGET_FID,
				O_RDONLY);
	uint32_t c1 = 0, c2 = 0;
	struct vm_event ev;

	CHECK("target fid: TARGET_FID group marks the root", fan >= 0 &&
	      !vm_fanotify_remote_mark(fan, 0, FAN_CREATE | FAN_MOVED_FROM |
				       FAN_MOVED_TO, M));
	CHECK("target fid: remote create tf", vm_put(B "/tf", "", 0));
	CHECK("target fid: CREATE tf", vm_inotify_expect(in_dir, IN_CREATE,
	      "tf", NULL));
	CHECK("target fid: CLOSE_WRITE tf", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "tf", NULL));
	CHECK("target fid: FAN_CREATE with tf's own fid",
	      vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_CREATE, "tf",
				     M "/tf"));
	CHECK("target fid: server stopped", vm_server_pause(server));
	CHECK("target fid: remote tg made, then renamed to th",
	      vm_put(B "/tg", "", 0) && !rename(B "/tg", B "/th"));
	CHECK("target fid: server resumed", !kill(server, SIGCONT));
	CHECK("target fid: CREATE tg", vm_inotify_expect(in_dir, IN_CREATE,
	      "tg", NULL));
	CHECK("target fid: CLOSE_WRITE tg", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "tg", NULL));
	CHECK("target fid: MOVED_FROM tg", vm_inotify_expect(in_dir,
	      IN_MOVED_FROM, "tg", &c1));
	CHECK("target fid: MOVED_TO th, same cookie", vm_inotify_expect(in_dir,
	      IN_MOVED_TO, "th", &c2) && c1 && c1 == c2);
	/* Unread, the two events of tg merge, as fanotify merges its own. */
	CHECK("target fid: FAN_CREATE|FAN_MOVED_FROM tg, no child record",
	      vm_fanotify_next(fan, &ev) &&
	      ev.mask == (FAN_CREATE | FAN_MOVED_FROM | FAN_REMOTE) &&
	      !strcmp(ev.name, "tg") && !ev.fid_len);
	CHECK("target fid: FAN_MOVED_TO with th's own fid",
	      vm_fanotify_expect_fid(fan, FAN_REMOTE | FAN_MOVED_TO, "th",
				     M "/th"));
	close(fan);
	CHECK("target fid: the server holds the pushed tf and th",
	      vm_server_holds(server, B "/tf") &&
	      vm_server_holds(server, B "/th"));
	CHECK("target fid: drop_caches", vm_drop_caches());
	CHECK("target fid: FORGET frees both on the server (counts exact)",
	      vm_server_releases(server, B "/tf") &&
	      vm_server_releases(server, B "/th"));
	CHECK("target fid: remote cleanup", !unlink(B "/tf") &&
	      !unlink(B "/th"));
	CHECK("target fid: DELETE tf", vm_inotify_expect(in_dir, IN_DELETE,
	      "tf", NULL));
	CHECK("target fid: DELETE th", vm_inotify_expect(in_dir, IN_DELETE,
	      "th", NULL));
}

static void test_rename_delete(void)
{
	int in_file = inotify_init1(IN_CLOEXEC);
	uint32_t c1 = 0, c2 = 0;
	struct stat st;

	CHECK("self: watch f1", inotify_add_watch(in_file, M "/f1",
	      IN_MOVE_SELF | IN_DELETE_SELF | IN_ATTRIB) >= 0);
	CHECK("rename: remote", rename(B "/f1", B "/f2") == 0);
	CHECK("rename: MOVED_FROM f1", vm_inotify_expect(in_dir,
	      IN_MOVED_FROM, "f1", &c1));
	CHECK("rename: MOVED_TO f2", vm_inotify_expect(in_dir, IN_MOVED_TO,
	      "f2", &c2));
	CHECK("rename: both halves share one nonzero cookie", c1 && c1 == c2);
	CHECK("rename: MOVE_SELF on the file", vm_inotify_expect(in_file,
	      IN_MOVE_SELF, "", NULL));
	CHECK("rename: old name gone, new name there",
	      stat(M "/f1", &st) && errno == ENOENT && !stat(M "/f2", &st));
	CHECK("unlink: remote", unlink(B "/f2") == 0);
	CHECK("unlink: DELETE f2", vm_inotify_expect(in_dir, IN_DELETE, "f2",
	      NULL));
	CHECK("unlink: ATTRIB on the file (its lost link, as locally)",
	      vm_inotify_expect(in_file, IN_ATTRIB, "", NULL));
	CHECK("unlink: DELETE_SELF on the file", vm_inotify_expect(in_file,
	      IN_DELETE_SELF, "", NULL));
	CHECK("unlink: IGNORED on the file", vm_inotify_expect(in_file,
	      IN_IGNORED, "", NULL));
	CHECK("unlink: gone through the mount", stat(M "/f2", &st) &&
	      errno == ENOENT);
	close(in_file);
}

int main(void)
{
	/* Long cache lifetimes: any staleness the events leave shows. */
	server = vm_server_start(B, M, "delivery=protocol,attr_timeout=60,"
				 "entry_timeout=60");
	CHECK("server: mounts with delivery=protocol", server > 0);
	if (server <= 0)
		return check_exit();
	test_check_says_protocol();
	in_dir = inotify_init1(IN_CLOEXEC);
	test_add_watch_waits();
	test_dnotify_waits();
	test_fan_rename();
	test_create_write();
	test_push();
	test_push_taken_over(false);
	test_push_taken_over(true);
	test_target_fid();
	test_rename_delete();
	close(in_dir);
	CHECK("server: SIGTERM: exits 0 and unmounts", vm_server_stop(server));
	return check_exit();
}
