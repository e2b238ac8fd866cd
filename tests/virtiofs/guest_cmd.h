/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guest_cmd - a virtiofs guest test's way to change an export from the
 * host (tests/virtiofs/host_cmd.c, over the guest's /dev/ttyS1): the
 * change is made, by a host process, when the call returns.
 */
#ifndef GUEST_CMD_H
#define GUEST_CMD_H

#include <stdint.h>

/* How long a request may take, answer included. */
#define GUEST_CMD_WAIT_MS 10000

/*
 * Sends "REQ <id> " followed by the formatted op ("write ours f data")
 * and waits for its answer: 0 if the host made the change, the host's
 * errno if it failed, -1 if no answer came in GUEST_CMD_WAIT_MS (or the
 * port could not be opened), with the reason printed as a "#" line.
 */
int host_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * host_cmd in two halves, for a caller with something to do before the
 * answer comes (read the change's event): host_cmd_send returns the
 * request's id, or -1; host_cmd_wait returns as host_cmd does, and puts
 * the host's time stamp counter read just before the change (or, for
 * "clock", at the answer) in *tsc.
 */
int host_cmd_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int host_cmd_wait(int id, uint64_t *tsc);

#endif
