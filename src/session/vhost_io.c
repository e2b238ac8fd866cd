// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The vhost-user-fs transport (vhost_io.h). Objects and locks:
 *
 * - struct vhost_io: one per process, from the VMM's connection to the
 *   end. `lock` covers every libvhost-user call (vu_dispatch on the
 *   device thread, vu_queue_pop/push/notify anywhere), every copy from or
 *   to guest memory, and both lists below.
 * - struct vhost_req: one popped descriptor chain. It is on `waiting`
 *   from the pop until a worker's read hook takes it, then on `inflight`
 *   (found by the request's unique id) until its reply is written, and
 *   freed once pushed back to the guest. A request with no reply is
 *   pushed back from the read hook itself.
 * - ready_fd: an eventfd in semaphore mode, one count per request on
 *   `waiting`; workers sleep in read(2) on it, so the serve loop's
 *   SIGUSR1 interrupts them as it does a read of /dev/fuse. At the end
 *   the device thread adds a large count: every reader wakes, finds the
 *   list empty and fails ENODEV, which ends the session.
 * - The FUSE session: one per mount of the guest's. libfuse takes one
 *   INIT per session and answers a second one EIO, but a guest mounts
 *   again after its unmount (DESTROY), and a rebooted guest sends INIT
 *   with no DESTROY before. Either ends the session (`closing`, under
 *   `lock`): the read hook hands it no more requests, a second INIT is
 *   left first on `waiting`, and the caller starts a new session
 *   (vhost_io_next_session()) that reads it, as virtiofsd starts over.
 *   libfuse drops a request read once the session has exited, so a
 *   DESTROY exits it only once answered; until then the session's other
 *   workers wait on `closed`.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <linux/fuse.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libvhost-user.h>
#include <standard-headers/linux/virtio_config.h>

#include "util/mono_wait.h"
#include "util/unix_listen.h"
#include "iov_copy.h"
#include "rnotify_proto.h"
#include "session_io.h"
#include "vhost_io.h"
#include "vhost_notify.h"
#include "vhost_req.h"

/* The hiprio queue and the request queues QEMU may give us. */
#define VHOST_IO_QUEUES 16
#define VHOST_IO_ENDED (1ULL << 40)
#define CLOSED_TICK_NS 10000000L


struct vhost_io {
	VuDev dev;
	int sock;		/* connected to the VMM */
	int ready_fd;
	int stop_fd;
	struct fuse_session *se;	/* lock */
	struct fs *fs;
	struct session_io *sio;
	struct vhost_notify *notify;	/* lock */
	pthread_t thread;
	bool inited;		/* vu_init() done: vu_deinit() closes sock */
	bool started;
	atomic_bool ended;
	pthread_mutex_t lock;
	bool initialised;	/* lock: the session read its INIT */
	bool closing;		/* lock: the guest ended the session */
	pthread_cond_t closed;	/* lock: the closing session exited */
	struct vhost_req *waiting, **waiting_tail;	/* lock */
	struct vhost_req *inflight;			/* lock */
};

bool vhost_io_available(void)
{
	return true;
}

static struct vhost_io *vio_of(VuDev *dev)
{
	return (struct vhost_io *)((char *)dev - offsetof(struct vhost_io,
							  dev));
}

static uint64_t vio_get_features(VuDev *dev)
{
	return 1ULL << VIRTIO_F_VERSION_1;
}

static void vio_set_features(VuDev *dev, uint64_t features)
{
}

/* The device thread polls the kick fds itself (vio_poll_set). */
static void vio_set_watch(VuDev *dev, int fd, int condition, vu_watch_cb cb,
			  void *data)
{
}

static void vio_remove_watch(VuDev *dev, int fd)
{
}

/* A protocol error: the device is broken, vu_dispatch fails from now on. */
static void vio_panic(VuDev *dev, const char *err)
{
	fuse_log(FUSE_LOG_ERR, "rnotifyfs: vhost-user: %s\n", err);
	atomic_store(&vio_of(dev)->ended, true);
}

/*
 * The VMM closed the socket: libvhost-user reads that as a message of
 * type NONE, which it would answer with exit(0). End the session instead.
 */
static int vio_process_msg(VuDev *dev, VhostUserMsg *vmsg, int *do_reply)
{
	if (vmsg->request != VHOST_USER_NONE)
		return 0;
	atomic_store(&vio_of(dev)->ended, true);
	return 1;
}

static const VuDevIface vio_iface = {
	.get_features = vio_get_features,
	.set_features = vio_set_features,
	.process_msg = vio_process_msg,
};

/* Lock held. Gives the chain back to the guest with len bytes written. */
static void req_complete(struct vhost_io *vio, struct vhost_req *req,
			 unsigned int len)
{
	VuVirtq *vq = vu_get_queue(&vio->dev, req->qidx);

	vu_queue_push(&vio->dev, vq, &req->elem, len);
	vu_queue_notify(&vio->dev, vq);
	free(req);
}

size_t vhost_req_room(const struct vhost_req *req)
{
	return iov_total(req->elem.in_sg, req->elem.in_num);
}

void vhost_req_answer(struct vhost_io *vio, struct vhost_req *req,
		      const struct iovec *iov, int count)
{
	size_t len = iov_total(iov, count);

	if (len)
		copy_to_iov(req->elem.in_sg, req->elem.in_num, iov, count);
	req_complete(vio, req, len);
}

void vhost_req_answer_error(struct vhost_io *vio, struct vhost_req *req,
			    int error)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh),
		.error = error,
		.unique = req->unique,
	};
	struct iovec iov = { &oh, sizeof(oh) };

	vhost_req_answer(vio, req, &iov, vhost_req_room(req) < sizeof(oh) ?
			 0 : 1);
}

/* session_io_take()'s answer to a request it acted on. */
struct taken {
	struct vhost_io *vio;
	struct vhost_req *req;
};

static void taken_reply(void *ctx, const void *buf, size_t len)
{
	struct taken *t = ctx;
	struct iovec iov = { (void *)buf, len };

	if (len <= vhost_req_room(t->req)) {
		vhost_req_answer(t->vio, t->req, &iov, 1);
		t->req = NULL;
	}
}

/* Lock held. n counts more on ready_fd: as many reads find a request. */
static void ready_add(struct vhost_io *vio, uint64_t n)
{
	if (write(vio->ready_fd, &n, sizeof(n)) < 0)
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: waking workers: %s\n",
			 strerror(errno));
}

/*
 * Lock held. The guest ended the session: it takes no more requests, and
 * the loop ends once its requests in flight are answered.
 */
static void session_close(struct vhost_io *vio)
{
	vio->closing = true;
	fuse_session_exit(vio->se);
	pthread_cond_broadcast(&vio->closed);
}

/*
 * Lock held. An INIT after the session's own: the guest rebooted. The
 * request stays first on the list for the next session.
 */
static void init_keep_for_next(struct vhost_io *vio, struct vhost_req *req)
{
	fuse_log(FUSE_LOG_INFO,
		 "rnotifyfs: the guest sent INIT again (a reboot): a new session\n");
	req->next = vio->waiting;
	vio->waiting = req;
	if (!req->next)
		vio->waiting_tail = &req->next;
	ready_add(vio, 1);
	session_close(vio);
}

/*
 * Lock held. Copies req into buf (len bytes of room) and returns its
 * length, or 0 if it was consumed here: a request that gets no reply,
 * acted on, or a malformed one, dropped with a log line. Either way a
 * consumed request has gone back to the guest.
 */
static size_t req_take(struct vhost_io *vio, struct vhost_req *req,
		       void *buf, size_t len)
{
	size_t have = iov_total(req->elem.out_sg, req->elem.out_num);
	struct taken t = { .vio = vio };
	struct fuse_in_header ih;
	size_t n;

	if (have < sizeof(ih) || have > len) {
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: virtqueue request of %zu bytes dropped\n",
			 have);
		req_complete(vio, req, 0);
		return 0;
	}
	n = copy_from_iov(buf, have, req->elem.out_sg, req->elem.out_num);
	memcpy(&ih, buf, sizeof(ih));
	req->unique = ih.unique;
	if (ih.opcode == FUSE_INIT && vio->initialised) {
		init_keep_for_next(vio, req);
		return 0;
	}
	if (ih.opcode == FUSE_INIT) {
		vio->initialised = true;
		vhost_notify_restart(vio->notify);
	}
	req->ends_session = ih.opcode == FUSE_DESTROY;
	if (req->ends_session) {
		fuse_log(FUSE_LOG_INFO, "rnotifyfs: the guest unmounted\n");
		vio->closing = true;
	}
	if (ih.opcode == FUSE_FETCH_NOTIFY) {
		vhost_notify_fetch(vio->notify, vio, req, buf, n,
				   session_io_active(vio->sio));
		return 0;
	}
	t.req = req;
	if (ih.opcode == FUSE_INTERRUPT ||
	    session_io_take(vio->sio, vio->fs, buf, n, taken_reply, &t)) {
		/* No reply (FORGET), or none fitted: back with nothing. */
		if (t.req)
			req_complete(vio, req, 0);
		return 0;
	}
	req->next = vio->inflight;
	vio->inflight = req;
	return n;
}

/*
 * Lock held. Until the closing session has exited: its DESTROY is
 * answered, or the server stops it (which says nothing here: looked at
 * every tick).
 */
static void closed_wait(struct vhost_io *vio)
{
	struct timespec t;

	while (!fuse_session_exited(vio->se)) {
		mono_deadline(&t, CLOSED_TICK_NS);
		pthread_cond_timedwait(&vio->closed, &vio->lock, &t);
	}
}

static ssize_t vio_read(int fd, void *buf, size_t len, void *userdata)
{
	struct vhost_io *vio = fs_session_state(userdata);
	struct vhost_req *req;
	uint64_t one;
	size_t n;

	for (;;) {
		/* EINTR: the serve loop stops its workers so. */
		if (read(vio->ready_fd, &one, sizeof(one)) < 0)
			return -1;
		pthread_mutex_lock(&vio->lock);
		if (vio->closing) {
			/* The count is the next session's. */
			ready_add(vio, 1);
			closed_wait(vio);
			pthread_mutex_unlock(&vio->lock);
			errno = EINTR;
			return -1;
		}
		req = vio->waiting;
		if (!req) {
			pthread_mutex_unlock(&vio->lock);
			errno = ENODEV;
			return -1;
		}
		vio->waiting = req->next;
		if (!vio->waiting)
			vio->waiting_tail = &vio->waiting;
		n = req_take(vio, req, buf, len);
		pthread_mutex_unlock(&vio->lock);
		if (n)
			return n;
	}
}

/* Lock held. The request in flight with this unique id, unlinked. */
static struct vhost_req *inflight_take(struct vhost_io *vio, uint64_t unique)
{
	struct vhost_req **p, *req;

	for (p = &vio->inflight; (req = *p); p = &req->next) {
		if (req->unique == unique) {
			*p = req->next;
			return req;
		}
	}
	return NULL;
}

ssize_t vhost_io_notify(struct vhost_io *vio, const struct iovec *iov,
			int count)
{
	ssize_t n;

	if (count < 1 || iov[0].iov_len < sizeof(struct fuse_out_header)) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&vio->lock);
	n = vhost_notify_send(vio->notify, vio, iov, count,
			      session_io_active(vio->sio));
	pthread_mutex_unlock(&vio->lock);
	return n;
}

static ssize_t vio_writev(int fd, struct iovec *iov, int count,
			  void *userdata)
{
	struct vhost_io *vio = fs_session_state(userdata);
	struct fuse_out_header oh;
	struct vhost_req *req;
	size_t len = iov_total(iov, count), room;
	struct iovec err_iov = { &oh, sizeof(oh) };
	bool ends_session;

	if (count < 1 || iov[0].iov_len < sizeof(oh)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	if (!oh.unique)
		return vhost_io_notify(vio, iov, count);
	session_io_before_reply(vio->sio, vio->fs, -1, iov, count);
	pthread_mutex_lock(&vio->lock);
	req = inflight_take(vio, oh.unique);
	if (!req) {
		pthread_mutex_unlock(&vio->lock);
		errno = ENOENT;
		return -1;
	}
	room = iov_total(req->elem.in_sg, req->elem.in_num);
	if (len > room) {
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: reply of %zu bytes for a %zu-byte buffer: answered EIO\n",
			 len, room);
		oh.len = sizeof(oh);
		oh.error = -EIO;
		iov = &err_iov;
		count = 1;
		len = room < sizeof(oh) ? 0 : sizeof(oh);
	}
	if (len)
		copy_to_iov(req->elem.in_sg, req->elem.in_num, iov, count);
	ends_session = req->ends_session;
	req_complete(vio, req, len);
	if (ends_session)
		session_close(vio);
	pthread_mutex_unlock(&vio->lock);
	return len;
}

static const struct fuse_custom_io vio_hooks = {
	.read = vio_read,
	.writev = vio_writev,
};

/* Lock held. Pops every request queue qidx has; returns how many. */
static unsigned int queue_drain(struct vhost_io *vio, int qidx)
{
	VuVirtq *vq = vu_get_queue(&vio->dev, qidx);
	struct vhost_req *req;
	unsigned int n = 0;

	while ((req = vu_queue_pop(&vio->dev, vq, sizeof(*req)))) {
		req->qidx = qidx;
		req->next = NULL;
		*vio->waiting_tail = req;
		vio->waiting_tail = &req->next;
		n++;
	}
	return n;
}

/*
 * The fds to wait on: stop_fd, the socket, and the kick fd of each
 * started queue (qidx[] says which). Returns the count.
 */
static int vio_poll_set(struct vhost_io *vio, struct pollfd *p, int *qidx)
{
	int n = 0, i;

	p[n++] = (struct pollfd){ .fd = vio->stop_fd, .events = POLLIN };
	p[n++] = (struct pollfd){ .fd = vio->sock, .events = POLLIN };
	for (i = 0; i < vio->dev.max_queues; i++) {
		VuVirtq *vq = &vio->dev.vq[i];

		if (vq->kick_fd < 0 || !vu_queue_started(&vio->dev, vq))
			continue;
		qidx[n] = i;
		p[n++] = (struct pollfd){ .fd = vq->kick_fd, .events = POLLIN };
	}
	return n;
}

/* Handles one round of readiness; false when the device is done. */
static bool vio_round(struct vhost_io *vio, struct pollfd *p, int *qidx,
		      int n)
{
	uint64_t kicks, popped = 0;
	bool ok = true;
	int i;

	for (i = 2; i < n; i++) {
		if (!(p[i].revents & POLLIN))
			continue;
		if (read(p[i].fd, &kicks, sizeof(kicks)) < 0 &&
		    errno != EAGAIN)
			continue;
		pthread_mutex_lock(&vio->lock);
		popped += queue_drain(vio, qidx[i]);
		pthread_mutex_unlock(&vio->lock);
	}
	if (popped)
		ready_add(vio, popped);
	if (p[1].revents) {
		pthread_mutex_lock(&vio->lock);
		ok = vu_dispatch(&vio->dev);
		pthread_mutex_unlock(&vio->lock);
	}
	return ok && !atomic_load(&vio->ended);
}

static void *vio_device_main(void *arg)
{
	struct vhost_io *vio = arg;
	struct pollfd p[2 + VHOST_IO_QUEUES];
	int qidx[2 + VHOST_IO_QUEUES];
	const uint64_t all = VHOST_IO_ENDED;
	int n;

	for (;;) {
		n = vio_poll_set(vio, p, qidx);
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			fuse_log(FUSE_LOG_ERR, "rnotifyfs: vhost-user poll: %s\n",
				 strerror(errno));
			break;
		}
		if (p[0].revents || !vio_round(vio, p, qidx, n))
			break;
	}
	if (!p[0].revents)
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: the VMM disconnected: stopping\n");
	atomic_store(&vio->ended, true);
	pthread_mutex_lock(&vio->lock);
	vhost_notify_end(vio->notify);
	fuse_session_exit(vio->se);
	pthread_cond_broadcast(&vio->closed);
	ready_add(vio, all);
	pthread_mutex_unlock(&vio->lock);
	return NULL;
}

struct vhost_io *vhost_io_accept(const char *socket_path, int listen_fd)
{
	struct vhost_io *vio = calloc(1, sizeof(*vio));
	int lfd = listen_fd, err;

	if (!vio)
		return NULL;
	vio->sock = vio->ready_fd = vio->stop_fd = -1;
	pthread_mutex_init(&vio->lock, NULL);
	mono_cond_init(&vio->closed);
	vio->waiting_tail = &vio->waiting;
	vio->notify = vhost_notify_new(&vio->lock);
	if (!vio->notify)
		goto fail;
	if (socket_path)
		lfd = unix_listen_owner_only(socket_path);
	if (lfd < 0)
		goto fail;
	fuse_log(FUSE_LOG_INFO,
		 "rnotifyfs: waiting for the vhost-user connection on %s\n",
		 socket_path ? socket_path : "the given fd");
	do {
		vio->sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	} while (vio->sock < 0 && errno == EINTR);
	err = errno;
	close(lfd);
	errno = err;
	if (vio->sock < 0)
		goto fail;
	vio->ready_fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	vio->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (vio->ready_fd < 0 || vio->stop_fd < 0)
		goto fail;
	if (!vu_init(&vio->dev, VHOST_IO_QUEUES, vio->sock, vio_panic, NULL,
		     vio_set_watch, vio_remove_watch, &vio_iface)) {
		errno = ENOMEM;
		goto fail;
	}
	vio->inited = true;
	return vio;
fail:
	err = errno;
	vhost_io_free(vio);
	errno = err;
	return NULL;
}

/*
 * Gives se the hooks and an fd of its own on ready_fd, which
 * fuse_session_destroy() closes. 0 or -errno.
 */
static int session_install(struct vhost_io *vio, struct fuse_session *se)
{
	int fd = fcntl(vio->ready_fd, F_DUPFD_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return -errno;
	err = fuse_session_custom_io(se, &vio_hooks, fd);
	if (err) {
		close(fd);
		return err;
	}
	pthread_mutex_lock(&vio->lock);
	vio->se = se;
	vio->initialised = false;
	vio->closing = false;
	/* The device is gone already: the new session ends at once. */
	if (atomic_load(&vio->ended))
		fuse_session_exit(se);
	pthread_mutex_unlock(&vio->lock);
	return 0;
}

int vhost_io_start(struct vhost_io *vio, struct fuse_session *se,
		   struct fs *fs, struct session_io *sio)
{
	int err;

	vio->fs = fs;
	vio->sio = sio;
	fs_set_session_state(fs, vio);
	err = session_install(vio, se);
	if (err) {
		fs_set_session_state(fs, NULL);
		return err;
	}
	err = pthread_create(&vio->thread, NULL, vio_device_main, vio);
	if (err)
		return -err;
	vio->started = true;
	return 0;
}

bool vhost_io_guest_ended(struct vhost_io *vio)
{
	bool closing;

	pthread_mutex_lock(&vio->lock);
	closing = vio->closing;
	pthread_mutex_unlock(&vio->lock);
	return closing && !atomic_load(&vio->ended);
}

int vhost_io_next_session(struct vhost_io *vio, struct fuse_session *se)
{
	return session_install(vio, se);
}

void vhost_io_stop(struct vhost_io *vio)
{
	uint64_t one = 1;

	if (!vio || !vio->started)
		return;
	if (write(vio->stop_fd, &one, sizeof(one)) < 0)
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: stopping the device: %s\n",
			 strerror(errno));
	pthread_join(vio->thread, NULL);
	vio->started = false;
}

static void req_list_free(struct vhost_req *req)
{
	struct vhost_req *next;

	for (; req; req = next) {
		next = req->next;
		free(req);
	}
}

void vhost_io_free(struct vhost_io *vio)
{
	if (!vio)
		return;
	vhost_io_stop(vio);
	req_list_free(vio->waiting);
	req_list_free(vio->inflight);
	vhost_notify_free(vio->notify);
	if (vio->inited)
		vu_deinit(&vio->dev);
	else if (vio->sock >= 0)
		close(vio->sock);
	if (vio->ready_fd >= 0)
		close(vio->ready_fd);
	if (vio->stop_fd >= 0)
		close(vio->stop_fd);
	pthread_cond_destroy(&vio->closed);
	pthread_mutex_destroy(&vio->lock);
	free(vio);
}
