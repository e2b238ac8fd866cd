#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Node chokidar (npm, default options: fs.watch, which is inotify on
# Linux; no polling) on an rnotifyfs mount: a remote create, modify,
# rename and delete print exactly the lines the same local changes print,
# once each. chokidar reports a rename as "add" of the new name and
# "unlink" of the old one. It skips a dangling symlink, so sentinels are
# directories ("addDir"). With its default atomic option chokidar holds
# back an "unlink" for 100 ms (to report a quick delete + re-create as a
# "change"), so the unlink comes after the step's sentinel: lines are
# compared per step as a set (UNORDERED), still exactly and once each.
# The create step makes an empty file: chokidar stats a new file when it
# hears of it, and a local create-then-write raced that stat (it printed
# "add" and, when the stat came first, "change": natively too).
#   tests/watchers/chokidar.sh [RNOTIFYFS]
NAME=chokidar
UNORDERED=1
CREATE_CONTENT=
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

watcher_start() {
	node "$here/chokidar-watch.js" "$mnt" >"$raw" 2>"$tmp/w.err" &
	watch_pid=$!
	wait_until 10000 grep -qsx READY "$raw" ||
		die ready "chokidar never ready: $(cat "$tmp/w.err")"
}

normalise() {
	sed -e '1,/^READY$/d'
}

sentinel_lines() {
	echo "addDir .s$1"
}

need node
[ -d "$here/node_modules/chokidar" ] ||
	die setup "chokidar not installed (run tests/watchers/setup)"
server_start
watcher_start
wait_live

create=("add a")
modify=("change a")
rename=("add b" "unlink a")
delete=("unlink b")
scenario create modify rename delete
finish
