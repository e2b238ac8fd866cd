// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Passthrough workloads (figures 3 and 5), and the setup they need.
 *
 * usage: io small DIR N          create N files, stat each, unlink each
 *        io mkentries DIR N      create N empty files (setup)
 *        io mkdirs DIR N         N directories, 1000 per parent (setup)
 *        io readdir DIR          read every entry of DIR
 *        io seqwrite FILE MIB    write MIB MiB in 1 MiB writes, fsync
 *        io seqread FILE         read FILE in 1 MiB reads
 *        io randread FILE N      N preads of 4 KiB at aligned offsets
 *        io stat DIR N           lstat the N files mkentries made, then
 *                                time a second pass (cached, if the file
 *                                system caches)
 *        io time CMD [ARG...]    run CMD (its stdout to /dev/null); fails
 *                                if CMD does (for busybox tar and ls in
 *                                the virtio-fs guest, which has no
 *                                clock finer than a second in its shell)
 *
 * Timed commands print the seconds they took on stdout.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench.h"

#define IO_CHUNK (1 << 20)
#define IO_PAGE 4096

static void io_path(char *buf, const char *dir, const char *pfx, long i)
{
	snprintf(buf, PATH_MAX, "%s/%s%ld", dir, pfx, i);
}

static void io_create(const char *dir, long n)
{
	char p[PATH_MAX];
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		io_path(p, dir, "s", i);
		fd = open(p, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0 || close(fd))
			bench_die("create %s: %s", p, strerror(errno));
	}
}

static void io_small(const char *dir, long n)
{
	struct stat st;
	char p[PATH_MAX];
	long i;

	io_create(dir, n);
	for (i = 0; i < n; i++) {
		io_path(p, dir, "s", i);
		if (stat(p, &st))
			bench_die("stat %s: %s", p, strerror(errno));
	}
	for (i = 0; i < n; i++) {
		io_path(p, dir, "s", i);
		if (unlink(p))
			bench_die("unlink %s: %s", p, strerror(errno));
	}
}

static void io_mkdirs(const char *dir, long n)
{
	char p[PATH_MAX];
	long i;

	if (mkdir(dir, 0755) && errno != EEXIST)
		bench_die("mkdir %s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/a%ld", dir, i / 1000);
		if (i % 1000 == 0 && mkdir(p, 0755))
			bench_die("mkdir %s: %s", p, strerror(errno));
		snprintf(p, sizeof(p), "%s/a%ld/b%ld", dir, i / 1000, i % 1000);
		if (mkdir(p, 0755))
			bench_die("mkdir %s: %s", p, strerror(errno));
	}
}

static void io_readdir(const char *dir)
{
	DIR *d = opendir(dir);
	long n = 0;

	if (!d)
		bench_die("opendir %s: %s", dir, strerror(errno));
	while (readdir(d))
		n++;
	closedir(d);
	if (n < 2)
		bench_die("readdir %s: only %ld entries", dir, n);
}

static int io_open(const char *file, int flags)
{
	int fd = open(file, flags, 0644);

	if (fd < 0)
		bench_die("open %s: %s", file, strerror(errno));
	return fd;
}

static void io_seqwrite(const char *file, long mib)
{
	char *buf = malloc(IO_CHUNK);
	int fd = io_open(file, O_CREAT | O_TRUNC | O_WRONLY);
	long i;

	if (!buf)
		bench_die("out of memory");
	memset(buf, 'w', IO_CHUNK);
	for (i = 0; i < mib; i++)
		if (write(fd, buf, IO_CHUNK) != IO_CHUNK)
			bench_die("write %s: %s", file, strerror(errno));
	if (fsync(fd) || close(fd))
		bench_die("fsync %s: %s", file, strerror(errno));
	free(buf);
}

static void io_seqread(const char *file)
{
	char *buf = malloc(IO_CHUNK);
	int fd = io_open(file, O_RDONLY);
	ssize_t r;

	if (!buf)
		bench_die("out of memory");
	while ((r = read(fd, buf, IO_CHUNK)) > 0)
		;
	if (r < 0)
		bench_die("read %s: %s", file, strerror(errno));
	close(fd);
	free(buf);
}

/* Same offsets in every run (fixed seed), so file systems compare. */
static void io_randread(const char *file, long n)
{
	static char buf[IO_PAGE];
	int fd = io_open(file, O_RDONLY);
	off_t pages = lseek(fd, 0, SEEK_END) / IO_PAGE;
	unsigned int seed = 4;
	long i;

	if (pages <= 0)
		bench_die("%s is empty", file);
	for (i = 0; i < n; i++) {
		off_t at = (off_t)(rand_r(&seed) % pages) * IO_PAGE;

		if (pread(fd, buf, IO_PAGE, at) != IO_PAGE)
			bench_die("pread %s: %s", file, strerror(errno));
	}
	close(fd);
}

static void io_lstat_all(const char *dir, long n)
{
	char p[PATH_MAX];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		io_path(p, dir, "s", i);
		if (lstat(p, &st))
			bench_die("lstat %s: %s", p, strerror(errno));
	}
}

/* Times the second pass only: the first fills the caches. */
static void io_stat(const char *dir, long n)
{
	uint64_t t0;

	io_lstat_all(dir, n);
	t0 = bench_now_ns();
	io_lstat_all(dir, n);
	printf("%.4f\n", (bench_now_ns() - t0) / 1e9);
}

static void io_time(char **argv)
{
	pid_t pid = fork();
	int st, null;

	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (!pid) {
		null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		bench_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		bench_die("%s: status %#x", argv[0], st);
}

static int io_dispatch(int argc, char **argv)
{
	const char *cmd = argv[1], *p = argv[2];
	long n = argc > 3 ? atol(argv[3]) : 0;

	if (!strcmp(cmd, "small") && n > 0)
		io_small(p, n);
	else if (!strcmp(cmd, "mkentries") && n > 0)
		io_create(p, n);
	else if (!strcmp(cmd, "mkdirs") && n > 0)
		io_mkdirs(p, n);
	else if (!strcmp(cmd, "readdir"))
		io_readdir(p);
	else if (!strcmp(cmd, "seqwrite") && n > 0)
		io_seqwrite(p, n);
	else if (!strcmp(cmd, "seqread"))
		io_seqread(p);
	else if (!strcmp(cmd, "randread") && n > 0)
		io_randread(p, n);
	else if (!strcmp(cmd, "stat") && n > 0)
		io_stat(p, n);
	else if (!strcmp(cmd, "time"))
		io_time(argv + 2);
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t t0 = bench_now_ns();

	if (argc < 3 || io_dispatch(argc, argv))
		bench_die("usage: see the comment at the top of bench/io.c");
	if (strncmp(argv[1], "mk", 2) && strcmp(argv[1], "stat"))
		printf("%.4f\n", (bench_now_ns() - t0) / 1e9);
	return 0;
}
