#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fsnotifywait (inotify-tools, fanotify mode) on an rnotifyfs mount: with
# inode marks (its default) a remote create, modify, rename and delete
# print exactly the lines the same local changes print, once each.
# -S (a filesystem mark) cannot apply on a stock kernel: FUSE reports a
# zero fsid, so fanotify refuses the mark with ENODEV; the check asserts
# exactly that refusal (the kernel series in kernel/ gives FUSE an fsid).
#   tests/watchers/fsnotifywait.sh [RNOTIFYFS]
NAME=fsnotifywait
. "$(dirname "$0")/lib.sh"

watcher_start() {
	fsnotifywait -m -e create -e modify -e close_write -e attrib \
		-e moved_from -e moved_to -e delete -e delete_self \
		-e move_self --format '%e %w%f' "$mnt" >"$raw" 2>"$tmp/w.err" &
	watch_pid=$!
	wait_until 10000 grep -qs '^Watches established' "$tmp/w.err" ||
		die ready "fsnotifywait never established its watches"
}

# fsnotifywait 3.22.6 prints a "[fid=...;name='x'] path" line before an
# event that names a new entry: its fid info, not an event. fanotify
# merges events on one object while they wait in its queue (a kernel
# feature, on native file systems too), so "MODIFY,CLOSE_WRITE,CLOSE a"
# is split back into one line per event, in the order one change makes
# them.
normalise() {
	sed -e '/^\[fid=/d' -e "s|$mnt/||" | awk '
	BEGIN {
		n = split("CREATE MOVED_TO MODIFY ATTRIB CLOSE_WRITE " \
			  "MOVED_FROM DELETE DELETE_SELF MOVE_SELF", order, " ")
	}
	{
		split($1, flags, ",")
		delete has
		for (i in flags)
			has[flags[i]] = 1
		isdir = ("ISDIR" in has) ? ",ISDIR" : ""
		for (i = 1; i <= n; i++) {
			if (!(order[i] in has))
				continue
			ev = order[i] == "CLOSE_WRITE" ? "CLOSE_WRITE,CLOSE" : order[i]
			print ev isdir " " $2
		}
	}'
}

sentinel_lines() {
	echo "CREATE,ISDIR .s$1"
}

filesystem_mark_refused() {
	local out rc=0
	out=$(timeout 10 fsnotifywait -S -e create "$mnt" 2>&1) || rc=$?
	if [ "$rc" -eq 1 ] &&
	   [ "$out" = "$(printf 'Setting up filesystem watches.\nCouldn'"'"'t add filesystem watch %s: No such device' "$mnt")" ]; then
		pass filesystem-mark-enodev
	else
		fail filesystem-mark-enodev "rc $rc, output [$out]"
	fi
}

need fsnotifywait
server_start
filesystem_mark_refused
watcher_start
wait_live

create=("CREATE a" "MODIFY a" "CLOSE_WRITE,CLOSE a")
modify=("MODIFY a" "CLOSE_WRITE,CLOSE a")
rename=("MOVED_FROM a" "MOVED_TO b")
delete=("DELETE b")
scenario create modify rename delete
finish
