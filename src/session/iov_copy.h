/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Copies between a flat buffer and a scatter list, for the vhost-user
 * transport (a request's descriptor chain in guest memory is one).
 */
#ifndef RNOTIFY_SESSION_IOV_COPY_H
#define RNOTIFY_SESSION_IOV_COPY_H

#include <stddef.h>
#include <sys/uio.h>

/* The bytes of n entries of iov. */
size_t iov_total(const struct iovec *iov, unsigned int n);

/* Copies up to len bytes of the chain (iov) into buf; returns the count. */
size_t copy_from_iov(void *buf, size_t len, const struct iovec *iov,
		     unsigned int n);

/*
 * Copies src (count entries) into the chain dst, as much as dst holds.
 */
void copy_to_iov(const struct iovec *dst, unsigned int ndst,
		 const struct iovec *src, int count);

#endif
