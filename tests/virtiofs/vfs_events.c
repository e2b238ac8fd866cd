// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs_events - remote changes seen from a virtiofs guest: the host makes
 * each change (guest_cmd.h), and the guest reads what its mount shows.
 *
 *   vfs_events LABEL MOUNTPOINT TAG
 *
 * LABEL prefixes every check ("rnotifyfs", "virtiofsd"); TAG names the
 * export to host_cmd. With rnotifyfs (the series' kernel fetching its
 * notifications, FUSE_FETCH_NOTIFY) every remote change is an exact
 * event: inotify (types, names, ISDIR, a rename's pair with one cookie),
 * fanotify inode and filesystem marks, and the caches dropped before the
 * event (vfs_events_marks.c); the mount has -o remote_events, or inotify
 * would get none of them (kernel: fuse 3/9, 4/9); notifications the
 * guest did not fetch in time end in one overflow
 * (vfs_events_overflow.c). virtiofsd, the reference, sends none: a
 * local sentinel's event comes first. TAG "frames" is frame_server's
 * export, whose checks are its own (vfs_events_frames.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../vm/vmwatch.h"
#include "guest_cmd.h"
#include "vfs_events.h"

const char *label, *mnt, *tag;
int failures;

/* The whole content of path (at most len - 1 bytes), or "" on error. */
const char *slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/*
 * A short-lived file's events: CREATE first, DELETE last (what comes
 * between depends on when the server read the host's events: the
 * server drops the write's events of a name already gone).
 */
static bool smoke_events(int root)
{
	struct vm_event ev;
	int i;

	if (!vm_inotify_expect(root, IN_CREATE, "hc_smoke", NULL))
		return false;
	for (i = 0; i < 8 && vm_inotify_next(root, &ev); i++) {
		if (strcmp(ev.name, "hc_smoke"))
			break;
		if (ev.mask == IN_DELETE)
			return true;
	}
	return false;
}

/*
 * The harness itself: a host write is there when host_cmd returns. With
 * rnotifyfs the root's watch gets its events too, which may come after
 * host_cmd returned: read here, so that none is left for later checks.
 */
static void test_host_cmd(int root, bool events)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/hc_smoke", mnt);
	VCHECK("host_cmd_write", host_cmd("write %s hc_smoke hello",
					       tag) == 0);
	VCHECK("host_cmd_read_back",
	       !strcmp(slurp(path, buf, sizeof(buf)), "hello"));
	VCHECK("host_cmd_errno",
	       host_cmd("unlink %s hc_none", tag) == ENOENT);
	VCHECK("host_cmd_unlink", host_cmd("unlink %s hc_smoke",
						tag) == 0);
	if (events)
		VCHECK("ev_host_cmd_events", smoke_events(root));
}

const char *at(const char *rel)
{
	static char paths[4][512];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", mnt, rel);
	return p;
}

bool reads(const char *rel, const char *want)
{
	char buf[256];

	return !strcmp(slurp(at(rel), buf, sizeof(buf)), want);
}

/* Each kind of remote change, one at a time, by inotify on its directory. */
static void test_inotify(int root)
{
	uint32_t c1 = 0, c2 = 0;
	struct stat st;
	int in = inotify_init1(IN_CLOEXEC);

	VCHECK("ev_mkdir", host_cmd("mkdir %s ev", tag) == 0 &&
	       vm_inotify_expect(root, IN_CREATE | IN_ISDIR, "ev", NULL));
	VCHECK("ev_watch", in >= 0 && inotify_add_watch(in, at("ev"),
							 IN_EVENTS) >= 0);
	VCHECK("ev_write_new", host_cmd("write %s ev/f1 hello", tag) == 0);
	VCHECK("ev_create", vm_inotify_expect(in, IN_CREATE, "f1", NULL));
	/* f1 was never looked up: the server sends it for ev's mask. */
	VCHECK("ev_modify_by_mask", vm_inotify_expect(in, IN_MODIFY, "f1",
						      NULL));
	VCHECK("ev_close_write", vm_inotify_expect(in, IN_CLOSE_WRITE, "f1",
						   NULL));
	VCHECK("ev_read_new", reads("ev/f1", "hello"));
	VCHECK("ev_append", host_cmd("append %s ev/f1 +world", tag) == 0 &&
	       vm_inotify_expect(in, IN_MODIFY, "f1", NULL) &&
	       vm_inotify_expect(in, IN_CLOSE_WRITE, "f1", NULL));
	VCHECK("ev_read_after_append", reads("ev/f1", "hello+world"));
	VCHECK("ev_chmod", host_cmd("chmod %s ev/f1 600", tag) == 0 &&
	       vm_inotify_expect(in, IN_ATTRIB, "f1", NULL));
	VCHECK("ev_mode_after_chmod", !stat(at("ev/f1"), &st) &&
	       (st.st_mode & 07777) == 0600);
	VCHECK("ev_truncate", host_cmd("truncate %s ev/f1 5", tag) == 0 &&
	       vm_inotify_expect(in, IN_MODIFY, "f1", NULL) &&
	       vm_inotify_expect(in, IN_CLOSE_WRITE, "f1", NULL));
	VCHECK("ev_read_after_truncate", reads("ev/f1", "hello"));
	VCHECK("ev_setxattr", host_cmd("setxattr %s ev/f1 user.k v", tag) == 0 &&
	       vm_inotify_expect(in, IN_ATTRIB, "f1", NULL));
	VCHECK("ev_rename", host_cmd("rename %s ev/f1 ev/f2", tag) == 0 &&
	       vm_inotify_expect(in, IN_MOVED_FROM, "f1", &c1) &&
	       vm_inotify_expect(in, IN_MOVED_TO, "f2", &c2));
	VCHECK("ev_rename_one_cookie", c1 && c1 == c2);
	VCHECK("ev_read_after_rename", reads("ev/f2", "hello") &&
	       access(at("ev/f1"), F_OK) && errno == ENOENT);
	VCHECK("ev_link", host_cmd("link %s ev/f2 ev/f3", tag) == 0 &&
	       vm_inotify_expect(in, IN_CREATE, "f3", NULL));
	VCHECK("ev_symlink", host_cmd("symlink %s ev/s1 f2", tag) == 0 &&
	       vm_inotify_expect(in, IN_CREATE, "s1", NULL));
	VCHECK("ev_unlink", host_cmd("unlink %s ev/f3", tag) == 0 &&
	       vm_inotify_expect(in, IN_DELETE, "f3", NULL));
	VCHECK("ev_subdir", host_cmd("mkdir %s ev/sub", tag) == 0 &&
	       vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "sub", NULL));
	VCHECK("ev_rmdir", host_cmd("rmdir %s ev/sub", tag) == 0 &&
	       vm_inotify_expect(in, IN_DELETE | IN_ISDIR, "sub", NULL));
	/* Nothing else came: a local sentinel is next. */
	VCHECK("ev_local_sentinel_next", mkdir(at("ev/zz"), 0755) == 0 &&
	       vm_inotify_expect(in, IN_CREATE | IN_ISDIR, "zz", NULL));
	VCHECK("ev_cleanup", host_cmd("unlink %s ev/s1", tag) == 0 &&
	       vm_inotify_expect(in, IN_DELETE, "s1", NULL));
	close(in);
}

/* virtiofsd has no events: a local sentinel's comes first. */
static void test_reference(int root)
{
	VCHECK("ref_remote_mkdir", host_cmd("mkdir %s ev", tag) == 0);
	VCHECK("ref_no_remote_event", mkdir(at("zz"), 0755) == 0 &&
	       vm_inotify_expect(root, IN_CREATE | IN_ISDIR, "zz", NULL));
}

int main(int argc, char **argv)
{
	int root;

	if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "smoke"))) {
		fprintf(stderr,
			"usage: vfs_events LABEL MOUNTPOINT TAG [smoke]\n");
		return 2;
	}
	label = argv[1];
	mnt = argv[2];
	tag = argv[3];
	/* frame_server's export: its own marks only, no host_cmd. */
	if (!strcmp(tag, "frames")) {
		test_frames();
		return failures ? 1 : 0;
	}
	root = inotify_init1(IN_CLOEXEC);
	VCHECK("root_watch", root >= 0 &&
	       inotify_add_watch(root, mnt, IN_EVENTS) >= 0);
	test_host_cmd(root, strcmp(label, "virtiofsd"));
	/* smoke: init's second mount, where fetching must work again. */
	if (argc == 5) {
		close(root);
		return failures ? 1 : 0;
	}
	if (!strcmp(label, "virtiofsd")) {
		test_reference(root);
	} else {
		test_inotify(root);
		test_marks(root);
		test_overflow();
	}
	close(root);
	return failures ? 1 : 0;
}
