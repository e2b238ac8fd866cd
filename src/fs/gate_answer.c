// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Entries the gate answers (FS_GATE_ANSWER on LOOKUP, MKNOD, MKDIR,
 * SYMLINK, CREATE): the client is shown the namespace as the replay needs
 * it, not as the backing store is now. When the backing object is already
 * gone, the entry is a ghost: an inode with no fd that answers GETATTR
 * from the attributes it was born with and everything else with ESTALE.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fs_internal.h"
#include "names_shown.h"
#include "passthrough.h"

/* The backing object (dir, name) if it is the one st describes. */
static struct fs_inode *answer_real(struct fs *fs, struct fs_inode *dir,
				    const char *name, const struct stat *want,
				    struct stat *st)
{
	struct fs_inode *child;

	if (dir->fd < 0 || fstatat(dir->fd, name, st, AT_SYMLINK_NOFOLLOW))
		return NULL;
	if ((st->st_mode & S_IFMT) != (want->st_mode & S_IFMT))
		return NULL;
	if (want->st_ino && want->st_ino != st->st_ino)
		return NULL;
	if (fs_entry_learn(fs, dir, name, &child, st))
		return NULL;
	/* Replaced between the two calls: not the object asked for. */
	if (want->st_ino && want->st_ino != st->st_ino) {
		fs_table_forget(&fs->table, child->nodeid, 1);
		return NULL;
	}
	return child;
}

/* What a replayed create shows: the live object, else a ghost. */
static struct fs_inode *answer_new(struct fs *fs, struct fs_inode *dir,
				   const char *name, const struct stat *want,
				   struct stat *st)
{
	struct fs_inode *child = answer_real(fs, dir, name, want, st);

	if (!child) {
		*st = *want;
		child = fs_table_ghost(&fs->table, want);
	}
	return child;
}

void fs_answer_create(fuse_req_t req, struct fs_inode *dir, const char *name,
		      const struct stat *want)
{
	struct fs *fs = fs_of(req);
	struct stat st;
	struct fs_inode *child = answer_new(fs, dir, name, want, &st);

	if (!child) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fs_reply_entry(req, dir, name, child, &st);
}

/*
 * A replayed create that opens: the entry as above, and an open file with
 * no backing file, written through with direct_io so that the gate sees
 * the replay's writes, as an OPEN_DIRECT open.
 */
void fs_answer_create_open(fuse_req_t req, struct fs_inode *dir,
			   const char *name, const struct stat *want,
			   struct fuse_file_info *fi)
{
	struct stat st;
	struct fs_inode *child = answer_new(fs_of(req), dir, name, want, &st);

	if (!child) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fi->fh = FS_NO_FILE;
	fi->direct_io = 1;
	fi->noflush = 1;
	fs_passthrough_open(fs_of(req), child, FS_NO_FILE, fi);
	fs_reply_create(req, dir, name, child, &st, fi);
}

/*
 * The node last shown as (dir, name), else the one the gate names for
 * it, with a new kernel reference and a reference for the caller (to
 * put).
 */
static struct fs_inode *answer_shown(struct fs *fs, struct fs_inode *dir,
				     const char *name, uint64_t named)
{
	struct fs_inode *child;
	uint64_t node = named;

	if (!fs_names_find(&fs->table, dir->nodeid, name, &node) && !node)
		return NULL;
	child = fs_table_get(&fs->table, node);
	if (child && !fs_table_lookup_again(&fs->table, child)) {
		fs_table_put(&fs->table, child);
		return NULL;
	}
	return child;
}

void fs_answer_lookup(fuse_req_t req, struct fs_inode *dir, const char *name,
		      const struct fs_gate_answer *a)
{
	struct fs *fs = fs_of(req);
	struct fs_inode *child = answer_shown(fs, dir, name, a->node);
	struct stat st;

	if (!child) {
		fs_answer_create(req, dir, name, &a->st);
		return;
	}
	/*
	 * Its attributes, or, if it is gone, those the replay gave. A name
	 * the replay removes is already gone from the live count, and the
	 * kernel will drop it again: left as is, a file that keeps other
	 * links could reach 0 there and lose its watches (DELETE_SELF).
	 */
	if (fs_table_stat(child, &st))
		st = a->st;
	else if (a->removes && !S_ISDIR(st.st_mode))
		st.st_nlink++;
	fs_reply_entry(req, dir, name, child, &st);
	fs_table_put(&fs->table, child);
}
