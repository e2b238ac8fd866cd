/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system calls a replay makes on the mount, behind one table, so
 * that the same replayer (its choices, the gate's answers, what the
 * client was shown) can act on a mount of this machine's kernel or on a
 * virtiofs guest's, through the agent that runs there (agent_link.h).
 *
 * Every call returns 0 or more (an fd, for the opens), or a negative
 * errno. fds are the implementation's own numbers: only the table's
 * calls take them. The root node is opened as the mount itself.
 */
#ifndef RNOTIFY_DELIVER_REPLAY_REPLAY_SYS_H
#define RNOTIFY_DELIVER_REPLAY_REPLAY_SYS_H

#include <stdint.h>
#include <sys/types.h>

/* Open modes: the few a replay needs, the same on every architecture. */
enum replay_open {
	REPLAY_OPEN_PATH = 1,		/* O_PATH */
	REPLAY_OPEN_DIR = 2,		/* with O_DIRECTORY */
	REPLAY_OPEN_NOFOLLOW = 4,	/* with O_NOFOLLOW */
	REPLAY_OPEN_CREATE = 8,		/* O_CREAT | O_EXCL, write only */
	REPLAY_OPEN_WRITE = 16,		/* O_WRONLY | O_NONBLOCK */
};

struct replay_sys {
	/*
	 * Whose requests the gate answers while a replay is in flight: the
	 * thread that makes these calls (tid) and, if not (uid_t)-1, the
	 * uid they carry. A negative tid: nobody can replay now.
	 */
	void (*caller)(void *arg, pid_t *tid, uid_t *uid);
	/* Before a turn of replays, and after it. */
	int (*enter)(void *arg);
	void (*leave)(void *arg);
	int (*open_node)(void *arg, uint64_t id, uint32_t gen, int how);
	int (*openat)(void *arg, int dfd, const char *name, int how,
		      mode_t mode);
	int (*reopen)(void *arg, int fd, int how);
	int (*node_of)(void *arg, int fd, uint64_t *id, uint32_t *gen);
	int (*mknodat)(void *arg, int dfd, const char *name, mode_t mode,
		       dev_t rdev);
	int (*mkdirat)(void *arg, int dfd, const char *name, mode_t mode);
	int (*symlinkat)(void *arg, int dfd, const char *name);
	int (*linkat)(void *arg, int fd, int dfd, const char *name);
	int (*unlinkat)(void *arg, int dfd, const char *name, int rmdir);
	int (*renameat)(void *arg, int sfd, const char *name, int dfd,
			const char *newname);
	int (*write_byte)(void *arg, int fd);	/* pwrite 1 byte at 0 */
	int (*truncate0)(void *arg, int fd);
	int (*chown_link)(void *arg, int fd, uid_t uid, gid_t gid);
	int (*chmod)(void *arg, int fd, mode_t mode);
	int (*touch)(void *arg, int fd);	/* fstat: a GETATTR */
	void (*close)(void *arg, int fd);
};

/* This machine's kernel: arg is a struct replay_local (replay.c). */
extern const struct replay_sys replay_sys_local;

#endif
