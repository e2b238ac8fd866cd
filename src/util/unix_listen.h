/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RNOTIFY_UNIX_LISTEN_H
#define RNOTIFY_UNIX_LISTEN_H

/*
 * A listening Unix stream socket at path, replacing what was there,
 * which only its owner may connect to (mode 0600 from the bind on): fd,
 * or -1 with errno set.
 */
int unix_listen_owner_only(const char *path);

#endif
