// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's system calls on its mount, one per CALL the backend sends
 * (protocol/agent_wire.h). The backend is not trusted with anything but
 * that mount: every object is reached from the mount's fd (by FUSE file
 * handle, which names objects of that file system only) or from an fd
 * of the agent's own table, opened that way; every name is one
 * component (the decoder refuses "/", "." and ".."), and openat2()
 * refuses to leave the directory, cross a mount or follow a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "deliver/common/fuse_handle.h"
#include "deliver/replay/replay_sys.h"
#include "agent.h"

void agent_fds_close_all(struct agent *a)
{
	for (int i = 0; i < AGENT_FDS; i++) {
		if (a->fds[i] >= 0)
			close(a->fds[i]);
		a->fds[i] = -1;
	}
}

/* The fd behind a slot the backend names, or -EBADF. */
static int fd_at(const struct agent *a, uint64_t slot)
{
	return slot < AGENT_FDS && a->fds[slot] >= 0 ? a->fds[slot] : -EBADF;
}

/* Keeps fd in a free slot: the slot, or -EMFILE (fd closed). */
static int slot_keep(struct agent *a, int fd)
{
	if (fd < 0)
		return -errno;
	for (int i = 0; i < AGENT_FDS; i++) {
		if (a->fds[i] < 0) {
			a->fds[i] = fd;
			return i;
		}
	}
	close(fd);
	return -EMFILE;
}

static int open_flags(uint64_t how, int *flags)
{
	const uint64_t known = REPLAY_OPEN_PATH | REPLAY_OPEN_DIR |
			       REPLAY_OPEN_NOFOLLOW | REPLAY_OPEN_CREATE |
			       REPLAY_OPEN_WRITE;

	if (how & ~known)
		return -EINVAL;
	*flags = O_CLOEXEC;
	if (how & REPLAY_OPEN_PATH)
		*flags |= O_PATH;
	if (how & REPLAY_OPEN_DIR)
		*flags |= O_DIRECTORY;
	if (how & REPLAY_OPEN_NOFOLLOW)
		*flags |= O_NOFOLLOW;
	if (how & REPLAY_OPEN_CREATE)
		*flags |= O_CREAT | O_EXCL | O_WRONLY | O_NONBLOCK;
	if (how & REPLAY_OPEN_WRITE)
		*flags |= O_WRONLY | O_NONBLOCK;
	return 0;
}

static int ret_of(int ret)
{
	return ret < 0 ? -errno : ret;
}

static int call_open_node(struct agent *a, const struct agent_msg *m)
{
	int flags, err = open_flags(m->arg[2], &flags);

	if (err)
		return err;
	if (m->arg[1] > UINT32_MAX)
		return -EINVAL;
	err = fuse_handle_open(a->mount_fd, m->arg[0], (uint32_t)m->arg[1],
			       flags);
	return err < 0 ? err : slot_keep(a, err);
}

static int call_openat(struct agent *a, const struct agent_msg *m)
{
	struct open_how how = {
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV |
			   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int dfd = fd_at(a, m->arg[0]), flags;
	int err = open_flags(m->arg[1], &flags);

	if (dfd < 0 || err)
		return dfd < 0 ? dfd : err;
	how.flags = flags;
	if (flags & O_CREAT)
		how.mode = m->arg[2] & 07777;
	return slot_keep(a, syscall(SYS_openat2, dfd, m->name, &how,
				    sizeof(how)));
}

/* "/proc/self/fd/N": the object itself, whatever its name now. */
static int fd_path(const struct agent *a, uint64_t slot, char *path,
		   size_t size)
{
	int fd = fd_at(a, slot);

	if (fd >= 0)
		snprintf(path, size, "/proc/self/fd/%d", fd);
	return fd;
}

static int call_reopen(struct agent *a, const struct agent_msg *m)
{
	char path[32];
	int flags, err = open_flags(m->arg[1], &flags);

	if (err || (flags & O_CREAT))
		return -EINVAL;
	err = fd_path(a, m->arg[0], path, sizeof(path));
	if (err < 0)
		return err;
	return slot_keep(a, open(path, flags));
}

static int call_node_of(struct agent *a, const struct agent_msg *m,
			struct agent_msg *res)
{
	uint64_t id;
	uint32_t gen;
	int fd = fd_at(a, m->arg[0]), err;

	if (fd < 0)
		return fd;
	err = fuse_handle_node(fd, &id, &gen);
	if (err)
		return err;
	res->id = id;
	res->gen = gen;
	return 0;
}

static int call_names(struct agent *a, const struct agent_msg *m)
{
	int dfd = fd_at(a, m->arg[0]);
	mode_t type;

	if (dfd < 0)
		return dfd;
	switch (m->op) {
	case AGENT_MKNOD:
		type = m->arg[1] & S_IFMT;
		if (type != S_IFREG && type != S_IFIFO && type != S_IFSOCK &&
		    type != S_IFCHR && type != S_IFBLK)
			return -EINVAL;
		return ret_of(mknodat(dfd, m->name, m->arg[1] & (S_IFMT | 07777),
				      m->arg[2]));
	case AGENT_MKDIR:
		return ret_of(mkdirat(dfd, m->name, m->arg[1] & 07777));
	case AGENT_SYMLINK:
		return ret_of(symlinkat(".", dfd, m->name));
	case AGENT_UNLINK:
		return ret_of(unlinkat(dfd, m->name,
				       m->arg[1] ? AT_REMOVEDIR : 0));
	default:
		return -EINVAL;
	}
}

static int call_link(struct agent *a, const struct agent_msg *m)
{
	int dfd = fd_at(a, m->arg[1]);
	char path[32];
	int err = fd_path(a, m->arg[0], path, sizeof(path));

	if (err < 0 || dfd < 0)
		return err < 0 ? err : dfd;
	return ret_of(linkat(AT_FDCWD, path, dfd, m->name, AT_SYMLINK_FOLLOW));
}

static int call_rename(struct agent *a, const struct agent_msg *m)
{
	int sfd = fd_at(a, m->arg[0]), dfd = fd_at(a, m->arg[1]);

	if (sfd < 0 || dfd < 0)
		return sfd < 0 ? sfd : dfd;
	return ret_of(renameat(sfd, m->name, dfd, m->name2));
}

static int call_on_fd(struct agent *a, const struct agent_msg *m)
{
	int fd = fd_at(a, m->arg[0]);
	char path[32];
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return fd;
	switch (m->op) {
	case AGENT_WRITE_BYTE:
		n = pwrite(fd, "", 1, 0);
		return n == 1 ? 0 : n < 0 ? -errno : -EIO;
	case AGENT_TRUNCATE0:
		return ret_of(ftruncate(fd, 0));
	case AGENT_CHOWN_LINK:
		return ret_of(fchownat(fd, "", m->arg[1], m->arg[2],
				       AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH));
	case AGENT_CHMOD:
		fd_path(a, m->arg[0], path, sizeof(path));
		return ret_of(chmod(path, m->arg[1] & 07777));
	case AGENT_TOUCH:
		return ret_of(fstat(fd, &st));
	case AGENT_CLOSE:
		close(fd);
		a->fds[m->arg[0]] = -1;
		return 0;
	default:
		return -EINVAL;
	}
}

int agent_call(struct agent *a, const struct agent_msg *m,
	       struct agent_msg *res)
{
	switch (m->op) {
	case AGENT_OPEN_NODE:
		return call_open_node(a, m);
	case AGENT_OPENAT:
		return call_openat(a, m);
	case AGENT_REOPEN:
		return call_reopen(a, m);
	case AGENT_NODE_OF:
		return call_node_of(a, m, res);
	case AGENT_MKNOD:
	case AGENT_MKDIR:
	case AGENT_SYMLINK:
	case AGENT_UNLINK:
		return call_names(a, m);
	case AGENT_LINK:
		return call_link(a, m);
	case AGENT_RENAME:
		return call_rename(a, m);
	default:
		return call_on_fd(a, m);
	}
}
