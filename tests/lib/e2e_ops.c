// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File operations from a table, and the remote actor that runs them.
 *
 * A remote change must come from a process that is neither the test (whose
 * own changes through MNT are local) nor the server: e2e_remote() forks a
 * child that applies the ops on BACKING and reports 0 or failure through
 * its exit status. The same table applied through MNT in this process is
 * the local change, so one scenario describes both.
 *
 * Every op works relative to a directory fd of root/base with *at() calls
 * and does not follow a final symlink, so a test cannot wander out of its
 * temporary tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#define REMOTE_TIMEOUT_MS 60000

static int e2e_write_all(int fd, const char *data)
{
	size_t len = data ? strlen(data) : 0, done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, data + done, len - done);
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

static int e2e_open_write(int dir, const char *path, int flags,
			  const char *data)
{
	int fd = openat(dir, path, flags | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			0644);
	int err;

	if (fd < 0)
		return -errno;
	err = e2e_write_all(fd, data);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * truncate(2) by path, not open + ftruncate: an open for writing would add
 * its own CLOSE_WRITE. There is no truncateat(), so go through the dir fd.
 */
static int e2e_truncate_at(int dir, const char *path, off_t len)
{
	char full[PATH_MAX + 32];

	snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", dir, path);
	return truncate(full, len) ? -errno : 0;
}

static int e2e_utimes_at(int dir, const char *path, long secs)
{
	struct timespec ts[2] = { { secs, 0 }, { secs, 0 } };

	return utimensat(dir, path, ts, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/* What touch(1) does to a name that does not exist yet. */
static int e2e_touch_at(int dir, const char *path)
{
	int fd = openat(dir, path, O_CREAT | O_WRONLY | O_NOCTTY |
			O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (futimens(fd, NULL))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Returns 0 or -errno; the syscalls that return 0/-1 share one exit. */
static int e2e_op_apply(int dir, const struct e2e_op *op)
{
	int rc;

	switch (op->kind) {
	case E2E_MKNOD:
		rc = mknodat(dir, op->path, S_IFREG | 0644, 0);
		break;
	case E2E_CREAT:
		return e2e_open_write(dir, op->path, O_CREAT | O_EXCL, op->arg);
	case E2E_WRITE:
		return e2e_open_write(dir, op->path, O_TRUNC, op->arg);
	case E2E_APPEND:
		return e2e_open_write(dir, op->path, O_APPEND, op->arg);
	case E2E_OVERWRITE:
		return e2e_open_write(dir, op->path, 0, op->arg);
	case E2E_MKDIR:
		rc = mkdirat(dir, op->path, 0755);
		break;
	case E2E_UNLINK:
		rc = unlinkat(dir, op->path, 0);
		break;
	case E2E_RMDIR:
		rc = unlinkat(dir, op->path, AT_REMOVEDIR);
		break;
	case E2E_RENAME:
		rc = renameat(dir, op->path, dir, op->arg);
		break;
	case E2E_CHMOD:
		rc = fchmodat(dir, op->path, (mode_t)op->num, 0);
		break;
	case E2E_CHOWN:
		rc = fchownat(dir, op->path, (uid_t)op->num, (gid_t)op->num,
			      AT_SYMLINK_NOFOLLOW);
		break;
	case E2E_UTIMES:
		return e2e_utimes_at(dir, op->path, op->num);
	case E2E_TRUNCATE:
		return e2e_truncate_at(dir, op->path, (off_t)op->num);
	case E2E_SYMLINK:
		rc = symlinkat(op->arg, dir, op->path);
		break;
	case E2E_LINK:
		rc = linkat(dir, op->path, dir, op->arg, 0);
		break;
	case E2E_TOUCH:
		return e2e_touch_at(dir, op->path);
	default:
		return -EINVAL;
	}
	return rc ? -errno : 0;
}

int e2e_ops_apply(const char *root, const char *base, const struct e2e_op *ops)
{
	char path[PATH_MAX];
	int dir, err = 0;

	snprintf(path, sizeof(path), "%s/%s", root, base ? base : "");
	/* O_PATH: a real open would give the base's watchers OPEN|ISDIR. */
	dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		fprintf(stderr, "e2e: open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	for (; ops->kind != E2E_END && !err; ops++) {
		err = e2e_op_apply(dir, ops);
		if (err)
			fprintf(stderr, "e2e: op %d on %s/%s: %s\n", ops->kind,
				path, ops->path, strerror(-err));
	}
	close(dir);
	return err;
}

pid_t e2e_remote_start(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg) ? 1 : 0);
	return pid;
}

int e2e_remote_wait(pid_t pid)
{
	struct timespec nap = { 0, 1000000L };
	int status, waited;

	if (pid < 0)
		return -1;
	for (waited = 0; waited < REMOTE_TIMEOUT_MS; waited++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status) ?
				0 : -1;
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

struct e2e_remote_job {
	const char *base;
	const struct e2e_op *ops;
};

static int e2e_remote_job_run(void *arg)
{
	struct e2e_remote_job *job = arg;

	return e2e_ops_apply(e2e_backing(), job->base, job->ops);
}

int e2e_remote(const char *base, const struct e2e_op *ops)
{
	struct e2e_remote_job job = { base, ops };

	return e2e_remote_wait(e2e_remote_start(e2e_remote_job_run, &job));
}

int e2e_local(const char *base, const struct e2e_op *ops)
{
	return e2e_ops_apply(e2e_mnt(), base, ops);
}
