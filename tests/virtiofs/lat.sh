#!/bin/sh
# tests/virtiofs/lat.sh KIND ROUNDS N - remote-event latency in a virtio-fs
# guest (tests/virtiofs/vfs_lat.c): a host change to the guest's event on
# the export "ours", against native inotify on the guest's tmpfs. KIND:
#   patched  the series' kernel: mounted with -o remote_events
#   agent    a stock kernel: mounted as it is, with the agent
#            (/bin/rnotifyfs --agent) replaying the host's changes
# Run by init (rnotify.vfslat=ROUNDS,N; kernel/run-virtiofs-tests
# --bench-lat) or init-agent (kernel/run-virtiofs-agent-tests
# --bench-lat). Each round runs both back to back, each in a fresh
# directory, native first in odd rounds and last in even ones. Prints
# vfs_lat's lines, then "VFSLAT-END".
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
	if [ $((r % 2)) = 1 ]; then order="native remote"; else order="remote native"; fi
	for mode in $order; do
		case $mode in
		native)
			mkdir /tmp/native/l$r &&
				/bench/vfs_lat "$r" native /tmp/native/l$r "$n"
			rm -rf /tmp/native/l$r ;;
		remote)
			mkdir /mnt/ours/l$r &&
				/bench/vfs_lat "$r" remote /mnt/ours l$r ours "$n"
			rm -rf /mnt/ours/l$r ;;
		esac
	done
	r=$((r + 1))
done
[ -z "$agent" ] || { kill "$agent"; wait "$agent"; }
sync
umount /mnt/ours || echo "VFSLAT-FAIL umount ours"
echo VFSLAT-END
