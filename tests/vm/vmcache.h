/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmcache - make the VM's kernel drop the dentries and inodes nobody
 * uses, so that a test sees the FORGETs that follow.
 */
#ifndef VMCACHE_H
#define VMCACHE_H

#include <stdbool.h>

/* echo 2 > /proc/sys/vm/drop_caches, enough times; false on error. */
bool vm_drop_caches(void);

#endif
