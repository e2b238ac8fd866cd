// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Notifications fetched by a virtiofs guest (vhost_notify.h). State,
 * all under the transport's lock:
 *
 * - parked: the guest's FUSE_FETCH_NOTIFY requests not answered yet (the
 *   kernel series keeps one outstanding; a hostile guest may send more,
 *   bounded by its virtqueues). Answered in order.
 * - busy: a writer has a notification out, or waits for a request to
 *   carry it; other writers wait their turn on cond.
 * - sent_seq, and result_seq/result: the last notification sent, and the
 *   outcome the guest reported last (seq 0: none).
 * - ended: the guest said it stops (FUSE_FETCH_NOTIFY_END) or the device
 *   is gone; a new INIT starts again.
 * - overflow: a notification was dropped; an overflow notification goes
 *   out on the guest's next request, at once if no writer has one out:
 *   the guest's watchers must not wait for a next change to learn of it.
 */
#include <errno.h>
#include <fuse_log.h>
#include <linux/fuse.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "protocol/proto_codec.h"
#include "vhost_notify.h"
#include "vhost_req.h"

struct vhost_notify {
	pthread_mutex_t *lock;
	pthread_cond_t cond;	/* any change below */
	struct vhost_req *parked, **parked_tail;
	bool busy;
	bool ended;
	bool overflow;
	uint64_t sent_seq;
	uint64_t result_seq;
	int result;
	unsigned long dropped;
};

struct vhost_notify *vhost_notify_new(pthread_mutex_t *lock)
{
	struct vhost_notify *vn = calloc(1, sizeof(*vn));
	pthread_condattr_t attr;

	if (!vn)
		return NULL;
	vn->lock = lock;
	vn->parked_tail = &vn->parked;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&vn->cond, &attr);
	pthread_condattr_destroy(&attr);
	return vn;
}

static struct vhost_req *parked_take(struct vhost_notify *vn)
{
	struct vhost_req *req = vn->parked;

	if (req) {
		vn->parked = req->next;
		if (!vn->parked)
			vn->parked_tail = &vn->parked;
	}
	return req;
}

static void parked_answer_all(struct vhost_notify *vn, struct vhost_io *vio,
			      int error)
{
	struct vhost_req *req;

	while ((req = parked_take(vn)))
		vhost_req_answer_error(vio, req, error);
}

/* Waits on cond until deadline; false once it has passed. */
static bool wait_until(struct vhost_notify *vn, const struct timespec *when)
{
	return pthread_cond_timedwait(&vn->cond, vn->lock, when) != ETIMEDOUT;
}

static void deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* A parked request within the bound, or NULL (ended, or none in time). */
static struct vhost_req *fetch_wait(struct vhost_notify *vn)
{
	struct timespec when;

	deadline_in(&when, VHOST_NOTIFY_WAIT_MS);
	while (!vn->parked && !vn->ended && wait_until(vn, &when))
		;
	return vn->ended ? NULL : parked_take(vn);
}

/*
 * Answers req with notification code and body (iov after its out
 * header): its seq, or 0 if it did not fit (the guest is refused and
 * fetches no more).
 */
static uint64_t fetch_answer(struct vhost_notify *vn, struct vhost_io *vio,
			     struct vhost_req *req, int code,
			     const struct iovec *body, int count, size_t len)
{
	struct fuse_out_header oh = { .unique = req->unique };
	struct fuse_fetch_notify_out out = { .code = code };
	struct iovec iov[2 + 8];
	int i;

	if (count > 8 || sizeof(oh) + sizeof(out) + len >
	    vhost_req_room(req)) {
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: notification %d of %zu bytes does not fit the guest's buffer\n",
			 code, len);
		vhost_req_answer_error(vio, req, -ENOBUFS);
		vn->ended = true;
		return 0;
	}
	out.seq = ++vn->sent_seq;
	oh.len = sizeof(oh) + sizeof(out) + len;
	iov[0] = (struct iovec){ &oh, sizeof(oh) };
	iov[1] = (struct iovec){ &out, sizeof(out) };
	for (i = 0; i < count; i++)
		iov[2 + i] = body[i];
	vhost_req_answer(vio, req, iov, 2 + count);
	return out.seq;
}

/* The guest's outcome of notification seq: 0 or a negative errno. */
static int fetch_outcome(struct vhost_notify *vn, uint64_t seq)
{
	struct timespec when;

	if (!seq)
		return -EMSGSIZE;
	deadline_in(&when, VHOST_NOTIFY_WAIT_MS);
	while (vn->result_seq != seq && !vn->ended && wait_until(vn, &when))
		;
	/* Delivered as far as we know: the guest is slow to say. */
	return vn->result_seq == seq ? vn->result : 0;
}

/*
 * The guest's watchers missed what was dropped: answers req with the
 * overflow notification; its seq (fetch_answer()).
 */
static uint64_t send_overflow(struct vhost_notify *vn, struct vhost_io *vio,
			      struct vhost_req *req)
{
	unsigned char buf[PROTO_EVENT_FRAME_MAX];
	struct proto_event ev = {
		.nodeid = FUSE_ROOT_ID,
		.mask = FUSE_FSNOTIFY_Q_OVERFLOW,
	};
	int len = proto_encode_event(buf, sizeof(buf), &ev);
	struct iovec body;

	if (len < (int)sizeof(struct fuse_out_header))
		return 0;
	body = (struct iovec){ buf + sizeof(struct fuse_out_header),
			       len - sizeof(struct fuse_out_header) };
	vn->overflow = false;
	return fetch_answer(vn, vio, req, FUSE_NOTIFY_FSNOTIFY, &body, 1,
			    body.iov_len);
}

void vhost_notify_fetch(struct vhost_notify *vn, struct vhost_io *vio,
			struct vhost_req *req, const void *buf, size_t len,
			bool allowed)
{
	struct fuse_fetch_notify_in in;

	if (!allowed) {
		vhost_req_answer_error(vio, req, -ENOSYS);
		return;
	}
	if (len != sizeof(struct fuse_in_header) + sizeof(in)) {
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: FUSE_FETCH_NOTIFY of %zu bytes refused\n",
			 len);
		vhost_req_answer_error(vio, req, -EINVAL);
		return;
	}
	memcpy(&in, (const char *)buf + sizeof(struct fuse_in_header),
	       sizeof(in));
	if (in.seq && in.seq == vn->sent_seq) {
		vn->result_seq = in.seq;
		vn->result = in.error > 0 || in.error < -4095 ? -EIO : in.error;
	}
	if (in.flags & FUSE_FETCH_NOTIFY_END) {
		vn->ended = true;
		parked_answer_all(vn, vio, -ECANCELED);
		vhost_req_answer_error(vio, req, 0);
	} else if (vn->ended) {
		vhost_req_answer_error(vio, req, -ECANCELED);
	} else if (vn->overflow && !vn->busy) {
		/* Its outcome comes with the guest's next request. */
		send_overflow(vn, vio, req);
	} else {
		req->next = NULL;
		*vn->parked_tail = req;
		vn->parked_tail = &req->next;
	}
	pthread_cond_broadcast(&vn->cond);
}

/* iov without its first skip bytes, into out (at most 8 entries). */
static int iov_skip(const struct iovec *iov, int count, size_t skip,
		    struct iovec *out, size_t *len)
{
	int i, n = 0;

	*len = 0;
	for (i = 0; i < count; i++) {
		size_t k = skip < iov[i].iov_len ? skip : iov[i].iov_len;

		skip -= k;
		if (iov[i].iov_len == k)
			continue;
		if (n == 8)
			return 9;
		out[n++] = (struct iovec){ (char *)iov[i].iov_base + k,
					   iov[i].iov_len - k };
		*len += iov[i].iov_len - k;
	}
	return n;
}

static ssize_t send_locked(struct vhost_notify *vn, struct vhost_io *vio,
			   const struct iovec *iov, int count)
{
	struct fuse_out_header oh;
	struct vhost_req *req;
	struct iovec body[9];
	size_t len;
	int n, err;

	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	n = iov_skip(iov, count, sizeof(oh), body, &len);
	req = fetch_wait(vn);
	if (req && vn->overflow) {
		err = fetch_outcome(vn, send_overflow(vn, vio, req));
		req = err ? NULL : fetch_wait(vn);
	}
	if (!req) {
		if (vn->ended) {
			errno = ENOTCONN;
			return -1;
		}
		if (!vn->dropped++ || !(vn->dropped % 1000))
			fuse_log(FUSE_LOG_WARNING,
				 "rnotifyfs: the guest fetched no notification for %d ms: dropped (%lu so far); its watchers get an overflow event\n",
				 VHOST_NOTIFY_WAIT_MS, vn->dropped);
		vn->overflow = true;
		errno = EAGAIN;
		return -1;
	}
	err = fetch_outcome(vn, fetch_answer(vn, vio, req, oh.error, body, n,
					     len));
	if (err) {
		errno = -err;
		return -1;
	}
	return sizeof(oh) + len;
}

ssize_t vhost_notify_send(struct vhost_notify *vn, struct vhost_io *vio,
			  const struct iovec *iov, int count, bool allowed)
{
	ssize_t ret;
	int err;

	if (!allowed) {
		errno = ENOTCONN;
		return -1;
	}
	while (vn->busy)
		pthread_cond_wait(&vn->cond, vn->lock);
	vn->busy = true;
	ret = send_locked(vn, vio, iov, count);
	err = errno;
	vn->busy = false;
	pthread_cond_broadcast(&vn->cond);
	errno = err;
	return ret;
}

void vhost_notify_restart(struct vhost_notify *vn)
{
	vn->ended = false;
	vn->overflow = false;
}

static void parked_free(struct vhost_notify *vn)
{
	struct vhost_req *req;

	while ((req = parked_take(vn)))
		free(req);
}

void vhost_notify_end(struct vhost_notify *vn)
{
	vn->ended = true;
	parked_free(vn);
	pthread_cond_broadcast(&vn->cond);
}

void vhost_notify_free(struct vhost_notify *vn)
{
	if (!vn)
		return;
	if (vn->dropped)
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: %lu notifications dropped: the guest did not fetch them in time\n",
			 vn->dropped);
	parked_free(vn);
	pthread_cond_destroy(&vn->cond);
	free(vn);
}
