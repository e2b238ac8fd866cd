/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal intrusive doubly-linked list (the kernel's list_head, cut to
 * what the file system needs). A list owns nothing: whoever embeds the
 * links owns the objects and the lock that protects the list.
 */
#ifndef RNOTIFY_FS_FS_LIST_H
#define RNOTIFY_FS_FS_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct fs_list {
	struct fs_list *prev, *next;
};

#define fs_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline void fs_list_init(struct fs_list *head)
{
	head->prev = head;
	head->next = head;
}

static inline bool fs_list_empty(const struct fs_list *head)
{
	return head->next == head;
}

static inline void fs_list_add(struct fs_list *head, struct fs_list *link)
{
	link->next = head->next;
	link->prev = head;
	head->next->prev = link;
	head->next = link;
}

static inline void fs_list_del(struct fs_list *link)
{
	link->prev->next = link->next;
	link->next->prev = link->prev;
	fs_list_init(link);
}

#endif
