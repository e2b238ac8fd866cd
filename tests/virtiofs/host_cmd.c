// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host_cmd - the host's hands for a virtiofs guest's tests: the guest
 * asks for a change to an export's backing directory, this program makes
 * it on the host (a remote change, as the guest sees it) and says when it
 * is done, so that the guest waits for the change, not for a guess.
 *
 *   host_cmd SOCKET [--vm-pid-file=FILE] NAME=DIR[,LOG] ...
 *
 * Listens on SOCKET (made anew) for one connection: qemu's end of the
 * guest's second serial port (-chardev socket,path=SOCKET,reconnect=1
 * -device isa-serial,chardev=...), /dev/ttyS1 in the guest. Each line
 *
 *   REQ <id> <op> <export> <path> [args...]
 *
 * is done in export NAME's DIR and answered "DONE <id> <errno> <tsc>": 0
 * on success, and the host's time stamp counter read just before the
 * change was made (a latency benchmark's start, tests/virtiofs/vfs_lat.c;
 * under qemu TCG the guest's counter is the host's, shifted). "REQ <id>
 * clock" makes no change: its answer only carries the counter. Ops and
 * their args (paths are relative to the export, never
 * absolute, never with a ".." component; words are separated by single
 * spaces, so data has none):
 *   create PATH              an empty file (O_EXCL)
 *   write PATH DATA          replaces the content (O_TRUNC)
 *   append PATH DATA
 *   truncate PATH SIZE
 *   unlink PATH | mkdir PATH | rmdir PATH | mkfifo PATH
 *   rename OLD NEW [noreplace|exchange]
 *   link OLD NEW | symlink PATH TARGET
 *   chmod PATH OCTAL
 *   setxattr PATH NAME VALUE
 *   many PATH COUNT          COUNT empty files PATH0 .. PATH<COUNT-1>
 *   unfetched PATH COUNT     the guest stopped: the VM (qemu's pid in
 *                            --vm-pid-file) gets SIGSTOP, COUNT empty
 *                            files are made as by many, and the VM gets
 *                            SIGCONT once the export's server says in its
 *                            LOG (rnotifyfs's stderr) that it dropped a
 *                            notification the guest did not fetch; ETIME
 *                            if it did not say so in UNFETCHED_WAIT_S
 * A malformed line is answered "DONE <id> 22" (EINVAL), or ignored if it
 * has no id. Ends when the guest's side closes (qemu exits).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <x86intrin.h>

#define MAX_EXPORTS 8
#define MAX_WORDS 8
/* rnotifyfs drops after 2 s (VHOST_NOTIFY_WAIT_MS): ample. */
#define UNFETCHED_WAIT_S 20
/* What rnotifyfs logs when it drops a notification (vhost_notify.c). */
#define DROPPED_LINE "the guest fetched no notification"

struct export {
	const char *name;
	int fd;
	const char *log;	/* the server's, or NULL */
};

static const char *vm_pid_file;

static struct export exports[MAX_EXPORTS];
static int n_exports;

/* A path inside an export: relative, no "..", no empty component. */
static bool path_ok(const char *p)
{
	const char *c = p;

	if (!*p || *p == '/')
		return false;
	while (*c) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 2 && !strncmp(c, "..", 2)))
			return false;
		c += len;
		if (*c == '/')
			c++;
	}
	return true;
}

static int put(int dir, const char *path, const char *data, int flags)
{
	int fd = openat(dir, path, O_WRONLY | O_NOFOLLOW | flags);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, data, strlen(data));
	if (n != (ssize_t)strlen(data)) {
		close(fd);
		return n < 0 ? errno : EIO;
	}
	return close(fd) ? errno : 0;
}

static int create_file(int dir, const char *path)
{
	int fd = openat(dir, path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		return errno;
	return close(fd) ? errno : 0;
}

static int many(int dir, const char *prefix, const char *count)
{
	char name[512];
	long i, n = strtol(count, NULL, 10);
	int err;

	if (n <= 0 || n > 100000)
		return EINVAL;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%ld", prefix, i);
		err = create_file(dir, name);
		if (err)
			return err;
	}
	return 0;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* log has DROPPED_LINE past its first from bytes. */
static bool log_says_dropped(const char *log, long from)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(log, "r");

	if (!f)
		return false;
	if (!fseek(f, from, SEEK_SET))
		while (!found && fgets(line, sizeof(line), f))
			found = strstr(line, DROPPED_LINE);
	fclose(f);
	return found;
}

static pid_t vm_pid(void)
{
	FILE *f = vm_pid_file ? fopen(vm_pid_file, "r") : NULL;
	long pid = 0;

	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}

/* The "unfetched" op: see the top of the file. */
static int unfetched(int dir, const struct export *e, const char *prefix,
		     const char *count)
{
	pid_t pid = vm_pid();
	long from = e->log ? file_size(e->log) : -1;
	int err, i;

	if (pid <= 0 || from < 0)
		return EINVAL;
	if (kill(pid, SIGSTOP))
		return errno;
	err = many(dir, prefix, count);
	for (i = 0; !err && i < UNFETCHED_WAIT_S * 10; i++) {
		if (log_says_dropped(e->log, from))
			break;
		usleep(100000);
	}
	if (!err && i == UNFETCHED_WAIT_S * 10)
		err = ETIME;
	if (kill(pid, SIGCONT))
		return errno;
	return err;
}

static int rename_op(int dir, char **w, int n)
{
	unsigned int flags = 0;

	if (n == 3 && !strcmp(w[2], "noreplace"))
		flags = RENAME_NOREPLACE;
	else if (n == 3 && !strcmp(w[2], "exchange"))
		flags = RENAME_EXCHANGE;
	else if (n != 2)
		return EINVAL;
	if (!path_ok(w[1]))
		return EINVAL;
	return renameat2(dir, w[0], dir, w[1], flags) ? errno : 0;
}

/* w[0] is the path, n counts it and what follows. 0 or an errno. */
static int do_op(int dir, const char *op, char **w, int n)
{
	if (!strcmp(op, "create") && n == 1)
		return create_file(dir, w[0]);
	if (!strcmp(op, "write") && n == 2)
		return put(dir, w[0], w[1], O_TRUNC | O_CREAT);
	if (!strcmp(op, "append") && n == 2)
		return put(dir, w[0], w[1], O_APPEND);
	if (!strcmp(op, "truncate") && n == 2) {
		int fd = openat(dir, w[0], O_WRONLY | O_NOFOLLOW);
		int err = 0;

		if (fd < 0)
			return errno;
		if (ftruncate(fd, strtoll(w[1], NULL, 10)))
			err = errno;
		close(fd);
		return err;
	}
	if (!strcmp(op, "unlink") && n == 1)
		return unlinkat(dir, w[0], 0) ? errno : 0;
	if (!strcmp(op, "mkdir") && n == 1)
		return mkdirat(dir, w[0], 0755) ? errno : 0;
	if (!strcmp(op, "rmdir") && n == 1)
		return unlinkat(dir, w[0], AT_REMOVEDIR) ? errno : 0;
	if (!strcmp(op, "mkfifo") && n == 1)
		return mkfifoat(dir, w[0], 0644) ? errno : 0;
	if (!strcmp(op, "rename"))
		return rename_op(dir, w, n);
	if (!strcmp(op, "link") && n == 2)
		return !path_ok(w[1]) ? EINVAL :
		       linkat(dir, w[0], dir, w[1], 0) ? errno : 0;
	if (!strcmp(op, "symlink") && n == 2)
		return symlinkat(w[1], dir, w[0]) ? errno : 0;
	if (!strcmp(op, "chmod") && n == 2)
		return fchmodat(dir, w[0], strtol(w[1], NULL, 8), 0) ?
		       errno : 0;
	if (!strcmp(op, "setxattr") && n == 3) {
		char p[64];
		int fd = openat(dir, w[0], O_RDONLY | O_NOFOLLOW), err = 0;

		if (fd < 0)
			return errno;
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		if (setxattr(p, w[1], w[2], strlen(w[2]), 0))
			err = errno;
		close(fd);
		return err;
	}
	if (!strcmp(op, "many") && n == 2)
		return many(dir, w[0], w[1]);
	return EINVAL;
}

static const struct export *export_of(const char *name)
{
	int i;

	for (i = 0; i < n_exports; i++)
		if (!strcmp(exports[i].name, name))
			return &exports[i];
	return NULL;
}

/*
 * One request line (NUL-terminated, no newline): the errno to answer;
 * *tsc the counter just before the change.
 */
static int handle(char *line, char **id, uint64_t *tsc)
{
	char *w[MAX_WORDS], *save = NULL, *tok;
	const struct export *e;
	int n = 0;

	*id = NULL;
	for (tok = strtok_r(line, " ", &save); tok && n < MAX_WORDS;
	     tok = strtok_r(NULL, " ", &save))
		w[n++] = tok;
	if (n < 2 || strcmp(w[0], "REQ"))
		return EINVAL;
	*id = w[1];
	if (n == 3 && !strcmp(w[2], "clock")) {
		*tsc = __rdtsc();
		return 0;
	}
	if (n < 5)
		return EINVAL;
	e = export_of(w[3]);
	if (!e || !path_ok(w[4]))
		return EINVAL;
	*tsc = __rdtsc();
	if (!strcmp(w[2], "unfetched") && n == 6)
		return unfetched(e->fd, e, w[4], w[5]);
	return do_op(e->fd, w[2], w + 4, n - 4);
}

static int serve(int conn)
{
	char buf[4096], out[128];
	size_t have = 0;
	ssize_t n;
	char *nl, *id;
	uint64_t tsc;
	int err, len;

	for (;;) {
		n = read(conn, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			return n < 0 ? 1 : 0;
		have += n;
		buf[have] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (nl > buf && nl[-1] == '\r')
				nl[-1] = '\0';
			tsc = 0;
			err = handle(buf, &id, &tsc);
			if (id) {
				len = snprintf(out, sizeof(out),
					       "DONE %s %d %" PRIu64,
					       id, err, tsc);
				/*
				 * Spaces up to a multiple of 8 bytes: the
				 * guest's 16550 interrupts at 8 received
				 * bytes (Linux's trigger level), and the rest
				 * would wait for its FIFO timeout, 4
				 * character times; vfs_lat's clock bounds
				 * would widen by that.
				 */
				if (len > (int)sizeof(out) - 9)
					len = sizeof(out) - 9;
				while ((len + 1) % 8)
					out[len++] = ' ';
				out[len++] = '\n';
				if (write(conn, out, len) != len)
					return 1;
			}
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have + 1);
		}
		/* A line longer than the buffer: dropped. */
		if (have == sizeof(buf) - 1)
			have = 0;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int lfd, conn, i;
	char *eq, *comma;

	if (argc < 3 || strlen(argv[1]) >= sizeof(un.sun_path)) {
		fprintf(stderr, "usage: host_cmd SOCKET [--vm-pid-file=FILE] NAME=DIR[,LOG] ...\n");
		return 2;
	}
	for (i = 2; i < argc && n_exports < MAX_EXPORTS; i++) {
		if (!strncmp(argv[i], "--vm-pid-file=", 14)) {
			vm_pid_file = argv[i] + 14;
			continue;
		}
		eq = strchr(argv[i], '=');
		if (!eq)
			return 2;
		*eq = '\0';
		comma = strchr(eq + 1, ',');
		if (comma) {
			*comma = '\0';
			exports[n_exports].log = comma + 1;
		}
		exports[n_exports].name = argv[i];
		exports[n_exports].fd = open(eq + 1, O_PATH | O_DIRECTORY);
		if (exports[n_exports].fd < 0) {
			perror(eq + 1);
			return 1;
		}
		n_exports++;
	}
	strcpy(un.sun_path, argv[1]);
	unlink(argv[1]);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&un, sizeof(un)) ||
	    listen(lfd, 1)) {
		perror(argv[1]);
		return 1;
	}
	conn = accept(lfd, NULL, NULL);
	if (conn < 0) {
		perror("accept");
		return 1;
	}
	close(lfd);
	return serve(conn);
}
