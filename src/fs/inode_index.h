/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inode table's indexes: by node id (every inode), by host id (real
 * inodes whose id is known), by file handle (real inodes whose handle no
 * other inode has; the others are counted in t->unindexed, as the handle
 * index is then not the whole truth). For the table's own files; the
 * table lock is held for every call.
 */
#ifndef RNOTIFY_FS_INODE_INDEX_H
#define RNOTIFY_FS_INODE_INDEX_H

#include "inode_table.h"

/* 0, or -ENOMEM with whatever was made left for fs_index_destroy(). */
int fs_index_init(struct fs_table *t);
void fs_index_destroy(struct fs_table *t);

/* NULL when no inode has this node id, or this host id. */
struct fs_inode *fs_index_node(struct fs_table *t, uint64_t nodeid);
struct fs_inode *fs_index_id(struct fs_table *t, const struct rn_id *id);

void fs_index_add_id(struct fs_table *t, struct fs_inode *in);
void fs_index_add_handle(struct fs_table *t, struct fs_inode *in);
/* Takes in out of every index it is in. */
void fs_index_del(struct fs_table *t, struct fs_inode *in);

#endif
