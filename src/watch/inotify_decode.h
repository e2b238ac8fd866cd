/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parser of an inotify read buffer: validated records, no syscalls.
 * Names point into the caller's buffer. A fuzz target
 * (fuzz/fuzz_inotify.c).
 */
#ifndef RNOTIFY_WATCH_INOTIFY_DECODE_H
#define RNOTIFY_WATCH_INOTIFY_DECODE_H

#include <stddef.h>
#include <stdint.h>

struct inotify_record {
	int wd;
	uint32_t mask;
	uint32_t cookie;
	const char *name;	/* "" when the event has no name */
};

/*
 * Parses buf[0..len) into out[0..max). A record whose name is not
 * NUL-terminated inside it, is longer than NAME_MAX or holds '/' is
 * skipped and counted in *errors; a record running past the end ends the
 * parse (counted). Returns the number of records stored.
 */
size_t inotify_decode(const void *buf, size_t len, struct inotify_record *out,
		  size_t max, unsigned int *errors);

#endif
