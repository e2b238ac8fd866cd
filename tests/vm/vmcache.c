// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmcache - see vmcache.h.
 *
 * One pass is not enough: a dentry (or inode) used more than once since
 * it went on the LRU is marked referenced, and a pass only clears that
 * mark and rotates it. The third pass frees what the second rotated.
 */
#include <fcntl.h>
#include <unistd.h>

#include "vmcache.h"

#define VM_DROP_PASSES	3

bool vm_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	bool ok = fd >= 0;
	int i;

	for (i = 0; ok && i < VM_DROP_PASSES; i++)
		ok = write(fd, "2", 1) == 1;
	if (fd >= 0)
		close(fd);
	return ok;
}
