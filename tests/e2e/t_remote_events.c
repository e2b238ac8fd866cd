// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every event scenario (tests/lib/e2e_scenarios.c) with its action
 * applied remotely: by a forked child on BACKING, not through the mount.
 */
#include "../lib/e2e_scenario.h"

CHECK_MAIN_DEFS;

int main(void)
{
	e2e_mount(NULL);
	e2e_scenarios_run(true);
	return check_exit();
}
