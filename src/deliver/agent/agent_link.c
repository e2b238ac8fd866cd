// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The backend's end of the agent's channel (agent_link.h).
 *
 * State, under l->lock: conn (the VMM's connection, or -1), the agent
 * (ready, tid, epoch: a new one for each HELLO accepted) and the call in
 * flight (want: its seq, 0 when none; got: its result once it came).
 * The reader thread writes them as the guest speaks. Calls are made one
 * at a time (call_lock, held across a call): the agent is one thread,
 * and the replayer's last refresh of a turn may overlap the next
 * holder's first replay.
 *
 * An fd the agent returns is a slot of its own table (0 to 65535); the
 * replay sees it with the agent's epoch above it, so that an fd of an
 * agent gone since is refused here and never reaches its successor.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "protocol/agent_wire.h"
#include "util/log_limit.h"
#include "agent_link.h"

#define EPOCH_MASK 0x7fff

struct agent_link {
	char *path;
	int listen_fd;
	int stop[2];			/* a pipe: the reader's wake-up */
	pthread_t reader;
	pthread_mutex_t call_lock;	/* one call at a time; before lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a result came, or the agent went */
	int conn;
	bool ready;
	pid_t tid;
	unsigned int epoch;
	uint64_t seq;			/* the last call's */
	uint64_t want;			/* the call waited for, or 0 */
	bool got;
	struct agent_msg result;
	struct log_limit bad;		/* lines refused */
	char in[AGENT_LINE_MAX];	/* reader only: a partial line */
	size_t in_len;
	bool skipping;			/* reader only: in an overlong line */
};

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	/* Owner-only from the start: the channel replays as guest root. */
	mode_t old = umask(077);
	int ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));

	umask(old);
	if (ret || listen(fd, 1)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void log_refused(struct agent_link *l, const char *why)
{
	unsigned long held;

	/* Limited per reason: a hostile guest may repeat one forever. */
	if (log_limit_pass(&l->bad, why, now_s(), &held))
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: agent channel: %s: line ignored (%lu more since the last such line)\n",
			 why, held);
}

/* Under l->lock: the agent is gone; the call in flight fails. */
static void agent_gone(struct agent_link *l)
{
	l->ready = false;
	l->tid = -1;
	if (l->want) {
		l->got = true;
		l->result.ret = -ENOTCONN;
		pthread_cond_broadcast(&l->cond);
	}
}

/* Under l->lock: one line, whole, to the guest. */
static int send_line(struct agent_link *l, const struct agent_msg *m)
{
	char buf[AGENT_LINE_MAX];
	int len = agent_wire_encode(m, buf, sizeof(buf));
	ssize_t n;

	if (len < 0)
		return len;
	if (l->conn < 0)
		return -ENOTCONN;
	/* Never wait: a guest with the port closed reads nothing. */
	n = send(l->conn, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	return n == len ? 0 : -ENOTCONN;
}

static void on_hello(struct agent_link *l, const struct agent_msg *m)
{
	struct agent_msg ok = { .kind = AGENT_ACCEPT, .seq = m->seq };

	/* Only root can open the port; the gate answers only uid 0. */
	if (m->uid != 0) {
		log_refused(l, "HELLO from a uid other than 0");
		return;
	}
	agent_gone(l);
	l->epoch = (l->epoch + 1) & EPOCH_MASK;
	if (send_line(l, &ok))
		return;
	l->ready = true;
	l->tid = (pid_t)m->tid;
	fuse_log(FUSE_LOG_INFO,
		 "rnotifyfs: agent: connected (guest thread %u); remote changes are delivered\n",
		 m->tid);
}

static void on_line(struct agent_link *l, const char *line, size_t len)
{
	struct agent_msg m;

	if (agent_wire_decode(line, len, &m)) {
		log_refused(l, "not a message");
		return;
	}
	pthread_mutex_lock(&l->lock);
	if (m.kind == AGENT_HELLO) {
		on_hello(l, &m);
	} else if (m.kind == AGENT_RESULT && l->ready && l->want &&
		   m.seq == l->want) {
		l->result = m;
		l->got = true;
		pthread_cond_broadcast(&l->cond);
	} else if (m.kind != AGENT_RESULT) {
		/* A late result is normal after a timeout: said nothing. */
		log_refused(l, "a message the guest does not send");
	}
	pthread_mutex_unlock(&l->lock);
}

/* Splits what came into lines; an overlong one is dropped whole. */
static void on_bytes(struct agent_link *l, const char *p, size_t n)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;

		if (!l->skipping && l->in_len + take < sizeof(l->in)) {
			memcpy(l->in + l->in_len, p, take);
			l->in_len += take;
		} else if (!l->skipping) {
			l->skipping = true;
			log_refused(l, "line too long");
		}
		if (nl) {
			if (!l->skipping)
				on_line(l, l->in, l->in_len);
			l->in_len = 0;
			l->skipping = false;
			take++;
		}
		p += take;
		n -= take;
	}
}

static void conn_close(struct agent_link *l)
{
	pthread_mutex_lock(&l->lock);
	if (l->conn >= 0) {
		close(l->conn);
		l->conn = -1;
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: agent channel: the VMM disconnected\n");
	}
	agent_gone(l);
	pthread_mutex_unlock(&l->lock);
	l->in_len = 0;
	l->skipping = false;
}

static void conn_accept(struct agent_link *l)
{
	int fd = accept4(l->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	/* The VMM connects again after a restart: the newest one wins. */
	conn_close(l);
	pthread_mutex_lock(&l->lock);
	l->conn = fd;
	pthread_mutex_unlock(&l->lock);
}

static void *reader_main(void *arg)
{
	struct agent_link *l = arg;
	char buf[4096];

	for (;;) {
		struct pollfd p[3] = {
			{ .fd = l->stop[0], .events = POLLIN },
			{ .fd = l->listen_fd, .events = POLLIN },
			{ .fd = l->conn, .events = POLLIN },
		};
		ssize_t n;

		if (poll(p, 3, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN)
			conn_accept(l);
		if (!p[2].revents)
			continue;
		n = read(l->conn, buf, sizeof(buf));
		if (n > 0)
			on_bytes(l, buf, n);
		else if (n == 0 || errno != EINTR)
			conn_close(l);
	}
	return NULL;
}

/* With every signal blocked: the process's stopper takes them. */
static int reader_start(struct agent_link *l)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&l->reader, NULL, reader_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

struct agent_link *agent_link_new(const char *path)
{
	struct agent_link *l = calloc(1, sizeof(*l));
	pthread_condattr_t ca;
	int err;

	if (!l)
		return NULL;
	l->conn = -1;
	l->tid = -1;
	l->stop[0] = l->stop[1] = -1;
	pthread_mutex_init(&l->call_lock, NULL);
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&l->bad.lock, NULL);
	l->path = strdup(path);
	l->listen_fd = l->path ? listen_on(path) : -1;
	if (l->listen_fd < 0 || pipe2(l->stop, O_CLOEXEC))
		goto fail;
	err = reader_start(l);
	if (err) {
		errno = err;
		goto fail;
	}
	return l;
fail:
	err = errno;
	if (l->listen_fd >= 0) {
		close(l->listen_fd);
		unlink(path);
	}
	if (l->stop[0] >= 0) {
		close(l->stop[0]);
		close(l->stop[1]);
	}
	free(l->path);
	free(l);
	errno = err;
	return NULL;
}

void agent_link_free(struct agent_link *l)
{
	if (!l)
		return;
	if (write(l->stop[1], "", 1) != 1)
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: agent channel: cannot stop its reader\n");
	pthread_join(l->reader, NULL);
	if (l->conn >= 0)
		close(l->conn);
	close(l->listen_fd);
	unlink(l->path);
	close(l->stop[0]);
	close(l->stop[1]);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
	pthread_mutex_destroy(&l->call_lock);
	free(l->path);
	free(l);
}

/*
 * One call on the guest's mount: its result (a slot for the opens), or
 * -ENOTCONN when there is no agent, or it went, or it did not answer.
 */
static int64_t call(struct agent_link *l, struct agent_msg *m,
		    struct agent_msg *res)
{
	struct timespec until;
	int64_t ret;
	int err = 0;

	pthread_mutex_lock(&l->call_lock);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += AGENT_CALL_TIMEOUT;
	pthread_mutex_lock(&l->lock);
	if (!l->ready) {
		pthread_mutex_unlock(&l->lock);
		pthread_mutex_unlock(&l->call_lock);
		return -ENOTCONN;
	}
	m->kind = AGENT_CALL;
	m->seq = ++l->seq;
	l->want = m->seq;
	l->got = false;
	ret = send_line(l, m);
	while (!ret && !l->got && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&l->cond, &l->lock, &until);
	if (!ret && !l->got) {
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: agent: no answer to %s in %d s: taken as gone until it says hello again\n",
			 agent_op_name(m->op), AGENT_CALL_TIMEOUT);
		agent_gone(l);
	}
	if (!ret)
		ret = l->result.ret;
	if (res)
		*res = l->result;
	l->want = 0;
	pthread_mutex_unlock(&l->lock);
	pthread_mutex_unlock(&l->call_lock);
	return ret;
}

/* The agent's slot behind a replay fd, or -1 if of an agent gone since. */
static int slot_of(struct agent_link *l, int fd)
{
	unsigned int epoch;

	pthread_mutex_lock(&l->lock);
	epoch = l->epoch;
	pthread_mutex_unlock(&l->lock);
	return fd >= 0 && (unsigned int)fd >> 16 == epoch ? fd & 0xffff : -1;
}

static int fd_of(struct agent_link *l, int64_t slot)
{
	if (slot < 0)
		return (int)slot;
	if (slot > 0xffff)
		return -EIO;
	return (int)(l->epoch << 16 | slot);
}

static int call_fd(struct agent_link *l, enum agent_op op, int fd,
		   uint64_t a1, uint64_t a2)
{
	struct agent_msg m = { .op = op };
	int slot = slot_of(l, fd);

	if (slot < 0)
		return -ENOTCONN;
	m.arg[0] = slot;
	m.arg[1] = a1;
	m.arg[2] = a2;
	return (int)call(l, &m, NULL);
}

static int call_name(struct agent_link *l, enum agent_op op, int dfd,
		     const char *name, uint64_t a1, uint64_t a2)
{
	struct agent_msg m = { .op = op };
	int slot = slot_of(l, dfd);

	if (slot < 0)
		return -ENOTCONN;
	if (strlen(name) > AGENT_NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(m.name, name);
	m.arg[0] = slot;
	m.arg[1] = a1;
	m.arg[2] = a2;
	return (int)call(l, &m, NULL);
}

static void link_caller(void *arg, pid_t *tid, uid_t *uid)
{
	struct agent_link *l = arg;

	pthread_mutex_lock(&l->lock);
	*tid = l->ready ? l->tid : -1;
	pthread_mutex_unlock(&l->lock);
	*uid = 0;
}

static int link_enter(void *arg)
{
	struct agent_link *l = arg;
	bool ready;

	pthread_mutex_lock(&l->lock);
	ready = l->ready;
	pthread_mutex_unlock(&l->lock);
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
	int64_t ret = call(l, &m, NULL);

	pthread_mutex_lock(&l->lock);
	ret = fd_of(l, ret);
	pthread_mutex_unlock(&l->lock);
	return (int)ret;
}

static int link_openat(void *arg, int dfd, const char *name, int how,
		       mode_t mode)
{
	struct agent_link *l = arg;
	int ret = call_name(l, AGENT_OPENAT, dfd, name, how, mode);

	pthread_mutex_lock(&l->lock);
	ret = fd_of(l, ret);
	pthread_mutex_unlock(&l->lock);
	return ret;
}

static int link_reopen(void *arg, int fd, int how)
{
	struct agent_link *l = arg;
	int ret = call_fd(l, AGENT_REOPEN, fd, how, 0);

	pthread_mutex_lock(&l->lock);
	ret = fd_of(l, ret);
	pthread_mutex_unlock(&l->lock);
	return ret;
}

static int link_node_of(void *arg, int fd, uint64_t *id, uint32_t *gen)
{
	struct agent_link *l = arg;
	struct agent_msg m = { .op = AGENT_NODE_OF }, res;
	int slot = slot_of(l, fd);
	int64_t ret;

	if (slot < 0)
		return -ENOTCONN;
	m.arg[0] = slot;
	ret = call(l, &m, &res);
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
	int slot = slot_of(l, fd), dslot = slot_of(l, dfd);

	if (slot < 0 || dslot < 0)
		return -ENOTCONN;
	if (strlen(name) > AGENT_NAME_MAX)
		return -ENAMETOOLONG;
	m.arg[0] = slot;
	m.arg[1] = dslot;
	strcpy(m.name, name);
	return (int)call(l, &m, NULL);
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
	int sslot = slot_of(l, sfd), dslot = slot_of(l, dfd);

	if (sslot < 0 || dslot < 0)
		return -ENOTCONN;
	if (strlen(name) > AGENT_NAME_MAX || strlen(newname) > AGENT_NAME_MAX)
		return -ENAMETOOLONG;
	m.arg[0] = sslot;
	m.arg[1] = dslot;
	strcpy(m.name, name);
	strcpy(m.name2, newname);
	return (int)call(l, &m, NULL);
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
