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
. "$(dirname "$0")/lib.sh"
NAME=stall
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-stall.XXXXXX)
a_pid="" b_pid=""

cleanup() {
	[ -n "$a_pid" ] && kill -CONT "$a_pid" 2>/dev/null
	unmount_lazy "$dir/b" "$dir/a"
	kill_and_reap "$b_pid" "$a_pid"
	rm -rf "$dir"
}
trap cleanup EXIT

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

# stop_a: SIGSTOP A and wait until every thread of A has stopped: a
# thread still running could take B's next request first, and a request
# a server has taken cannot be abandoned by anyone but that server.
stop_a() {
	kill -STOP "$a_pid"
	for _ in $(seq 200); do
		! grep -qv '^State:.T' <(grep -h '^State:' \
			/proc/"$a_pid"/task/*/status) && return
		sleep 0.01
	done
}

# stall_read NAME: stops A and starts a read of b/big (pid in cat_pid),
# which waits for A inside one of B's workers: one of B's threads waits in
# the kernel for A's answer or for a page of A's file that A's readahead
# is to fill. If none gets there the scenario did not happen: returns 1,
# B's threads' wait channels in $dir/NAME.wchan.
stall_read() {
	stat "$dir/b/small" "$dir/b/big" >/dev/null
	stat "$dir/a/small" >/dev/null
	stop_a
	cat "$dir/b/big" >"$dir/$1.out" 2>"$dir/$1.err" &
	cat_pid=$!
	for _ in $(seq 200); do
		grep -qsE '^(request_wait_answer|folio_wait_bit_common)$' \
			/proc/"$b_pid"/task/*/wchan && return 0
		sleep 0.01
	done
	for w in /proc/"$b_pid"/task/*/wchan; do
		echo "$(cat "$w" 2>/dev/null)"
	done >"$dir/$1.wchan"
	return 1
}

# stalled_stat NAME: stat of b/small while a read of b/big waits for A.
stalled_stat() {
	local rc=nostall

	if stall_read "$1"; then
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
	nostall: no worker of B waited for A; B: $(tr "\n" " " 2>/dev/null <"$dir/multi.wchan"))"
check stalled_read_completes \
	"$(cmp -s "$dir/x/big" "$dir/multi.out"; echo $?)" \
	"read through B after A resumed differs from the file"
stop_b

# A stop must not wait for A: B exits within its 2 s grace (10 s allowed
# here), says why, and the stalled read fails instead of hanging.
start_b || { check mount_stop 1 "B did not mount"; exit 0; }
if stall_read stop; then
	kill -TERM "$b_pid"
	for _ in $(seq 1000); do
		kill -0 "$b_pid" 2>/dev/null || break
		sleep 0.01
	done
	if kill -0 "$b_pid" 2>/dev/null; then
		check stop_while_stalled 1 "B still runs 10 s after SIGTERM; B: $(
			for w in /proc/"$b_pid"/task/*/wchan; do
				echo -n "$(cat "$w" 2>/dev/null) "
			done)"
	else
		wait "$b_pid"
		rc=$?
		b_pid=""
		check stop_while_stalled \
			"$([ "$rc" = 1 ] && grep -q 'waits for the backing store' \
			   "$dir/b.log"; echo $?)" \
			"B exited $rc; log: $(tail -n 1 "$dir/b.log")"
		check stop_unmounts "$(! grep -q " $dir/b " /proc/mounts; echo $?)" \
			"B is still mounted after it exited"
		for _ in $(seq 500); do
			kill -0 "$cat_pid" 2>/dev/null || break
			sleep 0.01
		done
		kill -0 "$cat_pid" 2>/dev/null
		running=$?
		wait "$cat_pid"
		rc=$?
		check stop_fails_stalled_read \
			"$([ "$running" != 0 ] && [ "$rc" != 0 ]; echo $?)" \
			"the stalled read did not fail when B exited (exit $rc, running: $([ "$running" = 0 ] && echo yes || echo no))"
	fi
else
	check stop_while_stalled 1 "nostall: no worker of B waited for A"
	kill -TERM "$b_pid"
fi
kill -CONT "$a_pid"
if [ -n "$b_pid" ]; then
	wait "$b_pid"
	b_pid=""
fi
wait "$cat_pid" 2>/dev/null

start_b -s || { check mount_single 1 "B -s did not mount"; exit 0; }
rc=$(stalled_stat single)
check single_thread_waits "$([ "$rc" = 124 ]; echo $?)" \
	"with -s the stat returned rc $rc: the scenario does not stall a worker"
check single_read_completes \
	"$(cmp -s "$dir/x/big" "$dir/single.out"; echo $?)" \
	"read through B -s after A resumed differs from the file"
stop_b
