// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/mountinfo.h"
#include "watchdog.h"

#define FUSECTL_DIR "/sys/fs/fuse/connections"
#define WATCHDOG_CHECK_MS 200

struct watchdog {
	pid_t pid;
	int release_fd;		/* write end: one byte means "ended cleanly" */
};

/*
 * The fusectl number of the mount on mountpoint: its device, as the
 * kernel encodes a dev_t.
 */
static int connection_of(const char *mountpoint, unsigned int *conn)
{
	dev_t dev;
	int err = mountinfo_dev_of(mountpoint, &dev);

	if (!err)
		*conn = major(dev) << 20 | minor(dev);
	return err;
}

static void abort_connection(unsigned int conn)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), FUSECTL_DIR "/%u/abort", conn);
	if (access(path, F_OK))
		mount("fusectl", FUSECTL_DIR, "fusectl", 0, NULL);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	/* ENOENT: the connection ended with the server after all. */
	if ((fd < 0 || write(fd, "1", 1) != 1) && errno != ENOENT)
		fuse_log(FUSE_LOG_ERR, "rnotifyfs watchdog: %s: %s\n", path,
			 strerror(errno));
	else if (fd >= 0)
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs watchdog: the server died; FUSE connection %u aborted\n",
			 conn);
	if (fd >= 0)
		close(fd);
}

/* Does a line "Field:\t<hex>" of a status file have SIGKILL pending? */
static bool status_kill_pending(FILE *f)
{
	char line[256];
	unsigned long long mask;

	while (fgets(line, sizeof(line), f))
		if ((sscanf(line, "SigPnd: %llx", &mask) == 1 ||
		     sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
		    (mask & 1ULL << (SIGKILL - 1)))
			return true;
	return false;
}

/*
 * Is the server dying? A thread stuck in a request of its own mount keeps
 * the process alive with SIGKILL pending; its main thread may be a zombie
 * already. A check for the case the death signal does not cover.
 */
static bool parent_dying(pid_t parent)
{
	char path[64], state = 0;
	bool dying = false;
	FILE *f;
	int tid;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/stat", parent);
	f = fopen(path, "re");
	if (!f || fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		dying = true;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", parent);
	d = dying || state == 'Z' ? NULL : opendir(path);
	while (d && !dying && (de = readdir(d))) {
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", parent,
			 tid);
		f = fopen(path, "re");
		dying = f && status_kill_pending(f);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return dying || state == 'Z';
}

/*
 * The child: waits for its parent's main thread to die (the death
 * signal) or for the parent to be found dying (checked every
 * WATCHDOG_CHECK_MS), then asks how it ended.
 */
static void watchdog_main(pid_t parent, int release_fd, unsigned int conn)
{
	struct timespec check = { 0, WATCHDOG_CHECK_MS * 1000000L };
	sigset_t set;
	char byte;

	/* Out of the terminal's process group: Ctrl-C is the server's. */
	setsid();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR1) || getppid() != parent)
		_exit(1);
	while (sigtimedwait(&set, NULL, &check) < 0 && !parent_dying(parent))
		;
	if (read(release_fd, &byte, 1) != 1)
		abort_connection(conn);
	_exit(0);
}

struct watchdog *watchdog_start(const char *mountpoint)
{
	struct watchdog *w = calloc(1, sizeof(*w));
	pid_t parent = getpid();
	unsigned int conn = 0;
	int p[2], err;

	if (!w)
		return NULL;
	err = connection_of(mountpoint, &conn);
	if (!err && pipe2(p, O_CLOEXEC))
		err = -errno;
	if (err) {
		free(w);
		errno = -err;
		return NULL;
	}
	w->pid = fork();
	if (w->pid == 0) {
		/*
		 * Only the pipe: an inherited /dev/fuse fd would keep the
		 * connection alive after the server is gone.
		 */
		dup2(p[0], 3);
		close_range(4, ~0U, 0);
		fcntl(3, F_SETFL, O_NONBLOCK);
		watchdog_main(parent, 3, conn);
	}
	close(p[0]);
	w->release_fd = p[1];
	if (w->pid < 0) {
		close(p[1]);
		free(w);
		return NULL;
	}
	return w;
}

void watchdog_release(struct watchdog *w)
{
	if (!w)
		return;
	if (write(w->release_fd, "q", 1) != 1)
		fuse_log(FUSE_LOG_WARNING, "rnotifyfs: watchdog: %s\n",
			 strerror(errno));
	close(w->release_fd);
	/* It exits when this thread does; reap it if it already has. */
	waitpid(w->pid, NULL, WNOHANG);
	free(w);
}
