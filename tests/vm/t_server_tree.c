// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_server_tree - rnotifyfs in protocol mode on the patched kernel, for
 * the tree around a file: renames of files nobody watches, renames
 * across the export's edge, directories made and removed, events in
 * directories the kernel never looked up (for a filesystem mark only),
 * FAN_RENAME into one, local changes exactly once, a fanotify mark that
 * waits for the stopped server and a held file's link count (the end of
 * a burst: t_server_burst). Its own server, started as t_server's; the
 * root watched (IN_EVENTS) throughout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmserver.h"
#include "vmserver_probe.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define B "/mnt/tree_backing"
#define M "/mnt/tree_mount"
#define OUT "/mnt/tree_outside"
#define IN_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)

static pid_t server;
static int in_dir;

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
 * object's own watchers. OUT is on the backing store's tmpfs.
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
	CHECK("edge: content through the mount", vm_reads(M "/mi", "came in"));
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
	      !vm_server_holds(server, B "/n1") &&
	      !vm_server_holds(server, B "/p1") &&
	      !vm_server_holds(server, B "/p1/q1"));
}

static void test_unheld_dirs(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	unheld_dirs_unmarked();
	CHECK("unheld dirs: fanotify filesystem mark", fan >= 0 &&
	      vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM, FAN_CREATE |
				      FAN_DELETE | FAN_MOVED_FROM |
				      FAN_MOVED_TO | FAN_ONDIR, M) == 0);
	CHECK("unheld dirs: remote mkdir h1, h1/h2, h1/h2/f",
	      !mkdir(B "/h1", 0755) && !mkdir(B "/h1/h2", 0755) &&
	      vm_put(B "/h1/h2/f", "", 0));
	CHECK("unheld dirs: FAN_CREATE,ONDIR h1 in the root",
	      vm_fanotify_expect_dir(fan, FAN_REMOTE | FAN_CREATE | FAN_ONDIR,
				     "h1", M));
	CHECK("unheld dirs: FAN_CREATE,ONDIR h2 in h1",
	      vm_fanotify_expect_dir(fan, FAN_REMOTE | FAN_CREATE | FAN_ONDIR,
				     "h2", M "/h1"));
	CHECK("unheld dirs: FAN_CREATE f in h1/h2",
	      vm_fanotify_expect_dir(fan, FAN_REMOTE | FAN_CREATE, "f",
				     M "/h1/h2"));
	CHECK("unheld dirs: remote rename p1/q1/mf to p1/q2/mt",
	      rename(B "/p1/q1/mf", B "/p1/q2/mt") == 0);
	CHECK("unheld dirs: FAN_MOVED_FROM mf in p1/q1",
	      vm_fanotify_expect_dir(fan, FAN_REMOTE | FAN_MOVED_FROM, "mf",
				     M "/p1/q1"));
	CHECK("unheld dirs: FAN_MOVED_TO mt in p1/q2",
	      vm_fanotify_expect_dir(fan, FAN_REMOTE | FAN_MOVED_TO, "mt",
				     M "/p1/q2"));
	CHECK("unheld dirs: remote rmdir n1/n2", rmdir(B "/n1/n2") == 0);
	CHECK("unheld dirs: FAN_DELETE,ONDIR n2 in n1",
	      vm_fanotify_expect_dir(fan, FAN_REMOTE | FAN_DELETE | FAN_ONDIR,
				     "n2", M "/n1"));
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
	      vm_fanotify_remote_mark(fan, 0, FAN_RENAME, M "/ra") == 0);
	CHECK("rename to unheld: remote rename ra/x to rb/y",
	      rename(B "/ra/x", B "/rb/y") == 0);
	CHECK("rename to unheld: FAN_RENAME from x, with y's fid",
	      vm_fanotify_expect_rename(fan, FAN_REMOTE | FAN_RENAME, "x", "",
					M "/rb/y"));
	CHECK("rename to unheld: remote rename back, rb/y to ra/z",
	      rename(B "/rb/y", B "/ra/z") == 0);
	CHECK("rename to unheld: FAN_RENAME to z, with z's fid",
	      vm_fanotify_expect_rename(fan, FAN_REMOTE | FAN_RENAME, "", "z",
					M "/ra/z"));
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
	return vm_fanotify_remote_mark(fd, FAN_MARK_FILESYSTEM,
				       FAN_CLOSE_WRITE, M);
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
	      vm_server_add_paused(server, M, add_close_write_mark, fan,
				   &waited) == 0);
	CHECK("fanotify: fanotify_mark waited for the stopped server", waited);
	close(fan);
}

static void test_fanotify_filesystem_mark(void)
{
	int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME,
				O_RDONLY);

	test_fanotify_mark_waits();
	CHECK("fanotify: filesystem mark on the mount", fan >= 0 &&
	      vm_fanotify_remote_mark(fan, FAN_MARK_FILESYSTEM, FAN_CREATE |
				      FAN_DELETE | FAN_ONDIR, M) == 0);
	CHECK("fanotify: remote create", vm_put(B "/fz", "", 0));
	CHECK("fanotify: FAN_CREATE fz", vm_fanotify_expect(fan, FAN_REMOTE |
							    FAN_CREATE, "fz"));
	CHECK("fanotify: remote unlink", unlink(B "/fz") == 0);
	CHECK("fanotify: FAN_DELETE fz", vm_fanotify_expect(fan, FAN_REMOTE |
							    FAN_DELETE, "fz"));
	close(fan);
	/* The inotify watch saw them too; consume them in order. */
	vm_inotify_expect(in_dir, IN_CREATE, "fz", NULL);
	vm_inotify_expect(in_dir, IN_CLOSE_WRITE, "fz", NULL);
	vm_inotify_expect(in_dir, IN_DELETE, "fz", NULL);
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

int main(void)
{
	/* Long cache lifetimes: any staleness the events leave shows. */
	server = vm_server_start(B, M, "delivery=protocol,attr_timeout=60,"
				 "entry_timeout=60");
	if (server <= 0) {
		printf("FAIL server tree: mounts with delivery=protocol\n");
		return 1;
	}
	in_dir = inotify_init1(IN_CLOEXEC);
	if (inotify_add_watch(in_dir, M, IN_EVENTS) < 0) {
		printf("FAIL server tree: watch the root\n");
		vm_server_stop(server);
		return 1;
	}
	test_rename_unwatched();
	test_moves_across_edge();
	test_dirs();
	test_unheld_dirs();
	test_rename_to_unheld();
	test_local_once();
	test_fanotify_filesystem_mark();
	test_link_count();
	close(in_dir);
	if (!vm_server_stop(server)) {
		printf("FAIL server tree: SIGTERM: exits 0 and unmounts\n");
		return 1;
	}
	return check_exit();
}
