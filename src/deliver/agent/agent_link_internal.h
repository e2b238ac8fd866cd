/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between the channel (agent_link.c) and the calls made over it (agent_link_sys.c). */
#ifndef RNOTIFY_DELIVER_AGENT_AGENT_LINK_INTERNAL_H
#define RNOTIFY_DELIVER_AGENT_AGENT_LINK_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "protocol/agent_wire.h"
#include "agent_link.h"

/*
 * One call m (its op and args) on the guest's mount: its result, a
 * replay fd for the opens (the slot with the answering agent's epoch),
 * or -ENOTCONN when there is no agent, or it went, or it did not answer
 * in AGENT_CALL_TIMEOUT seconds. res, if not NULL, gets the whole answer.
 */
int64_t agent_link_call(struct agent_link *l, struct agent_msg *m,
			struct agent_msg *res);

/* The agent's slot behind a replay fd, or -1 if of an agent gone since. */
int agent_link_slot(struct agent_link *l, int fd);

/* Is there an agent, and which thread of the guest is it? */
void agent_link_agent(struct agent_link *l, bool *ready, pid_t *tid);

#endif
