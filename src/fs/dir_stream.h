/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The entries of an open backing directory, read with getdents64 into a
 * buffer of our own instead of readdir(3)'s: the server decides when the
 * next batch is read. After replying to READDIR it reads the next batch
 * ahead (dir_stream_prefetch), while the reply travels to the client and
 * the client asks again: on a cold 100,000-entry directory the backing
 * reads are most of a listing's time, and readdir(3) would only do each
 * one once the next request had come.
 */
#ifndef RNOTIFY_FS_DIR_STREAM_H
#define RNOTIFY_FS_DIR_STREAM_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct dir_stream;

/* Takes fd (an open directory) and closes it in dir_stream_close. */
struct dir_stream *dir_stream_open(int fd);
void dir_stream_close(struct dir_stream *s);
int dir_stream_fd(const struct dir_stream *s);

/*
 * The next entry, read if none is buffered; it stays next until
 * dir_stream_next(). NULL at the end (errno 0) or on an error (errno).
 */
const struct dirent64 *dir_stream_peek(struct dir_stream *s);
/* Past the entry dir_stream_peek() returned. */
void dir_stream_next(struct dir_stream *s);
/* Where the next entry is: 0, or the d_off of the last one passed. */
off_t dir_stream_tell(const struct dir_stream *s);
/* Moves to off (0 or a d_off the directory gave): 0, or a negative errno. */
int dir_stream_seek(struct dir_stream *s, off_t off);

/*
 * Reads ahead until at least bytes of entries are buffered or the
 * directory ends; a read that fails is left for the next peek to report.
 */
void dir_stream_prefetch(struct dir_stream *s, size_t bytes);

/*
 * Does the directory have at most max entries from here on? Reads ahead
 * as far as it needs to; passes none. An error reads as false.
 */
bool dir_stream_at_most(struct dir_stream *s, int max);

#endif
