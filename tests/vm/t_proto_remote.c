// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_remote - fsnotify 1/7 and 2/7, fuse 3/9 and 4/9: remote events are opt-in and marked.
 * On a mount without remote_events: a fanotify mark without
 * FAN_MARK_REMOTE gets local events and no remote one, and costs the
 * server no mask; a mark with it gets remote events with FAN_REMOTE and
 * local ones without; inotify gets no remote event while the sysctl
 * fs.inotify.remote_events is 0, and a watch made once it is 1 gets them
 * (the other t_proto tests mount with remote_events: inotify gets them).
 * That a remote event did not arrive is shown by a local sentinel change
 * whose event must come next.
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
#include "vmcall.h"
#include "vmfs.h"
#include "vmserver.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_remote"
#define SYSCTL "/proc/sys/fs/inotify/remote_events"
#define DIRENT (FAN_CREATE | FAN_DELETE | FAN_ONDIR)

static bool set_sysctl(const char *value)
{
	return vm_put(SYSCTL, value, O_TRUNC);
}

static bool sysctl_is(char want)
{
	char c = 0;
	int fd = open(SYSCTL, O_RDONLY);
	bool ok = fd >= 0 && read(fd, &c, 1) == 1 && c == want;

	close(fd);
	return ok;
}

static int fan_group(void)
{
	return fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME, O_RDONLY);
}

static bool remote_create(const char *name)
{
	return vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE, 0, name) == 0;
}

static bool local_create(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), MNT "/%s", name);
	return mknod(path, S_IFREG | 0644, 0) == 0;
}

/*
 * Marks that did not ask: an inotify watch (sysctl 0) and a fanotify
 * mark without FAN_MARK_REMOTE.  Neither reaches the server, which
 * learns only the opted-in mark's mask; neither gets the remote create.
 */
static void test_opt_in(void)
{
	int ifd = inotify_init1(IN_CLOEXEC), ifd2 = inotify_init1(IN_CLOEXEC);
	int local = fan_group(), remote = fan_group();
	unsigned int updates;
	uint64_t mask = 0;

	CHECK("remote: the sysctl is 0 by default", sysctl_is('0'));
	updates = vmfs_watch_count();
	CHECK("remote: inotify watch", inotify_add_watch(ifd, MNT,
	      IN_CREATE | IN_DELETE) >= 0);
	CHECK("remote: fanotify mark without FAN_MARK_REMOTE",
	      local >= 0 && fanotify_mark(local, FAN_MARK_ADD, DIRENT,
					  AT_FDCWD, MNT) == 0);
	CHECK("remote: fanotify mark with FAN_MARK_REMOTE",
	      remote >= 0 && fanotify_mark(remote, FAN_MARK_ADD |
					   FAN_MARK_REMOTE, FAN_CREATE,
					   AT_FDCWD, MNT) == 0);
	CHECK("remote: the server gets the opted-in mark's mask alone",
	      vmfs_wait_mask(1, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_CREATE,
			     0, VM_WAIT_MS, &mask) &&
	      mask == FUSE_FSNOTIFY_CREATE);
	CHECK("remote: one mask update, none for the other watchers",
	      vmfs_watch_count() == updates + 1);

	CHECK("remote: send a remote create", remote_create("r1"));
	CHECK("remote: local sentinel", local_create("s1"));
	CHECK("remote: inotify (sysctl 0): the sentinel, no remote event",
	      vm_inotify_expect(ifd, IN_CREATE, "s1", NULL));
	CHECK("remote: fanotify without FAN_MARK_REMOTE: the local event",
	      vm_fanotify_expect(local, FAN_CREATE, "s1"));
	CHECK("remote: FAN_MARK_REMOTE: the remote event with FAN_REMOTE",
	      vm_fanotify_expect(remote, FAN_CREATE | FAN_REMOTE, "r1"));
	CHECK("remote: FAN_MARK_REMOTE: the local event without it",
	      vm_fanotify_expect(remote, FAN_CREATE, "s1"));

	/* The sysctl counts when a watch is made: the old one stays out */
	CHECK("remote: set the sysctl to 1", set_sysctl("1"));
	CHECK("remote: a new inotify watch (sysctl 1)",
	      inotify_add_watch(ifd2, MNT, IN_CREATE) >= 0);
	CHECK("remote: the server gets its mask now",
	      vmfs_wait_mask(1, FUSE_FSNOTIFY_INODE, FUSE_FSNOTIFY_CREATE |
			     FUSE_FSNOTIFY_EVENT_ON_CHILD, 0, VM_WAIT_MS,
			     &mask));
	CHECK("remote: send a remote create after", remote_create("r2"));
	CHECK("remote: inotify (sysctl 1): the remote event",
	      vm_inotify_expect(ifd2, IN_CREATE, "r2", NULL));
	CHECK("remote: set the sysctl back to 0", set_sysctl("0"));
	CHECK("remote: local sentinel 2", local_create("s2"));
	CHECK("remote: inotify (sysctl 1): the sentinel after it",
	      vm_inotify_expect(ifd2, IN_CREATE, "s2", NULL));
	CHECK("remote: the watch made at 0 still gets no remote event",
	      vm_inotify_expect(ifd, IN_CREATE, "s2", NULL));
	CHECK("remote: fanotify without FAN_MARK_REMOTE: still local only",
	      vm_fanotify_expect(local, FAN_CREATE, "s2"));
	CHECK("remote: FAN_MARK_REMOTE: r2 remote, s2 local",
	      vm_fanotify_expect(remote, FAN_CREATE | FAN_REMOTE, "r2") &&
	      vm_fanotify_expect(remote, FAN_CREATE, "s2"));
	close(ifd);
	close(ifd2);
	close(local);
	close(remote);
}

/* FAN_MARK_REMOTE adds a mark's interest, on an inode or a filesystem */
static void test_mark_flags(void)
{
	int fan = fan_group();

	/* Valid without FAN_MARK_REMOTE: a mount mark for a path event */
	CHECK("remote: FAN_MARK_REMOTE on a mount mark is EINVAL",
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT |
			    FAN_MARK_REMOTE, FAN_MODIFY, AT_FDCWD, MNT) < 0 &&
	      errno == EINVAL);
	CHECK("remote: FAN_MARK_REMOTE with an ignore mask is EINVAL",
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV |
			    FAN_MARK_REMOTE, FAN_CREATE, AT_FDCWD, MNT) < 0 &&
	      errno == EINVAL);
	CHECK("remote: the same marks without it are valid",
	      !fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY,
			     AT_FDCWD, MNT) &&
	      !fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_IGNORE_SURV,
			     FAN_CREATE, AT_FDCWD, MNT));
	CHECK("remote: FAN_MARK_REMOTE with FAN_MARK_REMOVE is EINVAL",
	      fanotify_mark(fan, FAN_MARK_REMOVE | FAN_MARK_REMOTE,
			    FAN_CREATE, AT_FDCWD, MNT) < 0 && errno == EINVAL);
	close(fan);
}

/* The mount's options say whether inotify gets remote events. */
static bool mount_shows_remote_events(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " " MNT " "))
			found = strstr(line, ",remote_events") != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true,
				  .no_remote_events = true };

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("remote: mount vmfs", 0);
		return check_exit();
	}
	CHECK("remote: mount answers", access(MNT, F_OK) == 0);
	CHECK("remote: server accepted FUSE_HAS_FSNOTIFY", vmfs_fsnotify_on());
	CHECK("remote: mount without remote_events shows none",
	      !mount_shows_remote_events());
	test_opt_in();
	test_mark_flags();
	vmfs_stop();
	return check_exit();
}
