// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs the event scenarios of e2e_scenarios.c: setup remotely, sync, add
 * the watches on MNT, do the action (remotely or through MNT), then expect
 * exactly the scenario's events before a sentinel. Needs e2e_mount().
 */
#include <stdio.h>

#include "e2e_scenario.h"

static struct e2e_reader *e2e_scenario_watch(const struct e2e_scenario *s,
					     const char *dir)
{
	struct e2e_reader *r = e2e_inotify_new();
	const struct e2e_watch_spec *w;
	char rel[PATH_MAX];

	if (!r)
		return NULL;
	for (w = s->watch; w < s->watch + 4 && w->path; w++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir, w->path);
		if (e2e_inotify_watch(r, w->label, e2e_mpath(rel),
				      w->mask ? w->mask : E2E_MASK_DEFAULT)) {
			e2e_reader_free(r);
			return NULL;
		}
	}
	return r;
}

static void e2e_scenario_run(const struct e2e_scenario *s, bool remote)
{
	const char *mode = remote ? "remote" : "local";
	struct e2e_op mkdir_op[] = { OP_MKDIR(NULL), OP_END };
	char dir[128], check[160], sentinel[PATH_MAX];
	struct e2e_reader *r;
	int err;

	snprintf(dir, sizeof(dir), "%s-%s", mode, s->name);
	snprintf(check, sizeof(check), "%s/%s", mode, s->name);
	mkdir_op[0].path = dir;
	if (e2e_remote("", mkdir_op) || e2e_remote(dir, s->setup)) {
		e2e_fail(check, "remote setup failed");
		return;
	}
	e2e_sync();
	r = e2e_scenario_watch(s, dir);
	if (!r) {
		e2e_fail(check, "adding the watches failed");
		return;
	}
	err = remote ? e2e_remote(dir, s->action) : e2e_local(dir, s->action);
	if (err) {
		e2e_fail(check, "the action itself failed");
	} else {
		snprintf(sentinel, sizeof(sentinel), "%s/%s", dir,
			 s->watch[0].path);
		e2e_expect(r, sentinel, check, s->want);
	}
	e2e_reader_free(r);
}

void e2e_scenarios_run(bool remote)
{
	int i;

	for (i = 0; i < e2e_event_scenarios_count; i++)
		e2e_scenario_run(&e2e_event_scenarios[i], remote);
}
