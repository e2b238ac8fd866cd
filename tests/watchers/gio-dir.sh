#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# gio monitor -d (GLib's GFileMonitor on a directory, libglib2.0-bin) on an
# rnotifyfs mount: a remote create, modify, rename and delete print exactly
# the lines the same local changes print, once each.
# GLib takes its inotify backend here, not polling: it polls only for a
# path under $HOME when $HOME itself is on NFS (g_local_file_is_nfs_home:
# statfs f_type NFS_SUPER_MAGIC); a FUSE mount (f_type 0x65735546, any
# subtype or fsname) is never "remote" to it. The check below asserts it.
#   tests/watchers/gio-dir.sh [RNOTIFYFS]
NAME=gio-dir
. "$(dirname "$0")/lib.sh"

# gio prints no readiness line: wait_live's sentinels are the signal.
watcher_start() {
	gio monitor -d "$mnt" >"$raw" 2>"$tmp/w.err" &
	watch_pid=$!
}

# "MNT: MNT/a: renamed to MNT/b" -> "a: renamed to b"; gio ends a
# rename with an empty line (dropped by events()).
normalise() {
	sed -e "s|^$mnt: ||" -e "s|$mnt/||g"
}

# GLib follows the creation of anything but a regular file (no
# CLOSE_WRITE will come) with its own "changes done" at once.
sentinel_lines() {
	printf '%s\n' ".s$1: created" ".s$1: changes done"
}

# The monitor's fds: an inotify instance with a watch on the mount.
uses_inotify() {
	local fd
	for fd in /proc/"$watch_pid"/fdinfo/*; do
		grep -qs '^inotify wd:' "$fd" && return 0
	done
	return 1
}

need gio
server_start
watcher_start
wait_live
if uses_inotify; then
	pass backend-inotify
else
	fail backend-inotify "gio monitor holds no inotify watch: it polls"
fi

create=("a: created" "a: changed" "a: changes done")
modify=("a: changed" "a: changes done")
rename=("a: renamed to b")
delete=("b: deleted")
scenario create modify rename delete
finish
