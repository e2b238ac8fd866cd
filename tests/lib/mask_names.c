// SPDX-License-Identifier: GPL-2.0-or-later
/* The names of inotify and fanotify mask bits (mask_names.h). */
#include <stddef.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>

#include "mask_names.h"
#include "rnotify_proto.h"

const struct mask_name inotify_mask_names[] = {
	{ IN_ACCESS, "ACCESS" }, { IN_MODIFY, "MODIFY" },
	{ IN_ATTRIB, "ATTRIB" }, { IN_CLOSE_WRITE, "CLOSE_WRITE" },
	{ IN_CLOSE_NOWRITE, "CLOSE_NOWRITE" }, { IN_OPEN, "OPEN" },
	{ IN_MOVED_FROM, "MOVED_FROM" }, { IN_MOVED_TO, "MOVED_TO" },
	{ IN_CREATE, "CREATE" }, { IN_DELETE, "DELETE" },
	{ IN_DELETE_SELF, "DELETE_SELF" }, { IN_MOVE_SELF, "MOVE_SELF" },
	{ IN_UNMOUNT, "UNMOUNT" }, { IN_Q_OVERFLOW, "Q_OVERFLOW" },
	{ IN_IGNORED, "IGNORED" }, { IN_ISDIR, "ISDIR" },
	{ 0, NULL }
};

/* REMOTE, the series' bit (rnotify_proto.h), comes last. */
const struct mask_name fanotify_mask_names[] = {
	{ FAN_ACCESS, "ACCESS" }, { FAN_MODIFY, "MODIFY" },
	{ FAN_ATTRIB, "ATTRIB" }, { FAN_CLOSE_WRITE, "CLOSE_WRITE" },
	{ FAN_CLOSE_NOWRITE, "CLOSE_NOWRITE" }, { FAN_OPEN, "OPEN" },
	{ FAN_MOVED_FROM, "MOVED_FROM" }, { FAN_MOVED_TO, "MOVED_TO" },
	{ FAN_CREATE, "CREATE" }, { FAN_DELETE, "DELETE" },
	{ FAN_DELETE_SELF, "DELETE_SELF" }, { FAN_MOVE_SELF, "MOVE_SELF" },
	{ FAN_OPEN_EXEC, "OPEN_EXEC" }, { FAN_Q_OVERFLOW, "Q_OVERFLOW" },
	{ FAN_FS_ERROR, "FS_ERROR" }, { FAN_RENAME, "RENAME" },
	{ FAN_ONDIR, "ONDIR" }, { FAN_REMOTE, "REMOTE" },
	{ 0, NULL }
};
