#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Mounts through mount(8) with an installed rnotifyfs, as an admin would:
# "mount -t fuse.rnotifyfs", an fstab line ("mount -T FSTAB MNT"), and
# the installed mount.fuse.rnotifyfs helper called directly. Run by
# install.sh inside a private mount namespace (unshare -m), where PREFIX's
# bin is bind-mounted on /usr/local/bin: mount(8) runs helpers with a
# fixed PATH (/usr/local/bin is in it, a DESTDIR is not), so that is how
# the DESTDIR copy is the one found, without touching the host.
#   unshare -m --propagation private tests/watchers/install-mount.sh PREFIXDIR
NAME=install
. "$(dirname "$0")/lib.sh"
prefix=${1:?usage: $0 DESTDIR/usr/local}

# The daemonized server of our mount: its command line names $mnt.
find_server() {
	local d
	for d in /proc/[0-9]*; do
		tr '\0' ' ' 2>/dev/null <"$d/cmdline" |
			grep -q "^rnotifyfs $back $mnt " || continue
		srv_pid=${d#/proc/}
		return 0
	done
	return 1
}

# mounted NAME: the mount is there and served by the installed binary.
mounted() {
	if ! is_mounted; then
		fail "$1" "no fuse.rnotifyfs on $mnt"
		return 1
	fi
	if ! find_server || [ "$(readlink "/proc/$srv_pid/exe")" != /usr/local/bin/rnotifyfs ]; then
		fail "$1" "mounted, but not by /usr/local/bin/rnotifyfs"
		return 1
	fi
	pass "$1"
}

unmount() {
	if umount "$mnt" && wait_until 5000 gone "$srv_pid"; then
		pass "$1"
		srv_pid=
	else
		fail "$1" "server $srv_pid still there 5 s after umount"
	fi
}

watcher_start() {
	inotifywait -m -r -e create -e modify -e close_write \
		-e moved_from -e moved_to -e delete \
		--format '%e %w%f' "$mnt" >"$raw" 2>"$tmp/w.err" &
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

watcher_stop() {
	kill "$watch_pid"
	wait_until 3000 gone "$watch_pid" || kill -KILL "$watch_pid"
	watch_pid=
}

need inotifywait
mount --bind "$prefix/bin" /usr/local/bin || die bind "cannot bind $prefix/bin"

mount -t fuse.rnotifyfs "$back" "$mnt" 2>"$tmp/mount.err" ||
	die mount-t "mount -t fuse.rnotifyfs: $(cat "$tmp/mount.err")"
mounted mount-t || finish
watcher_start
wait_live
step mount-t-remote-create "printf hello >$back/a" \
	"CREATE a" "MODIFY a" "CLOSE_WRITE,CLOSE a"
watcher_stop
unmount mount-t-umount

printf '%s %s fuse.rnotifyfs noauto,delivery=replay,watch=fanotify 0 0\n' \
	"$back" "$mnt" >"$tmp/fstab"
if mount -T "$tmp/fstab" "$mnt" 2>"$tmp/mount.err" && mounted fstab; then
	if tr '\0' ' ' <"/proc/$srv_pid/cmdline" |
	   grep -q -- "-o .*delivery=replay,watch=fanotify"; then
		pass fstab-options
	else
		fail fstab-options "$(tr '\0' ' ' <"/proc/$srv_pid/cmdline")"
	fi
	unmount fstab-umount
else
	fail fstab "mount -T: $(cat "$tmp/mount.err")"
fi

if "$prefix/sbin/mount.fuse.rnotifyfs" "$back" "$mnt" -o delivery=replay \
	2>"$tmp/mount.err" && mounted helper; then
	unmount helper-umount
else
	fail helper "mount.fuse.rnotifyfs: $(cat "$tmp/mount.err")"
fi
finish
