#!/bin/sh
# tests/vm/bench.sh - remote-event latency inside the VM (run by init when
# the kernel command line has rnotify.bench=N): rnotifyfs in protocol mode
# and in replay mode against native inotify on a tmpfs directory, same VM,
# same run. Prints "BENCH mode op n lost p50_us p99_us max_us" lines,
# then sustained throughput (2 writers creating and unlinking for 5 s) as
# "TPUT mode done received overflows seconds sentinel" lines.
n=${1:-1000}
echo "BENCH-CPUS $(nproc)"
for mode in protocol replay; do
	mkdir -p /mnt/b-$mode /mnt/m-$mode
	# Without -f the server returns once the file system is mounted.
	if ! /bin/rnotifyfs -o delivery=$mode /mnt/b-$mode /mnt/m-$mode; then
		echo "BENCH-FAIL $mode: rnotifyfs did not start"
		continue
	fi
	/bin/lat /mnt/m-$mode /mnt/b-$mode "$n" | sed "s/^/BENCH $mode /"
	mkdir /mnt/b-$mode/t
	/bin/tput /mnt/m-$mode/t /mnt/b-$mode/t 2 5 | sed "s/^/TPUT $mode /"
	umount /mnt/m-$mode
done
mkdir -p /mnt/native
/bin/lat /mnt/native /mnt/native "$n" | sed 's/^/BENCH native /'
mkdir /mnt/native/t
/bin/tput /mnt/native/t /mnt/native/t 2 5 | sed 's/^/TPUT native /'
