#!/bin/bash
# rnotifyfs --check: what it reports as root here, and its errors.
# Usage: tests/e2e/check.sh RNOTIFYFS
set -u
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-check.XXXXXX)
trap 'rm -rf "$dir"' EXIT

check() {
	if [ "$2" = 0 ]; then echo "PASS check/$1"; else echo "FAIL check/$1: $3"; fi
}

out=$("$bin" --check "$dir" 2>&1); rc=$?
check fanotify_replay "$([ $rc = 0 ] && grep -qx 'mode at mount:    replay' <<<"$out" &&
	grep -q '^host watcher:     fanotify' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check -o watch=inotify "$dir" 2>&1); rc=$?
check inotify "$([ $rc = 0 ] && grep -q '^host watcher:     inotify' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check -o delivery=none "$dir" 2>&1); rc=$?
check delivery_none "$([ $rc = 1 ] && grep -q '^mode at mount:    none' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check "$dir/missing" 2>&1); rc=$?
check missing_dir "$([ $rc = 1 ] && grep -qx "rnotifyfs: $dir/missing: No such file or directory" <<<"$out"; echo $?)" "rc=$rc: $out"
