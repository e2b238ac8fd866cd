// SPDX-License-Identifier: GPL-2.0-or-later
#include "proto_asked.h"

static unsigned int slot_of(uint64_t dir)
{
	/* Fibonacci hashing: node ids are sequential, spread them out. */
	return (dir * 0x9e3779b97f4a7c15ULL) >> 58;
}

void proto_asked_note(struct proto_asked *a, uint64_t dir, uint32_t gen,
		      uint32_t mask, uint64_t epoch)
{
	unsigned int i = slot_of(dir);

	if (a->slot[i].dir != dir || a->slot[i].gen != gen ||
	    a->slot[i].epoch != epoch) {
		a->slot[i].dir = dir;
		a->slot[i].gen = gen;
		a->slot[i].epoch = epoch;
		a->slot[i].mask = 0;
	}
	a->slot[i].mask |= mask;
}

bool proto_asked(const struct proto_asked *a, uint64_t dir, uint32_t gen,
		 uint32_t mask, uint64_t epoch)
{
	unsigned int i = slot_of(dir);

	return a->slot[i].dir == dir && a->slot[i].gen == gen &&
	       a->slot[i].epoch == epoch && (a->slot[i].mask & mask) == mask;
}
