#!/bin/sh
# tests/virtiofs/lat.sh KIND ROUNDS N - remote-event latency in a virtio-fs
# guest (tests/virtiofs/vfs_lat.c): a host change to the guest's event on
# the export "ours", against native inotify on the guest's tmpfs. KIND:
#   patched  the series' kernel: mounted with -o remote_events
#   agent    a stock kernel: mounted as it is, with the agent
#            (/bin/rnotifyfs --agent) replaying the host's changes
# Run by init (rnotify.vfslat=ROUNDS,N; kernel/run-virtiofs-tests
# --bench-lat) or init-agent (kernel/run-virtiofs-agent-tests
# --bench-lat). Each round is one vfs_lat run (native and remote changes
# in pairs) in fresh directories. Prints vfs_lat's lines, then
# "VFSLAT-END".
kind=$1
rounds=$2
n=$3
echo "VFSLAT-CPUS $(nproc)"
echo "VFSLAT-CMDLINE $(cat /proc/cmdline)"
opts=
[ "$kind" = patched ] && opts="-o remote_events"
mkdir -p /tmp/native /mnt/ours
if ! mount -t virtiofs $opts ours /mnt/ours; then
	echo "VFSLAT-FAIL mount -t virtiofs $opts ours"
	exit 1
fi
agent=
if [ "$kind" = agent ]; then
	/bin/rnotifyfs --agent /mnt/ours &
	agent=$!
fi
r=1
while [ "$r" -le "$rounds" ]; do
	mkdir /tmp/native/l$r /mnt/ours/l$r &&
		/bench/vfs_lat "$r" /tmp/native/l$r /mnt/ours l$r ours "$n"
	rm -rf /tmp/native/l$r /mnt/ours/l$r
	r=$((r + 1))
done
[ -z "$agent" ] || { kill "$agent"; wait "$agent"; }
sync
umount /mnt/ours || echo "VFSLAT-FAIL umount ours"
echo VFSLAT-END
