/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What vfs_tools' files share: the scenario's label and first failure,
 * CHECK(), the small file helpers, and the scenarios of the tools that
 * copy trees (vfs_tree.c).
 */
#ifndef RNOTIFY_TESTS_VIRTIOFS_VFS_TOOLS_H
#define RNOTIFY_TESTS_VIRTIOFS_VFS_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

extern const char *label;
extern char why[8192];	/* the first failed check of the scenario */

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (!why[0])						\
			snprintf(why, sizeof(why), __VA_ARGS__);	\
		return;							\
	}								\
} while (0)

int put(const char *path, const void *buf, size_t len, mode_t mode);
ssize_t get(const char *path, void *buf, size_t size);
bool has(const char *path, const char *want);
void fill(unsigned char *p, size_t len, uint32_t seed);
char **names(const char *dir, int *n);
void names_free(char **v, int n);
/* Every entry below dir, one line each, sorted: for comparing trees. */
char *describe_tree(const char *dir);

void sc_tar(void);
void sc_cp_a(void);
void sc_git(void);
void sc_links(void);
void sc_rename_flags(void);

#endif
