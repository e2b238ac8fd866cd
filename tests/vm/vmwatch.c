// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmwatch - bounded-wait event readers for the VM tests.  Each reader
 * keeps its own buffer of events read but not yet returned, so a test
 * sees events one at a time even when the kernel hands over several in
 * one read.  Single-threaded use only (the test's main thread).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "../lib/mask_names.h"
#include "rnotify_proto.h"
#include "vmwatch.h"

struct vm_buf {
	int fd;
	size_t len, off;
	char data[8192] __attribute__((aligned(8)));
};

static struct vm_buf vm_ibuf = { .fd = -1 }, vm_fbuf = { .fd = -1 };

static bool vm_fill(struct vm_buf *b, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (b->fd == fd && b->off < b->len)
		return true;
	b->fd = fd;
	b->off = b->len = 0;
	if (poll(&p, 1, VM_WAIT_MS) != 1)
		return false;
	n = read(fd, b->data, sizeof(b->data));
	if (n <= 0)
		return false;
	b->len = n;
	return true;
}

void vm_watch_close(int fd)
{
	struct vm_buf *bufs[] = { &vm_ibuf, &vm_fbuf };
	size_t i;

	for (i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (bufs[i]->fd == fd)
			bufs[i]->fd = -1;
	close(fd);
}

bool vm_inotify_next(int fd, struct vm_event *ev)
{
	struct inotify_event ie;

	if (!vm_fill(&vm_ibuf, fd))
		return false;
	memcpy(&ie, vm_ibuf.data + vm_ibuf.off, sizeof(ie));
	ev->fanotify = false;
	ev->wd = ie.wd;
	ev->mask = ie.mask;
	ev->cookie = ie.cookie;
	snprintf(ev->name, sizeof(ev->name), "%.*s", (int)ie.len,
		 ie.len ? vm_ibuf.data + vm_ibuf.off + sizeof(ie) : "");
	vm_ibuf.off += sizeof(ie) + ie.len;
	return true;
}

const char *vm_mask_str(uint64_t mask, bool fanotify, char *buf, size_t len)
{
	const struct mask_name *n = fanotify ? fanotify_mask_names :
					       inotify_mask_names;
	const char *prefix = fanotify ? "FAN_" : "IN_";
	const char *sep = "";
	size_t used = 0;

	buf[0] = '\0';
	for (; n->name && used < len; n++) {
		if (!(mask & n->bit))
			continue;
		mask &= ~n->bit;
		used += snprintf(buf + used, len - used, "%s%s%s", sep, prefix,
				 n->name);
		sep = "|";
	}
	/* A bit without a name is a bug to see, not to hide. */
	if (mask && used < len)
		used += snprintf(buf + used, len - used, "%sUNKNOWN(%#llx)",
				 sep, (unsigned long long)mask);
	if (!used)
		snprintf(buf, len, "0");
	return buf;
}

void vm_event_print(const char *who, const struct vm_event *ev)
{
	char m[256];

	printf("# %s: %s cookie %u name '%s'\n", who,
	       vm_mask_str(ev->mask, ev->fanotify, m, sizeof(m)), ev->cookie,
	       ev->name);
}

bool vm_inotify_expect(int fd, uint32_t mask, const char *name,
		       uint32_t *cookie)
{
	struct vm_event ev;
	char m[256];

	if (!vm_inotify_next(fd, &ev)) {
		printf("# inotify: no event (wanted %s '%s')\n",
		       vm_mask_str(mask, false, m, sizeof(m)), name);
		return false;
	}
	if (cookie)
		*cookie = ev.cookie;
	if (ev.mask == mask && !strcmp(ev.name, name))
		return true;
	printf("# inotify: wanted %s '%s'\n",
	       vm_mask_str(mask, false, m, sizeof(m)), name);
	vm_event_print("inotify got", &ev);
	return false;
}

/* The handle of a FID info record (the object's, or a directory's). */
static void vm_fanotify_fid(const char *p, const char *end, int *type,
			    unsigned int *len, unsigned char *bytes,
			    size_t size)
{
	struct file_handle fh;

	memcpy(&fh, p, sizeof(fh));
	if (fh.handle_bytes > size || p + sizeof(fh) + fh.handle_bytes > end)
		return;
	*type = fh.handle_type;
	*len = fh.handle_bytes;
	memcpy(bytes, p + sizeof(fh), fh.handle_bytes);
}

/* The name after the directory's handle in a DFID_NAME-like record. */
static void vm_fanotify_name(const char *p, const char *end, char *name,
			     size_t size)
{
	struct file_handle fh;
	const char *s;

	memcpy(&fh, p, sizeof(fh));
	s = p + sizeof(fh) + fh.handle_bytes;
	if (s < end)
		snprintf(name, size, "%.*s", (int)(end - s), s);
}

/*
 * Copy the name out of a DFID_NAME info record (a rename's old and new
 * names out of OLD_ and NEW_DFID_NAME) and the handle out of a FID
 * record, if the event has them.
 */
static void vm_fanotify_info(const char *p, const char *end,
			     struct vm_event *ev)
{
	struct fanotify_event_info_fid fid;

	ev->name[0] = '\0';
	ev->name2[0] = '\0';
	ev->fid_len = 0;
	ev->dfid_len = 0;
	while (p + sizeof(fid) <= end) {
		memcpy(&fid, p, sizeof(fid));
		if (fid.hdr.len < sizeof(fid) || p + fid.hdr.len > end)
			return;
		if (fid.hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME ||
		    fid.hdr.info_type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME) {
			vm_fanotify_name(p + sizeof(fid), p + fid.hdr.len,
					 ev->name, sizeof(ev->name));
			vm_fanotify_fid(p + sizeof(fid), p + fid.hdr.len,
					&ev->dfid_type, &ev->dfid_len,
					ev->dfid, sizeof(ev->dfid));
		} else if (fid.hdr.info_type ==
			   FAN_EVENT_INFO_TYPE_NEW_DFID_NAME) {
			vm_fanotify_name(p + sizeof(fid), p + fid.hdr.len,
					 ev->name2, sizeof(ev->name2));
		} else if (fid.hdr.info_type == FAN_EVENT_INFO_TYPE_FID) {
			vm_fanotify_fid(p + sizeof(fid), p + fid.hdr.len,
					&ev->fid_type, &ev->fid_len, ev->fid,
					sizeof(ev->fid));
		}
		p += fid.hdr.len;
	}
}

bool vm_fanotify_next(int fd, struct vm_event *ev)
{
	struct fanotify_event_metadata md;
	const char *p;

	if (!vm_fill(&vm_fbuf, fd))
		return false;
	p = vm_fbuf.data + vm_fbuf.off;
	memcpy(&md, p, sizeof(md));
	if (md.event_len < sizeof(md) ||
	    vm_fbuf.off + md.event_len > vm_fbuf.len)
		return false;
	ev->fanotify = true;
	ev->wd = -1;
	ev->mask = md.mask;
	ev->cookie = 0;
	vm_fanotify_info(p + md.metadata_len, p + md.event_len, ev);
	vm_fbuf.off += md.event_len;
	return true;
}

/* The next fanotify event, or false after saying which was wanted. */
static bool vm_fanotify_got(int fd, struct vm_event *ev, uint64_t mask,
			    const char *name, const char *dir)
{
	char m[256];

	if (vm_fanotify_next(fd, ev))
		return true;
	printf("# fanotify: no event (wanted %s '%s'%s%s)\n",
	       vm_mask_str(mask, true, m, sizeof(m)), name, dir ? " in " : "",
	       dir ? dir : "");
	return false;
}

int vm_fanotify_remote_mark(int fd, unsigned int flags, uint64_t mask,
			    const char *path)
{
	return fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_REMOTE | flags, mask,
			     AT_FDCWD, path);
}

bool vm_fanotify_expect(int fd, uint64_t mask, const char *name)
{
	struct vm_event ev;
	char m[256];

	if (!vm_fanotify_got(fd, &ev, mask, name, NULL))
		return false;
	if (ev.mask == mask && !strcmp(ev.name, name))
		return true;
	printf("# fanotify: wanted %s '%s'\n",
	       vm_mask_str(mask, true, m, sizeof(m)), name);
	vm_event_print("fanotify got", &ev);
	return false;
}

/* Is the handle (type, len, bytes) exactly path's file handle? */
static void handle_print(const char *whose, int type, unsigned int len,
			 const unsigned char *bytes)
{
	unsigned int i;

	printf("# handle of %s: type %d, %u bytes:", whose, type, len);
	for (i = 0; i < len; i++)
		printf(" %02x", bytes[i]);
	printf("\n");
}

static bool vm_same_handle(int type, unsigned int len,
			   const unsigned char *bytes, const char *path)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[128];
	} h = { .fh.handle_bytes = sizeof(h.bytes) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0)) {
		printf("# name_to_handle_at %s: %s\n", path, strerror(errno));
		return false;
	}
	if (len && type == h.fh.handle_type && len == h.fh.handle_bytes &&
	    !memcmp(bytes, h.fh.f_handle, len))
		return true;
	handle_print("the event's", type, len, bytes);
	handle_print(path, h.fh.handle_type, h.fh.handle_bytes,
		     h.fh.f_handle);
	return false;
}

static bool vm_same_fid(const struct vm_event *ev, const char *path)
{
	return vm_same_handle(ev->fid_type, ev->fid_len, ev->fid, path);
}

bool vm_fanotify_expect_dir(int fd, uint64_t mask, const char *name,
			    const char *dir)
{
	struct vm_event ev;
	char m[256];

	if (!vm_fanotify_got(fd, &ev, mask, name, dir))
		return false;
	if (ev.mask == mask && !strcmp(ev.name, name) &&
	    vm_same_handle(ev.dfid_type, ev.dfid_len, ev.dfid, dir))
		return true;
	printf("# fanotify: wanted %s '%s' in %s (got a %u-byte dir handle)\n",
	       vm_mask_str(mask, true, m, sizeof(m)), name, dir, ev.dfid_len);
	vm_event_print("fanotify got", &ev);
	return false;
}

bool vm_fanotify_expect_child(int fd, uint64_t mask, const char *name,
			      const char *dir)
{
	struct vm_event ev;
	char m[256];

	if (!vm_fanotify_got(fd, &ev, mask, name, dir))
		return false;
	if (ev.mask == mask && !strcmp(ev.name, name) && ev.fid_len &&
	    vm_same_handle(ev.dfid_type, ev.dfid_len, ev.dfid, dir) &&
	    (ev.fid_len != ev.dfid_len ||
	     memcmp(ev.fid, ev.dfid, ev.fid_len)))
		return true;
	printf("# fanotify: wanted %s '%s' in %s with a child's own fid\n",
	       vm_mask_str(mask, true, m, sizeof(m)), name, dir);
	handle_print("the event's object", ev.fid_type, ev.fid_len, ev.fid);
	vm_event_print("fanotify got", &ev);
	return false;
}

bool vm_fanotify_expect_fid(int fd, uint64_t mask, const char *name,
			    const char *path)
{
	struct vm_event ev;
	char m[256];

	if (!vm_fanotify_got(fd, &ev, mask, name, NULL))
		return false;
	if (ev.mask == mask && !strcmp(ev.name, name) &&
	    vm_same_fid(&ev, path))
		return true;
	printf("# fanotify: wanted %s '%s' with the fid of %s (got %u bytes)\n",
	       vm_mask_str(mask, true, m, sizeof(m)), name, path, ev.fid_len);
	vm_event_print("fanotify got", &ev);
	return false;
}

bool vm_fanotify_expect_rename(int fd, uint64_t mask, const char *old,
			       const char *new_, const char *path)
{
	struct vm_event ev;
	char m[256];

	if (!vm_fanotify_next(fd, &ev)) {
		printf("# fanotify: no event (wanted rename '%s' -> '%s')\n",
		       old, new_);
		return false;
	}
	if (ev.mask == mask && !strcmp(ev.name, old) &&
	    !strcmp(ev.name2, new_) && vm_same_fid(&ev, path))
		return true;
	printf("# fanotify: wanted %s '%s' -> '%s' with the fid of %s\n",
	       vm_mask_str(mask, true, m, sizeof(m)), old, new_, path);
	printf("# fanotify got: %s '%s' -> '%s' (fid %u bytes)\n",
	       vm_mask_str(ev.mask, true, m, sizeof(m)), ev.name, ev.name2,
	       ev.fid_len);
	return false;
}

static void dnotify_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGRTMIN);
}

bool vm_dnotify_signal(int fd)
{
	struct timespec ts = { VM_WAIT_MS / 1000, 0 };
	siginfo_t si;
	sigset_t set;

	dnotify_set(&set);
	return sigtimedwait(&set, &si, &ts) == SIGRTMIN && si.si_fd == fd &&
	       si.si_code == POLL_MSG;
}

int vm_dnotify_arm(int fd, unsigned long events)
{
	if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, SIGRTMIN) ||
	    fcntl(fd, F_NOTIFY, events))
		return -1;
	return 0;
}

int vm_dnotify_block(void)
{
	sigset_t set;

	dnotify_set(&set);
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

int vm_posting(void)
{
	char line[1024], *at;
	int posting = 3;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return posting;
	if (fgets(line, sizeof(line), f)) {
		at = strstr(line, "rnotify.posting=");
		if (at)
			posting = atoi(at + strlen("rnotify.posting="));
	}
	fclose(f);
	return posting;
}
