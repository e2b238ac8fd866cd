/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names shown: every (parent node, name) -> node the client has been
 * given and may still hold a dentry for. It lives in the inode table and
 * under its lock; see names_shown.c.
 */
#ifndef RNOTIFY_FS_NAMES_SHOWN_H
#define RNOTIFY_FS_NAMES_SHOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "inode_table.h"
#include "remote.h"

/* The table's names index: 0 or -ENOMEM. */
int fs_names_init(struct fs_table *t);
/* Records that (parent, name) shows child; 0 or a negative errno. */
int fs_names_show(struct fs_table *t, uint64_t parent, const char *name,
		  uint64_t child);
/* The client no longer holds (parent, name). */
void fs_names_hide(struct fs_table *t, uint64_t parent, const char *name);
bool fs_names_find(struct fs_table *t, uint64_t parent, const char *name,
		   uint64_t *child);
/* A name child is shown under, in a directory the kernel knows. */
bool fs_names_one(struct fs_table *t, uint64_t child, struct fs_name_buf *b);
/*
 * A rename the client has seen: flags 0 or RENAME_NOREPLACE move
 * (parent, name) over (newparent, newname); RENAME_EXCHANGE swaps them.
 */
void fs_names_rename(struct fs_table *t, uint64_t parent, const char *name,
		     uint64_t newparent, const char *newname,
		     unsigned int flags);

/*
 * Table lock held: calls fn(arg, parent, name) for each name in is shown
 * under in a directory the kernel still knows; stops at the first
 * nonzero return, and returns it.
 */
int fs_names_each_locked(struct fs_table *t, struct fs_inode *in,
			 int (*fn)(void *arg, uint64_t parent,
				   const char *name),
			 void *arg);
/* Table lock held: drop every entry naming in. */
void fs_names_forget_locked(struct fs_table *t, struct fs_inode *in);
/* Frees every entry (the table frees the index). */
void fs_names_destroy(struct fs_table *t);

#endif
