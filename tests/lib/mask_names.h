/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mask_names - the names of inotify and fanotify mask bits for the text
 * the tests print, in the bit order of the kernel's masks (as
 * inotify-tools prints them).  Bare names ("CREATE"): the e2e readers
 * (e2e_events.c) print them so, the VM and virtio-fs readers
 * (tests/vm/vmwatch.c) after the API's prefix ("IN_CREATE").
 */
#ifndef RNOTIFY_TESTS_MASK_NAMES_H
#define RNOTIFY_TESTS_MASK_NAMES_H

#include <stdint.h>

struct mask_name {
	uint64_t bit;
	const char *name;
};

/* Each ends with { 0, NULL }. */
extern const struct mask_name inotify_mask_names[];
extern const struct mask_name fanotify_mask_names[];

#endif
