/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scratch tree under /tmp for the tests that watch real changes on the
 * host, and the forked children that make those changes: a watch ignores
 * changes made by its own pid.
 */
#ifndef RNOTIFY_TEST_SCRATCH_H
#define RNOTIFY_TEST_SCRATCH_H

/* Makes /tmp/PREFIX.XXXXXX; 0 or -1 with errno. */
int scratch_make(const char *prefix);

/* "TREE/rel"; the last four results stay valid. */
const char *scratch(const char *rel);

/* rm -rf of the tree; for the end of a test. */
void scratch_remove(void);

/*
 * Runs fn in a forked child and waits for it. A child that fails ends the
 * test binary: "FAIL test: a change failed".
 */
void scratch_in_child(void (*fn)(void), const char *test);

/* In a child: ends it with status 4 when a call returned < 0. */
void must(int rc);

#endif
