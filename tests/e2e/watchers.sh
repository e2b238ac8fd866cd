#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Real watchers on the mount: inotifywait (inotify-tools) in recursive
# monitor mode, as sync tools and build watchers use it, must see remote
# changes exactly as it would see local ones, including a file created in a
# directory that itself just appeared remotely (the recursive watcher adds
# its watch when it reads the dir's CREATE).
#
#   tests/e2e/watchers.sh RNOTIFYFS        (RNOTIFY_NATIVE=1: no server)
#
# Each step ends with a sentinel created in BACKING; the lines inotifywait
# printed before the sentinel's line are the step's complete output and
# must equal the expected ones. The sentinel is made only once as many
# lines as expected have come (10 s at most): it is a change of its own,
# and would carry along a last event that the server held back until the
# next one. Waits poll a condition with a bound.
# Needs: inotify-tools, fuse3 (fusermount3).

set -u

srv=${1:?usage: $0 RNOTIFYFS}
tmp=$(mktemp -d /tmp/rnotify-watchers.XXXXXX)
back=$tmp/backing
mnt=$tmp/mnt
log=$tmp/events
srv_pid=
watch_pid=
seq=0
failed=0
mkdir "$back"
# BACKING on a tmpfs of its own: the fanotify watcher marks its whole file
# system, and on /tmp's anyone's change would wake the server and carry
# along a last event held back until a next one. The logs stay on /tmp.
mount -t tmpfs -o mode=755 rnotify-quiet "$back" || {
	echo "FAIL watchers/setup: tmpfs on $back"
	rmdir "$back" "$tmp"
	exit 1
}

if [ "${RNOTIFY_NATIVE:-0}" = 1 ]; then
	mnt=$back
else
	mkdir "$mnt"
fi

srv_gone() {
	! kill -0 "$srv_pid" 2>/dev/null
}

cleanup() {
	[ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
	if [ -n "$srv_pid" ]; then
		kill -TERM "$srv_pid" 2>/dev/null
		wait_until 5000 srv_gone || kill -KILL "$srv_pid" 2>/dev/null
		fusermount3 -u -z "$mnt" 2>/dev/null
	fi
	umount -l "$back"
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# wait_until MS CMD...: runs CMD every 10 ms until it succeeds, MS ms at
# most by the clock (a count of tries stretches on a loaded host).
wait_until() {
	local end=$((${EPOCHREALTIME//[.,]/} / 1000 + $1))
	shift
	until "$@"; do
		[ $((${EPOCHREALTIME//[.,]/} / 1000)) -lt $end ] || return 1
		sleep 0.01
	done
}

die() {
	echo "FAIL watchers/$1: $2"
	exit 1
}

is_mounted() {
	awk -v m="$mnt" '{
		for (i = 7; i <= NF; i++)
			if ($i == "-") {
				if ($5 == m && $(i + 1) == "fuse.rnotifyfs")
					found = 1
				break
			}
	} END { exit !found }' /proc/self/mountinfo
}

start_server() {
	"$srv" -f "$back" "$mnt" >&2 &
	srv_pid=$!
	wait_until 10000 is_mounted || die mount "no fuse.rnotifyfs on $mnt"
}

# Events as "MASK path-under-the-mount", one a line.
start_watcher() {
	inotifywait -m -r -q \
		-e create -e delete -e moved_from -e moved_to -e modify \
		-e attrib -e close_write -e delete_self -e move_self \
		--format '%e %w%f' "$mnt" >"$log" 2>"$tmp/watcher.err" &
	watch_pid=$!
	# -q hides "Watches established": test that the watch is live by
	# a local change through the mount instead, which is synchronous.
	wait_until 10000 probe_local || die watcher "inotifywait never ready"
	lines_done=$(wc -l <"$log")
}

probe_local() {
	touch "$mnt/.probe-$seq" 2>/dev/null
	seq=$((seq + 1))
	grep -q '^CREATE .*\.probe-' "$log"
}

# sentinel NAME: waits until the remote sentinel's CREATE line is printed.
has_line() {
	grep -qx "CREATE $mnt/$1" "$log"
}

# The remote pipeline may start after the mount: retry fresh sentinels.
wait_live() {
	local i
	for ((i = 0; i < 40; i++)); do
		ln -s x "$back/.live-$i"
		wait_until 250 has_line ".live-$i" && break
	done
	[ $i -lt 40 ] || die live "no remote CREATE reached the mount in 10 s"
	lines_done=$(wc -l <"$log")
}

# came N: N lines or more since the last step.
came() {
	[ $(($(wc -l <"$log") - lines_done)) -ge "$1" ]
}

# expect NAME LINE...: as many lines as LINE... come by themselves; then
# the lines since the last step, up to a fresh sentinel, must be exactly
# LINE... (paths relative to the mount).
expect() {
	local name=$1 s=".sentinel-$seq" got want alone=0
	shift
	seq=$((seq + 1))
	wait_until 10000 came $# || alone=$?
	# A symlink: its CREATE is its only event (touch adds ATTRIB,
	# CLOSE_WRITE after the CREATE, which would spill into the next step).
	ln -s x "$back/$s"
	if ! wait_until 5000 has_line "$s"; then
		echo "FAIL watchers/$name: sentinel not seen in 5 s; got" \
		     "$(tail -n +$((lines_done + 1)) "$log" | tr '\n' ',')"
		failed=1
		return
	fi
	got=$(tail -n +$((lines_done + 1)) "$log" | sed "s|$mnt/||" |
	      sed '/^CREATE \.sentinel-/,$d' | tr '\n' ',')
	want=$(printf '%s\n' "$@" | tr '\n' ',')
	lines_done=$(grep -nx "CREATE $mnt/$s" "$log" | cut -d: -f1)
	if [ "$got" != "$want" ]; then
		echo "FAIL watchers/$name: expected [$want] got [$got]"
		failed=1
	elif [ $alone != 0 ]; then
		echo "FAIL watchers/$name: [$want] came only after a later" \
		     "change (the sentinel), not within 10 s by itself"
		failed=1
	else
		echo "PASS watchers/$name"
	fi
}

[ "${RNOTIFY_NATIVE:-0}" = 1 ] || start_server
command -v inotifywait >/dev/null || die setup "inotifywait not installed"
start_watcher
wait_live

mkdir "$back/d"
expect inotifywait_mkdir "CREATE,ISDIR d"
touch "$back/d/f"
expect inotifywait_create_in_new_dir "CREATE d/f" "ATTRIB d/f" \
	"CLOSE_WRITE,CLOSE d/f"
printf 'new' >>"$back/d/f"
expect inotifywait_append "MODIFY d/f" "CLOSE_WRITE,CLOSE d/f"
mv "$back/d/f" "$back/d/g"
expect inotifywait_rename "MOVED_FROM d/f" "MOVED_TO d/g"
rm -r "$back/d"
expect inotifywait_rm_r "DELETE d/g" "DELETE_SELF d/" "DELETE,ISDIR d"
exit $failed
