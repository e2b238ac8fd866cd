#!/bin/bash
# A stalled backing store holds up only the requests that need it.
# Usage: tests/e2e/stall.sh RNOTIFYFS
#
# Server B exports server A's mount. A is stopped (SIGSTOP): a read
# through B then waits for A inside one of B's workers. A stat through B
# that B can answer without A (A's client kernel holds the attributes for
# 60 s) must still be answered. With -s (one thread) it cannot be: that
# run shows the scenario really stalls a worker.
set -u
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-stall.XXXXXX)
a_pid="" b_pid=""

cleanup() {
	[ -n "$a_pid" ] && kill -CONT "$a_pid" 2>/dev/null
	for m in "$dir/b" "$dir/a"; do
		mountpoint -q "$m" && umount -l "$m"
	done
	for p in $b_pid $a_pid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$dir"
}
trap cleanup EXIT

check() {
	if [ "$2" = 0 ]; then echo "PASS stall/$1"; else echo "FAIL stall/$1: $3"; fi
}

wait_mount() {
	for _ in $(seq 200); do
		mountpoint -q "$1" && return 0
		sleep 0.05
	done
	return 1
}

# start_b OPTS...: B over A's mount; no caching in B's client kernel, so
# every stat through B is a request to B.
start_b() {
	"$bin" -f -o attr_timeout=0,entry_timeout=0 "$@" "$dir/a" "$dir/b" \
		2>>"$dir/b.log" &
	b_pid=$!
	wait_mount "$dir/b"
}

stop_b() {
	fusermount3 -u "$dir/b"
	wait "$b_pid"
	b_pid=""
}

# stalled_stat NAME: stat of b/small while a read of b/big waits for A.
stalled_stat() {
	local rc

	stat "$dir/b/small" "$dir/b/big" >/dev/null
	stat "$dir/a/small" >/dev/null
	kill -STOP "$a_pid"
	cat "$dir/b/big" >"$dir/$1.out" &
	local cat_pid=$!
	# The reader is inside B once it waits in the kernel for B's answer;
	# if it never gets there the scenario did not happen: rc "nostall".
	rc=nostall
	for _ in $(seq 200); do
		grep -q request_wait_answer "/proc/$cat_pid/wchan" 2>/dev/null &&
			rc=0 && break
		sleep 0.01
	done
	if [ "$rc" = 0 ]; then
		timeout 3 stat -c %s "$dir/b/small" >"$dir/$1.stat"
		rc=$?
	fi
	kill -CONT "$a_pid"
	wait "$cat_pid"
	echo "$rc"
}

mkdir "$dir/x" "$dir/a" "$dir/b"
head -c 1048576 /dev/urandom >"$dir/x/big"
echo small >"$dir/x/small"
"$bin" -f -o attr_timeout=60,entry_timeout=60 "$dir/x" "$dir/a" \
	2>"$dir/a.log" &
a_pid=$!
wait_mount "$dir/a" || { check mount 1 "A did not mount"; exit 0; }

start_b || { check mount 1 "B did not mount"; exit 0; }
rc=$(stalled_stat multi)
check answered_while_a_request_stalls \
	"$([ "$rc" = 0 ] && [ "$(cat "$dir/multi.stat" 2>/dev/null)" = 6 ]
	   echo $?)" \
	"stat through B: rc $rc (124: still waiting after 3 s;
	nostall: the read never waited in B)"
check stalled_read_completes \
	"$(cmp -s "$dir/x/big" "$dir/multi.out"; echo $?)" \
	"read through B after A resumed differs from the file"
stop_b

start_b -s || { check mount_single 1 "B -s did not mount"; exit 0; }
rc=$(stalled_stat single)
check single_thread_waits "$([ "$rc" = 124 ]; echo $?)" \
	"with -s the stat returned rc $rc: the scenario does not stall a worker"
check single_read_completes \
	"$(cmp -s "$dir/x/big" "$dir/single.out"; echo $?)" \
	"read through B -s after A resumed differs from the file"
stop_b
