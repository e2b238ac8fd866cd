// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
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

/*
 * The child runs forked from a server whose other threads (the mount
 * table's, an agent channel's) may hold the allocator's, stdio's or the
 * log's locks at that moment: it calls nothing that takes them (ASan's
 * allocator deadlocked in a closedir() here). So its lines go out by
 * hand: one datagram to syslog's socket, or one write to stderr.
 */
static bool say_syslog;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	struct sockaddr_un log = { .sun_family = AF_UNIX,
				   .sun_path = "/dev/log" };
	char line[320];
	va_list ap;
	int n = 0, fd;

	/* <27>: LOG_DAEMON | LOG_ERR. */
	if (say_syslog)
		n = snprintf(line, sizeof(line), "<27>rnotifyfs[%d]: ",
			     (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	/* Nowhere else to say it if this fails. */
	if (!say_syslog) {
		ssize_t unsaid = write(STDERR_FILENO, line, n);

		(void)unsaid;
		return;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, line, n, 0, (struct sockaddr *)&log, sizeof(log));
	close(fd);
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
		say("rnotifyfs watchdog: %s: %s\n", path,
		    strerrorname_np(errno));
	else if (fd >= 0)
		say("rnotifyfs watchdog: the server died; FUSE connection %u aborted\n",
		    conn);
	if (fd >= 0)
		close(fd);
}

/* A /proc file into buf (NUL-terminated); false if it cannot be read. */
static bool read_proc(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = 0;
	return true;
}

/* Has a status file's "SigPnd:" or "ShdPnd:" line SIGKILL pending? */
static bool status_kill_pending(const char *status)
{
	static const char *const fields[] = { "\nSigPnd:", "\nShdPnd:" };
	unsigned long long mask;
	const char *at;
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		at = strstr(status, fields[i]);
		if (!at)
			continue;
		mask = strtoull(at + strlen(fields[i]), NULL, 16);
		if (mask & 1ULL << (SIGKILL - 1))
			return true;
	}
	return false;
}

/* Does one of the tasks listed in the getdents64() buffer have it? */
static bool tasks_kill_pending(pid_t parent, const char *buf, ssize_t len)
{
	char path[64], status[4096];
	const struct dirent64 *de;
	ssize_t off;
	int tid;

	for (off = 0; off < len; off += de->d_reclen) {
		de = (const struct dirent64 *)(buf + off);
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", parent,
			 tid);
		if (read_proc(path, status, sizeof(status)) &&
		    status_kill_pending(status))
			return true;
	}
	return false;
}

/*
 * Is the server dying? A thread stuck in a request of its own mount keeps
 * the process alive with SIGKILL pending; its main thread may be a zombie
 * already. A check for the case the death signal does not cover.
 */
static bool parent_dying(pid_t parent)
{
	char path[64], stat[512], dents[4096] __attribute__((aligned(8)));
	const char *comm_end;
	bool dying = false;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", parent);
	if (!read_proc(path, stat, sizeof(stat)))
		return true;
	/* "pid (comm) S ...": comm may hold any byte, ')' too. */
	comm_end = strrchr(stat, ')');
	if (!comm_end || comm_end[1] != ' ' || comm_end[2] == 'Z')
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task", parent);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0 && !dying &&
	       (n = getdents64(fd, dents, sizeof(dents))) > 0)
		dying = tasks_kill_pending(parent, dents, n);
	if (fd >= 0)
		close(fd);
	return dying;
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

struct watchdog *watchdog_start(const char *mountpoint, bool to_syslog)
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
	say_syslog = to_syslog;
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
