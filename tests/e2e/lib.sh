# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Shared by the tests/e2e/*.sh scripts (sourced, not run: tests/run-all
# skips it): their check lines, their bounded waits and the parts of their
# cleanup.  Each script keeps its own cleanup function, which knows what it
# started and in which order to end it.  A script that calls check sets
# NAME, the prefix of its check names, before.

# check CHECK STATUS WHY: "PASS NAME/CHECK" if STATUS is 0, else
# "FAIL NAME/CHECK: WHY".
check() {
	if [ "$2" = 0 ]; then echo "PASS $NAME/$1"; else echo "FAIL $NAME/$1: $3"; fi
}

# wait_for CMD...: runs CMD until it succeeds, every 50 ms and 200 times
# at most (10 s, longer on a loaded host); its status.
wait_for() {
	for _ in $(seq 200); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# wait_mount DIR: until DIR is a mount point, as wait_for bounds it.
wait_mount() {
	wait_for mountpoint -q "$1"
}

# unmount_lazy DIR...: each DIR that is a mount point, with umount -l.
unmount_lazy() {
	local m

	for m; do
		if mountpoint -q "$m"; then umount -l "$m"; fi
	done
}

# kill_and_reap PID...: each PID that is set, with SIGTERM, then waited for.
kill_and_reap() {
	local p

	for p; do
		if [ -n "$p" ] && kill "$p" 2>/dev/null; then wait "$p" 2>/dev/null; fi
	done
}
