// SPDX-License-Identifier: GPL-2.0-or-later
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmserver.h"

#define VM_SERVER_TICKS	500	/* of 10 ms */

static void tick(void)
{
	struct timespec t = { 0, 10 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

/* Polled: nothing tells a test when a mount appears. */
static bool wait_mounted(pid_t pid, const char *mnt)
{
	char parent[256];
	struct stat m, p;
	int i;

	snprintf(parent, sizeof(parent), "%s", mnt);
	dirname(parent);
	for (i = 0; i < VM_SERVER_TICKS; i++) {
		if (!stat(mnt, &m) && !stat(parent, &p) &&
		    m.st_dev != p.st_dev)
			return true;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		tick();
	}
	return false;
}

/* In the child: -d writes every request, and the stop's counts, to log. */
static void exec_server(const char *backing, const char *mnt,
			const char *opts, const char *log)
{
	int fd;

	if (!log) {
		execl("/bin/rnotifyfs", "rnotifyfs", "-f", "-o", opts,
		      backing, mnt, (char *)NULL);
		_exit(127);
	}
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(126);
	execl("/bin/rnotifyfs", "rnotifyfs", "-d", "-o", opts, backing, mnt,
	      (char *)NULL);
	_exit(127);
}

pid_t vm_server_start_logged(const char *backing, const char *mnt,
			     const char *opts, const char *log)
{
	pid_t pid;

	mkdir(backing, 0755);
	mkdir(mnt, 0755);
	/*
	 * libfuse cannot give the kernel rnotifyfs's remote_events mount
	 * option: inotify and dnotify watchers take its remote events by
	 * the administrator's knob instead (marks made from now on).
	 */
	if (!vm_put("/proc/sys/fs/inotify/remote_events", "1", O_TRUNC))
		return -1;
	pid = fork();
	if (pid == 0)
		exec_server(backing, mnt, opts, log);
	if (pid > 0 && !wait_mounted(pid, mnt)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

pid_t vm_server_start(const char *backing, const char *mnt,
		      const char *opts)
{
	return vm_server_start_logged(backing, mnt, opts, NULL);
}

bool vm_put(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) ==
			     (ssize_t)strlen(text);

	return !close(fd) && ok;
}

bool vm_server_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	return vm_server_wait(pid);
}

bool vm_server_wait(pid_t pid)
{
	int i, status;

	for (i = 0; i < VM_SERVER_TICKS; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status);
		tick();
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return false;
}
