// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FUSE passthrough for files opened only for reading (src/fs/passthrough.h):
 *
 *  - where the kernel has it (CONFIG_FUSE_PASSTHROUGH, in /proc/config.gz
 *    or /boot/config-*), a read of a file opened for reading completes
 *    while the server is stopped: it never reaches the server; where it
 *    is off (no such kernel, or RNOTIFYFS_OPTS has passthrough=off or
 *    watch=inotify), the read waits until the server goes on;
 *  - the kernel allows one io mode per inode, so the server must choose
 *    every open's mode: a writer beside a reader, a reader beside a
 *    writer, and two readers all open (no EIO), and each sees what the
 *    other wrote at once; a read-only mapping reads the file;
 *  - a remote change is read through a reader opened before it;
 *  - a watcher on the mount gets exactly the local OPEN, ACCESS and
 *    CLOSE_NOWRITE of a read, and OPEN, MODIFY and CLOSE_WRITE of a
 *    write beside a reader: nothing doubled, nothing remote;
 *  - an overlayfs with its lower layer in the mount reads a file, and a
 *    remote change to it; with passthrough the mount counts as one level
 *    of stacking (docs/rnotifyfs.8), so an overlayfs on that overlayfs
 *    is refused (EINVAL), and taken without passthrough.
 *
 * A kernel whose configuration cannot be read counts as one without
 * passthrough: a server that uses it then fails the check.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define PT_MASK (IN_ALL_EVENTS & ~IN_ATTRIB)
#define PT_SIZE 65536
#define PT_STOPPED_MS 3000

static char data[PT_SIZE];

/* Does the running kernel's configuration say FUSE_PASSTHROUGH=y? */
static bool kernel_has_passthrough(void)
{
	char cmd[256];
	struct utsname u;

	if (uname(&u))
		return false;
	snprintf(cmd, sizeof(cmd),
		 "{ zcat /proc/config.gz || cat /boot/config-%s; } 2>/dev/null | grep -qx CONFIG_FUSE_PASSTHROUGH=y",
		 u.release);
	return system(cmd) == 0;
}

static bool file_made(const char *rel)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s", e2e_bpath(rel));
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return false;
	if (write(fd, data, PT_SIZE) != PT_SIZE) {
		close(fd);
		return false;
	}
	return !close(fd);
}

/* Waits up to ms for child; true if it exited 0. */
static bool child_done(pid_t child, int ms)
{
	int status, i;

	for (i = 0; i < ms; i++) {
		if (waitpid(child, &status, WNOHANG) == child)
			return WIFEXITED(status) && !WEXITSTATUS(status);
		usleep(1000);
	}
	return false;
}

/*
 * With the server stopped, does a child's read of a page not read before
 * complete? If not, it completes once the server goes on.
 */
static bool reads_while_stopped(int fd, bool *read_anyway)
{
	char page[4096];
	bool done;
	pid_t child;

	*read_anyway = false;
	if (pread(fd, page, sizeof(page), 0) != sizeof(page))
		return false;
	kill(e2e_server_pid(), SIGSTOP);
	child = fork();
	if (child == 0)
		_exit(pread(fd, page, sizeof(page), PT_SIZE / 2) !=
		      sizeof(page) || memcmp(page, data + PT_SIZE / 2,
					     sizeof(page)));
	done = child > 0 && child_done(child, PT_STOPPED_MS);
	kill(e2e_server_pid(), SIGCONT);
	/* Bounded only against a hang: a loaded machine may be slow. */
	if (child > 0 && !done)
		*read_anyway = child_done(child, 10 * PT_STOPPED_MS);
	return done;
}

/* Does this run's server use passthrough (see the header)? */
static bool passthrough_expected(void)
{
	const char *opts = getenv("RNOTIFYFS_OPTS");

	if (opts && (strstr(opts, "passthrough=off") ||
		     strstr(opts, "watch=inotify")))
		return false;
	return kernel_has_passthrough();
}

static void check_stopped_read(void)
{
	bool expected = passthrough_expected(), done, later;
	int fd = open(e2e_mpath("p/f"), O_RDONLY);

	done = fd >= 0 && reads_while_stopped(fd, &later);
	if (expected)
		CHECK("passthrough: a reader's read needs no server", done);
	else {
		CHECK("passthrough: off: a reader's read waits for the server",
		      fd >= 0 && !done);
		CHECK("passthrough: off: the read completes once it goes on",
		      fd >= 0 && !done && later);
	}
	if (fd >= 0)
		close(fd);
}

static bool reads(int fd, off_t at, const char *want)
{
	char got[64];
	ssize_t n = pread(fd, got, strlen(want), at);

	return n == (ssize_t)strlen(want) && !memcmp(got, want, n);
}

static bool writes(int fd, off_t at, const char *what)
{
	return pwrite(fd, what, strlen(what), at) == (ssize_t)strlen(what);
}

static void check_modes(void)
{
	int r1 = open(e2e_mpath("p/f"), O_RDONLY);
	int w = open(e2e_mpath("p/f"), O_RDWR);
	int r2 = open(e2e_mpath("p/f"), O_RDONLY);

	CHECK("passthrough: reader, then writer, then reader all open",
	      r1 >= 0 && w >= 0 && r2 >= 0);
	CHECK("passthrough: a write beside readers is read by both at once",
	      writes(w, 10, "first") && reads(r1, 10, "first") &&
	      reads(r2, 10, "first"));
	close(r1);
	close(r2);
	r1 = open(e2e_mpath("p/f"), O_RDONLY);
	CHECK("passthrough: a reader beside an open writer reads its write",
	      r1 >= 0 && writes(w, 20, "second") && reads(r1, 20, "second"));
	close(w);
	close(r1);
}

static void check_mapping(void)
{
	int fd = open(e2e_mpath("p/g"), O_RDONLY);
	void *m = fd < 0 ? MAP_FAILED :
		  mmap(NULL, PT_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	CHECK("passthrough: a read-only mapping reads the file",
	      m != MAP_FAILED && !memcmp(m, data, PT_SIZE));
	if (m != MAP_FAILED)
		munmap(m, PT_SIZE);
	if (fd >= 0)
		close(fd);
}

static void check_remote_change(void)
{
	int fd = open(e2e_mpath("p/g"), O_RDONLY);
	struct e2e_op ops[] = { OP_OVERWRITE("p/g", "remote"), OP_END };

	CHECK("passthrough: remote change made, a reader open",
	      fd >= 0 && !e2e_remote("", ops));
	e2e_sync();
	CHECK("passthrough: an open reader reads the remote change",
	      reads(fd, 0, "remote"));
	close(fd);
}

static void check_events(void)
{
	static const char *const read_events[] = {
		"OPEN h", "ACCESS h", "CLOSE_NOWRITE h", NULL };
	/* inotify merges the two OPENs, as they come one after the other. */
	static const char *const write_events[] = {
		"OPEN h", "MODIFY h", "CLOSE_WRITE h", "CLOSE_NOWRITE h", NULL };
	struct e2e_reader *r = e2e_inotify_new();
	char page[16];
	int fd, w;

	if (!r || e2e_inotify_watch(r, NULL, e2e_mpath("p"), PT_MASK)) {
		e2e_fail("passthrough: watch", "inotify watch on MNT/p failed");
		return;
	}
	fd = open(e2e_mpath("p/h"), O_RDONLY);
	if (fd < 0 || read(fd, page, sizeof(page)) != sizeof(page))
		e2e_fail("passthrough: read h", "open or read failed");
	close(fd);
	e2e_expect(r, "p", "passthrough: a read's events, once", read_events);
	fd = open(e2e_mpath("p/h"), O_RDONLY);
	w = open(e2e_mpath("p/h"), O_WRONLY);
	if (fd < 0 || w < 0 || !writes(w, 0, "x"))
		e2e_fail("passthrough: write h", "open or write failed");
	close(w);
	close(fd);
	e2e_expect(r, "p", "passthrough: a write beside a reader: its events, once",
		   write_events);
	e2e_reader_free(r);
}

/* dir/{upper,work,mnt}, made; false if one could not be. */
static bool overlay_dirs(const char *dir)
{
	static const char *const sub[] = { "upper", "work", "mnt" };
	char path[PATH_MAX];
	size_t i;

	if (mkdir(dir, 0755))
		return false;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		if (mkdir(path, 0755))
			return false;
	}
	return true;
}

/* An overlayfs on dir/mnt with lower as its lower layer: 0 or -errno. */
static int overlay_mount(const char *dir, const char *lower)
{
	char opts[3 * PATH_MAX], mnt[PATH_MAX];

	if (!overlay_dirs(dir))
		return -errno;
	snprintf(opts, sizeof(opts),
		 "lowerdir=%s,upperdir=%s/upper,workdir=%s/work",
		 lower, dir, dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	return mount("overlay", mnt, "overlay", 0, opts) ? -errno : 0;
}

static void overlay_umount(const char *dir)
{
	char mnt[PATH_MAX];

	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	umount2(mnt, MNT_DETACH);
}

static bool overlay_reads(const char *dir, const char *want)
{
	char path[PATH_MAX];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/mnt/g", dir);
	fd = open(path, O_RDONLY);
	ok = fd >= 0 && reads(fd, 0, want);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* An overlayfs on the overlayfs one: refused only with passthrough on. */
static void check_stacked(const char *one, const char *two)
{
	char lower[PATH_MAX];
	int ret;

	snprintf(lower, sizeof(lower), "%s/mnt", one);
	ret = overlay_mount(two, lower);
	if (!e2e_native() && passthrough_expected())
		CHECK("passthrough: an overlayfs on the mount's overlayfs is refused",
		      ret == -EINVAL);
	else
		CHECK("passthrough: off: an overlayfs on the mount's overlayfs mounts",
		      ret == 0);
	if (!ret)
		overlay_umount(two);
}

/* one: an overlayfs on MNT/p, mounted. */
static void check_overlay_on(const char *one, const char *two)
{
	struct e2e_op ops[] = { OP_OVERWRITE("p/g", "second"), OP_END };

	CHECK("passthrough: the overlayfs reads a file of the mount",
	      overlay_reads(one, "remote"));
	CHECK("passthrough: remote change made under the overlayfs",
	      !e2e_remote("", ops));
	e2e_sync();
	CHECK("passthrough: the overlayfs reads the remote change",
	      overlay_reads(one, "second"));
	check_stacked(one, two);
}

static void check_overlay(void)
{
	char top[] = "/tmp/rnotify-ovl.XXXXXX", one[64], two[64], rm[64];
	int ret;

	if (!mkdtemp(top)) {
		e2e_fail("passthrough: overlay dirs", "mkdtemp failed");
		return;
	}
	snprintf(one, sizeof(one), "%s/one", top);
	snprintf(two, sizeof(two), "%s/two", top);
	ret = overlay_mount(one, e2e_mpath("p"));
	if (ret == -ENODEV) {
		e2e_info("passthrough: no overlayfs in this kernel: not checked");
	} else {
		CHECK("passthrough: an overlayfs on the mount mounts", !ret);
		if (!ret) {
			check_overlay_on(one, two);
			overlay_umount(one);
		}
	}
	snprintf(rm, sizeof(rm), "rm -rf %s", top);
	if (system(rm))
		e2e_info("passthrough: %s failed", rm);
}

int main(void)
{
	struct e2e_op mk[] = { OP_MKDIR("p"), OP_END };

	memset(data, 'd', sizeof(data));
	memcpy(data + PT_SIZE / 2, "middle", 6);
	e2e_mount(NULL);
	CHECK("passthrough: files made", !e2e_remote("", mk) &&
	      file_made("p/f") && file_made("p/g") && file_made("p/h"));
	e2e_sync();
	if (e2e_native())
		e2e_info("passthrough: the server's, not checked natively");
	else
		check_stopped_read();
	check_modes();
	check_mapping();
	check_remote_change();
	check_events();
	check_overlay();
	return check_exit();
}
