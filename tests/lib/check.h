/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The smallest test framework that does the job: every check prints one
 * line, "PASS name" or "FAIL name: why", which tests/run-all counts into
 * the final "N passed, N failed". A test binary exits 1 if any check failed.
 */
#ifndef RNOTIFY_CHECK_H
#define RNOTIFY_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int check_failures;

#define CHECK(name, cond)						\
	do {								\
		if (cond) {						\
			printf("PASS %s\n", (name));			\
		} else {						\
			printf("FAIL %s: %s (%s:%d)\n", (name), #cond,	\
			       __FILE__, __LINE__);			\
			check_failures++;				\
		}							\
		fflush(stdout);						\
	} while (0)

/*
 * CHECK() in code that runs more than once with other settings: variant
 * names the run, so that each run's lines have names of their own
 * ("PASS remote create (inode mark)").
 */
#define CHECK_IN(variant, name, cond)					\
	do {								\
		if (cond) {						\
			printf("PASS %s (%s)\n", (name), (variant));	\
		} else {						\
			printf("FAIL %s (%s): %s (%s:%d)\n", (name),	\
			       (variant), #cond, __FILE__, __LINE__);	\
			check_failures++;				\
		}							\
		fflush(stdout);						\
	} while (0)

/* Define check_failures once, in the file that has main(). */
#define CHECK_MAIN_DEFS int check_failures

static inline int check_exit(void)
{
	return check_failures ? 1 : 0;
}

#endif
