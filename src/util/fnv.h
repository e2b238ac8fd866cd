/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FNV-1a, the one byte-string hash of the project: file handles (host
 * ids' generations, the watcher's directory cache) and names (the names
 * the kernel was shown). The offset basis is xor-ed with seed, so that
 * a second key (a handle type, a parent node) takes part for free.
 */
#ifndef RNOTIFY_UTIL_FNV_H
#define RNOTIFY_UTIL_FNV_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t fnv1a64(uint64_t seed, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t x = 14695981039346656037ULL ^ seed;

	for (size_t i = 0; i < len; i++)
		x = (x ^ p[i]) * 1099511628211ULL;
	return x;
}

static inline uint32_t fnv1a32(uint32_t seed, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t x = 2166136261u ^ seed;

	for (size_t i = 0; i < len; i++)
		x = (x ^ p[i]) * 16777619u;
	return x;
}

#endif
