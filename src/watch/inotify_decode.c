// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inotify buffer parser. Invariants: nothing is read outside buf[0..len);
 * headers are copied with memcpy (fuzzed buffers are unaligned); a stored
 * record's name is NUL-terminated within its record, at most NAME_MAX
 * bytes and holds no '/'. The kernel pads names with NULs, so a name
 * shorter than the len field is normal.
 */
#include <limits.h>
#include <string.h>
#include <sys/inotify.h>

#include "inotify_decode.h"

static int inotify_name_validate(const char *name, uint32_t room)
{
	size_t n;

	if (room == 0)
		return 1;
	n = strnlen(name, room);
	if (n == room || n > NAME_MAX || memchr(name, '/', n))
		return 0;
	return 1;
}

size_t inotify_decode(const void *buf, size_t len, struct inotify_record *out,
		  size_t max, unsigned int *errors)
{
	const unsigned char *p = buf;
	struct inotify_event hdr;
	size_t n = 0;

	while (len > 0 && n < max) {
		if (len < sizeof(hdr))
			goto framing;
		memcpy(&hdr, p, sizeof(hdr));
		if (hdr.len > len - sizeof(hdr))
			goto framing;
		if (inotify_name_validate((const char *)p + sizeof(hdr), hdr.len)) {
			out[n].wd = hdr.wd;
			out[n].mask = hdr.mask;
			out[n].cookie = hdr.cookie;
			out[n].name = hdr.len ?
				(const char *)p + sizeof(hdr) : "";
			n++;
		} else {
			(*errors)++;
		}
		p += sizeof(hdr) + hdr.len;
		len -= sizeof(hdr) + hdr.len;
	}
	return n;
framing:
	(*errors)++;
	return n;
}
