#!/bin/sh
# tests/virtiofs/bench.sh ROUNDS [SCALE] - the file-system workloads of
# bench/run that a busybox guest can run, timed on the guest's tmpfs
# ("native"), on Debian's virtiofsd ("ref") and on rnotifyfs ("ours"),
# both mounted at once (run by init when the kernel command line has
# rnotify.vfsbench=ROUNDS[,SCALE]; kernel/run-virtiofs-tests --bench).
# Each round runs the three back to back, each on a fresh directory; the
# two servers swap places every round, so that neither always follows
# the other. Prints "VFSBENCH round fs workload seconds" lines ("fail"
# for a workload that failed, its error on the console), then
# "VFSBENCH-END". SCALE divides every size (the smoke run's).
rounds=${1:-5}
scale=${2:-1}
small_n=$((2000 / scale))
dir_n=$((10000 / scale))
seq_mib=$((64 / scale))
rand_n=$((2000 / scale))
loads="small readdir untar lsR seqwrite seqread randread"
echo "VFSBENCH-CPUS $(nproc)"
echo "VFSBENCH-CMDLINE $(cat /proc/cmdline)"
echo "VFSBENCH-SIZES small=$small_n readdir=$dir_n seq=${seq_mib}MiB randread=$rand_n tree=$(tar -tf /bench/tree.tar | wc -l)"

fs_dir() {
	case $1 in
	native) echo /tmp/native ;;
	*) echo "/mnt/$1" ;;
	esac
}

# Cold rows: the guest's caches of the file system's names, attributes
# and pages go first (tmpfs keeps its pages: they are its storage).
drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# cold_runs COMMAND...: COMMAND five times, each after drop_caches; prints
# the median of the seconds they print. One cold listing lasts a tenth of
# a second here, too short to time once on a loaded machine.
cold_runs() {
	for _ in 1 2 3 4 5; do
		drop_caches && "$@" || return 1
	done >/tmp/runs || return 1
	sort -n /tmp/runs | sed -n 3p
}

# workload NAME DIR: one timed workload in DIR; prints its seconds.
workload() {
	case $1 in
	small) /bench/io small "$2" "$small_n" ;;
	readdir)
		mkdir "$2/big" && /bench/io mkentries "$2/big" "$dir_n" &&
			cold_runs /bench/io readdir "$2/big" ;;
	untar) /bench/io time tar -xf /bench/tree.tar -C "$2" ;;
	lsR) cold_runs /bench/io time ls -lR "$2/tree" ;;
	seqwrite) /bench/io seqwrite "$2/seq" "$seq_mib" ;;
	seqread) drop_caches && /bench/io seqread "$2/seq" ;;
	randread) drop_caches && /bench/io randread "$2/seq" "$rand_n" ;;
	esac
}

mkdir -p /tmp/native
for tag in ref ours; do
	mkdir -p "/mnt/$tag"
	mount -t virtiofs "$tag" "/mnt/$tag" ||
		echo "VFSBENCH-FAIL mount -t virtiofs $tag"
done
r=1
while [ "$r" -le "$rounds" ]; do
	if [ $((r % 2)) = 1 ]; then order="native ref ours"; else order="native ours ref"; fi
	for fs in $order; do
		d=$(fs_dir "$fs")/b$r
		mkdir "$d" || { echo "VFSBENCH-FAIL mkdir $d"; continue; }
		for w in $loads; do
			v=$(workload "$w" "$d") || v=fail
			echo "VFSBENCH $r $fs $w $v"
		done
		rm -rf "$d"
	done
	r=$((r + 1))
done
sync
for tag in ref ours; do
	umount "/mnt/$tag" || echo "VFSBENCH-FAIL umount $tag"
done
echo VFSBENCH-END
