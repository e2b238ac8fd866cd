// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the table of directories where the kernel asked for the
 * child (src/deliver/proto/proto_asked.c): an answer holds for its directory,
 * generation, kinds of event and epoch only, kinds add up, and a
 * directory that takes another's slot forgets the other.
 */
#include <string.h>

#include "../lib/check.h"
#include "deliver/proto/proto_asked.h"
#include "rnotify_proto.h"

CHECK_MAIN_DEFS;

#define MOD FUSE_FSNOTIFY_MODIFY
#define CREATE FUSE_FSNOTIFY_CREATE

static void test_holds(void)
{
	struct proto_asked a;

	memset(&a, 0, sizeof(a));
	CHECK("asked: nothing at first", !proto_asked(&a, 5, 1, MOD, 7));
	proto_asked_note(&a, 5, 1, MOD, 7);
	CHECK("asked: the kind noted", proto_asked(&a, 5, 1, MOD, 7));
	CHECK("asked: not another kind", !proto_asked(&a, 5, 1, CREATE, 7));
	CHECK("asked: not another generation", !proto_asked(&a, 5, 2, MOD, 7));
	CHECK("asked: not another directory", !proto_asked(&a, 6, 1, MOD, 7));
	CHECK("asked: not once a mark changed", !proto_asked(&a, 5, 1, MOD, 8));
	proto_asked_note(&a, 5, 1, CREATE, 7);
	CHECK("asked: kinds add up", proto_asked(&a, 5, 1, MOD | CREATE, 7));
	proto_asked_note(&a, 5, 1, CREATE, 8);
	CHECK("asked: a new epoch starts afresh",
	      proto_asked(&a, 5, 1, CREATE, 8) &&
	      !proto_asked(&a, 5, 1, MOD, 8));
}

/* Two directories in one slot: the later one wins, the other is asked. */
static void test_slots(void)
{
	struct proto_asked a;
	uint64_t other = 0;

	memset(&a, 0, sizeof(a));
	for (uint64_t d = 2; d < 100000 && !other; d++) {
		proto_asked_note(&a, 1, 0, MOD, 1);
		proto_asked_note(&a, d, 0, MOD, 1);
		if (!proto_asked(&a, 1, 0, MOD, 1))
			other = d;
	}
	CHECK("slots: some directory shares directory 1's slot", other);
	CHECK("slots: the later one holds it",
	      proto_asked(&a, other, 0, MOD, 1));
}

int main(void)
{
	test_holds();
	test_slots();
	return check_exit();
}
