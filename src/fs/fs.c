// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file system: its life (fs_new, fs_destroy), what it
 * tells the rest of the server (node ids, host ids, names shown, cache
 * invalidation) and, at the end, the ops table: the index of the ops,
 * which live in entry_ops.c, create_ops.c, attr_ops.c, file_ops.c,
 * dir_ops.c and xattr_ops.c.
 *
 * The fs object is created before the session and destroyed after it; the
 * session pointer is set once before the loop starts and cleared after it
 * ends, so handlers and invalidators read it without a lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caller.h"
#include "fs_internal.h"
#include "name_validate.h"
#include "names_shown.h"
#include "shed.h"
#include "shed_bound.h"

/* The bound on inodes asked for, or the memory cgroup's. */
static void fs_bound(struct fs *fs, long max_inodes)
{
	uint64_t limit = 0;
	unsigned long max = max_inodes;

	if (max_inodes < 0) {
		limit = fs_shed_memory_limit();
		max = fs_shed_bound_for(limit);
	}
	fs_table_set_bound(&fs->table, max);
	if (!fs->debug)
		return;
	if (limit)
		fuse_log(FUSE_LOG_DEBUG,
			 "rnotifyfs: inode bound %lu (memory cgroup limit %" PRIu64 " MiB)\n",
			 max, limit >> 20);
	else
		fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: inode bound %lu%s\n",
			 max, max ? "" : " (none)");
}

struct fs *fs_new(const struct fs_config *cfg)
{
	struct fs *fs = calloc(1, sizeof(*fs));
	int err;

	if (!fs)
		return NULL;
	fs->root_fd = open(cfg->backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->root_fd < 0) {
		err = errno;
		free(fs);
		errno = err;
		return NULL;
	}
	err = fs_caller_setup();
	if (!err)
		err = fs_table_init(&fs->table, fs->root_fd);
	if (err) {
		close(fs->root_fd);
		free(fs);
		errno = -err;
		return NULL;
	}
	pthread_rwlock_init(&fs->hooks_lock, NULL);
	pthread_mutex_init(&fs->dirs_lock, NULL);
	fs_list_init(&fs->dirs);
	fs_passthrough_init(&fs->pt);
	fs->entry_timeout = cfg->entry_timeout;
	fs->attr_timeout = cfg->attr_timeout;
	fs->entry_coherent = cfg->entry_coherent;
	fs->attr_coherent = cfg->attr_coherent;
	fs->debug = cfg->debug;
	fs->as_root = geteuid() == 0;
	fs->guest_callers = cfg->guest_callers;
	fs_bound(fs, cfg->max_inodes);
	/* Modes arrive with the caller's umask applied: apply no other. */
	umask(0);
	return fs;
}

void fs_destroy(struct fs *fs)
{
	if (!fs)
		return;
	fs_shed_stop(fs);
	fs_dirs_close_all(fs);
	pthread_mutex_destroy(&fs->dirs_lock);
	fs_table_destroy(&fs->table);
	pthread_rwlock_destroy(&fs->hooks_lock);
	fs_passthrough_free(&fs->pt);
	close(fs->root_fd);
	free(fs);
}

void fs_set_session(struct fs *fs, struct fuse_session *se)
{
	if (!se)
		fs_shed_stop(fs);
	fs->se = se;
}

int fs_forget_last_kernel(struct fs *fs, long *nodes, unsigned long *dirs)
{
	*dirs = fs_dirs_close_all(fs);
	*nodes = fs_table_forget_all(&fs->table);
	return *nodes < 0 ? (int)*nodes : 0;
}

void fs_set_session_state(struct fs *fs, void *state)
{
	fs->session_state = state;
}

void *fs_session_state(const struct fs *fs)
{
	return fs->session_state;
}

void fs_stop_shedding(struct fs *fs)
{
	fs_shed_stop(fs);
}

int fs_backing_fd(const struct fs *fs)
{
	return fs->root_fd;
}

bool fs_node_of(struct fs *fs, const struct rn_id *id, uint64_t *nodeid,
		uint32_t *generation)
{
	return fs_table_node_of(&fs->table, id, nodeid, generation);
}

bool fs_id_of(struct fs *fs, uint64_t nodeid, struct rn_id *id)
{
	return fs_table_id_of(&fs->table, nodeid, id);
}

bool fs_node_live(struct fs *fs, uint64_t nodeid, uint32_t *generation)
{
	return fs_table_node_live(&fs->table, nodeid, generation);
}

bool fs_name_shown(struct fs *fs, uint64_t parent, const char *name,
		   uint64_t *nodeid)
{
	return fs_names_find(&fs->table, parent, name, nodeid);
}

bool fs_name_of(struct fs *fs, uint64_t nodeid, struct fs_name_buf *b)
{
	return fs_names_one(&fs->table, nodeid, b);
}

bool fs_resolve_dir_handle(struct fs *fs, const void *handle, size_t len,
			   int type, struct rn_id *id)
{
	return fs_table_resolve_handle(&fs->table, handle, len, type, id);
}

int fs_held_handle(struct fs *fs, const void *handle, size_t len, int type,
		   struct rn_id *id)
{
	return fs_table_held_handle(&fs->table, handle, len, type, id);
}

int fs_backing_statat(struct fs *fs, uint64_t parent, const char *name,
		      struct stat *st)
{
	struct fs_inode *dir = fs_inode_get(fs, parent);
	int err = dir ? fs_name_validate(name, true) : -ENOENT;

	if (!err && dir->fd < 0)
		err = -ESTALE;
	if (!err && fstatat(dir->fd, name, st, AT_SYMLINK_NOFOLLOW))
		err = -errno;
	fs_inode_put(fs, dir);
	return err;
}

int fs_inval_inode(struct fs *fs, uint64_t nodeid)
{
	if (!fs->se)
		return -ENOTCONN;
	return fuse_lowlevel_notify_inval_inode(fs->se, nodeid, 0, 0);
}

int fs_inval_entry(struct fs *fs, uint64_t parent, const char *name)
{
	if (!fs->se)
		return -ENOTCONN;
	return fuse_lowlevel_notify_inval_entry(fs->se, parent, name,
						strlen(name));
}

int fs_notify_delete(struct fs *fs, uint64_t parent, uint64_t child,
		     const char *name)
{
	int err;

	if (!fs->se)
		return -ENOTCONN;
	err = fuse_lowlevel_notify_delete(fs->se, parent, child, name,
					  strlen(name));
	if (!err)
		fs_names_hide(&fs->table, parent, name);
	return err;
}

void fs_forget(struct fs *fs, uint64_t nodeid, uint64_t nlookup)
{
	fs_table_forget(&fs->table, nodeid, nlookup);
}

void fs_name_forget(struct fs *fs, uint64_t parent, const char *name)
{
	fs_names_hide(&fs->table, parent, name);
}

int fs_node_stat(struct fs *fs, uint64_t nodeid, struct stat *st)
{
	struct fs_inode *in = fs_inode_get(fs, nodeid);
	int err = in ? 0 : -ENOENT;

	if (!err && in->fd < 0)
		err = -ESTALE;
	if (!err && fstat(in->fd, st))
		err = -errno;
	fs_inode_put(fs, in);
	return err;
}

void fs_op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fs *fs = userdata;
	int err;

	fs_cache_init_seen(fs, conn->proto_minor);
	/* File handles of the mount: fanotify FID marks, open_by_handle_at. */
	if (conn->capable & FUSE_CAP_EXPORT_SUPPORT)
		conn->want |= FUSE_CAP_EXPORT_SUPPORT;
	if (conn->capable & FUSE_CAP_FLOCK_LOCKS)
		conn->want |= FUSE_CAP_FLOCK_LOCKS;
	/*
	 * Writeback caching would send writes from flusher threads, which
	 * the gate cannot tell from the replay's, and would keep remote
	 * changes out of sight; auto_inval_data (libfuse's default) stays.
	 */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/*
	 * With default_permissions alone the kernel checks mode bits: an
	 * ACL that denies would be ignored there, one that grants refused.
	 * A default ACL replaces the umask: the server applies it
	 * (fs_create_mode()).
	 */
	if ((conn->capable & FUSE_CAP_POSIX_ACL) &&
	    (conn->capable & FUSE_CAP_DONT_MASK)) {
		conn->want |= FUSE_CAP_POSIX_ACL | FUSE_CAP_DONT_MASK;
		fs->posix_acl = true;
	}
	/* A thread of its own, now that the server has daemonized. */
	err = fs_shed_start(fs);
	if (err)
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: no thread to keep the inode bound: %s\n",
			 strerror(-err));
	if (fs->debug)
		fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: want 0x%x\n", conn->want);
}

static const struct fuse_lowlevel_ops fs_lowlevel_ops = {
	.init		= fs_op_init,
	.lookup		= fs_op_lookup,
	.forget		= fs_op_forget,
	.forget_multi	= fs_op_forget_multi,
	.getattr	= fs_op_getattr,
	.setattr	= fs_op_setattr,
	.readlink	= fs_op_readlink,
	.mknod		= fs_op_mknod,
	.mkdir		= fs_op_mkdir,
	.symlink	= fs_op_symlink,
	.link		= fs_op_link,
	.unlink		= fs_op_unlink,
	.rmdir		= fs_op_rmdir,
	.rename		= fs_op_rename,
	.statfs		= fs_op_statfs,
	.open		= fs_op_open,
	.create		= fs_op_create,
	.read		= fs_op_read,
	.write_buf	= fs_op_write_buf,
	.flush		= fs_op_flush,
	.release	= fs_op_release,
	.fsync		= fs_op_fsync,
	.fallocate	= fs_op_fallocate,
	.lseek		= fs_op_lseek,
	.copy_file_range = fs_op_copy_file_range,
	.flock		= fs_op_flock,
	.opendir	= fs_op_opendir,
	.readdir	= fs_op_readdir,
	.readdirplus	= fs_op_readdirplus,
	.releasedir	= fs_op_releasedir,
	.fsyncdir	= fs_op_fsyncdir,
	.setxattr	= fs_op_setxattr,
	.getxattr	= fs_op_getxattr,
	.listxattr	= fs_op_listxattr,
	.removexattr	= fs_op_removexattr,
};

const struct fuse_lowlevel_ops *fs_ops(void)
{
	return &fs_lowlevel_ops;
}
