/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A set of file names of many lengths, for listings that take many
 * batches: name i is tag, i in four digits, then i % spread x's.
 */
#ifndef RNOTIFY_MANY_NAMES_H
#define RNOTIFY_MANY_NAMES_H

#include <stdbool.h>

/* Name i into buf (NAME_MAX + 1 bytes); spread at most 250. */
void many_name(char *buf, char tag, int i, int spread);
/* Makes dir, and in it the empty files named 0 to n - 1. */
bool many_names_make(const char *dir, char tag, int n, int spread);
/* i if name is name i of the set, for 0 <= i < n; else -1. */
int many_name_index(const char *name, char tag, int n, int spread);

#endif
