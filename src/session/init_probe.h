/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Does the running kernel offer remote fsnotify (FUSE_HAS_FSNOTIFY)? The
 * only reliable answer is the kernel's own INIT request, so the probe
 * mounts a throwaway FUSE connection on a private temporary directory,
 * reads INIT, and aborts the connection without answering it.
 */
#ifndef RNOTIFY_SESSION_INIT_PROBE_H
#define RNOTIFY_SESSION_INIT_PROBE_H

#include <stdbool.h>

/* 0 and *offered set, or a negative errno (mounting needs root). */
int init_probe(bool *offered);

#endif
