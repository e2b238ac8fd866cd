#!/bin/bash
# The server stops (SIGTERM) while a client still holds a directory of the
# mount open, as an agent or a watcher killed with the server does: that
# directory's RELEASEDIR never comes, and the server must free it all the
# same. Under the ASan build a leak makes the exit status non-zero.
# Usage: tests/e2e/stop_open_dir.sh RNOTIFYFS
set -u
. "$(dirname "$0")/lib.sh"
NAME=stop_open_dir
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-stopdir.XXXXXX)
pid=""
holder=""

cleanup() {
	kill_and_reap "$holder"
	unmount_lazy "$dir/mnt"
	kill_and_reap "$pid"
	rm -rf "$dir"
}
trap cleanup EXIT

holder_ready() {
	[ "$(cat "$dir/holder")" = open ]
}

mkdir -p "$dir/back/d" "$dir/mnt"
"$bin" -f "$dir/back" "$dir/mnt" 2>"$dir/log" &
pid=$!
wait_mount "$dir/mnt"

# Holds d and the root open (listed, so that each is a directory the
# server opened) until killed; says "open" once both are.
/usr/bin/python3 - "$dir/mnt" >"$dir/holder" <<'PY' &
import os, sys, time
fds = [os.open(p, os.O_RDONLY | os.O_DIRECTORY)
       for p in (sys.argv[1], sys.argv[1] + "/d")]
for fd in fds:
    os.listdir(fd)
print("open", flush=True)
while True:
    time.sleep(60)
PY
holder=$!
wait_for holder_ready
check held "$(holder_ready; echo $?)" \
	"the directories were not opened on the mount"
kill "$pid"
wait "$pid"
rc=$?
pid=""
check clean_exit "$rc" "exit status $rc: $(grep -m1 -A3 'ERROR' "$dir/log" | tr '\n' ' ')"
