#!/bin/bash
# rnotifyfs --check: what it reports as root here, and its errors.
# Usage: tests/e2e/check.sh RNOTIFYFS
set -u
. "$(dirname "$0")/lib.sh"
NAME=check
bin=${1:-build/rnotifyfs}
dir=$(mktemp -d /tmp/rnotify-check.XXXXXX)
trap 'rm -rf "$dir"' EXIT

out=$("$bin" --check "$dir" 2>&1); rc=$?
check fanotify_replay "$([ $rc = 0 ] && grep -qx 'mode at mount:    replay' <<<"$out" &&
	grep -q '^host watcher:     fanotify' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check -o watch=inotify "$dir" 2>&1); rc=$?
check inotify "$([ $rc = 0 ] && grep -q '^host watcher:     inotify' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check -o delivery=none "$dir" 2>&1); rc=$?
check delivery_none "$([ $rc = 1 ] && grep -qx 'mode at mount:    none (delivery=none)' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check "$dir/missing" 2>&1); rc=$?
check missing_dir "$([ $rc = 1 ] && grep -qx "rnotifyfs: $dir/missing: No such file or directory" <<<"$out"; echo $?)" "rc=$rc: $out"
# This (stock) kernel does not offer the protocol: --check says so, and a
# mount that insists on it refuses to serve, clearly, leaving nothing.
out=$("$bin" --check "$dir" 2>&1); rc=$?
check protocol_not_offered "$([ $rc = 0 ] && grep -qx 'kernel protocol:  not offered by this kernel (it needs the series in kernel/)' <<<"$out"; echo $?)" "rc=$rc: $out"
out=$("$bin" --check -o delivery=protocol "$dir" 2>&1); rc=$?
check check_protocol_refused "$([ $rc = 1 ] && grep -qx 'mode at mount:    no mount: delivery=protocol needs a kernel that offers it' <<<"$out"; echo $?)" "rc=$rc: $out"
mkdir "$dir/b" "$dir/m"
out=$(timeout 20 "$bin" -f -o delivery=protocol "$dir/b" "$dir/m" 2>&1); rc=$?
check mount_protocol_refused "$([ $rc = 1 ] && grep -qx 'rnotifyfs: delivery=protocol: this kernel does not offer remote fsnotify (it needs the kernel/ series)' <<<"$out" &&
	! mountpoint -q "$dir/m"; echo $?)" "rc=$rc: $out"
unmount_lazy "$dir/m"
