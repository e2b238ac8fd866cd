// SPDX-License-Identifier: GPL-2.0-or-later
/* Copies between flat buffers and scatter lists (iov_copy.h). */
#include <string.h>

#include "iov_copy.h"

size_t iov_total(const struct iovec *iov, unsigned int n)
{
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	return len;
}

/* Copies up to len bytes of the chain (iov) into buf; returns the count. */
size_t copy_from_iov(void *buf, size_t len, const struct iovec *iov,
		     unsigned int n)
{
	size_t done = 0, k;
	unsigned int i;

	for (i = 0; i < n && done < len; i++) {
		k = iov[i].iov_len < len - done ? iov[i].iov_len : len - done;
		memcpy((char *)buf + done, iov[i].iov_base, k);
		done += k;
	}
	return done;
}

/* Copies src (count entries, len bytes in all) into the chain dst. */
void copy_to_iov(const struct iovec *dst, unsigned int ndst,
		 const struct iovec *src, int count)
{
	size_t doff = 0, soff, k;
	unsigned int d = 0;
	int s;

	for (s = 0; s < count; s++) {
		for (soff = 0; soff < src[s].iov_len; soff += k) {
			while (d < ndst && doff == dst[d].iov_len) {
				d++;
				doff = 0;
			}
			if (d == ndst)
				return;
			k = dst[d].iov_len - doff;
			if (k > src[s].iov_len - soff)
				k = src[s].iov_len - soff;
			memcpy((char *)dst[d].iov_base + doff,
			       (const char *)src[s].iov_base + soff, k);
			doff += k;
		}
	}
}
