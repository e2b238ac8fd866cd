// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the inotify record parser (src/watch/inotify_decode.c)
 * on arbitrary bytes; checks every stored name is bounded and clean.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "watch/inotify_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inotify_record recs[64];
	unsigned int errors = 0;
	size_t i, n;

	n = inotify_decode(data, size, recs, 64, &errors);
	for (i = 0; i < n; i++) {
		size_t len = strlen(recs[i].name);

		if (len > NAME_MAX || strchr(recs[i].name, '/'))
			abort();
	}
	return 0;
}
