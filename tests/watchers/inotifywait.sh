#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# inotifywait -m -r (inotify-tools) on an rnotifyfs mount: a remote create,
# modify, rename and delete made on BACKING print exactly the lines the
# same changes made through the mount print, once each.
# Events as inotifywait names them (-e filter: no OPEN/ACCESS/CLOSE_NOWRITE
# noise from the directory listings of the watchers themselves).
#   tests/watchers/inotifywait.sh [RNOTIFYFS]
NAME=inotifywait
. "$(dirname "$0")/lib.sh"

watcher_start() {
	inotifywait -m -r -e create -e modify -e close_write -e attrib \
		-e moved_from -e moved_to -e delete -e delete_self \
		-e move_self --format '%e %w%f' "$mnt" >"$raw" 2>"$tmp/w.err" &
	watch_pid=$!
	wait_until 10000 grep -qs '^Watches established' "$tmp/w.err" ||
		die ready "inotifywait never established its watches"
}

normalise() {
	sed "s|$mnt/||"
}

sentinel_lines() {
	echo "CREATE,ISDIR .s$1"
}

need inotifywait
server_start
watcher_start
wait_live

create=("CREATE a" "MODIFY a" "CLOSE_WRITE,CLOSE a")
modify=("MODIFY a" "CLOSE_WRITE,CLOSE a")
rename=("MOVED_FROM a" "MOVED_TO b")
delete=("DELETE b")
scenario create modify rename delete
finish
