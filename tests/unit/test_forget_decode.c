// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_forget_decode - FUSE_FORGET and FUSE_BATCH_FORGET as the kernel
 * writes them (include/uapi/linux/fuse.h, little-endian bytes written out
 * here by hand), every length rule, and that a refused frame calls
 * nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/fuse.h>

#include "session/forget_decode.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

struct seen {
	int n;
	uint64_t nodeid[4];
	uint64_t nlookup[4];
};

static void record(void *arg, uint64_t nodeid, uint64_t nlookup)
{
	struct seen *s = arg;

	if (s->n < 4) {
		s->nodeid[s->n] = nodeid;
		s->nlookup[s->n] = nlookup;
	}
	s->n++;
}

/* Little-endian, as on every machine this runs on (x86_64, arm64). */
static void put(unsigned char *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

/* in-header: len, opcode, unique, nodeid; uid, gid, pid not read. */
static void header(unsigned char *p, uint32_t len, uint32_t opcode,
		   uint64_t nodeid)
{
	memset(p, 0xee, 40);
	put(p, len, 4);
	put(p + 4, opcode, 4);
	put(p + 8, 99, 8);
	put(p + 16, nodeid, 8);
}

static void test_forget(void)
{
	unsigned char buf[48];
	struct seen s = { 0 };

	header(buf, 48, FUSE_FORGET, 0x1122334455667788ULL);
	put(buf + 40, 0x0102030405060708ULL, 8);
	CHECK("forget: one pair", forget_decode(buf, 48, record, &s) == 1);
	CHECK("forget: nodeid from the in-header, nlookup from the body",
	      s.n == 1 && s.nodeid[0] == 0x1122334455667788ULL &&
	      s.nlookup[0] == 0x0102030405060708ULL);
	s.n = 0;
	CHECK("forget: truncated body", forget_decode(buf, 47, record, &s) ==
	      -EINVAL && s.n == 0);
	header(buf, 47, FUSE_FORGET, 2);
	CHECK("forget: short length, header agrees",
	      forget_decode(buf, 47, record, &s) == -EINVAL && s.n == 0);
	header(buf, 40, FUSE_FORGET, 2);
	CHECK("forget: no body", forget_decode(buf, 40, record, &s) ==
	      -EINVAL && s.n == 0);
}

static void test_batch(void)
{
	unsigned char buf[40 + 8 + 3 * 16 + 16];
	struct seen s = { 0 };
	int i;

	header(buf, 96, FUSE_BATCH_FORGET, 0);
	put(buf + 40, 3, 4);
	put(buf + 44, 0, 4);
	for (i = 0; i < 3; i++) {
		put(buf + 48 + 16 * i, 10 + i, 8);
		put(buf + 56 + 16 * i, 100 + i, 8);
	}
	CHECK("batch: three pairs", forget_decode(buf, 96, record, &s) == 3);
	CHECK("batch: pairs in frame order", s.n == 3 &&
	      s.nodeid[0] == 10 && s.nlookup[0] == 100 &&
	      s.nodeid[1] == 11 && s.nlookup[1] == 101 &&
	      s.nodeid[2] == 12 && s.nlookup[2] == 102);
	s.n = 0;
	put(buf, 112, 4);
	CHECK("batch: count 3, room for 4",
	      forget_decode(buf, 112, record, &s) == -EINVAL && s.n == 0);
	put(buf, 95, 4);
	CHECK("batch: last pair cut short",
	      forget_decode(buf, 95, record, &s) == -EINVAL && s.n == 0);
	put(buf, 96, 4);
	put(buf + 40, 0x10000001, 4);
	CHECK("batch: count * 16 wraps a 32-bit length",
	      forget_decode(buf, 96, record, &s) == -EINVAL && s.n == 0);
	put(buf + 40, 0xffffffff, 4);
	CHECK("batch: count 2^32 - 1",
	      forget_decode(buf, 96, record, &s) == -EINVAL && s.n == 0);
	header(buf, 48, FUSE_BATCH_FORGET, 0);
	put(buf + 40, 0, 8);
	CHECK("batch: count 0, nothing to do",
	      forget_decode(buf, 48, record, &s) == 0 && s.n == 0);
	header(buf, 44, FUSE_BATCH_FORGET, 0);
	CHECK("batch: fixed part cut short",
	      forget_decode(buf, 44, record, &s) == -EINVAL && s.n == 0);
}

static void test_other(void)
{
	unsigned char buf[48];
	struct seen s = { 0 };

	header(buf, 48, FUSE_LOOKUP, 1);
	CHECK("other opcode: -EPROTO",
	      forget_decode(buf, 48, record, &s) == -EPROTO && s.n == 0);
	header(buf, 40, FUSE_INIT, 0);
	CHECK("other opcode: INIT",
	      forget_decode(buf, 40, record, &s) == -EPROTO && s.n == 0);
	header(buf, 48, FUSE_FORGET, 1);
	CHECK("in-header length disagrees with the read",
	      forget_decode(buf, 48, record, &s) == 1 && s.n == 1 &&
	      forget_decode(buf, 40, record, &s) == -EINVAL && s.n == 1);
	CHECK("shorter than an in-header",
	      forget_decode(buf, 39, record, &s) == -EINVAL && s.n == 1);
}

int main(void)
{
	test_forget();
	test_batch();
	test_other();
	return check_exit();
}
