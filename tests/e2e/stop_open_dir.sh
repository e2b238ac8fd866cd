#!/bin/bash
# The server stops (SIGTERM) while a client still holds a directory of the
# mount open, as an agent or a watcher killed with the server does: that
# directory's RELEASEDIR never comes, and the server must free it all the
# same. Under the ASan build a leak makes the exit status non-zero.
# Usage: tests/e2e/stop_open_dir.sh RNOTIFYFS
set -u
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-stopdir.XXXXXX)
pid=""
holder=""

cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	mountpoint -q "$dir/mnt" && umount -l "$dir/mnt"
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

check() {
	if [ "$2" = 0 ]; then echo "PASS stop_open_dir/$1"; else echo "FAIL stop_open_dir/$1: $3"; fi
}

mkdir -p "$dir/back/d" "$dir/mnt"
"$bin" -f "$dir/back" "$dir/mnt" 2>"$dir/log" &
pid=$!
for _ in $(seq 200); do
	mountpoint -q "$dir/mnt" && break
	sleep 0.05
done

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
for _ in $(seq 200); do
	[ "$(cat "$dir/holder")" = open ] && break
	sleep 0.05
done
check held "$([ "$(cat "$dir/holder")" = open ]; echo $?)" \
	"the directories were not opened on the mount"
kill "$pid"
wait "$pid"
rc=$?
pid=""
check clean_exit "$rc" "exit status $rc: $(grep -m1 -A3 'ERROR' "$dir/log" | tr '\n' ' ')"
