#!/bin/bash
# The agent's channel is hostile input: lines that are not messages, a
# HELLO from a uid other than 0 and an overlong line are each refused
# with a log line, and change nothing: the server still serves, accepts
# a proper HELLO after them, and exits 0 when asked. Then a server that
# daemonizes (no -f) must still take its agent: a remote change reaches
# a watcher of its mount.
# Usage: tests/e2e/agent_channel.sh RNOTIFYFS
set -u
. "$(dirname "$0")/lib.sh"
NAME=agent_channel
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-agentch.XXXXXX)
pid=""
agent=""
watcher=""

cleanup() {
	kill_and_reap "$watcher" "$agent"
	unmount_lazy "$dir/mnt" "$dir/mnt2"
	kill_and_reap "$pid"
	rm -rf "$dir"
}
trap cleanup EXIT

# agent_ready [N]: mount N and its channel are there.
agent_ready() {
	mountpoint -q "$dir/mnt${1:-}" && [ -S "$dir/agent${1:-}.sock" ]
}

mkdir -p "$dir/back" "$dir/mnt"
echo data >"$dir/back/f"
"$bin" -f -o agent_socket="$dir/agent.sock" "$dir/back" "$dir/mnt" \
	2>"$dir/log" &
pid=$!
wait_for agent_ready

# What the fake guest is answered, line by line (bounded: 3 s each).
/usr/bin/python3 - "$dir/agent.sock" >"$dir/answers" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(3)
def answer(line):
    s.sendall(line)
    try:
        print(s.recv(4096).decode(errors="replace").strip() or "EOF")
    except socket.timeout:
        print("none")
answer(b"garbage\n")
answer(b"H 1 5 1000\n")
answer(b"Z" * 5000 + b"\n")
answer(b"R 1 0 0 0\n")
answer(b"H 7 5 0\n")
PY
want=$'none\nnone\nnone\nnone\nA 7'
check answers "$([ "$(cat "$dir/answers")" = "$want" ]; echo $?)" \
	"got [$(tr '\n' ' ' <"$dir/answers")], want [${want//$'\n'/ }]"
for what in "not a message" "HELLO from a uid other than 0" \
	"line too long"; do
	grep -q "agent channel: $what: line ignored" "$dir/log"
	check "logged: $what" $? "no such line in the log"
done
check still_serves "$([ "$(cat "$dir/mnt/f" 2>&1)" = data ]; echo $?)" \
	"reading through the mount failed"
kill "$pid"
wait "$pid"
rc=$?
pid=""
check clean_exit "$rc" "exit status $rc"

# Daemonized: the channel's reader must be started after the fork.
mkdir -p "$dir/back2" "$dir/mnt2"
"$bin" -o agent_socket="$dir/agent2.sock" "$dir/back2" "$dir/mnt2"
wait_for agent_ready 2
"$bin" --agent --channel="$dir/agent2.sock" "$dir/mnt2" 2>"$dir/agent2.log" &
agent=$!
: >"$dir/events2"
inotifywait -m -q -e create --format %f "$dir/mnt2" >>"$dir/events2" 2>&1 &
watcher=$!
n=0
# A new name each try: the first ones may come before the watch or the
# agent is there.
delivered() {
	n=$((n + 1))
	touch "$dir/back2/n$n"
	grep -q '^n[0-9]' "$dir/events2"
}
wait_for delivered
check daemonized_takes_agent $? \
	"no remote change reached a watcher of the daemonized server's mount ($n made)"
