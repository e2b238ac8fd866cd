// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "fs_identity.h"

_Static_assert(sizeof(((struct fs_identity *)0)->fsid) ==
	       sizeof(((struct statfs *)0)->f_fsid), "fsid size");

int fs_identity_of(int fd, const struct stat *st, struct fs_identity *id)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return -errno;
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->type = sfs.f_type;
	memcpy(id->fsid, &sfs.f_fsid, sizeof(id->fsid));
	return 0;
}

bool fs_identity_equal(const struct fs_identity *a,
		       const struct fs_identity *b)
{
	return a->dev == b->dev && a->type == b->type &&
	       !memcmp(a->fsid, b->fsid, sizeof(a->fsid));
}
