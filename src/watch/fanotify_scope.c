// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scope filter of the fanotify backend.
 *
 * A handle is decoded with open_by_handle_at(root_fd, O_PATH) and its
 * place is decided by walking up with openat("..") until the export root's
 * (dev, ino), the top of the mount or a directory already placed is met.
 * The walk compares identities, not path strings, so a name with a
 * newline, a " (deleted)" suffix from /proc or a bind mount elsewhere
 * cannot fool it, and it never follows a symlink (".." is never one).
 *
 * The filesystem mark reports the whole file system, and anyone on it can
 * make events; each one the server must place before it can drop it. So
 * the cost of an event outside the export is bounded:
 * - Answers are cached by handle (handle_cache), negative ones too, and
 *   every directory a walk passed is cached with the walk's answer: a
 *   cached directory costs a hash lookup and no syscall, an uncached one
 *   open_by_handle_at() and fstat() plus openat(".."), fstat() and
 *   name_to_handle_at() for each level up to the first cached one (at
 *   most FAN_SCOPE_MAX_DEPTH). Sibling directories share their levels.
 * - Memory: the cache holds at most FAN_SCOPE_CACHE answers (handle_cache.h
 *   says which stay), a walk remembers at most FAN_SCOPE_CHAIN levels.
 * - Only a move across the export's edge can change which directories
 *   are inside: the caller reports every directory move
 *   (fan_scope_moved()) and only those drop answers, and only the answers
 *   of the side the directory left. A user renaming directories outside
 *   costs nothing more than their other events.
 * What is not bounded: a user who keeps more directories than the cache
 *   holds on separate deep chains, and makes events in each in turn, can
 *   make each event walk its whole chain (up to FAN_SCOPE_MAX_DEPTH levels).
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
/* Directories placed: 2 tables of 1536 in 2048 slots of 168 bytes, 672 KiB. */
#define FAN_SCOPE_CACHE 3072
/* Levels of one walk cached with its answer, the nearest first: 160 KiB. */
#define FAN_SCOPE_CHAIN 1024

struct fan_scope_level {
	int type;
	unsigned int len;
	unsigned char h[FAN_DECODE_MAX_HANDLE];
	struct rn_id id;
};

int watch_fd_id(int fd, struct rn_id *id)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
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
	int ret;

	memset(s, 0, sizeof(*s));
	s->mount_fd = -1;
	s->root_fd = cfg->backing_fd;
	s->resolve = cfg->resolve;
	s->resolve_arg = cfg->resolve_arg;
	ret = watch_fd_id(s->root_fd, &s->root);
	if (ret < 0)
		return ret;
	/* open_by_handle_at() refuses an O_PATH fd as its mount fd. */
	s->mount_fd = openat(s->root_fd, ".",
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->mount_fd < 0)
		return -errno;
	s->cache = handle_cache_new(FAN_SCOPE_CACHE);
	s->chain = malloc(FAN_SCOPE_CHAIN * sizeof(*s->chain));
	if (!s->cache || !s->chain) {
		fan_scope_fini(s);
		return -ENOMEM;
	}
	return 0;
}

void fan_scope_fini(struct fan_scope *s)
{
	handle_cache_free(s->cache);
	s->cache = NULL;
	free(s->chain);
	s->chain = NULL;
	if (s->mount_fd >= 0)
		close(s->mount_fd);
	s->mount_fd = -1;
}

int fan_scope_open(struct fan_scope *s, const struct fan_fid *fid)
{
	int fd;

	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) +
				  FAN_DECODE_MAX_HANDLE];
	} u;

	u.fh.handle_bytes = fid->len;
	u.fh.handle_type = fid->type;
	memcpy(u.fh.f_handle, fid->handle, fid->len);
	fd = open_by_handle_at(s->mount_fd, &u.fh, O_PATH | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
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
		dlen = fd < 0 ? fd : fan_scope_link(fd, dir, PATH_MAX);
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

/* The handle of a directory by its fd into lv: false if it has none. */
static bool fan_scope_handle(int fd, struct fan_scope_level *lv)
{
	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) +
				  FAN_DECODE_MAX_HANDLE];
	} u;
	int mnt;

	u.fh.handle_bytes = FAN_DECODE_MAX_HANDLE;
	if (name_to_handle_at(fd, "", &u.fh, &mnt, AT_EMPTY_PATH) ||
	    !u.fh.handle_bytes)
		return false;
	lv->type = u.fh.handle_type;
	lv->len = u.fh.handle_bytes;
	memcpy(lv->h, u.fh.f_handle, lv->len);
	return true;
}

/*
 * Walks up from fd (consumed), the directory of id, until the export
 * root, the top of its mount or a directory the cache has placed, and
 * caches the levels passed (the nearest FAN_SCOPE_CHAIN) with the answer.
 * FAN_UNKNOWN if a level could not be opened. A directory deeper than
 * the bound is not placed (*placed is false): neither it nor the levels
 * passed are cached, as those nearer a cached directory or the root may
 * well be inside.
 */
static enum fan_place fan_scope_walk(struct fan_scope *s, int fd,
				     const struct rn_id *id, bool *placed)
{
	enum fan_place place = FAN_OUTSIDE;
	struct fan_scope_level *lv, spare;
	struct rn_id cur = *id, up;
	size_t depth, n = 0;
	bool inside;
	int parent;

	for (depth = 0; depth < FAN_SCOPE_MAX_DEPTH; depth++) {
		if (rn_id_equal(&cur, &s->root)) {
			place = FAN_INSIDE;
			break;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (fd < 0 || watch_fd_id(fd, &up) < 0) {
			place = FAN_UNKNOWN;
			break;
		}
		if (rn_id_equal(&up, &cur))
			break;		/* ".." of a mount root is itself */
		cur = up;
		if (rn_id_equal(&cur, &s->root))
			continue;
		lv = n < FAN_SCOPE_CHAIN ? &s->chain[n] : &spare;
		if (!fan_scope_handle(fd, lv))
			continue;
		if (handle_cache_get(s->cache, lv->type, lv->h, lv->len, &up,
				     &inside)) {
			place = inside ? FAN_INSIDE : FAN_OUTSIDE;
			break;
		}
		if (lv == &spare)
			continue;
		lv->id = cur;
		lv->id.gen = rn_handle_gen(lv->type, lv->h, lv->len);
		n++;
	}
	if (fd >= 0)
		close(fd);
	*placed = depth < FAN_SCOPE_MAX_DEPTH;
	if (place == FAN_UNKNOWN || !*placed)
		return place;
	/* The nearest last: they are the ones the next walk will meet. */
	while (n--) {
		lv = &s->chain[n];
		handle_cache_put(s->cache, lv->type, lv->h, lv->len, &lv->id,
				 place == FAN_INSIDE);
	}
	return place;
}

enum fan_place fan_scope_place(struct fan_scope *s, const struct fan_fid *fid,
			       struct rn_id *id)
{
	enum fan_place place;
	bool inside, placed;
	int fd;

	if (!fid->present)
		return FAN_UNKNOWN;
	if (handle_cache_get(s->cache, fid->type, fid->handle, fid->len, id,
			     &inside))
		return inside ? FAN_INSIDE : FAN_OUTSIDE;
	fd = fan_scope_open(s, fid);
	if (fd < 0) {
		if (s->resolve && s->resolve(s->resolve_arg, fid->handle,
					     fid->len, fid->type, id))
			place = FAN_INSIDE;
		else	/* gone and unknown: nothing to cache */
			return fd == -ESTALE ? FAN_GONE : FAN_UNKNOWN;
	} else {
		if (watch_fd_id(fd, id) < 0) {
			close(fd);
			return FAN_UNKNOWN;
		}
		place = fan_scope_walk(s, fd, id, &placed);
		id->gen = rn_handle_gen(fid->type, fid->handle, fid->len);
		if (!placed)
			return FAN_UNKNOWN;
		if (place == FAN_UNKNOWN)
			return place;
	}
	handle_cache_put(s->cache, fid->type, fid->handle, fid->len, id,
			 place == FAN_INSIDE);
	return place;
}

/*
 * A move changes the side of the moved directory and of all below it
 * only if it crosses the export's edge; moves on one side (a user's
 * renames in their home directory), and moves of the export root or of
 * its ancestors (the walk knows the root by identity), change nothing.
 * A crossing move makes the answers of the side it left stale: those are
 * dropped, all at once, as which of them lay below it is not known.
 * Each side is taken as it is now, when the event is read: a side that
 * changed since by another move is put right when that move is read, and
 * once the last of them is read the cache agrees with the file system.
 * A destination that is gone (and was never seen by the client) held the
 * directory no longer: it moved on, which is another move to be read, or
 * it was removed with all below it.
 */
void fan_scope_moved(struct fan_scope *s, enum fan_place from,
		     enum fan_place to)
{
	switch (to) {
	case FAN_INSIDE:
	case FAN_OUTSIDE:
		if (from != to)
			handle_cache_forget(s->cache, to == FAN_OUTSIDE);
		break;
	case FAN_GONE:
		break;
	case FAN_UNKNOWN:
		handle_cache_clear(s->cache);
		break;
	}
}

void fan_scope_lost(struct fan_scope *s)
{
	handle_cache_clear(s->cache);
}

bool fan_scope_obj(struct fan_scope *s, const struct fan_fid *fid,
		   struct rn_id *id)
{
	int held = -EAGAIN, fd;
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
