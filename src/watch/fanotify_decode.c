// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fanotify buffer parser. Invariants: nothing is read outside
 * buf[0..len); fields are copied with memcpy (the buffer may be unaligned
 * when fuzzed); a record reaches the callback only if every info record in
 * it is well formed: header length within the event, handle_bytes at most
 * FAN_DECODE_MAX_HANDLE and within the info record, names NUL-terminated
 * inside the info record, 1..NAME_MAX bytes and free of '/'. Unknown info
 * types (pidfd, error) are skipped, a repeated known type is an error.
 */
#include <limits.h>
#include <string.h>
#include <linux/fanotify.h>

#include "fanotify_decode.h"

/* handle_bytes (u32) + handle_type (s32) before the opaque bytes. */
#define FAN_HANDLE_HDR 8
#define FAN_FID_HDR (sizeof(struct fanotify_event_info_header) + 8)

static bool fan_name_valid(const char *name, size_t room)
{
	size_t n = strnlen(name, room);

	if (n == room || n == 0 || n > NAME_MAX)
		return false;
	return strcmp(name, ".") == 0 || strchr(name, '/') == NULL;
}

/* Decodes one fid info record p[0..len) into *fid. */
static bool fan_fid_decode(const unsigned char *p, size_t len, bool named,
			   struct fan_fid *fid)
{
	uint32_t hbytes;
	size_t end;

	if (fid->present || len < FAN_FID_HDR + FAN_HANDLE_HDR)
		return false;
	memcpy(fid->fsid, p + 4, sizeof(fid->fsid));
	p += FAN_FID_HDR;
	len -= FAN_FID_HDR;
	memcpy(&hbytes, p, 4);
	memcpy(&fid->type, p + 4, 4);
	if (hbytes == 0 || hbytes > FAN_DECODE_MAX_HANDLE ||
	    hbytes > len - FAN_HANDLE_HDR)
		return false;
	fid->len = hbytes;
	fid->handle = p + FAN_HANDLE_HDR;
	end = FAN_HANDLE_HDR + hbytes;
	fid->name = NULL;
	if (named) {
		fid->name = (const char *)p + end;
		if (!fan_name_valid(fid->name, len - end))
			return false;
	}
	fid->present = true;
	return true;
}

static bool fan_info_decode(const unsigned char *p, size_t len,
			    struct fan_record *rec)
{
	struct fanotify_event_info_header hdr;

	while (len > 0) {
		if (len < sizeof(hdr))
			return false;
		memcpy(&hdr, p, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > len)
			return false;
		switch (hdr.info_type) {
		case FAN_EVENT_INFO_TYPE_FID:
			if (!fan_fid_decode(p, hdr.len, false, &rec->fid))
				return false;
			break;
		case FAN_EVENT_INFO_TYPE_DFID:
			if (!fan_fid_decode(p, hdr.len, false, &rec->dfid))
				return false;
			break;
		case FAN_EVENT_INFO_TYPE_DFID_NAME:
			if (!fan_fid_decode(p, hdr.len, true, &rec->dfid))
				return false;
			break;
		case FAN_EVENT_INFO_TYPE_OLD_DFID_NAME:
			if (!fan_fid_decode(p, hdr.len, true, &rec->old))
				return false;
			break;
		case FAN_EVENT_INFO_TYPE_NEW_DFID_NAME:
			if (!fan_fid_decode(p, hdr.len, true, &rec->new))
				return false;
			break;
		default:
			break;
		}
		p += hdr.len;
		len -= hdr.len;
	}
	return true;
}

unsigned int fan_decode(const void *buf, size_t len, fan_record_fn fn,
			void *arg, unsigned int *errors)
{
	const unsigned char *p = buf;
	struct fanotify_event_metadata md;
	struct fan_record rec;
	unsigned int n = 0;

	while (len > 0) {
		if (len < sizeof(md))
			goto framing;
		memcpy(&md, p, sizeof(md));
		if (md.vers != FANOTIFY_METADATA_VERSION ||
		    md.metadata_len < sizeof(md) ||
		    md.event_len < md.metadata_len || md.event_len > len)
			goto framing;
		memset(&rec, 0, sizeof(rec));
		rec.mask = md.mask;
		rec.fd = md.fd;
		rec.pid = md.pid;
		if (fan_info_decode(p + md.metadata_len,
				    md.event_len - md.metadata_len, &rec)) {
			fn(arg, &rec);
			n++;
		} else {
			(*errors)++;
		}
		p += md.event_len;
		len -= md.event_len;
	}
	return n;
framing:
	(*errors)++;
	return n;
}
