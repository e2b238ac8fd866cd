// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holds N inotify watches (figures 4 and 5).
 *
 * usage: watchn ROOT N
 *
 * Adds one watch on each of the N directories made by `io mkdirs ROOT N`
 * (ROOT/a<i/1000>/b<i%1000>), prints the seconds that took, then holds
 * the watches until it is killed. Holding is the point: the caller
 * measures the server while the watches exist.
 */
#include <limits.h>
#include <signal.h>

#include "bench.h"

int main(int argc, char **argv)
{
	char p[PATH_MAX];
	uint64_t t0;
	long i, n;
	int fd;

	if (argc != 3 || (n = atol(argv[2])) <= 0)
		bench_die("usage: watchn ROOT N");
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0)
		bench_die("inotify_init1: %s", strerror(errno));
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/a%ld/b%ld", argv[1], i / 1000,
			 i % 1000);
		if (inotify_add_watch(fd, p, IN_CREATE | IN_DELETE |
				      IN_MODIFY | IN_MOVE) < 0)
			bench_die("watch %s: %s", p, strerror(errno));
	}
	printf("%.4f\n", (bench_now_ns() - t0) / 1e9);
	fflush(stdout);
	for (;;)
		pause();
}
