// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The own-change expectation ring (own_expect.h). Not locked here: the
 * inotify backend holds its expect_lock around both calls, since FUSE
 * worker threads add while the watcher thread consumes.
 */
#include <string.h>

#include "own_expect.h"

void own_expect_add(struct own_expect *x, const struct rn_id *dir,
		    const char *name)
{
	size_t n = strnlen(name, NAME_MAX + 1);
	unsigned int i;

	if (n == 0 || n > NAME_MAX || strchr(name, '/'))
		return;
	i = x->next++ % OWN_EXPECT_MAX;
	x->e[i].used = true;
	x->e[i].dir = *dir;
	memcpy(x->e[i].name, name, n + 1);
}

bool own_expect_consume(struct own_expect *x, const struct rn_id *dir,
			const char *name)
{
	unsigned int i;

	for (i = 0; i < OWN_EXPECT_MAX; i++) {
		if (x->e[i].used && rn_id_equal(&x->e[i].dir, dir) &&
		    strcmp(x->e[i].name, name) == 0) {
			x->e[i].used = false;
			return true;
		}
	}
	return false;
}
