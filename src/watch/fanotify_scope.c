// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scope filter of the fanotify backend.
 *
 * A handle is decoded with open_by_handle_at(root_fd, O_PATH) and its
 * place is decided by walking up with openat("..") until the export root's
 * (dev, ino) or the top of the mount is met. The walk compares identities,
 * not path strings, so a name with a newline, a " (deleted)" suffix from
 * /proc or a bind mount elsewhere cannot fool it, and it never follows a
 * symlink (".." is never one). Answers are cached by handle (handle_cache),
 * negative ones too. A directory renamed into or out of the export
 * invalidates the cache (the caller clears it).
 *
 * A handle the kernel can no longer decode (ESTALE: directory removed) is
 * offered to cfg->resolve, which knows every directory the client saw;
 * those are inside by construction.
 *
 * Limitation: an uncached directory is placed by where it is now, not
 * where it was when the event happened; an event queued just before its
 * directory moved out of the export can be dropped, and one queued just
 * before it moved in can be emitted before the CREATE of the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fanotify_scope.h"
#include "watch_backend.h"

/* Deeper than any real tree; a bound so a corrupt fs cannot loop us. */
#define FAN_SCOPE_MAX_DEPTH 4096
#define FAN_SCOPE_CACHE 4096

int watch_fd_id(int fd, struct rn_id *id)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->gen = 0;
	return 0;
}

uint32_t watch_name_gen(int dfd, const char *name)
{
	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	int mnt;

	u.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dfd, name, &u.fh, &mnt,
			      name[0] ? 0 : AT_EMPTY_PATH))
		return 0;
	return rn_handle_gen(u.fh.handle_type, u.fh.f_handle,
			     u.fh.handle_bytes);
}

int fan_scope_init(struct fan_scope *s, const struct watch_config *cfg)
{
	memset(s, 0, sizeof(*s));
	s->mount_fd = -1;
	s->root_fd = cfg->backing_fd;
	s->resolve = cfg->resolve;
	s->resolve_arg = cfg->resolve_arg;
	if (watch_fd_id(s->root_fd, &s->root) < 0)
		return -1;
	/* open_by_handle_at() refuses an O_PATH fd as its mount fd. */
	s->mount_fd = openat(s->root_fd, ".",
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->mount_fd < 0)
		return -1;
	s->cache = handle_cache_new(FAN_SCOPE_CACHE);
	if (!s->cache) {
		close(s->mount_fd);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void fan_scope_fini(struct fan_scope *s)
{
	handle_cache_free(s->cache);
	s->cache = NULL;
	if (s->mount_fd >= 0)
		close(s->mount_fd);
	s->mount_fd = -1;
}

/* Opens the object of a handle as O_PATH, or -1. */
static int fan_scope_open(struct fan_scope *s, const struct fan_fid *fid)
{
	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) +
				  FAN_DECODE_MAX_HANDLE];
	} u;

	u.fh.handle_bytes = fid->len;
	u.fh.handle_type = fid->type;
	memcpy(u.fh.f_handle, fid->handle, fid->len);
	return open_by_handle_at(s->mount_fd, &u.fh, O_PATH | O_CLOEXEC);
}

/* /proc's link of fd into buf (NUL-terminated): its length or -errno. */
static ssize_t fan_scope_link(int fd, char *buf, size_t size)
{
	char proc[32];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return n;
}

int fan_scope_path(struct fan_scope *s, const struct fan_fid *fid,
		   char *buf, size_t size)
{
	char root[PATH_MAX], *dir = malloc(PATH_MAX);
	ssize_t rlen = fan_scope_link(s->root_fd, root, sizeof(root));
	ssize_t dlen = -ENOMEM;
	int fd = -1;

	if (dir && rlen >= 0) {
		fd = fan_scope_open(s, fid);
		dlen = fd < 0 ? -errno : fan_scope_link(fd, dir, PATH_MAX);
	}
	if (fd >= 0)
		close(fd);
	if (rlen >= 0 && dlen >= 0) {
		/* The root "/" is the one prefix without a "/" after it. */
		if (rlen == 1)
			rlen = 0;
		if (strncmp(dir, root, rlen) || (dir[rlen] && dir[rlen] != '/'))
			dlen = -EXDEV;
		else if (dlen - rlen >= (ssize_t)size)
			dlen = -ENAMETOOLONG;
		else
			/* The rest, and its NUL, after the root's "/". */
			memmove(buf, dir + rlen + (dir[rlen] == '/'),
				dlen - rlen + 1);
	}
	free(dir);
	return rlen < 0 ? (int)rlen : dlen < 0 ? (int)dlen : 0;
}

/* Walks up from fd (consumed) to the root of its mount. */
static bool fan_scope_walk(struct fan_scope *s, int fd)
{
	struct rn_id cur, up;
	int depth, parent;

	if (watch_fd_id(fd, &cur) < 0)
		goto out;
	for (depth = 0; depth < FAN_SCOPE_MAX_DEPTH; depth++) {
		if (rn_id_equal(&cur, &s->root)) {
			close(fd);
			return true;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (fd < 0 || watch_fd_id(fd, &up) < 0)
			break;
		if (rn_id_equal(&up, &cur))
			break;		/* ".." of a mount root is itself */
		cur = up;
	}
out:
	if (fd >= 0)
		close(fd);
	return false;
}

bool fan_scope_dir(struct fan_scope *s, const struct fan_fid *fid,
		   struct rn_id *id)
{
	bool inside;
	int fd;

	if (!fid->present)
		return false;
	if (handle_cache_get(s->cache, fid->type, fid->handle, fid->len, id,
			     &inside))
		return inside;
	fd = fan_scope_open(s, fid);
	if (fd >= 0) {
		if (watch_fd_id(fd, id) < 0) {
			close(fd);
			return false;
		}
		id->gen = rn_handle_gen(fid->type, fid->handle, fid->len);
		inside = fan_scope_walk(s, fd);
	} else if (s->resolve && s->resolve(s->resolve_arg, fid->handle,
					    fid->len, fid->type, id)) {
		inside = true;
	} else {
		return false;	/* gone and unknown: nothing to cache */
	}
	handle_cache_put(s->cache, fid->type, fid->handle, fid->len, id,
			 inside);
	return inside;
}

bool fan_scope_obj(struct fan_scope *s, const struct fan_fid *fid,
		   struct rn_id *id)
{
	int held = -1, fd;
	bool ok;

	if (!fid->present)
		return false;
	if (s->held)
		held = s->held(s->held_arg, fid->handle, fid->len, fid->type,
			       id);
	if (!held) {
		memset(id, 0, sizeof(*id));
		id->gen = rn_handle_gen(fid->type, fid->handle, fid->len);
	}
	if (held >= 0)
		return held;
	fd = fan_scope_open(s, fid);
	if (fd < 0)
		return false;
	ok = watch_fd_id(fd, id) == 0;
	close(fd);
	id->gen = rn_handle_gen(fid->type, fid->handle, fid->len);
	return ok;
}
