/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the file system's files share: the fs object, the helpers every op
 * uses, and the ops themselves (fs.c puts them in the ops table).
 *
 * Every op replies exactly once on every path. An op takes a reference on
 * each inode it uses (fs_inode_get/fs_inode_put) so that its fd stays open
 * even if a FORGET races the request. Backing operations are single-name
 * *at() calls relative to a parent's O_PATH fd, never following symlinks.
 */
#ifndef RNOTIFY_FS_FS_INTERNAL_H
#define RNOTIFY_FS_FS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "fs.h"
#include "fs_list.h"
#include "inode_table.h"
#include "passthrough.h"
#include "remote.h"

struct fs {
	struct fs_table table;
	int root_fd;
	double entry_timeout;		/* where the watch may miss changes */
	double attr_timeout;
	double entry_coherent;		/* where it sees them all */
	double attr_coherent;
	atomic_bool coherent;		/* cache_policy.c */
	bool inc_epoch;			/* the kernel takes INC_EPOCH */
	bool debug;
	bool as_root;			/* geteuid() == 0 at the start */
	bool guest_callers;		/* fs_config.guest_callers */
	bool posix_acl;			/* the kernel took FUSE_CAP_POSIX_ACL */
	atomic_uint boundary_epoch;	/* boundary.c: moves out so far */
	struct fuse_session *se;	/* set before the loop starts */
	void *session_state;		/* fs_set_session_state() */
	struct fs_shed *shed;		/* shed.c; from INIT to the stop */
	struct fs_passthrough pt;	/* passthrough.c */
	pthread_mutex_t dirs_lock;
	struct fs_list dirs;		/* dirs_lock: open (dir_ops.c) */

	/* hooks_lock (read side in handlers) guards the four below. */
	pthread_rwlock_t hooks_lock;
	fs_gate_fn gate;
	void *gate_arg;
	fs_change_fn change;
	void *change_arg;
};

static inline struct fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/*
 * dir_ops.c: closes the directories the kernel left open, whose
 * RELEASEDIR will never come (the connection ended: its client was
 * killed as the server stopped, or a guest rebooted); how many.
 */
unsigned long fs_dirs_close_all(struct fs *fs);

/* boundary.c: is a held object still inside the export? */
bool fs_inode_inside(struct fs *fs, struct fs_inode *in);

/* NULL for an unknown node, and for one the host moved out of the export. */
static inline struct fs_inode *fs_inode_get(struct fs *fs, fuse_ino_t ino)
{
	struct fs_inode *in = fs_table_get(&fs->table, ino);

	if (in && !fs_inode_inside(fs, in)) {
		fs_table_put(&fs->table, in);
		return NULL;
	}
	return in;
}

static inline void fs_inode_put(struct fs *fs, struct fs_inode *in)
{
	fs_table_put(&fs->table, in);
}

/* fs_hooks.c */
void fs_gate_ask(struct fs *fs, fuse_req_t req, struct fs_gate_query *q,
		 struct fs_gate_answer *a);
/*
 * A change the file system makes, for the change hook (fs_set_change_hook).
 * It keeps the fd (O_PATH) of the object, or of the directory for a name,
 * to tell the hook what the change left: the caller holds that inode from
 * fs_change_begin() to fs_change_end().
 */
struct fs_change {
	struct rn_id id;
	const char *name;
	unsigned int kinds;	/* RN_EV_ALL unless narrower */
	int fd;			/* the object's or directory's, or -1 */
};

void fs_change_begin(struct fs *fs, struct fs_change *c,
		     const struct fs_inode *in, const char *name);
/* A close of a file open for writing: it can only cause CLOSE_WRITE. */
void fs_change_begin_close(struct fs *fs, struct fs_change *c,
			   const struct fs_inode *in);
void fs_change_end(struct fs *fs, const struct fs_change *c);

/* entry_common.c */
int fs_entry_learn(struct fs *fs, struct fs_inode *dir, const char *name,
		   struct fs_inode **child, struct stat *st);
void fs_reply_entry(fuse_req_t req, struct fs_inode *dir, const char *name,
		    struct fs_inode *child, const struct stat *st);
bool fs_reply_create(fuse_req_t req, struct fs_inode *dir, const char *name,
		     struct fs_inode *child, const struct stat *st,
		     struct fuse_file_info *fi);
/* The entry and attribute timeouts of in, shown with st (cache_policy.c). */
void fs_cache_timeouts(const struct fs *fs, const struct fs_inode *in,
		       const struct stat *st, double *entry, double *attr);
/*
 * Where the host watch sees every change (cache_policy.c): the lifetime
 * of a negative entry under dir (0: none is replied), and whether the
 * kernel keeps a file's pages (FOPEN_KEEP_CACHE) or a directory's
 * listing (FOPEN_CACHE_DIR) from one open to the next.
 */
double fs_cache_negative(const struct fs *fs, const struct fs_inode *dir);
bool fs_cache_keeps_pages(const struct fs *fs, const struct fs_inode *in,
			  const struct stat *st);
bool fs_cache_keeps_listing(const struct fs *fs, const struct fs_inode *dir);
/* What INIT negotiated: which way the kernel can drop every name. */
void fs_cache_init_seen(struct fs *fs, unsigned int proto_minor);
void fs_entry_param(struct fs *fs, struct fs_inode *child,
		    const struct stat *st, struct fuse_entry_param *e);
mode_t fs_create_mode(fuse_req_t req, struct fs_inode *dir, mode_t mode);
int fs_entry_learn_open(struct fs *fs, int open_fd, struct fs_inode **child,
			struct stat *st);
int fs_stat_fd(int fd, struct stat *st);

/* gate_answer.c */
void fs_answer_lookup(fuse_req_t req, struct fs_inode *dir, const char *name,
		      const struct fs_gate_answer *a);
void fs_answer_create(fuse_req_t req, struct fs_inode *dir, const char *name,
		      const struct stat *st);
void fs_answer_create_open(fuse_req_t req, struct fs_inode *dir,
			   const char *name, const struct stat *st,
			   struct fuse_file_info *fi);

/* An open file with no backing file behind it (a replay's). */
#define FS_NO_FILE (-1)

/* The ops, one per FUSE request, named after it. */
void fs_op_init(void *userdata, struct fuse_conn_info *conn);
void fs_op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void fs_op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void fs_op_forget_multi(fuse_req_t req, size_t count,
			struct fuse_forget_data *forgets);
void fs_op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		   int valid, struct fuse_file_info *fi);
void fs_op_readlink(fuse_req_t req, fuse_ino_t ino);
void fs_op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode, dev_t rdev);
void fs_op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		 mode_t mode);
void fs_op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		   const char *name);
void fs_op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		const char *newname);
void fs_op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void fs_op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void fs_op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		  fuse_ino_t newparent, const char *newname,
		  unsigned int flags);
void fs_op_statfs(fuse_req_t req, fuse_ino_t ino);
void fs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		  mode_t mode, struct fuse_file_info *fi);
void fs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void fs_op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *bufv,
		     off_t off, struct fuse_file_info *fi);
void fs_op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi);
void fs_op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		     off_t length, struct fuse_file_info *fi);
void fs_op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		 struct fuse_file_info *fi);
void fs_op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			   struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			   off_t off_out, struct fuse_file_info *fi_out,
			   size_t len, int flags);
void fs_op_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		 int op);
void fs_op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void fs_op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi);
void fs_op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi);
void fs_op_releasedir(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi);
void fs_op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi);
void fs_op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    const char *value, size_t size, int flags);
void fs_op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		    size_t size);
void fs_op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void fs_op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

#endif
