/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rnotifyfs --agent: the guest's half of virtiofs delivery on a stock
 * kernel. The backend on the host decides every replay (what the guest
 * was shown, what its gate answers); the agent makes the replay's
 * system calls on the guest's virtiofs mount, as guest root, so that the
 * guest's own kernel runs its fsnotify hooks and every watcher there
 * gets the real events. It keeps nothing but the fds it was asked to
 * open; a restart or a reboot loses nothing the backend relies on.
 */
#ifndef RNOTIFY_AGENT_AGENT_H
#define RNOTIFY_AGENT_AGENT_H

#include <stdbool.h>

#include "protocol/agent_wire.h"

/* The virtio-serial port's name, as QEMU's virtserialport name=. */
#define AGENT_PORT_DEFAULT "org.rnotify.agent.0"
/* The backend's fds of ours: as many as a replay holds, and more. */
#define AGENT_FDS 256

struct agent {
	int mount_fd;		/* the mount root */
	int fds[AGENT_FDS];	/* slot -> fd, -1 when free */
};

/* Makes the call m on the mount: its result, with res->id/gen for NODE_OF. */
int agent_call(struct agent *a, const struct agent_msg *m,
	       struct agent_msg *res);

/* Closes every fd of the backend's: a new backend, or a new agent. */
void agent_fds_close_all(struct agent *a);

/* rnotifyfs --agent ...: the process's exit status. */
int agent_main(int argc, char **argv);

#endif
