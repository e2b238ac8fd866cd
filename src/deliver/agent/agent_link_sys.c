// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay's system calls (replay_sys.h) as calls to the guest's agent
 * (agent_link.h): each fd travels as the agent's slot, each result comes
 * back as the local call's would.
 */
#include <errno.h>
#include <string.h>

#include "protocol/agent_wire.h"
#include "agent_link_internal.h"

static int call_fd(struct agent_link *l, enum agent_op op, int fd,
		   uint64_t a1, uint64_t a2)
{
	struct agent_msg m = { .op = op };
	int slot = agent_link_slot(l, fd);

	if (slot < 0)
		return -ENOTCONN;
	m.arg[0] = slot;
	m.arg[1] = a1;
	m.arg[2] = a2;
	return (int)agent_link_call(l, &m, NULL);
}

static int call_name(struct agent_link *l, enum agent_op op, int dfd,
		     const char *name, uint64_t a1, uint64_t a2)
{
	struct agent_msg m = { .op = op };
	int slot = agent_link_slot(l, dfd);

	if (slot < 0)
		return -ENOTCONN;
	if (strlen(name) > AGENT_NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(m.name, name);
	m.arg[0] = slot;
	m.arg[1] = a1;
	m.arg[2] = a2;
	return (int)agent_link_call(l, &m, NULL);
}

/* The agent is guest root: only uid 0 is answered as its. */
static void link_caller(void *arg, pid_t *tid, uid_t *uid)
{
	bool ready;

	agent_link_agent(arg, &ready, tid);
	*uid = 0;
}

static int link_enter(void *arg)
{
	bool ready;
	pid_t tid;

	agent_link_agent(arg, &ready, &tid);
	return ready ? 0 : -ENOTCONN;
}

static void link_leave(void *arg)
{
}

static int link_open_node(void *arg, uint64_t id, uint32_t gen, int how)
{
	struct agent_link *l = arg;
	struct agent_msg m = { .op = AGENT_OPEN_NODE,
			       .arg = { id, gen, how } };
	return (int)agent_link_call(l, &m, NULL);
}

static int link_openat(void *arg, int dfd, const char *name, int how,
		       mode_t mode)
{
	return call_name(arg, AGENT_OPENAT, dfd, name, how, mode);
}

static int link_reopen(void *arg, int fd, int how)
{
	return call_fd(arg, AGENT_REOPEN, fd, how, 0);
}

static int link_node_of(void *arg, int fd, uint64_t *id, uint32_t *gen)
{
	struct agent_link *l = arg;
	struct agent_msg m = { .op = AGENT_NODE_OF }, res;
	int slot = agent_link_slot(l, fd);
	int64_t ret;

	if (slot < 0)
		return -ENOTCONN;
	m.arg[0] = slot;
	ret = agent_link_call(l, &m, &res);
	if (ret)
		return ret < 0 ? (int)ret : -EIO;
	if (!res.id)
		return -EIO;
	*id = res.id;
	*gen = res.gen;
	return 0;
}

static int link_mknodat(void *arg, int dfd, const char *name, mode_t mode,
			dev_t rdev)
{
	return call_name(arg, AGENT_MKNOD, dfd, name, mode, rdev);
}

static int link_mkdirat(void *arg, int dfd, const char *name, mode_t mode)
{
	return call_name(arg, AGENT_MKDIR, dfd, name, mode, 0);
}

static int link_symlinkat(void *arg, int dfd, const char *name)
{
	return call_name(arg, AGENT_SYMLINK, dfd, name, 0, 0);
}

static int link_linkat(void *arg, int fd, int dfd, const char *name)
{
	struct agent_link *l = arg;
	struct agent_msg m = { .op = AGENT_LINK };
	int slot = agent_link_slot(l, fd), dslot = agent_link_slot(l, dfd);

	if (slot < 0 || dslot < 0)
		return -ENOTCONN;
	if (strlen(name) > AGENT_NAME_MAX)
		return -ENAMETOOLONG;
	m.arg[0] = slot;
	m.arg[1] = dslot;
	strcpy(m.name, name);
	return (int)agent_link_call(l, &m, NULL);
}

static int link_unlinkat(void *arg, int dfd, const char *name, int rmdir)
{
	return call_name(arg, AGENT_UNLINK, dfd, name, !!rmdir, 0);
}

static int link_renameat(void *arg, int sfd, const char *name, int dfd,
			 const char *newname)
{
	struct agent_link *l = arg;
	struct agent_msg m = { .op = AGENT_RENAME };
	int sslot = agent_link_slot(l, sfd), dslot = agent_link_slot(l, dfd);

	if (sslot < 0 || dslot < 0)
		return -ENOTCONN;
	if (strlen(name) > AGENT_NAME_MAX || strlen(newname) > AGENT_NAME_MAX)
		return -ENAMETOOLONG;
	m.arg[0] = sslot;
	m.arg[1] = dslot;
	strcpy(m.name, name);
	strcpy(m.name2, newname);
	return (int)agent_link_call(l, &m, NULL);
}

static int link_write_byte(void *arg, int fd)
{
	return call_fd(arg, AGENT_WRITE_BYTE, fd, 0, 0);
}

static int link_truncate0(void *arg, int fd)
{
	return call_fd(arg, AGENT_TRUNCATE0, fd, 0, 0);
}

static int link_chown_link(void *arg, int fd, uid_t uid, gid_t gid)
{
	return call_fd(arg, AGENT_CHOWN_LINK, fd, uid, gid);
}

static int link_chmod(void *arg, int fd, mode_t mode)
{
	return call_fd(arg, AGENT_CHMOD, fd, mode, 0);
}

static int link_touch(void *arg, int fd)
{
	return call_fd(arg, AGENT_TOUCH, fd, 0, 0);
}

static void link_close(void *arg, int fd)
{
	call_fd(arg, AGENT_CLOSE, fd, 0, 0);
}

const struct replay_sys agent_link_sys = {
	.caller = link_caller,
	.enter = link_enter,
	.leave = link_leave,
	.open_node = link_open_node,
	.openat = link_openat,
	.reopen = link_reopen,
	.node_of = link_node_of,
	.mknodat = link_mknodat,
	.mkdirat = link_mkdirat,
	.symlinkat = link_symlinkat,
	.linkat = link_linkat,
	.unlinkat = link_unlinkat,
	.renameat = link_renameat,
	.write_byte = link_write_byte,
	.truncate0 = link_truncate0,
	.chown_link = link_chown_link,
	.chmod = link_chmod,
	.touch = link_touch,
	.close = link_close,
};
