/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmwatch - read inotify and fanotify events in the VM tests with a
 * bounded wait, and name them in failure messages.  "Nothing else
 * arrived" is never tested by waiting: a test makes a local sentinel
 * change and checks that the sentinel's event is the next one.
 */
#ifndef VMWATCH_H
#define VMWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VM_WAIT_MS	5000

struct vm_event {
	bool fanotify;		/* read from a fanotify group, not inotify */
	int wd;			/* inotify: the watch's descriptor */
	uint32_t mask;
	uint32_t cookie;
	char name[256];
	/* fanotify FAN_RENAME: name is the old name, name2 the new one */
	char name2[256];
	/* fanotify FAN_REPORT_FID: the object's own file handle, if any */
	int fid_type;
	unsigned int fid_len;
	unsigned char fid[128];
	/* fanotify FAN_REPORT_DFID_NAME: the directory's file handle */
	int dfid_type;
	unsigned int dfid_len;
	unsigned char dfid[128];
};

/*
 * Closes a watcher's fd and drops what was read from it but not yet
 * returned, which a later fd of the same number would get otherwise.
 */
void vm_watch_close(int fd);
/* Next inotify event on fd within VM_WAIT_MS; false on timeout. */
bool vm_inotify_next(int fd, struct vm_event *ev);

/* Next event has exactly this mask and name ("" for none). */
bool vm_inotify_expect(int fd, uint32_t mask, const char *name,
		       uint32_t *cookie);

/*
 * Next fanotify event on fd (a FAN_REPORT_DFID_NAME group) within
 * VM_WAIT_MS; the name is that of the DFID_NAME record, "" if none.
 */
bool vm_fanotify_next(int fd, struct vm_event *ev);
bool vm_fanotify_expect(int fd, uint64_t mask, const char *name);

/*
 * The same, for a group with FAN_REPORT_FID too: the event's object
 * record must be the file handle of path (name_to_handle_at()).
 */
bool vm_fanotify_expect_fid(int fd, uint64_t mask, const char *name,
			    const char *path);

/*
 * The same, for a group with FAN_REPORT_DFID_NAME: the directory record
 * must be the file handle of dir.
 */
bool vm_fanotify_expect_dir(int fd, uint64_t mask, const char *name,
			    const char *dir);

/*
 * The same, for a group with FAN_REPORT_FID too, where the child's own
 * handle cannot be read again from its path (the kernel no longer holds
 * it): the directory record is dir's handle, and the object record is
 * another one, not the directory standing in for the child.
 */
bool vm_fanotify_expect_child(int fd, uint64_t mask, const char *name,
			      const char *dir);

/*
 * The next event is FAN_RENAME (mask) from old to new_, with the moved
 * object's own file handle (FAN_REPORT_TARGET_FID) that of path.
 */
bool vm_fanotify_expect_rename(int fd, uint64_t mask, const char *old,
			       const char *new_, const char *path);

/*
 * fanotify_mark(FAN_MARK_ADD | FAN_MARK_REMOTE | flags) for mask on path:
 * a mark that takes remote events (kernel: fsnotify 2/7). 0 or -1.
 */
int vm_fanotify_remote_mark(int fd, unsigned int flags, uint64_t mask,
			    const char *path);

/*
 * dnotify's SIGRTMIN (blocked by the caller, so that it queues) for fd
 * arrives within VM_WAIT_MS.
 */
bool vm_dnotify_signal(int fd);

/*
 * Block dnotify's SIGRTMIN in the calling thread, and so in the threads
 * it starts later (vmfs's, vm_call's), so that the signal queues for
 * vm_dnotify_signal(). 0 or -1, as sigprocmask().
 */
int vm_dnotify_block(void);

/*
 * dnotify on directory fd for events (DN_*), its SIGRTMIN sent to this
 * process (F_NOTIFY would pick the calling thread). 0 or -1.
 */
int vm_dnotify_arm(int fd, unsigned long events);

/*
 * mask by name into buf, as "IN_CREATE|IN_ISDIR" or "FAN_CREATE|FAN_ONDIR"
 * (fanotify's bits by their FAN_ names); a bit without a name shows as
 * UNKNOWN(0x...). Returns buf.
 */
const char *vm_mask_str(uint64_t mask, bool fanotify, char *buf,
			size_t len);

/* Print one event as "why" context of a failed check. */
void vm_event_print(const char *who, const struct vm_event *ev);

/*
 * How much of the kernel series the VM's kernel has: the number of the
 * last posting applied (kernel/run-vm-tests --posting N puts
 * rnotify.posting=N on the kernel command line; 3, the whole series,
 * without it).  1: the FUSE fixes; 2: also the fsnotify core
 * (FAN_MARK_REMOTE); 3: also FUSE remote fsnotify (FUSE_HAS_FSNOTIFY,
 * the mount option remote_events, FUSE_NOTIFY_DELETE's events remote).
 */
int vm_posting(void);

#endif
