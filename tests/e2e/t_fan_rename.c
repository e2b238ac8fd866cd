// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fanotify FAN_RENAME on the mount: a group reporting names
 * (FAN_REPORT_DFID_NAME_TARGET) with an inode mark on a directory gets
 * one FAN_RENAME per remote rename, with the old name, the new one (if
 * the new directory is the one marked) and ONDIR for a directory, as
 * native fanotify does on BACKING (check with --native). FAN_RENAME
 * watchers hear of renames by nothing else. The remote sentinel of
 * e2e_sync() goes to the root, which is not marked: once it is seen,
 * every event of the rename is queued, and all of them are read.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

struct rename_step {
	const char *check;
	struct e2e_op ops[2];
	const char *want;	/* "MASK old -> new", "" for no name */
};

static const struct rename_step steps[] = {
	{ "fan_rename/file", { OP_RENAME("fr/x", "fr/y"), OP_END },
	  "RENAME x -> y" },
	{ "fan_rename/dir", { OP_RENAME("fr/d", "fr/d2"), OP_END },
	  "RENAME|ONDIR d -> d2" },
	/* Out of the marked directory: only the old place is reported. */
	{ "fan_rename/out", { OP_RENAME("fr/y", "z"), OP_END },
	  "RENAME y -> " },
};

#define STEP_COUNT ((int)(sizeof(steps) / sizeof(steps[0])))

/* The name after the directory's handle in a DFID_NAME-like record. */
static const char *record_name(const char *p, const char *end, int *len)
{
	struct file_handle fh;
	const char *s;

	memcpy(&fh, p, sizeof(fh));
	s = p + sizeof(fh) + fh.handle_bytes;
	*len = s < end ? (int)strnlen(s, end - s) : 0;
	return s;
}

/* One event as "MASK old -> new" into out. */
static void describe(const char *p, const char *end, uint64_t mask,
		     char *out, size_t size)
{
	struct fanotify_event_info_fid fid;
	const char *old = "", *new_ = "", *s;
	int old_len = 0, new_len = 0, len;

	while (p + sizeof(fid) <= end) {
		memcpy(&fid, p, sizeof(fid));
		if (fid.hdr.len < sizeof(fid) || p + fid.hdr.len > end)
			break;
		s = record_name(p + sizeof(fid), p + fid.hdr.len, &len);
		if (fid.hdr.info_type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME) {
			old = s;
			old_len = len;
		} else if (fid.hdr.info_type ==
			   FAN_EVENT_INFO_TYPE_NEW_DFID_NAME) {
			new_ = s;
			new_len = len;
		}
		p += fid.hdr.len;
	}
	snprintf(out, size, "%s%s %.*s -> %.*s",
		 mask & FAN_RENAME ? "RENAME" : "?",
		 mask & FAN_ONDIR ? "|ONDIR" : "", old_len, old, new_len,
		 new_);
}

/* Reads every queued event; 1 if exactly one, described in out. */
static int read_all(int fd, char *out, size_t size)
{
	char buf[4096] __attribute__((aligned(8)));
	struct fanotify_event_metadata md;
	ssize_t n = read(fd, buf, sizeof(buf));
	int count = 0;
	char *p;

	for (p = buf; n > 0 && p + sizeof(md) <= buf + n;
	     p += md.event_len) {
		memcpy(&md, p, sizeof(md));
		if (md.event_len < sizeof(md) || p + md.event_len > buf + n)
			break;
		if (!count++)
			describe(p + md.metadata_len, p + md.event_len,
				 md.mask, out, size);
	}
	return count;
}

static void run_step(int fd, const struct rename_step *s)
{
	char got[2 * NAME_MAX + 32] = "";
	int n;

	if (e2e_remote("", s->ops)) {
		e2e_fail(s->check, "remote actor failed");
		return;
	}
	e2e_sync();
	n = read_all(fd, got, sizeof(got));
	if (n == 1 && !strcmp(got, s->want))
		e2e_pass(s->check);
	else
		e2e_fail(s->check, "%d events, first '%s', want one '%s'", n,
			 got, s->want);
}

int main(void)
{
	static const struct e2e_op setup[] = {
		OP_MKDIR("fr"), OP_MKNOD("fr/x"), OP_MKDIR("fr/d"), OP_END
	};
	int fd, i;

	e2e_mount(NULL);
	if (e2e_remote("", setup)) {
		e2e_fail("fan_rename/setup", "remote setup failed");
		return check_exit();
	}
	e2e_sync();
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET |
			   FAN_NONBLOCK | FAN_CLOEXEC, O_RDONLY);
	if (fd < 0 || fanotify_mark(fd, FAN_MARK_ADD, FAN_RENAME | FAN_ONDIR,
				    AT_FDCWD, e2e_mpath("fr"))) {
		e2e_fail("fan_rename/setup", "FAN_RENAME mark on MNT/fr failed");
		return check_exit();
	}
	for (i = 0; i < STEP_COUNT; i++)
		run_step(fd, &steps[i]);
	close(fd);
	return check_exit();
}
