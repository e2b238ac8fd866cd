// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnotifyfs --agent [--port=NAME | --channel=PATH] [-d] MOUNTPOINT
 *
 * Opens the channel to the backend (the virtio-serial port NAME, found
 * under /sys/class/virtio-ports; or PATH, a character device or a unix
 * socket), says HELLO with its thread id and uid, waits for the
 * backend's ACCEPT of that HELLO (what came before it was written for an
 * agent before this one, and is dropped), then makes each CALL on
 * MOUNTPOINT and answers it. When the channel ends it closes every fd of
 * the backend's and opens it again, once a second, until it is stopped.
 * Single-threaded: the thread that says HELLO makes every call, so that
 * the gate knows them by its id.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "agent.h"

#define FUSE_SUPER_MAGIC 0x65735546
#define HELLO_AGAIN_MS 2000

static bool debug;

static void say(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "rnotifyfs agent: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rnotifyfs --agent [--port=NAME | --channel=PATH] [-d] MOUNTPOINT\n"
		"\n"
		"In a virtiofs guest on a stock kernel: makes the replays of the host's\n"
		"changes that the backend (rnotifyfs --socket-path ... -o agent_socket=...)\n"
		"sends, on MOUNTPOINT, so that watchers there get the real events.\n"
		"  --port=NAME     the virtio-serial port (default " AGENT_PORT_DEFAULT ")\n"
		"  --channel=PATH  a character device or a unix socket instead\n"
		"  -d              log each call\n");
}

/* /dev/vportNpM of the port named name: 0, or -ENOENT. */
static int port_path(const char *name, char *path, size_t size)
{
	char f[128], got[256];

	for (int dev = 0; dev < 16; dev++) {
		for (int port = 0; port < 32; port++) {
			FILE *fp;
			bool same;

			snprintf(f, sizeof(f),
				 "/sys/class/virtio-ports/vport%dp%d/name",
				 dev, port);
			fp = fopen(f, "re");
			if (!fp)
				continue;
			same = fgets(got, sizeof(got), fp) &&
			       !strncmp(got, name, strlen(name)) &&
			       (got[strlen(name)] == '\n' ||
				!got[strlen(name)]);
			fclose(fp);
			if (same) {
				snprintf(path, size, "/dev/vport%dp%d", dev,
					 port);
				return 0;
			}
		}
	}
	return -ENOENT;
}

static int channel_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (stat(path, &st))
		return -errno;
	if (!S_ISSOCK(st.st_mode)) {
		fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int send_msg(int fd, const struct agent_msg *m)
{
	char buf[AGENT_LINE_MAX];
	int len = agent_wire_encode(m, buf, sizeof(buf));

	if (len < 0)
		return len;
	for (int at = 0; at < len;) {
		ssize_t n = write(fd, buf + at, len - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		at += n;
	}
	return 0;
}

/* Lines from the channel; an overlong one is dropped whole. */
struct lines {
	char buf[AGENT_LINE_MAX * 2];
	size_t len;
	bool skipping;
};

/*
 * The next line (without its newline) in *line, *len: 1; 0 when nothing
 * came within ms (-1: wait); a negative errno when the channel ended.
 */
static int line_next(int fd, struct lines *l, char **line, size_t *len,
		     int ms)
{
	for (;;) {
		char *nl = memchr(l->buf, '\n', l->len);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (nl) {
			*nl = '\0';
			*line = l->buf;
			*len = nl - l->buf;
			return 1;
		}
		if (l->len == sizeof(l->buf)) {
			l->skipping = true;	/* dropped up to its newline */
			l->len = 0;
		}
		if (poll(&p, 1, ms) == 0)
			return 0;
		n = read(fd, l->buf + l->len, sizeof(l->buf) - l->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		l->len += n;
	}
}

/* Drops the line line_next() returned. */
static void line_done(struct lines *l, size_t len)
{
	memmove(l->buf, l->buf + len + 1, l->len - len - 1);
	l->len -= len + 1;
}

/* HELLO, then wait for its ACCEPT: 0, or a negative errno. */
static int handshake(int fd, struct lines *l)
{
	struct agent_msg hello = { .kind = AGENT_HELLO }, m;
	uint64_t nonce;
	size_t len;
	char *line;
	int ret;

	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		return -EIO;
	hello.seq = nonce;
	hello.tid = gettid();
	hello.uid = getuid();
	for (;;) {
		ret = send_msg(fd, &hello);
		if (ret)
			return ret;
		while ((ret = line_next(fd, l, &line, &len,
					HELLO_AGAIN_MS)) > 0) {
			bool ours = !l->skipping &&
				    !agent_wire_decode(line, len, &m) &&
				    m.kind == AGENT_ACCEPT && m.seq == nonce;

			l->skipping = false;
			line_done(l, len);
			if (ours)
				return 0;
		}
		if (ret < 0)
			return ret;
	}
}

static void serve(struct agent *a, int fd, struct lines *l)
{
	struct agent_msg m, res;
	size_t len;
	char *line;

	while (line_next(fd, l, &line, &len, -1) > 0) {
		bool ok = !l->skipping && !agent_wire_decode(line, len, &m) &&
			  m.kind == AGENT_CALL;

		if (!ok) {
			say("%s%s", "a line that is not a call: ignored", "");
		} else {
			res = (struct agent_msg){ .kind = AGENT_RESULT,
						  .seq = m.seq };
			res.ret = agent_call(a, &m, &res);
			if (debug)
				fprintf(stderr, "rnotifyfs agent: %s %s: %lld\n",
					agent_op_name(m.op), m.name,
					(long long)res.ret);
			if (send_msg(fd, &res))
				return;
		}
		l->skipping = false;
		line_done(l, len);
	}
}

static int open_mount(const char *path)
{
	struct statfs sf;
	/* Not O_PATH: open_by_handle_at() refuses an O_PATH mount fd. */
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		say("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &sf) || sf.f_type != FUSE_SUPER_MAGIC) {
		say("%s: %s", path, "not a virtiofs (or FUSE) mount");
		close(fd);
		return -1;
	}
	return fd;
}

int agent_main(int argc, char **argv)
{
	const char *port = AGENT_PORT_DEFAULT, *channel = NULL, *mnt = NULL;
	struct agent a;
	char path[64];
	bool told = false;

	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "--port=", 7)) {
			port = argv[i] + 7;
		} else if (!strncmp(argv[i], "--channel=", 10)) {
			channel = argv[i] + 10;
		} else if (!strcmp(argv[i], "-d")) {
			debug = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] != '-' && !mnt) {
			mnt = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!mnt) {
		usage(stderr);
		return 2;
	}
	a.mount_fd = open_mount(mnt);
	if (a.mount_fd < 0)
		return 1;
	for (int i = 0; i < AGENT_FDS; i++)
		a.fds[i] = -1;
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct lines l = { .len = 0 };
		int fd, ret;

		ret = channel ? 0 : port_path(port, path, sizeof(path));
		fd = ret ? ret : channel_open(channel ? channel : path);
		if (fd < 0) {
			if (!told)
				say("%s: %s (trying again every second)",
				    channel ? channel : port, strerror(-fd));
			told = true;
			sleep(1);
			continue;
		}
		ret = handshake(fd, &l);
		if (!ret) {
			say("%s: %s", channel ? channel : path,
			    "connected; replaying the host's changes");
			told = false;
			serve(&a, fd, &l);
			say("%s: %s", channel ? channel : path,
			    "the channel ended; opening it again");
		}
		agent_fds_close_all(&a);
		close(fd);
		sleep(1);
	}
}
