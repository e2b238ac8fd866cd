/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event scenarios: one table, run twice. t_remote_events applies each
 * action remotely (a child on BACKING), t_local_events through MNT; both
 * expect the same events, the ones native inotify gives for the action
 * (run with RNOTIFY_NATIVE=1 to check the table against the kernel).
 *
 * A scenario runs in its own directory, "<mode>-<name>", made remotely
 * with its setup ops and synced before any watch is added, so the setup's
 * own events are never seen. watch[0] must be a directory: the sentinel
 * that ends the scenario is created there.
 */
#ifndef RNOTIFY_E2E_SCENARIO_H
#define RNOTIFY_E2E_SCENARIO_H

#include "e2e.h"

struct e2e_watch_spec {
	const char *label;	/* prefix of this watch's events; "" none */
	const char *path;	/* relative to the scenario dir; "" = itself */
	uint32_t mask;		/* 0: E2E_MASK_DEFAULT */
};

struct e2e_scenario {
	const char *name;
	struct e2e_op setup[8];
	struct e2e_watch_spec watch[4];
	struct e2e_op action[8];
	const char *want[16];
};

extern const struct e2e_scenario e2e_event_scenarios[];
extern const int e2e_event_scenarios_count;

/* Runs every scenario; remote or local action. One check line each. */
void e2e_scenarios_run(bool remote);

#endif
