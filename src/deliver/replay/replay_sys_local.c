// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replays on a mount of this machine's kernel: the system calls
 * themselves, made by the replaying thread, whose working directory is
 * the mount root during a turn (mount_cwd.h), so that AT_FDCWD names the
 * mount. The gate knows the thread by its id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deliver/common/fuse_handle.h"
#include "replay_internal.h"

/* The thread's id, without a system call after the first. */
static pid_t self_tid(void)
{
	static __thread pid_t tid;

	if (!tid)
		tid = gettid();
	return tid;
}

static void local_caller(void *arg, pid_t *tid, uid_t *uid)
{
	*tid = self_tid();
	*uid = (uid_t)-1;
}

/*
 * Where this thread is: the working directory is the thread's own, and
 * the next holder of the replayer's role may enter before the last one
 * has left.
 */
static __thread struct mount_cwd thread_cwd;

/* arg: the mount's path and device (the device 0 if not known yet). */
static int local_enter(void *arg)
{
	const struct mount_cwd *mount = arg;

	if (!thread_cwd.in) {
		thread_cwd.path = mount->path;
		thread_cwd.dev = mount->dev;
	}
	return mount_cwd_enter(&thread_cwd);
}

static void local_leave(void *arg)
{
	mount_cwd_leave(&thread_cwd);
}

static int open_flags(int how)
{
	int flags = O_CLOEXEC;

	if (how & REPLAY_OPEN_PATH)
		flags |= O_PATH;
	if (how & REPLAY_OPEN_DIR)
		flags |= O_DIRECTORY;
	if (how & REPLAY_OPEN_NOFOLLOW)
		flags |= O_NOFOLLOW;
	if (how & REPLAY_OPEN_CREATE)
		flags |= O_CREAT | O_EXCL | O_WRONLY | O_NONBLOCK;
	if (how & REPLAY_OPEN_WRITE)
		flags |= O_WRONLY | O_NONBLOCK;
	return flags;
}

static int ret_of(int ret)
{
	return ret < 0 ? -errno : ret;
}

static int local_open_node(void *arg, uint64_t id, uint32_t gen, int how)
{
	return fuse_handle_open(AT_FDCWD, id, gen, open_flags(how));
}

static int local_openat(void *arg, int dfd, const char *name, int how,
			mode_t mode)
{
	return ret_of(openat(dfd, name, open_flags(how), mode));
}

/* "/proc/self/fd/N": the held object itself, whatever its name now. */
static void fd_path(int fd, char *path, size_t size)
{
	snprintf(path, size, "/proc/self/fd/%d", fd);
}

static int local_reopen(void *arg, int fd, int how)
{
	char path[32];

	fd_path(fd, path, sizeof(path));
	return ret_of(open(path, open_flags(how)));
}

static int local_node_of(void *arg, int fd, uint64_t *id, uint32_t *gen)
{
	return fuse_handle_node(fd, id, gen);
}

static int local_mknodat(void *arg, int dfd, const char *name, mode_t mode,
			 dev_t rdev)
{
	return ret_of(mknodat(dfd, name, mode, rdev));
}

static int local_mkdirat(void *arg, int dfd, const char *name, mode_t mode)
{
	return ret_of(mkdirat(dfd, name, mode));
}

static int local_symlinkat(void *arg, int dfd, const char *name)
{
	return ret_of(symlinkat(".", dfd, name));	/* target unused */
}

static int local_linkat(void *arg, int fd, int dfd, const char *name)
{
	char path[32];

	fd_path(fd, path, sizeof(path));
	return ret_of(linkat(AT_FDCWD, path, dfd, name, AT_SYMLINK_FOLLOW));
}

static int local_unlinkat(void *arg, int dfd, const char *name, int rmdir)
{
	return ret_of(unlinkat(dfd, name, rmdir ? AT_REMOVEDIR : 0));
}

static int local_renameat(void *arg, int sfd, const char *name, int dfd,
			  const char *newname)
{
	return ret_of(renameat(sfd, name, dfd, newname));
}

static int local_write_byte(void *arg, int fd)
{
	ssize_t n = pwrite(fd, "", 1, 0);

	return n == 1 ? 0 : n < 0 ? -errno : -EIO;
}

static int local_truncate0(void *arg, int fd)
{
	return ret_of(ftruncate(fd, 0));
}

static int local_chown_link(void *arg, int fd, uid_t uid, gid_t gid)
{
	return ret_of(fchownat(fd, "", uid, gid,
			       AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH));
}

static int local_chmod(void *arg, int fd, mode_t mode)
{
	char path[32];

	fd_path(fd, path, sizeof(path));
	return ret_of(chmod(path, mode));
}

static int local_touch(void *arg, int fd)
{
	struct stat st;

	return ret_of(fstat(fd, &st));
}

static void local_close(void *arg, int fd)
{
	close(fd);
}

const struct replay_sys replay_sys_local = {
	.caller = local_caller,
	.enter = local_enter,
	.leave = local_leave,
	.open_node = local_open_node,
	.openat = local_openat,
	.reopen = local_reopen,
	.node_of = local_node_of,
	.mknodat = local_mknodat,
	.mkdirat = local_mkdirat,
	.symlinkat = local_symlinkat,
	.linkat = local_linkat,
	.unlinkat = local_unlinkat,
	.renameat = local_renameat,
	.write_byte = local_write_byte,
	.truncate0 = local_truncate0,
	.chown_link = local_chown_link,
	.chmod = local_chmod,
	.touch = local_touch,
	.close = local_close,
};
