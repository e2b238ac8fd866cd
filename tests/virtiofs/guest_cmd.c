// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * guest_cmd - the guest's end of the host-command channel (guest_cmd.h):
 * one line out on /dev/ttyS1, raw (no echo, no line editing), and the
 * answer with the same id read back with a bounded wait. Answers to
 * earlier requests that timed out are skipped by their id.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

/*
 * Reads lines until "DONE id E TSC": E (and TSC in *tsc), or -1 after
 * the deadline.
 */
static int wait_done(int fd, unsigned int id, long deadline, uint64_t *tsc)
{
	static char buf[512];
	static size_t have;
	unsigned int got;
	uint64_t stamp;
	char *nl;
	int err;
	ssize_t n;

	for (;;) {
		while ((nl = memchr(buf, '\n', have))) {
			*nl = '\0';
			n = sscanf(buf, "DONE %u %d %" SCNu64, &got, &err,
				   &stamp);
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have);
			if (n == 3 && got == id) {
				*tsc = stamp;
				return err;
			}
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

/* Our last request's text, for the line that says it failed. */
static char last[512];

static int send_line(const char *fmt, va_list ap)
{
	unsigned int id = ++next_id;
	int fd = port_open(), len;

	if (fd < 0)
		return -1;
	len = snprintf(last, sizeof(last), "REQ %u ", id);
	len += vsnprintf(last + len, sizeof(last) - len - 1, fmt, ap);
	if (len >= (int)sizeof(last) - 1)
		return -1;
	last[len++] = '\n';
	if (write(fd, last, len) != len) {
		printf("# host_cmd: write: %s\n", strerror(errno));
		return -1;
	}
	last[len - 1] = '\0';
	return id;
}

int host_cmd_send(const char *fmt, ...)
{
	va_list ap;
	int id;

	va_start(ap, fmt);
	id = send_line(fmt, ap);
	va_end(ap);
	return id;
}

int host_cmd_wait(int id, uint64_t *tsc)
{
	int err;

	if (id < 0)
		return -1;
	err = wait_done(port, id, ms_now() + GUEST_CMD_WAIT_MS, tsc);
	if (err)
		printf("# host_cmd %s: %s\n", last,
		       err < 0 ? "no answer" : strerror(err));
	return err;
}

int host_cmd(const char *fmt, ...)
{
	uint64_t tsc;
	va_list ap;
	int id;

	va_start(ap, fmt);
	id = send_line(fmt, ap);
	va_end(ap);
	return host_cmd_wait(id, &tsc);
}
