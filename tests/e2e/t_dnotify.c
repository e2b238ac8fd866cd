// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dnotify (fcntl F_NOTIFY), the oldest watcher API, on a directory of the
 * mount: each remote change in it raises exactly as many signals, with
 * the directory's fd, as native dnotify raises for the same change on
 * BACKING (run with --native to check the counts against the kernel).
 * dnotify tells nothing but "something changed here", so the count of
 * signals per change is what can be compared. The remote sentinel of
 * e2e_sync() goes to the root, not to the watched directory: once it is
 * seen, every signal of the change is already queued.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define DN_ALL (DN_CREATE | DN_DELETE | DN_MODIFY | DN_RENAME | DN_ATTRIB)

struct dn_step {
	const char *check;
	struct e2e_op ops[2];
	int signals;
};

/*
 * A rename in the directory is three fsnotify events for it: RENAME
 * (DN_RENAME), MOVED_FROM (DN_DELETE) and MOVED_TO (DN_CREATE).
 */
static const struct dn_step dn_steps[] = {
	{ "dnotify/create", { OP_MKNOD("dn/f"), OP_END }, 1 },
	{ "dnotify/append", { OP_APPEND("dn/f", "x"), OP_END }, 1 },
	{ "dnotify/chmod", { OP_CHMOD("dn/f", 0600), OP_END }, 1 },
	{ "dnotify/rename", { OP_RENAME("dn/f", "dn/g"), OP_END }, 3 },
	{ "dnotify/unlink", { OP_UNLINK("dn/g"), OP_END }, 1 },
	{ "dnotify/mkdir", { OP_MKDIR("dn/sub"), OP_END }, 1 },
	{ "dnotify/rmdir", { OP_RMDIR("dn/sub"), OP_END }, 1 },
};

#define DN_COUNT ((int)(sizeof(dn_steps) / sizeof(dn_steps[0])))

/*
 * Takes every SIGRTMIN already queued; -1 if one was not for fd or not
 * dnotify's (POLL_MSG).
 */
static int signals_queued(int fd)
{
	struct timespec now = { 0, 0 };
	siginfo_t si;
	sigset_t set;
	int n = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	while (sigtimedwait(&set, &si, &now) == SIGRTMIN) {
		if (si.si_fd != fd || si.si_code != POLL_MSG)
			return -1;
		n++;
	}
	return n;
}

/* Opens MNT/dn for dnotify: SIGRTMIN (blocked, so it queues), all events. */
static int dnotify_open(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	fd = open(e2e_mpath("dn"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || sigprocmask(SIG_BLOCK, &set, NULL) ||
	    fcntl(fd, F_SETSIG, SIGRTMIN) ||
	    fcntl(fd, F_NOTIFY, DN_ALL | DN_MULTISHOT)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void run_step(int fd, const struct dn_step *s)
{
	int n;

	if (e2e_remote("", s->ops)) {
		e2e_fail(s->check, "remote actor failed");
		return;
	}
	e2e_sync();
	n = signals_queued(fd);
	if (n == s->signals)
		e2e_pass(s->check);
	else if (n < 0)
		e2e_fail(s->check, "a signal not for the directory's fd");
	else
		e2e_fail(s->check, "%d signals, want %d", n, s->signals);
}

int main(void)
{
	static const struct e2e_op setup[] = { OP_MKDIR("dn"), OP_END };
	int fd, i;

	e2e_mount(NULL);
	if (e2e_remote("", setup)) {
		e2e_fail("dnotify/setup", "remote mkdir failed");
		return check_exit();
	}
	e2e_sync();
	fd = dnotify_open();
	if (fd < 0) {
		e2e_fail("dnotify/setup", "F_NOTIFY on MNT/dn failed");
		return check_exit();
	}
	for (i = 0; i < DN_COUNT; i++)
		run_step(fd, &dn_steps[i]);
	close(fd);
	return check_exit();
}
