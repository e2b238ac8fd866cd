// SPDX-License-Identifier: GPL-2.0-or-later
/* The entries of an open backing directory (dir_stream.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir_stream.h"

/*
 * The buffer holds two getdents64 reads of DIR_STREAM_READ, so that a
 * batch read ahead fits beside what is left of the one before.
 * glibc's DIR holds 32 KiB; the buffer is only allocated once entries
 * are read, so an open directory that is never listed costs nothing.
 */
#define DIR_STREAM_READ (32 * 1024)
#define DIR_STREAM_BUF (2 * DIR_STREAM_READ)

struct dir_stream {
	int fd;
	bool end;		/* getdents64 found no more */
	off_t pos;		/* d_off of the last entry passed, or 0 */
	size_t head, tail;	/* the entries not yet passed: buf[head, tail) */
	uint64_t *buf;		/* DIR_STREAM_BUF bytes; records are 8-aligned */
};

struct dir_stream *dir_stream_open(int fd)
{
	struct dir_stream *s = calloc(1, sizeof(*s));

	if (s)
		s->fd = fd;
	return s;
}

void dir_stream_close(struct dir_stream *s)
{
	close(s->fd);
	free(s->buf);
	free(s);
}

int dir_stream_fd(const struct dir_stream *s)
{
	return s->fd;
}

static char *bytes(const struct dir_stream *s)
{
	return (char *)s->buf;
}

/* Makes room for one read at the buffer's end: 0, or a negative errno. */
static int room(struct dir_stream *s)
{
	if (!s->buf) {
		s->buf = malloc(DIR_STREAM_BUF);
		if (!s->buf)
			return -ENOMEM;
	}
	if (s->head == s->tail) {
		s->head = 0;
		s->tail = 0;
	}
	if (DIR_STREAM_BUF - s->tail < DIR_STREAM_READ) {
		memmove(bytes(s), bytes(s) + s->head, s->tail - s->head);
		s->tail -= s->head;
		s->head = 0;
	}
	if (DIR_STREAM_BUF - s->tail >= DIR_STREAM_READ)
		return 0;
	return -ENOBUFS;
}

/* One getdents64 appended to the buffer: 0, or a negative errno. */
static int fill(struct dir_stream *s)
{
	ssize_t n;
	int ret;

	ret = room(s);
	if (ret)
		return ret;
	n = getdents64(s->fd, bytes(s) + s->tail, DIR_STREAM_BUF - s->tail);
	if (n < 0)
		return -errno;
	if (n == 0)
		s->end = true;
	s->tail += n;
	return 0;
}

const struct dirent64 *dir_stream_peek(struct dir_stream *s)
{
	int ret;

	if (s->head == s->tail && !s->end) {
		ret = fill(s);
		if (ret) {
			errno = -ret;
			return NULL;
		}
	}
	errno = 0;
	if (s->head == s->tail)
		return NULL;
	return (const struct dirent64 *)(bytes(s) + s->head);
}

void dir_stream_next(struct dir_stream *s)
{
	const struct dirent64 *de;

	if (s->head == s->tail)
		return;
	de = (const struct dirent64 *)(bytes(s) + s->head);
	s->pos = de->d_off;
	s->head += de->d_reclen;
}

off_t dir_stream_tell(const struct dir_stream *s)
{
	return s->pos;
}

int dir_stream_seek(struct dir_stream *s, off_t off)
{
	if (lseek(s->fd, off, SEEK_SET) < 0)
		return -errno;
	s->head = 0;
	s->tail = 0;
	s->end = false;
	s->pos = off;
	return 0;
}

void dir_stream_prefetch(struct dir_stream *s, size_t want)
{
	if (want > DIR_STREAM_READ)
		want = DIR_STREAM_READ;
	while (!s->end && s->tail - s->head < want && !fill(s))
		;
}

/* Entries buffered from head on, counting up to max + 1. */
static int buffered(const struct dir_stream *s, int max)
{
	size_t at = s->head;
	int n = 0;

	while (at < s->tail && n <= max) {
		at += ((const struct dirent64 *)(bytes(s) + at))->d_reclen;
		n++;
	}
	return n;
}

bool dir_stream_at_most(struct dir_stream *s, int max)
{
	for (;;) {
		if (buffered(s, max) > max)
			return false;
		if (s->end)
			return true;
		if (fill(s))
			return false;
	}
}
