#!/bin/sh
# tests/vm/bench.sh - remote-event latency inside the VM (run by init when
# the kernel command line has rnotify.bench=N): rnotifyfs in protocol mode
# and in replay mode against native inotify on a tmpfs directory, same VM.
# Three rounds, each running native, protocol and replay back to back, so
# that each round's ratios compare runs made within seconds of each other
# (the emulated CPU's speed drifts over a boot). Prints "BENCH round mode
# op n lost p50_us p99_us max_us" lines, then sustained throughput (2
# writers creating and unlinking for 5 s, once per mode) as "TPUT mode
# done received overflows seconds sentinel" lines.
n=${1:-1000}
rounds=3
# The lat tool watches with inotify: the administrator's consent gives its
# watches the protocol's remote events (fsnotify 1/7; libfuse cannot pass the
# remote_events mount option).
echo 1 >/proc/sys/fs/inotify/remote_events
echo "BENCH-CPUS $(nproc)"
echo "BENCH-CMDLINE $(cat /proc/cmdline)"

# mount MODE: mounts /mnt/b-MODE at /mnt/m-MODE; false if it failed.
mount_mode() {
	mkdir -p /mnt/b-$1 /mnt/m-$1
	# Without -f the server returns once the file system is mounted.
	/bin/rnotifyfs -o delivery=$1 /mnt/b-$1 /mnt/m-$1 && return 0
	echo "BENCH-FAIL $1: rnotifyfs did not start"
	return 1
}

# unmount MODE: unmounts it, waits for its server to end and empties its
# backing directory. A server left running would keep its fanotify mark
# on the tmpfs that the next runs use, and slow every change made there
# (bench/PROFILE.md, twentieth round): one that does not end by itself
# within 5 s is a failure, and is ended.
unmount_mode() {
	pid=$(pidof rnotifyfs | tr " " "\n" | sort -n | head -n 1)
	umount /mnt/m-$1
	i=0
	while [ -d "/proc/$pid" ] && [ $i -lt 100 ]; do
		usleep 50000
		i=$((i + 1))
	done
	if [ -d "/proc/$pid" ]; then
		echo "BENCH-FAIL $1: server $pid still running after its umount"
		kill -TERM "$pid"
	fi
	rm -rf /mnt/b-$1
}

r=1
while [ $r -le $rounds ]; do
	mkdir -p /mnt/native
	/bin/lat /mnt/native /mnt/native "$n" | sed "s/^/BENCH $r native /"
	rm -rf /mnt/native
	for mode in protocol replay; do
		mount_mode $mode || continue
		/bin/lat /mnt/m-$mode /mnt/b-$mode "$n" |
			sed "s/^/BENCH $r $mode /"
		unmount_mode $mode
	done
	r=$((r + 1))
done
for mode in protocol replay; do
	mount_mode $mode || continue
	mkdir /mnt/b-$mode/t
	/bin/tput /mnt/m-$mode/t /mnt/b-$mode/t 2 5 | sed "s/^/TPUT $mode /"
	unmount_mode $mode
done
mkdir -p /mnt/native/t
/bin/tput /mnt/native/t /mnt/native/t 2 5 | sed 's/^/TPUT native /'
