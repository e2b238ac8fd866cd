/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The watchdog: a small child process that aborts the FUSE connection if
 * the server dies without ending it.
 *
 * Why: delivery makes requests to its own mount (replays, lookups). If
 * the server is killed (SIGKILL, OOM) while one of them is in flight, the
 * thread that made it waits, uninterruptibly, for an answer that only
 * the server's dead threads could give; the process never finishes
 * dying, /dev/fuse is never closed, and every program that touches the
 * mount hangs. The kernel tells the watchdog when the server's main
 * thread dies (PR_SET_PDEATHSIG), and the watchdog also looks for a
 * pending SIGKILL in the server's threads five times a second; unless
 * the server said it ended cleanly, the watchdog then writes to the
 * connection's fusectl "abort" file, and the mount answers ENOTCONN until
 * it is unmounted.
 */
#ifndef RNOTIFY_DAEMON_WATCHDOG_H
#define RNOTIFY_DAEMON_WATCHDOG_H

#include <stdbool.h>

struct watchdog;

/*
 * Starts the watchdog for the FUSE mount at mountpoint (already
 * mounted). Must be called from the thread that lives as long as the
 * server: the main thread. It says what it did on syslog (daemon
 * facility) if to_syslog, as the server logs once daemonized, else on
 * stderr. NULL with errno set on failure.
 */
struct watchdog *watchdog_start(const char *mountpoint, bool to_syslog);

/* The server ends cleanly: the watchdog exits without aborting. */
void watchdog_release(struct watchdog *w);

#endif
