// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names the sysctl behind a per-user watcher limit (watch_limits.h).
 * fanotify_init() and inotify_init1() fail EMFILE both for a full fd
 * table and for the user's group/instance limit: a spare fd tells them
 * apart. Marks and watches past their limit fail ENOSPC.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "watch_limits.h"

static const char *const watch_knobs[] = {
	[WATCH_CALL_FANOTIFY_INIT] = "fs.fanotify.max_user_groups",
	[WATCH_CALL_FANOTIFY_MARK] = "fs.fanotify.max_user_marks",
	[WATCH_CALL_INOTIFY_INIT] = "fs.inotify.max_user_instances",
	[WATCH_CALL_INOTIFY_ADD] = "fs.inotify.max_user_watches",
};

static const char *const watch_things[] = {
	[WATCH_CALL_FANOTIFY_INIT] = "fanotify groups",
	[WATCH_CALL_FANOTIFY_MARK] = "fanotify marks",
	[WATCH_CALL_INOTIFY_INIT] = "inotify instances",
	[WATCH_CALL_INOTIFY_ADD] = "inotify watches",
};

static bool watch_fd_table_full(void)
{
	int fd = open("/", O_PATH | O_CLOEXEC);

	if (fd < 0)
		return errno == EMFILE;
	close(fd);
	return false;
}

bool watch_limit_met(enum watch_call call, int err)
{
	if (call == WATCH_CALL_FANOTIFY_INIT || call == WATCH_CALL_INOTIFY_INIT)
		return err == EMFILE && !watch_fd_table_full();
	return err == ENOSPC;
}

/* The knob's value now, as text ("?" if it cannot be read). */
static void watch_knob_value(const char *knob, char *buf, size_t size)
{
	char path[64];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "/proc/sys/%s", knob);
	for (i = 0; path[i]; i++)
		if (path[i] == '.')
			path[i] = '/';
	snprintf(buf, size, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		snprintf(buf, size, "?");
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void watch_say_error(const char *what, enum watch_call call, int err,
		     const char *tail)
{
	char value[32];

	if (!watch_limit_met(call, err)) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: %s: %s%s\n", what,
			 strerror(err), tail);
		return;
	}
	watch_knob_value(watch_knobs[call], value, sizeof(value));
	fuse_log(FUSE_LOG_ERR,
		 "rnotifyfs: %s: %s: this user's %s are at the limit %s = %s, raise it%s\n",
		 what, strerror(err), watch_things[call], watch_knobs[call],
		 value, tail);
}
