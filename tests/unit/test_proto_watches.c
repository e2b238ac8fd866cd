// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_proto_watches - the kernel's watch table: masks replace, 0
 * removes, generations must match, filesystem scope is separate, and the
 * hash survives growth and removals in the middle of probe runs.
 */
#include <stdio.h>

#include "protocol/proto_watches.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

static int set(struct proto_watches *t, uint64_t node, uint32_t gen,
	       uint64_t mask, uint32_t flags)
{
	struct proto_watch w = { .nodeid = node, .generation = gen,
				 .mask = mask, .flags = flags };

	return proto_watches_set(t, &w);
}

static void test_basic(struct proto_watches *t)
{
	set(t, 5, 9, FUSE_FSNOTIFY_CREATE, FUSE_FSNOTIFY_INODE);
	CHECK("basic: mask", proto_watches_mask(t, 5, 9) ==
	      FUSE_FSNOTIFY_CREATE);
	CHECK("basic: other generation: none", !proto_watches_mask(t, 5, 8));
	CHECK("basic: other node: none", !proto_watches_mask(t, 6, 9));
	set(t, 5, 9, FUSE_FSNOTIFY_MODIFY, FUSE_FSNOTIFY_INODE);
	CHECK("basic: replaced", proto_watches_mask(t, 5, 9) ==
	      FUSE_FSNOTIFY_MODIFY);
	set(t, 1, 0, FUSE_FSNOTIFY_DELETE, FUSE_FSNOTIFY_FILESYSTEM);
	CHECK("basic: filesystem scope apart", proto_watches_fs_mask(t) ==
	      FUSE_FSNOTIFY_DELETE && !proto_watches_mask(t, 1, 0) &&
	      proto_watches_mask(t, 5, 9) == FUSE_FSNOTIFY_MODIFY);
	set(t, 5, 9, 0, FUSE_FSNOTIFY_INODE);
	set(t, 1, 0, 0, FUSE_FSNOTIFY_FILESYSTEM);
	CHECK("basic: 0 removes", !proto_watches_mask(t, 5, 9) &&
	      !proto_watches_fs_mask(t));
}

/* Every node keeps its own mask through growth and removals. */
static void test_many(struct proto_watches *t)
{
	const uint64_t n = 20000;
	uint64_t i, bad = 0;

	for (i = 1; i <= n; i++)
		set(t, i, (uint32_t)i, i << 8, FUSE_FSNOTIFY_INODE);
	for (i = 1; i <= n; i++)
		if (proto_watches_mask(t, i, (uint32_t)i) != i << 8)
			bad++;
	CHECK("many: all present", bad == 0);
	for (i = 1; i <= n; i += 3)
		set(t, i, (uint32_t)i, 0, FUSE_FSNOTIFY_INODE);
	bad = 0;
	for (i = 1; i <= n; i++)
		if (proto_watches_mask(t, i, (uint32_t)i) !=
		    (i % 3 == 1 ? 0 : i << 8))
			bad++;
	CHECK("many: every mask right after removals", bad == 0);
}

int main(void)
{
	struct proto_watches *t = proto_watches_new();

	CHECK("new", t != NULL);
	if (!t)
		return check_exit();
	test_basic(t);
	test_many(t);
	proto_watches_free(t);
	return check_exit();
}
