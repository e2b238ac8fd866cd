/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The backend's end of the channel to a virtiofs guest's agent
 * (rnotifyfs --agent), and the replay's system calls made through it
 * (replay_sys.h): the replayer stays here, beside the file system whose
 * gate answers it; only its calls on the mount run in the guest.
 *
 * The channel is a unix socket the backend listens on, which the VMM
 * connects to a virtio-serial port of the guest (QEMU: a socket chardev
 * with reconnect=1 behind a virtserialport named org.rnotify.agent.0). Only
 * guest root can open that port, so only guest root can be the agent.
 *
 * Who the agent is: its HELLO names its thread id and uid; the gate
 * answers requests only with that pid (the FUSE header's, in the guest's
 * pid namespace) and uid 0, and only the replay in flight. A new HELLO
 * (the agent restarted, the guest rebooted) replaces the old agent at
 * once, and every fd of the old one is refused from then on; an agent
 * that does not answer a call within AGENT_CALL_TIMEOUT seconds is taken
 * as gone until it says HELLO again.
 *
 * Threads: one reader thread (accepting the VMM's connection, decoding
 * what the guest sends); the replayer makes calls, one at a time. One
 * lock orders the agent's state between them.
 */
#ifndef RNOTIFY_DELIVER_AGENT_AGENT_LINK_H
#define RNOTIFY_DELIVER_AGENT_AGENT_LINK_H

#include "deliver/replay/replay_sys.h"

#define AGENT_CALL_TIMEOUT 10	/* seconds */

struct agent_link;

/*
 * Listens on path (made anew, owner-only). NULL with errno set on
 * failure.
 */
struct agent_link *agent_link_new(const char *path);

/*
 * Starts the reader, which takes the agent's connection: after the
 * server has daemonized, as a thread does not live through the fork.
 * 0, or a negative errno.
 */
int agent_link_start(struct agent_link *l);

/* The replay's calls, with the link as their arg. */
extern const struct replay_sys agent_link_sys;

/* Stops the reader, closes the channel, removes the socket. */
void agent_link_free(struct agent_link *l);

#endif
