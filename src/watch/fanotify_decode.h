/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parser of a fanotify read buffer (FAN_REPORT_FID family): turns
 * event records into validated fields. No syscalls, no allocation; every
 * pointer in a decoded record points into the caller's buffer and lives as
 * long as it. This is a fuzz target (fuzz/fuzz_fanotify.c).
 */
#ifndef RNOTIFY_WATCH_FANOTIFY_DECODE_H
#define RNOTIFY_WATCH_FANOTIFY_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's MAX_HANDLE_SZ: a larger handle is corrupt. */
#define FAN_DECODE_MAX_HANDLE 128

/* One file id info record: fsid, an opaque handle and maybe a name. */
struct fan_fid {
	bool present;
	uint32_t fsid[2];
	int type;			/* file_handle.handle_type */
	uint32_t len;			/* file_handle.handle_bytes */
	const unsigned char *handle;	/* len bytes, unaligned */
	const char *name;		/* NUL-terminated, or NULL */
};

struct fan_record {
	uint64_t mask;
	int32_t fd;		/* FAN_NOFD in FID mode; caller closes others */
	int32_t pid;
	struct fan_fid fid;	/* the object (the target of dirent events) */
	struct fan_fid dfid;	/* the directory (+ name) */
	struct fan_fid old;	/* FAN_RENAME: where it was */
	struct fan_fid new;	/* FAN_RENAME: where it went */
};

typedef void (*fan_record_fn)(void *arg, const struct fan_record *rec);

/*
 * Calls fn for each well-formed record of buf[0..len) in order. A record
 * with a bad info record is skipped and counted in *errors; a record whose
 * framing is bad (event_len too small or past the end, wrong version) ends
 * the parse and is counted too. Returns the number of records passed to fn.
 */
unsigned int fan_decode(const void *buf, size_t len, fan_record_fn fn,
			void *arg, unsigned int *errors);

#endif
