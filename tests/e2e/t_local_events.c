// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every event scenario (tests/lib/e2e_scenarios.c) with its action
 * applied locally, through MNT by the test itself: the kernel raises
 * the events; the server must not add a second copy when it sees its own
 * change to the backing store.
 */
#include "../lib/e2e_scenario.h"

CHECK_MAIN_DEFS;

int main(void)
{
	e2e_mount(NULL);
	e2e_scenarios_run(false);
	return check_exit();
}
