// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * No side effects: replaying remote changes through the mount must not
 * touch the backing store. A remote actor makes every kind of change and
 * then sets each object's mtime to a known value; inotify and fanotify
 * watchers sit on MNT and every file is read through MNT, so the server
 * has to replay and serve everything. Afterwards BACKING must hold exactly
 * what the actor left: content, mode, owner, mtime, link count, symlink
 * target, and the ctime seen right after the actor finished (any later
 * write, chmod, utimens or truncate that reached the backing store would
 * move it).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/e2e.h"

CHECK_MAIN_DEFS;

#define NS_MTIME 1500000000L

static const struct e2e_op ns_actor_ops[] = {
	OP_CREAT("data", "v1"), OP_WRITE("data", "version-2"),
	OP_APPEND("data", "+tail"), OP_CHMOD("data", 0640),
	OP_LINK("data", "data.link"),
	OP_CREAT("trunc", "123456789"), OP_TRUNCATE("trunc", 4),
	OP_CREAT("moved", "m"), OP_RENAME("moved", "moved2"),
	OP_CREAT("owned", "o"), OP_CHOWN("owned", 4321),
	OP_CHMOD("owned", 0600),
	OP_SYMLINK("sym", "data"),
	OP_MKDIR("sub"), OP_MKNOD("sub/x"), OP_UNLINK("sub/x"),
	OP_CHMOD("sub", 0750),
	OP_UTIMES("data", NS_MTIME), OP_UTIMES("trunc", NS_MTIME),
	OP_UTIMES("moved2", NS_MTIME), OP_UTIMES("owned", NS_MTIME),
	OP_UTIMES("sym", NS_MTIME), OP_UTIMES("sub", NS_MTIME),
	OP_END
};

struct ns_expect {
	const char *name;
	const char *content;	/* file content, or symlink target */
	mode_t mode;		/* type and permissions */
	uid_t uid;
	nlink_t nlink;
};

static const struct ns_expect ns_expected[] = {
	{ "data", "version-2+tail", S_IFREG | 0640, 0, 2 },
	{ "data.link", "version-2+tail", S_IFREG | 0640, 0, 2 },
	{ "trunc", "1234", S_IFREG | 0644, 0, 1 },
	{ "moved2", "m", S_IFREG | 0644, 0, 1 },
	{ "owned", "o", S_IFREG | 0600, 4321, 1 },
	{ "sym", "data", S_IFLNK | 0777, 0, 1 },
	{ "sub", NULL, S_IFDIR | 0750, 0, 2 },
};

#define NS_COUNT (sizeof(ns_expected) / sizeof(ns_expected[0]))

static ssize_t ns_content(const char *path, mode_t mode, char *buf,
			  size_t len)
{
	ssize_t n = -1;
	int fd;

	if (S_ISLNK(mode)) {
		n = readlink(path, buf, len - 1);
	} else if (S_ISREG(mode)) {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, len - 1);
			close(fd);
		}
	}
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Reads everything through MNT, as a woken watcher would. */
static void ns_read_all(void)
{
	char rel[64], buf[64];
	struct stat st;
	size_t i;

	for (i = 0; i < NS_COUNT; i++) {
		snprintf(rel, sizeof(rel), "ns/%s", ns_expected[i].name);
		if (!lstat(e2e_mpath(rel), &st))
			ns_content(e2e_mpath(rel), st.st_mode, buf,
				   sizeof(buf));
	}
}

static void ns_judge(const struct ns_expect *e, const struct stat *before)
{
	char rel[64], check[96], buf[64];
	const char *path;
	struct stat st;

	snprintf(rel, sizeof(rel), "ns/%s", e->name);
	snprintf(check, sizeof(check), "noside/%s", e->name);
	path = e2e_bpath(rel);
	if (lstat(path, &st)) {
		e2e_fail(check, "gone from BACKING");
		return;
	}
	ns_content(path, st.st_mode, buf, sizeof(buf));
	if (e->content && strcmp(buf, e->content))
		e2e_fail(check, "content \"%s\", expected \"%s\"", buf,
			 e->content);
	else if (st.st_mode != e->mode)
		e2e_fail(check, "mode %06o, expected %06o", st.st_mode,
			 e->mode);
	else if (st.st_uid != e->uid || st.st_nlink != e->nlink)
		e2e_fail(check, "uid %u nlink %lu, expected %u %lu",
			 st.st_uid, (unsigned long)st.st_nlink, e->uid,
			 (unsigned long)e->nlink);
	else if (st.st_mtim.tv_sec != NS_MTIME || st.st_mtim.tv_nsec)
		e2e_fail(check, "mtime %ld.%09ld, expected %ld.0",
			 (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 NS_MTIME);
	else if (st.st_ctim.tv_sec != before->st_ctim.tv_sec ||
		 st.st_ctim.tv_nsec != before->st_ctim.tv_nsec)
		e2e_fail(check, "ctime moved after the actor finished");
	else
		e2e_pass(check);
}

static struct e2e_reader *ns_watchers(struct e2e_reader **fan)
{
	struct e2e_reader *r = e2e_inotify_new();

	*fan = e2e_fanotify_new();
	if (!r || e2e_inotify_watch(r, NULL, e2e_mpath("ns"), IN_ALL_EVENTS))
		e2e_fail("noside/watch", "inotify watches on MNT failed");
	if (!*fan || e2e_fanotify_mark(*fan, NULL, e2e_mpath("ns"),
				       FAN_CREATE | FAN_DELETE | FAN_MODIFY |
				       FAN_ATTRIB | FAN_MOVE |
				       FAN_CLOSE_WRITE | FAN_ONDIR |
				       FAN_EVENT_ON_CHILD))
		e2e_fail("noside/watch", "fanotify mark on MNT failed");
	return r;
}

int main(void)
{
	struct e2e_op mk[] = { OP_MKDIR("ns"), OP_END };
	struct stat before[NS_COUNT];
	struct e2e_evlist got = { 0 };
	struct e2e_reader *r, *fan;
	char why[128], rel[64];
	size_t i;

	e2e_mount(NULL);
	if (e2e_remote("", mk)) {
		e2e_fail("noside/setup", "remote mkdir failed");
		return check_exit();
	}
	e2e_sync();
	r = ns_watchers(&fan);
	if (e2e_remote("ns", ns_actor_ops)) {
		e2e_fail("noside/actor", "remote actor failed");
		return check_exit();
	}
	for (i = 0; i < NS_COUNT; i++) {
		snprintf(rel, sizeof(rel), "ns/%s", ns_expected[i].name);
		lstat(e2e_bpath(rel), &before[i]);
	}
	if (r && e2e_collect(r, "ns", &got, why, sizeof(why)))
		e2e_fail("noside/replayed", "inotify: %s", why);
	e2e_evlist_free(&got);
	if (fan && e2e_collect(fan, "ns", &got, why, sizeof(why)))
		e2e_fail("noside/replayed", "fanotify: %s", why);
	e2e_evlist_free(&got);
	ns_read_all();
	e2e_sync();
	for (i = 0; i < NS_COUNT; i++)
		ns_judge(&ns_expected[i], &before[i]);
	e2e_reader_free(r);
	e2e_reader_free(fan);
	return check_exit();
}
