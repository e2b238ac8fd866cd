/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rnotifyfs --check: says which delivery mode this machine allows for a
 * backing directory, and why, without mounting anything.
 */
#ifndef RNOTIFY_DAEMON_CHECK_H
#define RNOTIFY_DAEMON_CHECK_H

#include "cli.h"

/* Prints the report; returns 0 if remote changes would be delivered. */
int check_run(const struct cli *cli);

#endif
