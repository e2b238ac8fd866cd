// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's half of the scope filter (fanotify_scope.c): the
 * filesystem mark makes an event of every change on the file system, and
 * the process making the change pays for it in its system call, whether
 * or not the server then drops it. So each directory the scope places
 * outside the export gets an ignore mark (FAN_MARK_IGNORE, Linux 6.0)
 * for every kind of event the filesystem mark asks for but FAN_RENAME,
 * on the directory itself and its children: from then on, what is made,
 * written, closed, changed or removed in it makes no event, and wakes no
 * one. The first event of such a directory still reaches the server,
 * which places it and marks it.
 *
 * What still reaches the server from outside: that first event of each
 * directory; renames (FAN_RENAME is never ignored: an ignore mark on
 * the directory a file leaves would hide its move into the export); and
 * a file's link count changes (an unlink, a link), which the kernel
 * reports to the file's own marks and the filesystem mark only, so that
 * no directory's mark can ignore them.
 *
 * The marks are evictable (FAN_MARK_EVICTABLE): they pin no inode, the
 * kernel drops one with its directory's inode, and the directory's next
 * event marks it again. At most FAN_IGNORE_MAX are kept; past that all
 * go, and the directories in use are marked again as their events come.
 *
 * A mark moves with its directory. A directory moved from outside into
 * the export takes its mark, and the marks below it, inside; so every
 * move of a directory into the export (and every move that could not be
 * placed, and every lost event) drops all marks (fan_ignore_flush()),
 * when the move is read. Limitation: what happens in such a directory
 * between its move and the server reading it makes no event; the move's
 * own event, delivered after the marks are gone, drops what the client
 * holds below the moved name, and a watcher on the mount can only watch
 * inside it once it has seen it.
 *
 * The export root's parent is never marked: the root's own events (a
 * chmod of the root) are reported to the marks of its parent too, where
 * an ignore mark would hide them.
 */
#include <errno.h>
#include <fcntl.h>
#include <fuse_log.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#include "fanotify_ignore.h"
#include "watch_backend.h"

/* Kernel memory of about 100 bytes a mark: 1.6 MiB at most. */
#define FAN_IGNORE_MAX 16384
/* What the filesystem mark asks for (fanotify_watch.c) but FAN_RENAME. */
#define FAN_IGNORE_MASK (FAN_CREATE | FAN_DELETE | FAN_MODIFY | FAN_ATTRIB | \
			 FAN_CLOSE_WRITE | FAN_ONDIR | FAN_EVENT_ON_CHILD)
/* Directories need SURV_MODIFY with FAN_MARK_IGNORE (EISDIR otherwise). */
#define FAN_IGNORE_FLAGS (FAN_MARK_ADD | FAN_MARK_IGNORE_SURV | \
			  FAN_MARK_EVICTABLE)

/* "." and not NULL: an O_PATH fd is only accepted as a dirfd. */
static int fan_ignore_mark(int fan_fd, int dir_fd)
{
	return fanotify_mark(fan_fd, FAN_IGNORE_FLAGS, FAN_IGNORE_MASK, dir_fd,
			     ".");
}

void fan_ignore_init(struct fan_ignore *ig, int fan_fd, int root_fd)
{
	int parent;

	memset(ig, 0, sizeof(*ig));
	ig->fan_fd = fan_fd;
	parent = openat(root_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0 || watch_fd_id(parent, &ig->root_parent) < 0) {
		if (parent >= 0)
			close(parent);
		return;
	}
	close(parent);
	/*
	 * The watch is not read yet and no client knows the export: an
	 * ignore mark on the root for this instant hides nothing.
	 */
	ig->on = fan_ignore_mark(fan_fd, root_fd) == 0;
	if (ig->on)
		fanotify_mark(fan_fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL);
}

void fan_ignore_read_start(struct fan_ignore *ig)
{
	ig->nrecent = 0;
}

void fan_ignore_flush(struct fan_ignore *ig)
{
	if (!ig->marks)
		return;
	/* Without FAN_MARK_FILESYSTEM: inode marks, which are all ours. */
	if (fanotify_mark(ig->fan_fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL))
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: watch: cannot drop ignore marks: %s\n",
			 strerror(errno));
	ig->marks = 0;
	ig->nrecent = 0;
}

bool fan_ignore_wanted(const struct fan_ignore *ig, uint32_t gen)
{
	unsigned int i;

	if (!ig->on)
		return false;
	for (i = 0; i < ig->nrecent; i++)
		if (ig->recent[i] == gen)
			return false;
	return true;
}

void fan_ignore_dir(struct fan_ignore *ig, int dir_fd, uint32_t gen)
{
	struct rn_id id;

	if (ig->marks >= FAN_IGNORE_MAX)
		fan_ignore_flush(ig);
	/*
	 * It may fail (out of memory): the directory's events then reach
	 * the server, which drops them, as it did before.
	 */
	if (watch_fd_id(dir_fd, &id) == 0 &&
	    !rn_id_equal(&id, &ig->root_parent) &&
	    fan_ignore_mark(ig->fan_fd, dir_fd) == 0)
		ig->marks++;
	ig->recent[ig->next++ % FAN_IGNORE_RECENT] = gen;
	if (ig->nrecent < FAN_IGNORE_RECENT)
		ig->nrecent++;
}
