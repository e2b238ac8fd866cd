// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_rename - fuse 7/9: FS_RENAME in the watch mask reaches the
 * server, and FUSE_FSNOTIFY_RENAME gives fanotify FAN_RENAME groups one
 * event with the old and the new place (each mark kind seeing what a
 * local rename shows it) and the moved file's own fid, and dnotify
 * DN_RENAME its signal, for a file the kernel never looked up; the child
 * is then held with one lookup.  A watched directory the kernel holds
 * under its old name ends up under the new one.  Every malformed or
 * stale rename frame is refused with the documented error, delivers
 * nothing and takes no lookup.  Also: the same notification with both
 * moves reports the whole rename in a local one's order.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_rename"
#define FAN_TARGET (FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME_TARGET)

/* Old directory ra, new directory rb: nodes and generations. */
static uint64_t ra, ra_gen, rb, rb_gen;
static int fan_a, fan_b, fan_fs;

static bool dir_known(const char *name, uint64_t *node, uint64_t *gen)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), MNT "/%s", name);
	return !vmfs_remote_create(1, name, S_IFDIR | 0755, node) &&
	       !vmfs_node(1, name, node, gen) && !stat(path, &st);
}

/*
 * A group with one mark for FAN_RENAME and the events of extra, which
 * reach the server in the node's mask.
 */
static int rename_group(unsigned int flags, const char *path,
			uint64_t node, uint32_t scope, uint64_t extra)
{
	uint64_t mask = 0;
	int fd = fanotify_init(FAN_TARGET, O_RDONLY);

	if (fd < 0 || vm_fanotify_remote_mark(fd, flags, FAN_RENAME |
					      FAN_ONDIR | extra, path) ||
	    !vmfs_wait_mask(node, scope, FUSE_FSNOTIFY_RENAME | extra, 0,
			    VM_WAIT_MS, &mask))
		return -1;
	return fd;
}

/*
 * A rename from ra to rb (the moved object now at path), as each mark
 * sees it: the filesystem mark both places, ra's the old one, rb's the
 * new one. what names the checks.
 */
static void expect_ra_to_rb(const char *what, uint64_t mask,
			    const char *old, const char *new_,
			    const char *path)
{
	char check[128];

	/* Every rename here is remote */
	mask |= FAN_REMOTE;
	snprintf(check, sizeof(check), "%s: filesystem mark: %s -> %s", what,
		 old, new_);
	CHECK(check, vm_fanotify_expect_rename(fan_fs, mask, old, new_, path));
	snprintf(check, sizeof(check), "%s: ra's mark: %s", what, old);
	CHECK(check, vm_fanotify_expect_rename(fan_a, mask, old, "", path));
	snprintf(check, sizeof(check), "%s: rb's mark: %s", what, new_);
	CHECK(check, vm_fanotify_expect_rename(fan_b, mask, "", new_, path));
}

/* A file the kernel never saw, renamed from ra to rb remotely. */
static void test_file(uint64_t *child)
{
	uint64_t n = 0;

	CHECK("file: remote create ra/f", !vmfs_remote_create(ra, "f",
	      S_IFREG | 0644, child));
	CHECK("file: remote rename to rb/g", !vmfs_remote_rename(ra, "f", rb,
	      "g"));
	CHECK("file: RENAME sent", !vmfs_send_rename(ra, ra_gen, "f", rb,
	      rb_gen, "g"));
	expect_ra_to_rb("file", FAN_RENAME, "f", "g", MNT "/rb/g");
	CHECK("file: the kernel holds the child with one lookup",
	      vmfs_wait_nlookup(*child, 1, VM_WAIT_MS, &n));
}

/* A rename within rb, which dnotify watches for renames. */
static void test_dnotify(void)
{
	int fd = open(MNT "/rb", O_RDONLY | O_DIRECTORY);

	CHECK("dnotify: DN_RENAME on rb", fd >= 0 &&
	      !vm_dnotify_arm(fd, DN_RENAME | DN_MULTISHOT));
	CHECK("dnotify: remote rename rb/g to rb/h", !vmfs_remote_rename(rb,
	      "g", rb, "h"));
	CHECK("dnotify: RENAME sent", !vmfs_send_rename(rb, rb_gen, "g", rb,
	      rb_gen, "h"));
	CHECK("dnotify: signal for rb", vm_dnotify_signal(fd));
	CHECK("dnotify: filesystem mark: g -> h",
	      vm_fanotify_expect_rename(fan_fs, FAN_RENAME | FAN_REMOTE, "g",
					"h", MNT "/rb/h"));
	CHECK("dnotify: new directory's mark: h",
	      vm_fanotify_expect_rename(fan_b, FAN_RENAME | FAN_REMOTE, "g",
					"h", MNT "/rb/h"));
	close(fd);
}

/*
 * Spoiled frames: the rename ra/x -> rb/h (the child), built by the codec,
 * then one field changed. The old name is one byte, the new one too.
 */
#define AT_OUT		16
#define AT_RN		(AT_OUT + 32 + 1)
#define AT_NEWNAME	(AT_RN + 24)
#define AT_ENTRY	(AT_NEWNAME + 1)
#define OUT(field)	(AT_OUT + offsetof(struct fuse_notify_fsnotify_out, \
					   field))
#define RN(field)	(AT_RN + offsetof(struct fuse_fsnotify_rename_out, \
					  field))
#define FRAME_LEN	((int)(AT_ENTRY + sizeof(struct fuse_entry_out)))

static unsigned char frame[FRAME_LEN + 1];

/* n bytes of val at off, the frame delta bytes longer; write()'s answer. */
static int send_spoiled(size_t off, const void *val, size_t n, int delta)
{
	struct fuse_out_header oh;
	int len = vmfs_encode_rename(ra, ra_gen, "x", rb, rb_gen, "h", frame,
				     sizeof(frame) - 1);

	if (len != FRAME_LEN)
		return 1;	/* not a write() answer: fails every check */
	memcpy(frame + off, val, n);
	frame[len] = 'z';
	memcpy(&oh, frame, sizeof(oh));
	oh.len = len + delta;
	memcpy(frame, &oh, sizeof(oh));
	return vmfs_write_frame(frame, len + delta);
}

static int send_u64(size_t off, uint64_t v)
{
	return send_spoiled(off, &v, sizeof(v), 0);
}

static int send_u32(size_t off, uint32_t v)
{
	return send_spoiled(off, &v, sizeof(v), 0);
}

static void test_bad_frames(uint64_t child)
{
	uint64_t file = 0, file_gen = 0, n = 0;
	struct stat st;

	CHECK("bad: a file ff the kernel holds", !vmfs_remote_create(1, "ff",
	      S_IFREG | 0644, &file) && !vmfs_node(1, "ff", &file,
	      &file_gen) && !stat(MNT "/ff", &st));
	/* The same frame, unspoiled and counted: accepted. */
	CHECK("bad: the unspoiled frame is accepted", !vmfs_send_rename(ra,
	      ra_gen, "x", rb, rb_gen, "h"));
	CHECK("bad: unknown new directory: ENOENT",
	      send_u64(RN(newdir), 999) == -ENOENT);
	CHECK("bad: stale new directory: ENOENT",
	      send_u64(RN(newdir_generation), rb_gen + 1) == -ENOENT);
	CHECK("bad: stale old directory: ENOENT",
	      send_u64(OUT(generation), ra_gen + 1) == -ENOENT);
	CHECK("bad: old directory a file: ENOTDIR",
	      vmfs_encode_rename(file, file_gen, "x", rb, rb_gen, "h", frame,
				 sizeof(frame)) == FRAME_LEN &&
	      vmfs_write_frame(frame, FRAME_LEN) == -ENOTDIR);
	CHECK("bad: cookie: EINVAL", send_u32(OUT(cookie), 5) == -EINVAL);
	CHECK("bad: with MOVED_FROM: EINVAL", send_u32(OUT(mask),
	      FUSE_FSNOTIFY_RENAME | FUSE_FSNOTIFY_MOVED_FROM) == -EINVAL);
	CHECK("bad: with both moves, no cookie: EINVAL", send_u32(OUT(mask),
	      FUSE_FSNOTIFY_RENAME | FUSE_FSNOTIFY_MOVED_FROM |
	      FUSE_FSNOTIFY_MOVED_TO) == -EINVAL);
	CHECK("bad: ISDIR on a file: EINVAL", send_u32(OUT(mask),
	      FUSE_FSNOTIFY_RENAME | FUSE_FSNOTIFY_ISDIR) == -EINVAL);
	CHECK("bad: entry is the new directory: EINVAL",
	      send_u64(AT_ENTRY, rb) == -EINVAL);
	CHECK("bad: entry is the old directory: EINVAL",
	      send_u64(AT_ENTRY, ra) == -EINVAL);
	CHECK("bad: '/' as the new name: EINVAL",
	      send_spoiled(AT_NEWNAME, "/", 1, 0) == -EINVAL);
	CHECK("bad: NUL as the old name: EINVAL",
	      send_spoiled(AT_OUT + 32, "", 1, 0) == -EINVAL);
	CHECK("bad: old name length 0: EINVAL",
	      send_u32(OUT(namelen), 0) == -EINVAL);
	CHECK("bad: new name longer than the frame: EINVAL",
	      send_u32(RN(namelen), 200) == -EINVAL);
	CHECK("bad: padding of the new place: EINVAL",
	      send_u32(RN(padding), 1) == -EINVAL);
	CHECK("bad: one byte short: EINVAL",
	      send_spoiled(0, "", 0, -1) == -EINVAL);
	CHECK("bad: one byte more: EINVAL",
	      send_spoiled(0, "", 0, 1) == -EINVAL);
	CHECK("bad: one lookup more, for the good frame only",
	      vmfs_wait_nlookup(child, 3, VM_WAIT_MS, &n));
	/* Only the good frame's event: the next ones are test_directory's. */
	expect_ra_to_rb("bad", FAN_RENAME, "x", "h", MNT "/rb/h");
}

/* A directory: ISDIR, FAN_ONDIR; also what fan_a reads next. */
static void test_directory(void)
{
	uint64_t d = 0;

	CHECK("dir: remote mkdir ra/sub", !vmfs_remote_create(ra, "sub",
	      S_IFDIR | 0755, &d));
	CHECK("dir: remote rename to rb/sub2", !vmfs_remote_rename(ra, "sub",
	      rb, "sub2"));
	CHECK("dir: RENAME|ISDIR sent", !vmfs_send_rename(ra, ra_gen, "sub",
	      rb, rb_gen, "sub2"));
	expect_ra_to_rb("dir", FAN_RENAME | FAN_ONDIR, "sub", "sub2",
			MNT "/rb/sub2");
}

/*
 * A directory the kernel holds under its old name, watched (so it stays
 * in the cache), renamed as the server sends it: MOVED_FROM and MOVED_TO
 * (which drop the old dentry), then RENAME, which links the same inode
 * at the new name. The directory's dentry moves there; its watch stays.
 */
static void test_held_directory(void)
{
	uint64_t d = 0, n = 0;
	struct stat st;
	int in = inotify_init1(IN_CLOEXEC);

	CHECK("held: remote mkdir ra/held", !vmfs_remote_create(ra, "held",
	      S_IFDIR | 0755, &d));
	CHECK("held: watched through the mount", in >= 0 &&
	      inotify_add_watch(in, MNT "/ra/held", IN_MOVE_SELF) >= 0);
	CHECK("held: remote rename to rb/held2", !vmfs_remote_rename(ra,
	      "held", rb, "held2"));
	CHECK("held: MOVED_FROM, MOVED_TO, RENAME sent",
	      !vmfs_send_event(ra, ra_gen, FUSE_FSNOTIFY_MOVED_FROM |
			       FUSE_FSNOTIFY_ISDIR, 7, "held") &&
	      !vmfs_send_event(rb, rb_gen, FUSE_FSNOTIFY_MOVED_TO |
			       FUSE_FSNOTIFY_ISDIR, 7, "held2") &&
	      !vmfs_send_rename(ra, ra_gen, "held", rb, rb_gen, "held2"));
	expect_ra_to_rb("held", FAN_RENAME | FAN_ONDIR, "held", "held2",
			MNT "/rb/held2");
	CHECK("held: old name gone, new name there",
	      stat(MNT "/ra/held", &st) && errno == ENOENT &&
	      !stat(MNT "/rb/held2", &st) && S_ISDIR(st.st_mode));
	CHECK("held: the kernel's lookups, counted",
	      vmfs_wait_nlookup(d, 2, VM_WAIT_MS, &n));
	close(in);
}

/*
 * One notification with both moves is the whole rename, for a
 * file the kernel holds (open) under its old name. A filesystem mark for
 * all three reads FAN_RENAME, then MOVED_FROM and MOVED_TO, each with the
 * moved file's own fid, as for a local rename; inotify reads the two
 * moves with one cookie. The old name is dropped from the cache and the
 * new one leads to the same inode; the FAN_RENAME marks read theirs.
 */
static void test_in_order(void)
{
	uint64_t moves = FAN_MOVED_FROM | FAN_MOVED_TO;
	uint32_t from = 0, to = 0;
	uint64_t f = 0, n = 0;
	struct stat before, st;
	int fan = rename_group(FAN_MARK_FILESYSTEM, MNT, 1,
			       FUSE_FSNOTIFY_FILESYSTEM, moves);
	int in = inotify_init1(IN_CLOEXEC);
	int fd = -1;

	CHECK("order: groups", fan >= 0 && in >= 0 &&
	      inotify_add_watch(in, MNT "/ra", IN_MOVED_FROM) >= 0 &&
	      inotify_add_watch(in, MNT "/rb", IN_MOVED_TO) >= 0);
	if (!vmfs_remote_create(ra, "o", S_IFREG | 0644, &f))
		fd = open(MNT "/ra/o", O_RDONLY);
	CHECK("order: remote create ra/o, open through the mount",
	      fd >= 0 && !fstat(fd, &before));
	CHECK("order: remote rename to rb/p", !vmfs_remote_rename(ra, "o",
	      rb, "p"));
	CHECK("order: RENAME with both moves sent", !vmfs_send_move(ra,
	      ra_gen, "o", rb, rb_gen, "p", 9));
	CHECK("order: FAN_RENAME first",
	      vm_fanotify_expect_rename(fan, FAN_RENAME | FAN_REMOTE, "o", "p",
					MNT "/rb/p"));
	CHECK("order: then MOVED_FROM o, the file's fid",
	      vm_fanotify_expect_fid(fan, FAN_MOVED_FROM | FAN_REMOTE, "o",
				     MNT "/rb/p"));
	CHECK("order: then MOVED_TO p, the file's fid",
	      vm_fanotify_expect_fid(fan, FAN_MOVED_TO | FAN_REMOTE, "p",
				     MNT "/rb/p"));
	CHECK("order: inotify MOVED_FROM o",
	      vm_inotify_expect(in, IN_MOVED_FROM, "o", &from));
	CHECK("order: inotify MOVED_TO p, the same cookie",
	      vm_inotify_expect(in, IN_MOVED_TO, "p", &to) && from &&
	      from == to);
	CHECK("order: old name gone, new name the same file",
	      stat(MNT "/ra/o", &st) && errno == ENOENT &&
	      !stat(MNT "/rb/p", &st) && st.st_ino == before.st_ino);
	CHECK("order: the kernel's lookups, counted",
	      vmfs_wait_nlookup(f, 2, VM_WAIT_MS, &n));
	expect_ra_to_rb("order", FAN_RENAME, "o", "p", MNT "/rb/p");
	if (fd >= 0)
		close(fd);
	close(in);
	close(fan);
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };
	uint64_t child = 0;

	/* Before vmfs starts its threads, so that they inherit it. */
	vm_dnotify_block();
	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("rename: mount vmfs", 0);
		return check_exit();
	}
	CHECK("rename: protocol on", vmfs_fsnotify_on());
	CHECK("rename: directories ra and rb known", dir_known("ra", &ra,
	      &ra_gen) && dir_known("rb", &rb, &rb_gen));
	fan_fs = rename_group(FAN_MARK_FILESYSTEM, MNT, 1,
			      FUSE_FSNOTIFY_FILESYSTEM, 0);
	fan_a = rename_group(0, MNT "/ra", ra, FUSE_FSNOTIFY_INODE, 0);
	fan_b = rename_group(0, MNT "/rb", rb, FUSE_FSNOTIFY_INODE, 0);
	CHECK("rename: FS_RENAME in the masks the server got",
	      fan_fs >= 0 && fan_a >= 0 && fan_b >= 0);
	test_file(&child);
	test_dnotify();
	test_bad_frames(child);
	test_directory();
	test_held_directory();
	test_in_order();
	close(fan_b);
	close(fan_a);
	close(fan_fs);
	vmfs_stop();
	return check_exit();
}
