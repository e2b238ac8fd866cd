/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proto_codec_internal - what proto_codec.c shares with the rename frame
 * (proto_codec_rename.c).  Not for other callers.
 */
#ifndef RNOTIFY_PROTOCOL_PROTO_CODEC_INTERNAL_H
#define RNOTIFY_PROTOCOL_PROTO_CODEC_INTERNAL_H

#include "proto_codec.h"

/* A name of an event: at most NAME_MAX, no '/' or NUL, not "." or "..". */
int proto_name_validate(const char *name, uint32_t namelen);
/* The kernel's checks of a LOOKUP reply, and not the directory itself. */
int proto_entry_validate(const struct proto_event *ev);

/*
 * Writes a notification's out-header (len), fixed part and name from ev
 * into buf; returns where what follows the name goes.
 */
char *proto_put_head(void *buf, size_t len, const struct proto_event *ev);
/* May a notification with this mask and name length carry an entry? */
bool proto_may_have_entry(uint32_t mask, uint32_t namelen);

/* FUSE_FSNOTIFY_RENAME: as proto_event_validate() and _encode_. */
int proto_rename_validate(const struct proto_event *ev);
int proto_rename_encode(void *buf, size_t size, const struct proto_event *ev);
/* The length of a rename frame with these name lengths. */
size_t proto_rename_len(uint32_t namelen, uint32_t newnamelen);

#endif
