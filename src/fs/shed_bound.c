// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading the memory cgroup's limit. cgroup v1: the memory controller's
 * line in /proc/self/cgroup names the group, whose memory.stat gives
 * hierarchical_memory_limit (the least limit of it and its ancestors).
 * cgroup v2: the "0::" line, and memory.max of the group and each
 * ancestor. "No limit" reads as a huge number (v1) or "max" (v2).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shed_bound.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define NO_LIMIT (UINT64_C(1) << 60)	/* v1's "none" is near 2^63 */

/* The cgroup path of controller ("memory", or "" for v2), or false. */
static bool cgroup_path(const char *controller, char *path, size_t size)
{
	char line[PATH_MAX + 64], *ctl, *p;
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		ctl = strchr(line, ':');
		p = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!p)
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		ctl++;
		found = *controller ? strstr(ctl, controller) != NULL :
				      !*ctl && line[0] == '0';
		if (found)
			snprintf(path, size, "%s", p);
	}
	fclose(f);
	return found;
}

static uint64_t v1_limit(const char *group)
{
	char path[PATH_MAX + 64], line[128];
	uint64_t limit = 0;
	FILE *f;

	snprintf(path, sizeof(path), CGROUP_ROOT "/memory%s/memory.stat",
		 group);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "hierarchical_memory_limit %" SCNu64,
			   &limit) == 1)
			break;
	fclose(f);
	return limit < NO_LIMIT ? limit : 0;
}

/* memory.max of one v2 group: 0 for "max" or none. */
static uint64_t v2_max(const char *group)
{
	char path[PATH_MAX + 64];
	uint64_t limit = 0;
	FILE *f;

	snprintf(path, sizeof(path), CGROUP_ROOT "%s/memory.max", group);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%" SCNu64, &limit) != 1)
		limit = 0;
	fclose(f);
	return limit;
}

static uint64_t v2_limit(char *group)
{
	uint64_t limit = 0, l;
	char *slash;

	for (;;) {
		l = v2_max(group);
		if (l && (!limit || l < limit))
			limit = l;
		slash = strrchr(group, '/');
		if (!slash || slash == group)
			return limit;
		*slash = '\0';
	}
}

uint64_t fs_shed_memory_limit(void)
{
	char group[PATH_MAX];

	if (cgroup_path("memory", group, sizeof(group)))
		return v1_limit(group);
	if (cgroup_path("", group, sizeof(group)))
		return v2_limit(group);
	return 0;
}

unsigned long fs_shed_bound_for(uint64_t limit)
{
	uint64_t n = limit / 4 / FS_SHED_INODE_COST;

	if (!limit)
		return 0;
	return n > FS_SHED_MIN ? n : FS_SHED_MIN;
}
