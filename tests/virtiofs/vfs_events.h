/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What vfs_events' files share: the run's names, VCHECK(), paths. */
#ifndef RNOTIFY_TESTS_VIRTIOFS_VFS_EVENTS_H
#define RNOTIFY_TESTS_VIRTIOFS_VFS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

extern const char *label, *mnt, *tag;
extern int failures;

#define IN_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		   IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)

/* "PASS label:name" or "FAIL label:name: why", as vfs_tools prints. */
#define VCHECK(name, cond)						\
	do {								\
		if (cond) {						\
			printf("PASS %s:%s\n", label, (name));		\
		} else {						\
			printf("FAIL %s:%s: %s (%s:%d)\n", label, (name), \
			       #cond, __FILE__, __LINE__);		\
			failures++;					\
		}							\
		fflush(stdout);						\
	} while (0)

/* mnt/rel (one of four buffers, reused in turn). */
const char *at(const char *rel);
const char *slurp(const char *path, char *buf, size_t len);
/* mnt/rel holds exactly want. */
bool reads(const char *rel, const char *want);

/* vfs_events_marks.c: fanotify inode and filesystem marks. */
void test_marks(int root);
/* vfs_events_overflow.c: notifications the guest did not fetch. */
void test_overflow(void);
/* vfs_events_frames.c: with frame_server, tag "frames". */
void test_frames(void);

#endif
