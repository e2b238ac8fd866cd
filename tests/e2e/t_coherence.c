// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coherence: a watcher woken by a remote event must already see the new
 * state through MNT. Each check first fills the client's caches with the
 * old state (a read, a positive or negative lookup, a stat), makes the
 * change remotely, waits for its event (bounded), then looks at once:
 * no retry, since a retry would hide a stale cache. Where every change is
 * seen the kernel keeps negative entries, pages and listings from one
 * open to the next too (src/fs/cache_policy.c): each has a check.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

static struct e2e_reader *coh_watch(const char *dir)
{
	struct e2e_reader *r = e2e_inotify_new();

	if (!r || e2e_inotify_watch(r, NULL, e2e_mpath(dir),
				    E2E_MASK_DEFAULT)) {
		e2e_fail("coherence/watch", "cannot watch %s", dir);
		exit(1);
	}
	return r;
}

static void coh_setup(const char *dir, const struct e2e_op *ops)
{
	struct e2e_op mk[] = { OP_MKDIR(dir), OP_END };

	if (e2e_remote("", mk) || e2e_remote(dir, ops)) {
		e2e_fail("coherence/setup", "remote setup of %s failed", dir);
		exit(1);
	}
	e2e_sync();
}

/* Waits for one event; on timeout fails the check with what came. */
static bool coh_wait(struct e2e_reader *r, const char *check,
		     const char *text)
{
	struct e2e_evlist seen = { 0 };
	char buf[2048];
	bool ok = e2e_wait_for(r, text, &seen);

	if (!ok)
		e2e_fail(check, "no \"%s\" within 5 s; got %s", text,
			 e2e_evlist_str(&seen, buf, sizeof(buf)));
	e2e_evlist_free(&seen);
	return ok;
}

static ssize_t coh_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Same size on purpose: a size change alone would drop the page cache. */
static void coh_write(const char *check, const char *event)
{
	struct e2e_op setup[] = { OP_CREAT("f", "old-content"), OP_END };
	struct e2e_op act[] = { OP_OVERWRITE("f", "NEW-CONTENT"), OP_END };
	struct e2e_reader *r;
	char buf[64];
	char dir[32];

	snprintf(dir, sizeof(dir), "w-%s", event);
	coh_setup(dir, setup);
	r = coh_watch(dir);
	snprintf(buf, sizeof(buf), "%s/f", dir);
	if (coh_read(e2e_mpath(buf), buf, sizeof(buf)) != 11 ||
	    strcmp(buf, "old-content")) {
		e2e_fail(check, "first read through MNT gave \"%s\"", buf);
	} else if (e2e_remote(dir, act)) {
		e2e_fail(check, "remote write failed");
	} else if (coh_wait(r, check, event)) {
		snprintf(buf, sizeof(buf), "%s/f", dir);
		coh_read(e2e_mpath(buf), buf, sizeof(buf));
		if (strcmp(buf, "NEW-CONTENT"))
			e2e_fail(check, "read after the event gave \"%s\"",
				 buf);
		else
			e2e_pass(check);
	}
	e2e_reader_free(r);
}

/* stat() through MNT: 0 or -errno. */
static int coh_stat(const char *dir, const char *name, struct stat *st)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	return lstat(e2e_mpath(rel), st) ? -errno : 0;
}

static void coh_expect_stat(const char *check, const char *dir,
			    const char *name, int want)
{
	struct stat st;
	int got = coh_stat(dir, name, &st);

	if (got == want)
		e2e_pass(check);
	else
		e2e_fail(check, "stat %s gave %s, expected %s", name,
			 strerror(-got), strerror(-want));
}

static void coh_create(void)
{
	struct e2e_op act[] = { OP_MKNOD("f"), OP_END };
	struct e2e_op none[] = { OP_END };
	struct e2e_reader *r;
	struct stat st;

	coh_setup("c", none);
	r = coh_watch("c");
	coh_stat("c", "f", &st);	/* caches a negative entry */
	if (e2e_remote("c", act))
		e2e_fail("coherence/create_stat", "remote mknod failed");
	else if (coh_wait(r, "coherence/create_stat", "CREATE f"))
		coh_expect_stat("coherence/create_stat", "c", "f", 0);
	e2e_reader_free(r);
}

static void coh_delete(void)
{
	struct e2e_op setup[] = { OP_MKNOD("f"), OP_END };
	struct e2e_op act[] = { OP_UNLINK("f"), OP_END };
	struct e2e_reader *r;
	struct stat st;

	coh_setup("d", setup);
	r = coh_watch("d");
	coh_stat("d", "f", &st);
	if (e2e_remote("d", act))
		e2e_fail("coherence/delete_stat", "remote unlink failed");
	else if (coh_wait(r, "coherence/delete_stat", "DELETE f"))
		coh_expect_stat("coherence/delete_stat", "d", "f", -ENOENT);
	e2e_reader_free(r);
}

static void coh_rename(void)
{
	struct e2e_op setup[] = { OP_MKNOD("a"), OP_END };
	struct e2e_op act[] = { OP_RENAME("a", "b"), OP_END };
	struct e2e_reader *r;
	struct stat st;

	coh_setup("r", setup);
	r = coh_watch("r");
	coh_stat("r", "a", &st);
	coh_stat("r", "b", &st);
	if (e2e_remote("r", act)) {
		e2e_fail("coherence/rename_new", "remote rename failed");
	} else if (coh_wait(r, "coherence/rename_new", "MOVED_TO b")) {
		coh_expect_stat("coherence/rename_new", "r", "b", 0);
		coh_expect_stat("coherence/rename_old", "r", "a", -ENOENT);
	}
	e2e_reader_free(r);
}

static void coh_chmod(void)
{
	struct e2e_op setup[] = { OP_MKNOD("f"), OP_END };
	struct e2e_op act[] = { OP_CHMOD("f", 0604), OP_END };
	struct e2e_reader *r;
	struct stat st;
	int err;

	coh_setup("m", setup);
	r = coh_watch("m");
	coh_stat("m", "f", &st);
	if (e2e_remote("m", act)) {
		e2e_fail("coherence/chmod_stat", "remote chmod failed");
	} else if (coh_wait(r, "coherence/chmod_stat", "ATTRIB f")) {
		err = coh_stat("m", "f", &st);
		if (!err && (st.st_mode & 07777) == 0604)
			e2e_pass("coherence/chmod_stat");
		else
			e2e_fail("coherence/chmod_stat",
				 "stat gave %s, mode %04o, expected 0604",
				 strerror(-err), st.st_mode & 07777);
	}
	e2e_reader_free(r);
}

/* The first 11 bytes of path through MNT, by an open that writes. */
static bool coh_read_rw(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len - 1, 0);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n == 11;
}

/*
 * Same size on purpose, as coh_write(), through opens that write (the page
 * cache, not passthrough), each closed before the next: the kernel keeps
 * the pages from one open to the next where every change is seen, so
 * only the server's invalidation stands between the reopen and old bytes.
 * MODIFY, not CLOSE_WRITE: the check's own opens close for writing.
 */
static void coh_reopen(void)
{
	struct e2e_op setup[] = { OP_CREAT("f", "old-content"), OP_END };
	struct e2e_op act[] = { OP_OVERWRITE("f", "NEW-CONTENT"), OP_END };
	const char *check = "coherence/reopen_after_modify";
	struct e2e_reader *r;
	char buf[64];

	coh_setup("o", setup);
	r = coh_watch("o");
	if (!coh_read_rw(e2e_mpath("o/f"), buf, sizeof(buf)) ||
	    strcmp(buf, "old-content")) {
		e2e_fail(check, "first read through MNT gave \"%s\"", buf);
	} else if (e2e_remote("o", act)) {
		e2e_fail(check, "remote write failed");
	} else if (coh_wait(r, check, "MODIFY f")) {
		if (!coh_read_rw(e2e_mpath("o/f"), buf, sizeof(buf)) ||
		    strcmp(buf, "NEW-CONTENT"))
			e2e_fail(check, "read after the event gave \"%s\"",
				 buf);
		else
			e2e_pass(check);
	}
	e2e_reader_free(r);
}

/*
 * A write through a mapping raises no MODIFY: only the CLOSE_WRITE after
 * it tells of it, and its replay must drop the pages the client holds.
 * The remote writer's one-byte write first (MODIFY) makes the replayer
 * hold the file open for writing, whose close then replays CLOSE_WRITE
 * without a lookup (src/deliver/replay/replay_content.c). The reader
 * keeps its open that writes (the page cache, not passthrough) from
 * before the mapped write to after the event: nothing but the server's
 * invalidation drops its pages, and its close comes last, after the
 * remote CLOSE_WRITE was seen.
 */
static void coh_mapped_close(void)
{
	struct e2e_op setup[] = { OP_CREAT("f", "old-content"), OP_END };
	const char *check = "coherence/read_after_mapped_close";
	struct e2e_reader *r;
	int bfd, mfd = -1;
	char buf[64];
	char *map;

	coh_setup("p", setup);
	r = coh_watch("p");
	bfd = open(e2e_bpath("p/f"), O_RDWR | O_CLOEXEC);
	map = bfd < 0 ? MAP_FAILED :
	      mmap(NULL, 11, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	if (map == MAP_FAILED) {
		e2e_fail(check, "cannot map BACKING p/f: %s", strerror(errno));
	} else if (pwrite(bfd, "o", 1, 0) != 1) {
		e2e_fail(check, "remote write failed: %s", strerror(errno));
	} else if (coh_wait(r, check, "MODIFY f")) {
		mfd = open(e2e_mpath("p/f"), O_RDWR | O_CLOEXEC);
		memset(buf, 0, sizeof(buf));
		if (mfd < 0 || pread(mfd, buf, 11, 0) != 11 ||
		    strcmp(buf, "old-content")) {
			e2e_fail(check, "first read through MNT gave \"%s\"",
				 buf);
		} else {
			memcpy(map, "NEW-CONTENT", 11);
			munmap(map, 11);
			map = MAP_FAILED;
			close(bfd);
			bfd = -1;
			if (coh_wait(r, check, "CLOSE_WRITE f")) {
				memset(buf, 0, sizeof(buf));
				if (pread(mfd, buf, 11, 0) != 11 ||
				    strcmp(buf, "NEW-CONTENT"))
					e2e_fail(check,
						 "read after the event gave \"%s\"",
						 buf);
				else
					e2e_pass(check);
			}
		}
	}
	if (map != MAP_FAILED)
		munmap(map, 11);
	if (bfd >= 0)
		close(bfd);
	if (mfd >= 0)
		close(mfd);
	e2e_reader_free(r);
}

/* The names listed in dir through MNT, space-separated and sorted. */
static void coh_list(const char *dir, char *out, size_t len)
{
	struct dirent **ents;
	size_t used = 0;
	int n, i;

	out[0] = '\0';
	n = scandir(e2e_mpath(dir), &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && used < len)
			used += snprintf(out + used, len - used, "%s%s",
					 used ? " " : "", ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static void coh_expect_list(const char *check, const char *dir,
			    const char *want)
{
	char got[256];

	coh_list(dir, got, sizeof(got));
	if (strcmp(got, want))
		e2e_fail(check, "listed \"%s\", expected \"%s\"", got, want);
	else
		e2e_pass(check);
}

/*
 * A listing read twice (kept from one open to the next where every change
 * is seen), then a remote create, rename and unlink in it: each listed
 * right after its event.
 */
static void coh_listing(void)
{
	struct e2e_op setup[] = { OP_MKNOD("a"), OP_END };
	struct e2e_op mk[] = { OP_MKNOD("b"), OP_END };
	struct e2e_op mv[] = { OP_RENAME("a", "c"), OP_END };
	struct e2e_op rm[] = { OP_UNLINK("b"), OP_END };
	struct e2e_reader *r;
	char buf[256];

	coh_setup("l", setup);
	r = coh_watch("l");
	coh_list("l", buf, sizeof(buf));
	coh_expect_list("coherence/listing_before", "l", "a");
	if (e2e_remote("l", mk))
		e2e_fail("coherence/listing_create", "remote mknod failed");
	else if (coh_wait(r, "coherence/listing_create", "CREATE b"))
		coh_expect_list("coherence/listing_create", "l", "a b");
	if (e2e_remote("l", mv))
		e2e_fail("coherence/listing_rename", "remote rename failed");
	else if (coh_wait(r, "coherence/listing_rename", "MOVED_TO c"))
		coh_expect_list("coherence/listing_rename", "l", "b c");
	if (e2e_remote("l", rm))
		e2e_fail("coherence/listing_unlink", "remote unlink failed");
	else if (coh_wait(r, "coherence/listing_unlink", "DELETE b"))
		coh_expect_list("coherence/listing_unlink", "l", "c");
	e2e_reader_free(r);
}

int main(void)
{
	e2e_mount(NULL);
	coh_write("coherence/read_after_modify", "MODIFY f");
	coh_write("coherence/read_after_close_write", "CLOSE_WRITE f");
	coh_create();
	coh_delete();
	coh_rename();
	coh_chmod();
	coh_reopen();
	coh_mapped_close();
	coh_listing();
	return check_exit();
}
