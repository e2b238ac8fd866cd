// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * guest_cmd - the guest's end of the host-command channel (guest_cmd.h):
 * one line out on /dev/ttyS1, raw (no echo, no line editing), and the
 * answer with the same id read back with a bounded wait. Answers to
 * earlier requests that timed out are skipped by their id.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "guest_cmd.h"

#define GUEST_CMD_PORT "/dev/ttyS1"

static int port = -1;
static unsigned int next_id;

static int port_open(void)
{
	struct termios t;

	if (port >= 0)
		return port;
	port = open(GUEST_CMD_PORT, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (port < 0) {
		printf("# host_cmd: %s: %s\n", GUEST_CMD_PORT, strerror(errno));
		return -1;
	}
	if (!tcgetattr(port, &t)) {
		cfmakeraw(&t);
		cfsetspeed(&t, B115200);
		tcsetattr(port, TCSANOW, &t);
	}
	return port;
}

static long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads lines until "DONE id E": E, or -1 after the deadline. */
static int wait_done(int fd, unsigned int id, long deadline)
{
	static char buf[512];
	static size_t have;
	unsigned int got;
	char *nl;
	int err;
	ssize_t n;

	for (;;) {
		while ((nl = memchr(buf, '\n', have))) {
			*nl = '\0';
			n = sscanf(buf, "DONE %u %d", &got, &err);
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have);
			if (n == 2 && got == id)
				return err;
		}
		if (have == sizeof(buf))
			have = 0;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = deadline - ms_now();

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -1;
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n <= 0)
			return -1;
		have += n;
	}
}

int host_cmd(const char *fmt, ...)
{
	char line[512];
	unsigned int id = ++next_id;
	int fd = port_open(), len, err;
	va_list ap;

	if (fd < 0)
		return -1;
	len = snprintf(line, sizeof(line), "REQ %u ", id);
	va_start(ap, fmt);
	len += vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(line) - 1)
		return -1;
	line[len++] = '\n';
	if (write(fd, line, len) != len) {
		printf("# host_cmd: write: %s\n", strerror(errno));
		return -1;
	}
	err = wait_done(fd, id, ms_now() + GUEST_CMD_WAIT_MS);
	if (err)
		printf("# host_cmd %.*s: %s\n", len - 1, line,
		       err < 0 ? "no answer" : strerror(err));
	return err;
}
