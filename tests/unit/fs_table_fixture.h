/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fs_table_fixture - the scratch directory and inode table shared by the
 * inode table's unit tests (test_fs_inode_table, test_fs_table_handles):
 * objects learned the way lookup learns them, their file handles, and
 * the setup and cleanup of one run. Header only: each test is one
 * program.
 */
#ifndef FS_TABLE_FIXTURE_H
#define FS_TABLE_FIXTURE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/inode_table.h"

static char dir[] = "/tmp/test_fs_XXXXXX";
static int root_fd;

/*
 * Learns dir/name the way lookup does, its st_dev XOR flip (1: as if on
 * another file system); NULL if it does not exist.
 */
static inline struct fs_inode *learn_flip(struct fs_table *t,
					  const char *name, dev_t flip)
{
	struct stat st;
	int fd = openat(root_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstatat(fd, "", &st, AT_EMPTY_PATH)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	st.st_dev ^= flip;
	return fs_table_learn(t, fd, &st);
}

static inline struct fs_inode *learn(struct fs_table *t, const char *name)
{
	return learn_flip(t, name, 0);
}

static inline void make_file(const char *name)
{
	int fd = openat(root_fd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

/* Room for any file handle. */
union handle_buf {
	struct file_handle fh;
	char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

static inline bool handle_of(const char *name, struct file_handle *fh, int *mnt)
{
	fh->handle_bytes = MAX_HANDLE_SZ;
	return !name_to_handle_at(root_fd, name, fh, mnt, 0);
}

/* Takes a reference and drops it: in becomes idle. */
static inline void use(struct fs_table *t, struct fs_inode *in)
{
	fs_table_put(t, fs_table_get(t, in->nodeid));
}

/* The scratch directory, with a file a, and a table on it. */
static inline int fixture_open(struct fs_table *t)
{
	if (!mkdtemp(dir))
		return -1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	make_file("a");
	return fs_table_init(t, root_fd);
}

/* false if the scratch directory could not be removed. */
static inline bool fixture_close(struct fs_table *t)
{
	char cmd[64];

	fs_table_destroy(t);
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return !system(cmd);
}

#endif
