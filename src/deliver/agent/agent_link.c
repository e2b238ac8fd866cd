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
#include <time.h>
#include <unistd.h>

#include "protocol/agent_wire.h"
#include "util/log_limit.h"
#include "util/unix_listen.h"
#include "agent_link_internal.h"

#define EPOCH_MASK 0x7fff

struct agent_link {
	char *path;
	int listen_fd;
	int stop[2];			/* a pipe: the reader's wake-up */
	pthread_t reader;
	bool reading;			/* agent_link_start() started it */
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
	l->listen_fd = l->path ? unix_listen_owner_only(path) : -1;
	if (l->listen_fd < 0 || pipe2(l->stop, O_CLOEXEC))
		goto fail;
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

int agent_link_start(struct agent_link *l)
{
	int err = reader_start(l);

	l->reading = !err;
	return -err;
}

void agent_link_free(struct agent_link *l)
{
	if (!l)
		return;
	if (l->reading) {
		if (write(l->stop[1], "", 1) != 1)
			fuse_log(FUSE_LOG_ERR,
				 "rnotifyfs: agent channel: cannot stop its reader\n");
		pthread_join(l->reader, NULL);
	}
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

/* Under l->lock: the replay's fd for the agent's slot. */
static int fd_of(struct agent_link *l, int64_t slot)
{
	if (slot < 0)
		return (int)slot;
	if (slot > 0xffff)
		return -EIO;
	return (int)(l->epoch << 16 | slot);
}

/*
 * One call on the guest's mount: its result, or -ENOTCONN when there is
 * no agent, or it went, or it did not answer. A slot the agent returns
 * becomes the replay's fd here, with the epoch of the agent that
 * answered.
 */
int64_t agent_link_call(struct agent_link *l, struct agent_msg *m,
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
	if (m->op == AGENT_OPEN_NODE || m->op == AGENT_OPENAT ||
	    m->op == AGENT_REOPEN)
		ret = fd_of(l, ret);
	if (res)
		*res = l->result;
	l->want = 0;
	pthread_mutex_unlock(&l->lock);
	pthread_mutex_unlock(&l->call_lock);
	return ret;
}

/* The agent's slot behind a replay fd, or -1 if of an agent gone since. */
int agent_link_slot(struct agent_link *l, int fd)
{
	unsigned int epoch;

	pthread_mutex_lock(&l->lock);
	epoch = l->epoch;
	pthread_mutex_unlock(&l->lock);
	return fd >= 0 && (unsigned int)fd >> 16 == epoch ? fd & 0xffff : -1;
}

void agent_link_agent(struct agent_link *l, bool *ready, pid_t *tid)
{
	pthread_mutex_lock(&l->lock);
	*ready = l->ready;
	*tid = l->ready ? l->tid : -1;
	pthread_mutex_unlock(&l->lock);
}
