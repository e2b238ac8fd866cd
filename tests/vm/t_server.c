// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server - rnotifyfs itself on the patched kernel: it negotiates the
 * protocol at INIT (delivery=protocol refuses to run otherwise), a watch
 * or mark added on the mount (inotify, fanotify, dnotify) is in effect on
 * the server when the call returns (it waits while the server is
 * stopped), a rename reaches FAN_RENAME and DN_RENAME watchers, and
 * remote changes made to BACKING (a tmpfs) reach inotify and fanotify
 * watchers on the mount as notifications: every event type, rename
 * cookies, renames across the export's edge, a new child's own fid for
 * FAN_REPORT_TARGET_FID groups, DELETE_SELF/IGNORED,
 * children the kernel never looked up (pushed with their entry, the
 * lookup count exact; not pushed once the name leads to another file),
 * fresh content after MODIFY, local changes exactly once, events in
 * directories the kernel never looked up for a filesystem mark, and an
 * overflow of the server's host watcher as IN_Q_OVERFLOW on the mount, and
 * the end of a burst of concurrent remote writers with no sentinel. With
 * delivery=replay it declines the offer and replays, as on a stock kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/check.h"
#include "vmcache.h"
#include "vmcall.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/srv_backing"
#define M "/mnt/srv_mount"
#define OUT "/mnt/outside"
#define IN_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)

static pid_t server;
static int in_dir;

static bool reads(const char *path, const char *want)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	close(fd);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}

static bool stop(pid_t pid)
{
	int status;

	return !kill(pid, SIGSTOP) && waitpid(pid, &status, WUNTRACED) == pid &&
	       WIFSTOPPED(status);
}

/*
 * A watch is in effect on the server when the call that added it
 * returns (kernel patches 11-12): with the server stopped, add(fd) must
 * wait in the kernel; the server resumed, it returns. *waited says
 * whether it waited; the return is add()'s, or -1.
 */
static int add_with_server_stopped(int (*add)(int fd), int fd, bool *waited)
{
	struct vm_call call;
	struct stat st;

	*waited = false;
	/* The mount's attributes cached (60 s): add asks for the mask only. */
	if (stat(M, &st) || !stop(server))
		return -1;
	if (!vm_call_start(&call, add, fd)) {
		kill(server, SIGCONT);
		return -1;
	}
	*waited = vm_call_sleeps(&call);
	if (kill(server, SIGCONT))
		return -1;
	return vm_call_join(&call);
}

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
	      add_with_server_stopped(add_root_watch, in_dir, &waited) >= 0);
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
	      add_with_server_stopped(add_dnotify, fd, &waited) == 0);
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
 * dnotify DN_RENAME watch: FAN_RENAME with both names (kernel patch 13),
 * then MOVED_FROM and MOVED_TO, each with the file's own fid, as a local
 * rename reports them (patch 16), and dnotify's signal.
 */
static void test_fan_rename(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET,
				O_RDONLY);
	int fd;

	CHECK("FAN_RENAME: filesystem mark", fan >= 0 &&
	      !fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			     FAN_RENAME | FAN_MOVED_FROM | FAN_MOVED_TO |
			     FAN_ONDIR, AT_FDCWD, M));
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
	      vm_fanotify_expect_rename(fan, FAN_RENAME, "r1", "r2",
					M "/rnd/r2"));
	CHECK("FAN_RENAME: then MOVED_FROM r1, r2's own fid",
	      vm_fanotify_expect_fid(fan, FAN_MOVED_FROM, "r1", M "/rnd/r2"));
	CHECK("FAN_RENAME: then MOVED_TO r2, r2's own fid",
	      vm_fanotify_expect_fid(fan, FAN_MOVED_TO, "r2", M "/rnd/r2"));
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

/* The server keeps an O_PATH fd for each inode the kernel holds. */
static bool server_holds(const char *path)
{
	char dir[64], target[256];
	struct dirent *d;
	bool held = false;
	ssize_t n;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)server);
	fds = opendir(dir);
	while (fds && !held && (d = readdir(fds))) {
		n = readlinkat(dirfd(fds), d->d_name, target, sizeof(target));
		held = n == (ssize_t)strlen(path) && !memcmp(target, path, n);
	}
	if (fds)
		closedir(fds);
	return held;
}

/* FORGET is asynchronous: wait (bounded) for the server to let go. */
static bool server_releases(const char *path)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < VM_WAIT_MS / 10; i++) {
		if (!server_holds(path))
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
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
	      !server_holds(B "/f1"));
	CHECK("create: content through the mount", reads(M "/f1", "hello"));
	CHECK("append: remote", vm_put(B "/f1", " world", O_APPEND));
	CHECK("append: MODIFY f1", vm_inotify_expect(in_dir, IN_MODIFY, "f1",
	      NULL));
	CHECK("append: CLOSE_WRITE f1", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "f1", NULL));
	CHECK("append: new content, not the cached one",
	      reads(M "/f1", "hello world"));
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
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			    FAN_CREATE | FAN_MODIFY, AT_FDCWD, M) == 0);
	CHECK("push: remote create + write", vm_put(B "/pf", "pushed", 0));
	CHECK("push: CREATE pf", vm_inotify_expect(in_dir, IN_CREATE, "pf",
	      NULL));
	CHECK("push: then MODIFY pf", vm_inotify_expect(in_dir, IN_MODIFY,
	      "pf", NULL));
	CHECK("push: then CLOSE_WRITE pf", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "pf", NULL));
	CHECK("push: fanotify FAN_CREATE pf", vm_fanotify_expect(fan,
	      FAN_CREATE, "pf"));
	CHECK("push: fanotify FAN_MODIFY with pf's own fid",
	      vm_fanotify_expect_fid(fan, FAN_MODIFY, "pf", M "/pf"));
	CHECK("push: stat through the mount matches the backing file",
	      !stat(B "/pf", &sb) && !stat(M "/pf", &sm) &&
	      sm.st_size == 6 && sm.st_ino == sb.st_ino &&
	      same_mtime(M "/pf", B "/pf"));
	CHECK("push: the server holds pf", server_holds(B "/pf"));
	CHECK("push: drop_caches", vm_drop_caches());
	CHECK("push: FORGET frees the server's inode (count exact)",
	      server_releases(B "/pf"));
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
			 !fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
					FAN_MODIFY | FAN_CLOSE_WRITE, AT_FDCWD,
					M));
	}
	CHECK_IN(v, "taken over: server stopped", stop(server));
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
		 reads(M "/tk", "new"));
	sentinel = open(B "/tks", O_WRONLY | O_APPEND);
	CHECK_IN(v, "taken over: remote write to tks, held open (the sentinel)",
		 sentinel >= 0 && write(sentinel, "+", 1) == 1);
	CHECK_IN(v, "taken over: MODIFY tks next",
		 vm_inotify_expect(in_dir, IN_MODIFY, "tks", NULL));
	if (fanotify)
		CHECK_IN(v, "taken over: the group's first event is tks's "
			 "FAN_MODIFY, with tks's fid",
			 vm_fanotify_expect_fid(fan, FAN_MODIFY, "tks",
						M "/tks"));
	CHECK_IN(v, "taken over: tks closed",
		 sentinel >= 0 && !close(sentinel));
	CHECK_IN(v, "taken over: CLOSE_WRITE tks next",
		 vm_inotify_expect(in_dir, IN_CLOSE_WRITE, "tks", NULL));
	if (fanotify) {
		CHECK_IN(v, "taken over: then the group's FAN_CLOSE_WRITE tks",
			 vm_fanotify_expect_fid(fan, FAN_CLOSE_WRITE, "tks",
						M "/tks"));
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
 * kernel patch 18). A name gone again before the server read its create
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
	      !fanotify_mark(fan, FAN_MARK_ADD, FAN_CREATE | FAN_MOVED_FROM |
			     FAN_MOVED_TO, AT_FDCWD, M));
	CHECK("target fid: remote create tf", vm_put(B "/tf", "", 0));
	CHECK("target fid: CREATE tf", vm_inotify_expect(in_dir, IN_CREATE,
	      "tf", NULL));
	CHECK("target fid: CLOSE_WRITE tf", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "tf", NULL));
	CHECK("target fid: FAN_CREATE with tf's own fid",
	      vm_fanotify_expect_fid(fan, FAN_CREATE, "tf", M "/tf"));
	CHECK("target fid: server stopped", stop(server));
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
	      ev.mask == (FAN_CREATE | FAN_MOVED_FROM) &&
	      !strcmp(ev.name, "tg") && !ev.fid_len);
	CHECK("target fid: FAN_MOVED_TO with th's own fid",
	      vm_fanotify_expect_fid(fan, FAN_MOVED_TO, "th", M "/th"));
	close(fan);
	CHECK("target fid: the server holds the pushed tf and th",
	      server_holds(B "/tf") && server_holds(B "/th"));
	CHECK("target fid: drop_caches", vm_drop_caches());
	CHECK("target fid: FORGET frees both on the server (counts exact)",
	      server_releases(B "/tf") && server_releases(B "/th"));
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

/*
 * A file the kernel holds but nobody watches is not looked up under its
 * new name: its later unlink is a DELETE event with the name, once.
 */
static void test_rename_unwatched(void)
{
	uint32_t c1 = 0, c2 = 0;
	struct stat st;

	CHECK("unwatched: remote create u1", vm_put(B "/u1", "", 0));
	CHECK("unwatched: CREATE u1", vm_inotify_expect(in_dir, IN_CREATE,
	      "u1", NULL));
	CHECK("unwatched: CLOSE_WRITE u1", vm_inotify_expect(in_dir,
	      IN_CLOSE_WRITE, "u1", NULL));
	CHECK("unwatched: known through the mount", stat(M "/u1", &st) == 0);
	CHECK("unwatched: remote rename", rename(B "/u1", B "/u2") == 0);
	CHECK("unwatched: MOVED_FROM u1", vm_inotify_expect(in_dir,
	      IN_MOVED_FROM, "u1", &c1));
	CHECK("unwatched: MOVED_TO u2, same cookie", vm_inotify_expect(in_dir,
	      IN_MOVED_TO, "u2", &c2) && c1 && c1 == c2);
	CHECK("unwatched: remote unlink", unlink(B "/u2") == 0);
	CHECK("unwatched: DELETE u2", vm_inotify_expect(in_dir, IN_DELETE,
	      "u2", NULL));
	CHECK("unwatched: gone through the mount", stat(M "/u2", &st) &&
	      errno == ENOENT);
}

/*
 * A rename across the export's edge, seen from the mount, is a rename
 * from or to a place no watcher can see: MOVED_TO or MOVED_FROM alone,
 * with a cookie nothing pairs, and MOVE_SELF (not DELETE_SELF) for the
 * object's own watchers. /mnt/outside is on the backing store's tmpfs.
 */
static void test_moves_across_edge(void)
{
	int in_od = inotify_init1(IN_CLOEXEC);
	uint32_t c1 = 0, c2 = 0;
	struct stat st;

	CHECK("edge: outside dir and file", !mkdir(OUT, 0755) &&
	      vm_put(OUT "/mi", "came in", 0));
	CHECK("edge: remote rename in", rename(OUT "/mi", B "/mi") == 0);
	CHECK("edge: MOVED_TO mi alone", vm_inotify_expect(in_dir,
	      IN_MOVED_TO, "mi", &c1) && c1);
	CHECK("edge: content through the mount", reads(M "/mi", "came in"));
	CHECK("edge: remote rename of a held file out",
	      rename(B "/mi", OUT "/mo") == 0);
	CHECK("edge: MOVED_FROM mi alone, another cookie",
	      vm_inotify_expect(in_dir, IN_MOVED_FROM, "mi", &c2) && c2 &&
	      c2 != c1);
	CHECK("edge: gone through the mount", stat(M "/mi", &st) &&
	      errno == ENOENT);
	CHECK("edge: remote mkdir od", mkdir(B "/od", 0755) == 0);
	CHECK("edge: CREATE,ISDIR od", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "od", NULL));
	CHECK("edge: watch od, and the root on the same group",
	      inotify_add_watch(in_od, M "/od", IN_MOVE_SELF |
				IN_DELETE_SELF) >= 0 &&
	      inotify_add_watch(in_od, M, IN_CREATE) >= 0);
	CHECK("edge: remote rename of od out", rename(B "/od", OUT "/od") == 0);
	CHECK("edge: MOVED_FROM,ISDIR od", vm_inotify_expect(in_dir,
	      IN_MOVED_FROM | IN_ISDIR, "od", &c1) && c1 && c1 != c2);
	CHECK("edge: MOVE_SELF on od", vm_inotify_expect(in_od, IN_MOVE_SELF,
	      "", NULL));
	CHECK("edge: remote sentinel", mkdir(B "/oe", 0755) == 0);
	CHECK("edge: then the sentinel, no DELETE_SELF or IGNORED for od",
	      vm_inotify_expect(in_od, IN_CREATE | IN_ISDIR, "oe", NULL));
	CHECK("edge: the root's watch saw the sentinel next",
	      vm_inotify_expect(in_dir, IN_CREATE | IN_ISDIR, "oe", NULL));
	CHECK("edge: remote cleanup", !rmdir(B "/oe") && !unlink(OUT "/mo") &&
	      !rmdir(OUT "/od") && !rmdir(OUT));
	CHECK("edge: DELETE,ISDIR oe", vm_inotify_expect(in_dir,
	      IN_DELETE | IN_ISDIR, "oe", NULL));
	close(in_od);
}

static void test_dirs(void)
{
	CHECK("mkdir: remote", mkdir(B "/d", 0755) == 0);
	CHECK("mkdir: CREATE,ISDIR d", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "d", NULL));
	CHECK("rmdir: remote", rmdir(B "/d") == 0);
	CHECK("rmdir: DELETE,ISDIR d", vm_inotify_expect(in_dir,
	      IN_DELETE | IN_ISDIR, "d", NULL));
}

/*
 * Remote changes in directories the kernel never looked up. Without a
 * filesystem mark nobody on the mount can want them, and the server looks
 * nothing up; a filesystem mark wants them all, and gets them, each
 * naming its directory by the directory's own handle (the server makes
 * the kernel look the directory up).
 */
static void unheld_dirs_unmarked(void)
{
	CHECK("unheld dirs: remote n1/n2, p1/q1/mf, p1/q2", !mkdir(B "/n1", 0755) &&
	      !mkdir(B "/n1/n2", 0755) && !mkdir(B "/p1", 0755) &&
	      !mkdir(B "/p1/q1", 0755) && !mkdir(B "/p1/q2", 0755) &&
	      vm_put(B "/p1/q1/mf", "", 0));
	CHECK("unheld dirs: CREATE,ISDIR n1", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "n1", NULL));
	CHECK("unheld dirs: CREATE,ISDIR p1", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "p1", NULL));
	CHECK("unheld dirs: remote sentinel", mkdir(B "/n3", 0755) == 0);
	CHECK("unheld dirs: then the sentinel", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "n3", NULL));
	CHECK("unheld dirs: no filesystem mark, nothing looked up",
	      !server_holds(B "/n1") && !server_holds(B "/p1") &&
	      !server_holds(B "/p1/q1"));
}

static void test_unheld_dirs(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	unheld_dirs_unmarked();
	CHECK("unheld dirs: fanotify filesystem mark", fan >= 0 &&
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			    FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM |
			    FAN_MOVED_TO | FAN_ONDIR, AT_FDCWD, M) == 0);
	CHECK("unheld dirs: remote mkdir h1, h1/h2, h1/h2/f",
	      !mkdir(B "/h1", 0755) && !mkdir(B "/h1/h2", 0755) &&
	      vm_put(B "/h1/h2/f", "", 0));
	CHECK("unheld dirs: FAN_CREATE,ONDIR h1 in the root",
	      vm_fanotify_expect_dir(fan, FAN_CREATE | FAN_ONDIR, "h1", M));
	CHECK("unheld dirs: FAN_CREATE,ONDIR h2 in h1",
	      vm_fanotify_expect_dir(fan, FAN_CREATE | FAN_ONDIR, "h2",
				     M "/h1"));
	CHECK("unheld dirs: FAN_CREATE f in h1/h2",
	      vm_fanotify_expect_dir(fan, FAN_CREATE, "f", M "/h1/h2"));
	CHECK("unheld dirs: remote rename p1/q1/mf to p1/q2/mt",
	      rename(B "/p1/q1/mf", B "/p1/q2/mt") == 0);
	CHECK("unheld dirs: FAN_MOVED_FROM mf in p1/q1",
	      vm_fanotify_expect_dir(fan, FAN_MOVED_FROM, "mf", M "/p1/q1"));
	CHECK("unheld dirs: FAN_MOVED_TO mt in p1/q2",
	      vm_fanotify_expect_dir(fan, FAN_MOVED_TO, "mt", M "/p1/q2"));
	CHECK("unheld dirs: remote rmdir n1/n2", rmdir(B "/n1/n2") == 0);
	CHECK("unheld dirs: FAN_DELETE,ONDIR n2 in n1",
	      vm_fanotify_expect_dir(fan, FAN_DELETE | FAN_ONDIR, "n2",
				     M "/n1"));
	CHECK("unheld dirs: the root's watch saw CREATE,ISDIR h1 only",
	      vm_inotify_expect(in_dir, IN_CREATE | IN_ISDIR, "h1", NULL));
	close(fan);
}

/*
 * FAN_RENAME needs both directories in the kernel: a mark on one of them
 * that wants it makes the server have the kernel look up the other. As
 * for a local rename, a mark on one directory reports that side's name
 * only, and the moved file's own fid.
 */
static void test_rename_to_unheld(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET,
				O_RDONLY);

	CHECK("rename to unheld: remote ra/x, rb", !mkdir(B "/ra", 0755) &&
	      !mkdir(B "/rb", 0755) && vm_put(B "/ra/x", "", 0));
	CHECK("rename to unheld: CREATE,ISDIR ra", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "ra", NULL));
	CHECK("rename to unheld: CREATE,ISDIR rb", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "rb", NULL));
	CHECK("rename to unheld: FAN_RENAME mark on ra alone", fan >= 0 &&
	      fanotify_mark(fan, FAN_MARK_ADD, FAN_RENAME, AT_FDCWD,
			    M "/ra") == 0);
	CHECK("rename to unheld: remote rename ra/x to rb/y",
	      rename(B "/ra/x", B "/rb/y") == 0);
	CHECK("rename to unheld: FAN_RENAME from x, with y's fid",
	      vm_fanotify_expect_rename(fan, FAN_RENAME, "x", "", M "/rb/y"));
	CHECK("rename to unheld: remote rename back, rb/y to ra/z",
	      rename(B "/rb/y", B "/ra/z") == 0);
	CHECK("rename to unheld: FAN_RENAME to z, with z's fid",
	      vm_fanotify_expect_rename(fan, FAN_RENAME, "", "z", M "/ra/z"));
	close(fan);
}

/* The server's own changes never come back: the next event is remote. */
static void test_local_once(void)
{
	CHECK("local: mkdir through the mount", mkdir(M "/loc", 0755) == 0);
	CHECK("local: CREATE,ISDIR loc", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "loc", NULL));
	CHECK("local: remote sentinel", mkdir(B "/sentinel", 0755) == 0);
	CHECK("local: once, then the sentinel", vm_inotify_expect(in_dir,
	      IN_CREATE | IN_ISDIR, "sentinel", NULL));
}

static int add_close_write_mark(int fd)
{
	return fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			     FAN_CLOSE_WRITE, AT_FDCWD, M);
}

/*
 * A group without FID: its fanotify_mark() asks the server for nothing
 * but the mask (a FID group's asks for STATFS, for the fsid).
 */
static void test_fanotify_mark_waits(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF, O_RDONLY);
	bool waited = false;

	CHECK("fanotify: filesystem mark for CLOSE_WRITE", fan >= 0 &&
	      add_with_server_stopped(add_close_write_mark, fan, &waited) == 0);
	CHECK("fanotify: fanotify_mark waited for the stopped server", waited);
	close(fan);
}

static void test_fanotify_filesystem_mark(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	test_fanotify_mark_waits();
	CHECK("fanotify: filesystem mark on the mount", fan >= 0 &&
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			    FAN_CREATE | FAN_DELETE | FAN_ONDIR, AT_FDCWD,
			    M) == 0);
	CHECK("fanotify: remote create", vm_put(B "/fz", "", 0));
	CHECK("fanotify: FAN_CREATE fz", vm_fanotify_expect(fan, FAN_CREATE,
	      "fz"));
	CHECK("fanotify: remote unlink", unlink(B "/fz") == 0);
	CHECK("fanotify: FAN_DELETE fz", vm_fanotify_expect(fan, FAN_DELETE,
	      "fz"));
	close(fan);
	/* The inotify watch saw them too; consume them in order. */
	vm_inotify_expect(in_dir, IN_CREATE, "fz", NULL);
	vm_inotify_expect(in_dir, IN_CLOSE_WRITE, "fz", NULL);
	vm_inotify_expect(in_dir, IN_DELETE, "fz", NULL);
}

static bool set_max_queued(const char *n)
{
	int fd = open("/proc/sys/fs/inotify/max_queued_events", O_WRONLY);
	bool ok = fd >= 0 && write(fd, n, strlen(n)) == (ssize_t)strlen(n);

	close(fd);
	return ok;
}

/* Remote mkdirs while the server is stopped, past its host queue. */
static bool mkdirs_while_stopped(pid_t pid, int n)
{
	char path[64];
	bool ok = stop(pid);
	int i;

	for (i = 0; ok && i < n; i++) {
		snprintf(path, sizeof(path), B "3/d%02d", i);
		ok = !mkdir(path, 0755);
	}
	return !kill(pid, SIGCONT) && ok;
}

/* The events that were not lost, in order, then the overflow. */
static bool creates_then_overflow(int in, int want)
{
	struct vm_event ev;
	char name[16];
	int i;

	for (i = 0; vm_inotify_next(in, &ev); i++) {
		if (ev.mask == IN_Q_OVERFLOW && !ev.name[0])
			return i == want;
		snprintf(name, sizeof(name), "d%02d", i);
		if (ev.mask != (IN_CREATE | IN_ISDIR) || strcmp(ev.name, name))
			break;
	}
	printf("# overflow: %d creates, then:\n", i);
	vm_event_print("inotify got", &ev);
	return false;
}

/*
 * The host watcher (inotify, a 16-event queue here) overflows while the
 * server is stopped: the 16 changes it kept reach the mount, then every
 * watcher of the mount gets IN_Q_OVERFLOW instead of silence, and
 * delivery goes on.
 */
static void test_overflow(void)
{
	pid_t pid;
	int in;

	CHECK("overflow: max_queued_events 16", set_max_queued("16"));
	pid = vm_server_start(B "3", M "3", "delivery=protocol,watch=inotify");
	CHECK("overflow: max_queued_events back to 16384",
	      set_max_queued("16384"));
	CHECK("overflow: server with a 16-event host queue", pid > 0);
	if (pid <= 0)
		return;
	in = inotify_init1(IN_CLOEXEC);
	CHECK("overflow: watch the mount root",
	      inotify_add_watch(in, M "3", IN_CREATE) >= 0);
	CHECK("overflow: 40 remote mkdirs while stopped",
	      mkdirs_while_stopped(pid, 40));
	CHECK("overflow: 16 CREATE,ISDIR in order, then IN_Q_OVERFLOW",
	      creates_then_overflow(in, 16));
	CHECK("overflow: remote sentinel", mkdir(B "3/after", 0755) == 0);
	CHECK("overflow: delivery goes on", vm_inotify_expect(in,
	      IN_CREATE | IN_ISDIR, "after", NULL));
	close(in);
	CHECK("overflow: SIGTERM: exits 0", vm_server_stop(pid));
}

/*
 * The same edge with the inotify host watcher (watch=inotify), which
 * cannot name an object moved out: the server finds the node the kernel
 * holds by the name it showed.
 */
static void test_edge_inotify_host(void)
{
	pid_t pid = vm_server_start(B "4", M "4", "delivery=protocol,"
				    "watch=inotify,entry_timeout=60");
	int in = inotify_init1(IN_CLOEXEC);
	uint32_t c1 = 0, c2 = 0;

	CHECK("edge inotify: server with watch=inotify", pid > 0);
	if (pid <= 0)
		return;
	CHECK("edge inotify: watch the root",
	      inotify_add_watch(in, M "4", IN_EVENTS) >= 0);
	CHECK("edge inotify: remote mkdir od", mkdir(B "4/od", 0755) == 0);
	CHECK("edge inotify: CREATE,ISDIR od", vm_inotify_expect(in,
	      IN_CREATE | IN_ISDIR, "od", NULL));
	CHECK("edge inotify: watch od", inotify_add_watch(in, M "4/od",
	      IN_MOVE_SELF | IN_DELETE_SELF) >= 0);
	CHECK("edge inotify: remote rename of od out",
	      !mkdir(OUT "4", 0755) && !rename(B "4/od", OUT "4/od"));
	CHECK("edge inotify: MOVED_FROM,ISDIR od alone", vm_inotify_expect(in,
	      IN_MOVED_FROM | IN_ISDIR, "od", &c1) && c1);
	CHECK("edge inotify: MOVE_SELF on od", vm_inotify_expect(in,
	      IN_MOVE_SELF, "", NULL));
	CHECK("edge inotify: remote rename of a file in",
	      vm_put(OUT "4/mi", "", 0) && !rename(OUT "4/mi", B "4/mi"));
	CHECK("edge inotify: MOVED_TO mi alone, no DELETE_SELF before it",
	      vm_inotify_expect(in, IN_MOVED_TO, "mi", &c2) && c2 &&
	      c2 != c1);
	close(in);
	CHECK("edge inotify: SIGTERM: exits 0", vm_server_stop(pid));
}

/*
 * delivery=replay declines the offer: the kernel then behaves as a stock
 * one (no FUSE_FSNOTIFY, no notifications) and replay still delivers.
 * The replayer works in a copy of the mount, so a plain umount succeeds
 * and the server must notice it by itself.
 */
static void test_replay_declines(void)
{
	pid_t pid = vm_server_start(B "2", M "2", "delivery=replay");
	int in = inotify_init1(IN_CLOEXEC);

	CHECK("replay: mounts on the patched kernel", pid > 0);
	if (pid <= 0)
		return;
	CHECK("replay: watch", inotify_add_watch(in, M "2", IN_EVENTS) >= 0);
	CHECK("replay: remote mkdir", mkdir(B "2/rd", 0755) == 0);
	CHECK("replay: CREATE,ISDIR rd", vm_inotify_expect(in,
	      IN_CREATE | IN_ISDIR, "rd", NULL));
	CHECK("replay: remote rmdir", rmdir(B "2/rd") == 0);
	CHECK("replay: DELETE,ISDIR rd", vm_inotify_expect(in,
	      IN_DELETE | IN_ISDIR, "rd", NULL));
	close(in);
	CHECK("replay: umount of the mount", umount(M "2") == 0);
	/* The VM's mount table fits a stdio buffer (src/util/mountinfo.c). */
	CHECK("replay: the server notices it and exits 0 by itself",
	      vm_server_wait(pid));
}

static bool nlink_is(const char *path, nlink_t n)
{
	struct stat st;

	return !stat(path, &st) && st.st_nlink == n;
}

/*
 * A held file's link count: a remote link and an unlink of one of its
 * names give its own watch ATTRIB, the directory's none (kernel patch
 * 20), and the link count cached for 60 s (attr_timeout) is new at once.
 */
static void test_link_count(void)
{
	int in = inotify_init1(IN_CLOEXEC);
	int own, dir;

	CHECK("link count: file made on the mount",
	      vm_put(M "/lc", "x", 0) && nlink_is(M "/lc", 1));
	dir = inotify_add_watch(in, M, IN_ATTRIB | IN_CREATE | IN_DELETE);
	own = inotify_add_watch(in, M "/lc", IN_ATTRIB);
	CHECK("link count: watches", dir > 0 && own > 0);
	CHECK("link count: remote link", !link(B "/lc", B "/lc2"));
	CHECK("link count: ATTRIB on the file's own watch alone",
	      vm_inotify_expect(in, IN_ATTRIB, "", NULL));
	CHECK("link count: then CREATE lc2",
	      vm_inotify_expect(in, IN_CREATE, "lc2", NULL));
	CHECK("link count: 2 links through the mount", nlink_is(M "/lc", 2));
	CHECK("link count: remote unlink of lc2", !unlink(B "/lc2"));
	CHECK("link count: ATTRIB on the file's own watch alone, again",
	      vm_inotify_expect(in, IN_ATTRIB, "", NULL));
	CHECK("link count: then DELETE lc2",
	      vm_inotify_expect(in, IN_DELETE, "lc2", NULL));
	CHECK("link count: 1 link through the mount", nlink_is(M "/lc", 1));
	CHECK("link count: cleanup", !unlink(M "/lc"));
	close(in);
}

/*
 * The end of a burst goes out by itself (issue 31): TAIL_WRITERS
 * processes at once each create and remove TAIL_FILES files, then
 * nothing changes. The watcher must read every name's CREATE and then
 * its DELETE, and nothing else, with no sentinel: a sentinel is a change
 * of its own and would carry along a notification that waits for a next
 * event. Each event may take VM_WAIT_MS after the one before.
 */
#define TAIL_WRITERS 4
#define TAIL_FILES 100

static void tail_write(int w)
{
	char path[64];
	int i, fd;

	for (i = 0; i < TAIL_FILES; i++) {
		snprintf(path, sizeof(path), B "/tail/w%d_%03d", w, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd) || unlink(path))
			_exit(1);
	}
	_exit(0);
}

/* Counts ev into state; false if it is not the next one of its name. */
static bool tail_count(unsigned char state[][TAIL_FILES],
		       const struct vm_event *ev)
{
	int w, i;

	if (sscanf(ev->name, "w%d_%d", &w, &i) != 2 || w < 0 ||
	    w >= TAIL_WRITERS || i < 0 || i >= TAIL_FILES)
		return false;
	if (ev->mask == IN_CREATE && state[w][i] == 0)
		state[w][i] = 1;
	else if (ev->mask == IN_DELETE && state[w][i] == 1)
		state[w][i] = 2;
	else
		return false;
	return true;
}

static void test_burst_tail(void)
{
	unsigned char state[TAIL_WRITERS][TAIL_FILES] = { { 0 } };
	int in = inotify_init1(IN_CLOEXEC), w, n = 0, status;
	int want = 2 * TAIL_WRITERS * TAIL_FILES;
	bool writers_ok = true, in_order = true;
	pid_t pid[TAIL_WRITERS];
	struct stat st;
	struct vm_event ev;

	CHECK("burst tail: directory made remotely",
	      !mkdir(B "/tail", 0755) && !stat(M "/tail", &st));
	CHECK("burst tail: watch",
	      inotify_add_watch(in, M "/tail", IN_CREATE | IN_DELETE) > 0);
	for (w = 0; w < TAIL_WRITERS; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			tail_write(w);
	}
	for (w = 0; w < TAIL_WRITERS; w++)
		writers_ok &= pid[w] > 0 && waitpid(pid[w], &status, 0) ==
			      pid[w] && WIFEXITED(status) &&
			      !WEXITSTATUS(status);
	CHECK("burst tail: the writers ran", writers_ok);
	while (in_order && n < want && vm_inotify_next(in, &ev)) {
		in_order = tail_count(state, &ev);
		if (!in_order)
			vm_event_print("burst tail: out of place", &ev);
		n++;
	}
	if (n < want)
		printf("# burst tail: %d of %d events\n", n, want);
	CHECK("burst tail: every CREATE and DELETE, each name's in order, with nothing after the last change",
	      in_order && n == want);
	close(in);
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
	test_rename_unwatched();
	test_moves_across_edge();
	test_dirs();
	test_unheld_dirs();
	test_rename_to_unheld();
	test_local_once();
	test_fanotify_filesystem_mark();
	test_link_count();
	test_burst_tail();
	close(in_dir);
	CHECK("server: SIGTERM: exits 0 and unmounts", vm_server_stop(server));
	test_replay_declines();
	test_edge_inotify_host();
	test_overflow();
	return check_exit();
}
