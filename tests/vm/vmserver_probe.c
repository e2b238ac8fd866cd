// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmserver_probe - a running rnotifyfs seen from outside: its fds, a
 * call made while it is stopped, a file read through its mount (see
 * vmserver_probe.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmcall.h"
#include "vmserver_probe.h"
#include "vmwatch.h"

bool vm_server_pause(pid_t pid)
{
	int status;

	return !kill(pid, SIGSTOP) && waitpid(pid, &status, WUNTRACED) == pid &&
	       WIFSTOPPED(status);
}

int vm_server_add_paused(pid_t pid, const char *mnt, int (*add)(int fd),
			 int fd, bool *waited)
{
	struct vm_call call;
	struct stat st;

	*waited = false;
	if (stat(mnt, &st) || !vm_server_pause(pid))
		return -1;
	if (!vm_call_start(&call, add, fd)) {
		kill(pid, SIGCONT);
		return -1;
	}
	*waited = vm_call_sleeps(&call);
	if (kill(pid, SIGCONT))
		return -1;
	return vm_call_join(&call);
}

bool vm_server_holds(pid_t pid, const char *path)
{
	char dir[64], target[256];
	struct dirent *d;
	bool held = false;
	ssize_t n;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	fds = opendir(dir);
	while (fds && !held && (d = readdir(fds))) {
		n = readlinkat(dirfd(fds), d->d_name, target, sizeof(target));
		held = n == (ssize_t)strlen(path) && !memcmp(target, path, n);
	}
	if (fds)
		closedir(fds);
	return held;
}

bool vm_server_releases(pid_t pid, const char *path)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < VM_WAIT_MS / 10; i++) {
		if (!vm_server_holds(pid, path))
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

bool vm_reads(const char *path, const char *want)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	close(fd);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}
