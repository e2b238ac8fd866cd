# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by the real-watcher tests (sourced, not run): starts rnotifyfs on
# temporary dirs, starts one watcher program whose stdout is normalised to
# "EVENT path" lines (paths relative to the watched root), and checks each
# step of a scenario against the exact lines the watcher must print.
#
# A step is: an action (on BACKING = remote, or on the mount = local), then
# a sentinel (a remote mkdir, or what the script chose). The sentinel is
# made only once as many new lines as the action should give have come
# (10 s at most): it is a change of its own, and would carry along a last
# event that the server held back until the next one. The step then waits,
# bounded, until the sentinel's lines have arrived too, and compares them
# all exactly. A duplicate or late event of a step lands in the next
# step's lines and fails that one; the last step of a script is a bare
# sentinel, so every real step is followed by a compared one.
#
# The script sets before sourcing: NAME (check prefix). It defines:
#   watcher_start   starts the watcher (background, stdout to $raw) and
#                   waits for its readiness signal; sets watch_pid
#   normalise       filter: raw watcher output -> "EVENT path" lines
#   sentinel N      the sentinel action of step N (default: mkdir .sN)
#   sentinel_lines N  the lines it makes (default: none, must be set)
# and may set UNORDERED=1: a step's lines are then compared as a set (for
# a watcher that delays some events on a timer of its own).

set -eu

srv=${1:-build/rnotifyfs}
tmp=$(mktemp -d /tmp/rnotify-w.XXXXXX)
back=$tmp/backing
mnt=$tmp/mnt
raw=$tmp/raw
srv_pid=
watch_pid=
step_no=0
done_lines=0
npass=0
nfail=0
mkdir "$back" "$mnt"
: >"$raw"

gone() {
	! kill -0 "$1" 2>/dev/null
}

# wait_until MS CMD...: runs CMD every 20 ms until it succeeds, MS ms at
# most by the clock (a count of tries stretches on a loaded host).
wait_until() {
	local end=$((${EPOCHREALTIME//[.,]/} / 1000 + $1))
	shift
	until "$@"; do
		[ $((${EPOCHREALTIME//[.,]/} / 1000)) -lt $end ] || return 1
		sleep 0.02
	done
}

cleanup() {
	set +e
	if [ -n "$watch_pid" ]; then
		kill "$watch_pid" 2>/dev/null
		wait_until 3000 gone "$watch_pid" ||
			kill -KILL "$watch_pid" 2>/dev/null
	fi
	if [ -n "$srv_pid" ]; then
		kill -TERM "$srv_pid" 2>/dev/null
		wait_until 5000 gone "$srv_pid" ||
			kill -KILL "$srv_pid" 2>/dev/null
	fi
	mountpoint -q "$mnt" && umount -l "$mnt"
	mountpoint -q "$back" && umount -l "$back"
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# BACKING on a tmpfs of its own: the fanotify watcher marks its whole file
# system, and on /tmp's anyone's change would wake the server and carry
# along a last event held back until a next one. $raw stays on /tmp.
mount -t tmpfs -o mode=755 rnotify-quiet "$back"

pass() {
	echo "PASS $NAME/$1"
	npass=$((npass + 1))
}

fail() {
	echo "FAIL $NAME/$1: $2"
	nfail=$((nfail + 1))
}

# A setup failure ends the script: nothing after it can be checked.
die() {
	fail "$1" "$2"
	finish
}

finish() {
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

need() {
	command -v "$1" >/dev/null || die setup "$1 not installed (run tests/watchers/setup)"
}

is_mounted() {
	findmnt -n -t fuse.rnotifyfs -M "$mnt" >/dev/null
}

server_start() {
	# RNOTIFYFS_OPTS: run with other server options, as tests/run-all.
	"$srv" -f ${RNOTIFYFS_OPTS:+-o "$RNOTIFYFS_OPTS"} "$back" "$mnt" \
		2>"$tmp/server.err" &
	srv_pid=$!
	wait_until 10000 is_mounted || die mount "no fuse.rnotifyfs mount on $mnt"
}

# The normalised output so far, one event a line, blank lines dropped.
events() {
	normalise <"$raw" | sed '/^$/d'
}

have_lines() {
	[ "$(events | wc -l)" -ge "$1" ]
}

sentinel() {
	mkdir "$back/.s$1"
}

# step NAME ACTION LINE...: runs ACTION (a shell string), then the
# sentinel; the watcher's new lines must be exactly LINE... followed by
# the sentinel's lines.
step() {
	local name=$1 action=$2 want got n mine alone=0
	shift 2
	want=$({ printf '%s\n' "$@"; sentinel_lines "$step_no"; } | sed '/^$/d')
	n=$(printf '%s\n' "$want" | wc -l)
	mine=$(printf '%s\n' "$@" | sed '/^$/d' | wc -l)
	eval "$action"
	wait_until 10000 have_lines $((done_lines + mine)) || alone=1
	sentinel "$step_no"
	step_no=$((step_no + 1))
	wait_until 10000 have_lines $((done_lines + n)) || true
	got=$(events | tail -n +$((done_lines + 1)) | head -n "$n")
	if [ "${UNORDERED:-0}" = 1 ]; then
		want=$(echo "$want" | LC_ALL=C sort)
		got=$(echo "$got" | LC_ALL=C sort)
	fi
	done_lines=$((done_lines + n))
	if [ "$got" = "$want" ] && [ "$alone" = 0 ]; then
		pass "$name"
	elif [ "$got" = "$want" ]; then
		fail "$name" "[$(echo "$want" | paste -sd,)] came, but the\
 step's own lines only after a later change (the sentinel)"
	else
		fail "$name" "expected [$(echo "$want" | paste -sd,)]\
 got [$(echo "$got" | paste -sd,)]"
		resync $((done_lines - n)) \
			"$(sentinel_lines $((step_no - 1)) | tail -n 1)"
	fi
}

# resync START LINE: after a failed step, go on after the step's sentinel
# LINE if it was printed past START, else after all printed so far (the
# wait timed out), so that one missing or extra event fails one step.
resync() {
	local at
	at=$(events | tail -n +$(($1 + 1)) | grep -nxF -- "$2" | tail -n 1 |
	     cut -d: -f1)
	if [ -n "$at" ]; then
		done_lines=$(($1 + at))
	else
		done_lines=$(events | wc -l)
	fi
}

# The remote pipeline may become live after the mount: retry sentinels
# until one is printed, then count everything so far as done.
wait_live() {
	local i
	for ((i = 0; i < 50; i++)); do
		sentinel "live$i"
		wait_until 200 have_lines $((done_lines + 1)) && break
	done
	[ "$i" -lt 50 ] || die live "no remote change reached the watcher in 10 s"
	wait_until 2000 have_lines $((done_lines + $(sentinel_lines live | wc -l))) || true
	done_lines=$(events | wc -l)
}

# The remote scenario (on BACKING) and the same one made through the
# mount: each must give the same lines, once. Args: four arrays' names.
# CREATE_CONTENT: what the create step writes into the new file.
scenario() {
	local where
	for where in remote local; do
		local dir=$back
		[ "$where" = local ] && dir=$mnt
		eval "step $where-create 'printf \"${CREATE_CONTENT-hello}\" >$dir/a' \"\${$1[@]}\""
		eval "step $where-modify 'echo more >>$dir/a' \"\${$2[@]}\""
		eval "step $where-rename 'mv $dir/a $dir/b' \"\${$3[@]}\""
		eval "step $where-delete 'rm $dir/b' \"\${$4[@]}\""
	done
	step last-sentinel :
}
