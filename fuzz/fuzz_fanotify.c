// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the fanotify record parser (src/watch/fanotify_decode.c)
 * on arbitrary bytes. The callback reads every byte the parser hands out
 * (handles, names), so an out-of-bounds pointer is caught by ASan, and it
 * checks the promises the watcher relies on.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "watch/fanotify_decode.h"

static void fuzz_fid(const struct fan_fid *fid)
{
	volatile unsigned char sink = 0;
	size_t i, n;

	if (!fid->present)
		return;
	if (fid->len == 0 || fid->len > FAN_DECODE_MAX_HANDLE)
		abort();
	for (i = 0; i < fid->len; i++)
		sink ^= fid->handle[i];
	if (fid->name) {
		n = strlen(fid->name);
		if (n == 0 || n > NAME_MAX ||
		    (strchr(fid->name, '/') && strcmp(fid->name, ".")))
			abort();
	}
	(void)sink;
}

static void fuzz_record(void *arg, const struct fan_record *rec)
{
	fuzz_fid(&rec->fid);
	fuzz_fid(&rec->dfid);
	fuzz_fid(&rec->old);
	fuzz_fid(&rec->new);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int errors = 0;

	fan_decode(data, size, fuzz_record, NULL, &errors);
	return 0;
}
