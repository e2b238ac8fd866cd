// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fanotify reader: FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID
 * with inode marks on directories, the only kind of mark that works on a
 * stock FUSE mount (a filesystem mark fails ENODEV: FUSE has a zero fsid).
 *
 * An event names its directory by file handle; the reader matches it to
 * the mark whose handle (taken with name_to_handle_at when marking) is
 * equal, and takes the entry name from the DFID_NAME record.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "e2e_reader.h"

struct e2e_reader *e2e_fanotify_new(void)
{
	struct e2e_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fanotify = true;
	r->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
			      FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK,
			      O_RDONLY);
	if (r->fd < 0) {
		fprintf(stderr, "e2e: fanotify_init: %s\n", strerror(errno));
		free(r);
		return NULL;
	}
	return r;
}

static int e2e_handle_of(struct e2e_watch *w, const char *path)
{
	union {
		struct file_handle fh;
		unsigned char raw[sizeof(struct file_handle) + E2E_HANDLE_MAX];
	} h;
	int mount_id;

	h.fh.handle_bytes = E2E_HANDLE_MAX;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	w->handle_len = h.fh.handle_bytes;
	w->handle_type = h.fh.handle_type;
	memcpy(w->handle, h.fh.f_handle, h.fh.handle_bytes);
	return 0;
}

int e2e_fanotify_mark(struct e2e_reader *r, const char *label,
		      const char *path, uint64_t mask)
{
	struct e2e_watch *w;
	int err;

	if (r->nwatch == E2E_MAX_WATCHES)
		return -ENOSPC;
	w = &r->watch[r->nwatch];
	err = e2e_handle_of(w, path);
	if (err) {
		fprintf(stderr, "e2e: name_to_handle_at %s: %s\n", path,
			strerror(-err));
		return err;
	}
	if (fanotify_mark(r->fd, FAN_MARK_ADD, mask, AT_FDCWD, path)) {
		fprintf(stderr, "e2e: fanotify_mark %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	snprintf(w->label, sizeof(w->label), "%s", label ? label : "");
	r->nwatch++;
	return 0;
}

static int e2e_match_watch(struct e2e_reader *r, const struct file_handle *fh,
			   const char *bytes)
{
	int i;

	for (i = 0; i < r->nwatch; i++) {
		if (r->watch[i].handle_len == fh->handle_bytes &&
		    r->watch[i].handle_type == fh->handle_type &&
		    !memcmp(r->watch[i].handle, bytes, fh->handle_bytes))
			return i;
	}
	return -1;
}

/*
 * Records are packed after variable-length names, so nothing in the
 * buffer is aligned: every header is copied out with memcpy.
 */
static int e2e_fanotify_dfid_name(struct e2e_reader *r, struct e2e_ev *ev,
				  const char *p, const char *end)
{
	const char *h = p + offsetof(struct fanotify_event_info_fid, handle);
	const char *bytes = h + sizeof(struct file_handle);
	struct file_handle fh;

	if (bytes > end)
		return -1;
	memcpy(&fh, h, sizeof(fh));
	if (fh.handle_bytes >= (size_t)(end - bytes))
		return -1;
	snprintf(ev->name, sizeof(ev->name), "%.*s",
		 (int)(end - bytes - fh.handle_bytes), bytes + fh.handle_bytes);
	ev->watch = e2e_match_watch(r, &fh, bytes);
	return 0;
}

/* Takes the dir and name from a DFID_NAME record; others are skipped. */
static int e2e_fanotify_info(struct e2e_reader *r, struct e2e_ev *ev,
			     const char *p, const char *end)
{
	struct fanotify_event_info_header hdr;

	while (p + sizeof(hdr) <= end) {
		memcpy(&hdr, p, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > end - p)
			return -1;
		if (hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME &&
		    e2e_fanotify_dfid_name(r, ev, p, p + hdr.len))
			return -1;
		p += hdr.len;
	}
	return 0;
}

int e2e_fanotify_decode(struct e2e_reader *r, struct e2e_ev *ev)
{
	struct fanotify_event_metadata md;
	const char *start = r->buf + r->off;

	if (r->len - r->off < sizeof(md))
		return -1;
	memcpy(&md, start, sizeof(md));
	if (md.event_len < sizeof(md) || md.event_len > r->len - r->off ||
	    md.metadata_len > md.event_len ||
	    md.vers != FANOTIFY_METADATA_VERSION)
		return -1;
	r->off += md.event_len;
	ev->mask = md.mask;
	if (md.fd >= 0)
		close(md.fd);
	if (e2e_fanotify_info(r, ev, start + md.metadata_len,
			      start + md.event_len))
		return -1;
	/* "?": a directory we did not mark; "": no directory (overflow). */
	if (ev->watch >= 0)
		e2e_ev_format(ev, r->watch[ev->watch].label, true);
	else
		e2e_ev_format(ev, ev->name[0] ? "?" : "", true);
	return 0;
}
