#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# gio monitor -f (GLib's GFileMonitor on one file, libglib2.0-bin) on an
# rnotifyfs mount: remote changes to the file print exactly the lines the
# same local changes print, once each. GLib watches the file's directory
# with inotify and keeps the events that name the file (see gio-dir.sh on
# why it does not poll a FUSE mount).
# The file f exists from the start; every step ends with a remote chmod
# of f (the sentinel), so each step leaves f as it found it:
#   modify  append
#   rename  f -> g, then g -> f
#   delete  rm f, then mkdir f (a directory, so no write follows)
#   create  rmdir f, then write f anew
#   tests/watchers/gio-file.sh [RNOTIFYFS]
NAME=gio-file
. "$(dirname "$0")/lib.sh"

watcher_start() {
	gio monitor -f "$mnt/f" >"$raw" 2>"$tmp/w.err" &
	watch_pid=$!
}

normalise() {
	sed -e "s|^$mnt/f: ||" -e "s|$mnt/||g"
}

sentinel() {
	chmod 600 "$back/f"
}

sentinel_lines() {
	echo "f: attributes changed"
}

need gio
printf hello >"$back/f"
server_start
watcher_start
wait_live

for where in remote local; do
	d=$back
	[ "$where" = local ] && d=$mnt
	step $where-modify "echo more >>$d/f" \
		"f: changed" "f: changes done"
	step $where-rename "mv $d/f $d/g && mv $d/g $d/f" \
		"f: renamed to g" "g: renamed to f"
	step $where-delete "rm $d/f && mkdir $d/f" \
		"f: deleted" "f: created" "f: changes done"
	step $where-create "rmdir $d/f && printf hello >$d/f" \
		"f: deleted" "f: created" "f: changed" "f: changes done"
done
step last-sentinel :
finish
