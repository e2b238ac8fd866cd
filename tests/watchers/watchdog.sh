#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Python watchdog's default Observer (Debian python3-watchdog, run by
# /usr/bin/python3) on an rnotifyfs mount: a remote create, modify, rename
# and delete print exactly the lines the same local changes print, once
# each. On Linux the default Observer is its InotifyObserver (checked):
# watchdog never looks at the file system type.
# watchdog adds a DirModifiedEvent of the parent after each entry change
# and after each close-after-write; they are compared like the rest.
#   tests/watchers/watchdog.sh [RNOTIFYFS]
NAME=watchdog
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3

watcher_start() {
	"$py" -u "$(dirname "$0")/watchdog-watch.py" "$mnt" >"$raw" \
		2>"$tmp/w.err" &
	watch_pid=$!
	wait_until 10000 grep -qsx READY "$raw" ||
		die ready "watchdog observer never started: $(cat "$tmp/w.err")"
	if [ "$(head -n 1 "$raw")" = InotifyObserver ]; then
		pass observer-inotify
	else
		fail observer-inotify "default observer is $(head -n 1 "$raw")"
	fi
}

normalise() {
	sed -e '1,/^READY$/d'
}

sentinel_lines() {
	printf '%s\n' "DirCreatedEvent .s$1" "DirModifiedEvent ."
}

"$py" -c 'import watchdog.observers' 2>/dev/null ||
	die setup "python3-watchdog not installed (run tests/watchers/setup)"
server_start
watcher_start
wait_live

create=("FileCreatedEvent a" "DirModifiedEvent ." "FileModifiedEvent a"
	"FileClosedEvent a" "DirModifiedEvent .")
modify=("FileModifiedEvent a" "FileClosedEvent a" "DirModifiedEvent .")
rename=("FileMovedEvent a b" "DirModifiedEvent .")
delete=("FileDeletedEvent b" "DirModifiedEvent .")
scenario create modify rename delete
finish
