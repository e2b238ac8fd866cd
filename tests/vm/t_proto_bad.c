// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_bad - fuse 6/9 and 8/9: every malformed FUSE_NOTIFY_FSNOTIFY is
 * refused by write() with the documented error, delivers nothing, and the
 * kernel keeps serving the mount; a refused push takes no lookup.  Frames
 * are built by tests/peer's raw builder: the codec refuses to build them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/check.h"
#include "../peer/proto_peer.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmcache.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_bad"

static unsigned char frame[65536];

static int send_raw(uint64_t nodeid, uint64_t gen, uint32_t mask,
		    uint32_t cookie, uint32_t namelen, const void *name,
		    size_t name_bytes)
{
	return vmfs_write_frame(frame, proto_build_raw_event(frame,
			       sizeof(frame), FUSE_NOTIFY_FSNOTIFY, nodeid, gen,
			       mask, cookie, namelen, name, name_bytes));
}

/* A push frame: name, then entry_bytes of the entry (128 in a good one). */
static int send_push_raw(uint64_t nodeid, uint64_t gen, uint32_t mask,
			 const char *name, const struct fuse_entry_out *e,
			 size_t entry_bytes)
{
	struct fuse_out_header oh;
	size_t namelen = strlen(name);
	size_t at = proto_build_raw_event(frame, sizeof(frame),
					  FUSE_NOTIFY_FSNOTIFY, nodeid, gen,
					  mask, 0, namelen, name, namelen);

	memset(frame + at, 0, entry_bytes);
	memcpy(frame + at, e, entry_bytes < sizeof(*e) ? entry_bytes :
	       sizeof(*e));
	memcpy(&oh, frame, sizeof(oh));
	oh.len = at + entry_bytes;
	memcpy(frame, &oh, sizeof(oh));
	return vmfs_write_frame(frame, oh.len);
}

/* A valid entry for child pz (node z). */
static struct fuse_entry_out entry_of(uint64_t z, uint64_t zgen)
{
	struct fuse_entry_out e = {
		.nodeid = z, .generation = zgen, .entry_valid = 60,
		.attr_valid = 60,
		.attr = { .ino = z, .mode = S_IFREG | 0644, .nlink = 1 },
	};

	return e;
}

/*
 * Malformed pushes of child pz: each refused, nothing delivered (the next
 * event is the sentinel), no dentry made (stat of pz is a LOOKUP) and no
 * lookup taken (the one LOOKUP's FORGET brings the count to 0 exactly).
 */
static void test_bad_push(int in, uint64_t f, uint64_t fgen)
{
	uint32_t mod = FUSE_FSNOTIFY_MODIFY;
	uint64_t z = 0, zgen = 0, n = 0;
	struct fuse_entry_out e;
	unsigned int lookups;
	struct stat st;

	CHECK("bad push: remote create pz", vmfs_remote_create(1, "pz",
	      S_IFREG | 0644, &z) == 0 && vmfs_node(1, "pz", &z, &zgen) == 0);
	e = entry_of(z, zgen);
	e.nodeid = 0;
	CHECK("bad push: entry nodeid 0",
	      send_push_raw(1, 0, mod, "pz", &e, sizeof(e)) == -EINVAL);
	e.nodeid = 1;
	CHECK("bad push: entry is the root",
	      send_push_raw(1, 0, mod, "pz", &e, sizeof(e)) == -EINVAL);
	e = entry_of(z, zgen);
	CHECK("bad push: entry one byte short",
	      send_push_raw(1, 0, mod, "pz", &e, sizeof(e) - 1) == -EINVAL);
	CHECK("bad push: one byte past the entry",
	      send_push_raw(1, 0, mod, "pz", &e, sizeof(e) + 1) == -EINVAL);
	CHECK("bad push: by name with one stray byte (neither form)",
	      send_push_raw(1, 0, mod, "pz", &e, 1) == -EINVAL);
	CHECK("bad push: by name with '/' in the name",
	      send_raw(1, 0, mod, 0, 4, "a/pz", 4) == -EINVAL);
	CHECK("bad push: by name with a NUL in the name",
	      send_raw(1, 0, mod, 0, 3, "p\0z", 3) == -EINVAL);
	CHECK("bad push: '/' in the name",
	      send_push_raw(1, 0, mod, "a/pz", &e, sizeof(e)) == -EINVAL);
	CHECK("bad push: directory generation mismatch",
	      send_push_raw(1, 5, mod, "pz", &e, sizeof(e)) == -ENOENT);
	CHECK("bad push: on a file, not a directory",
	      send_push_raw(f, fgen, mod, "pz", &e, sizeof(e)) == -ENOTDIR);
	CHECK("bad push: ISDIR on a file", send_push_raw(1, 0,
	      mod | FUSE_FSNOTIFY_ISDIR, "pz", &e, sizeof(e)) == -EINVAL);
	e.attr.mode = 0644;
	CHECK("bad push: no file type",
	      send_push_raw(1, 0, mod, "pz", &e, sizeof(e)) == -EINVAL);
	e = entry_of(f, fgen);
	CHECK("bad push: entry is the directory itself",
	      send_push_raw(f, fgen, mod, "pz", &e, sizeof(e)) == -EINVAL);
	CHECK("bad push: sentinel", vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE,
	      0, "pzs") == 0);
	CHECK("bad push: nothing delivered before the sentinel",
	      vm_inotify_expect(in, IN_CREATE, "pzs", NULL));
	lookups = vmfs_lookup_count();
	CHECK("bad push: pz still needs a LOOKUP", stat(MNT "/pz", &st) == 0 &&
	      vmfs_lookup_count() == lookups + 1);
	CHECK("bad push: drop_caches", vm_drop_caches());
	CHECK("bad push: no lookup taken (FORGET brings pz to 0)",
	      vmfs_wait_nlookup(z, 0, VM_WAIT_MS, &n));
}

/* An overflow is for the whole mount: the root, alone, nothing else. */
static void test_bad_overflow(uint64_t f, uint64_t gen)
{
	uint32_t ovf = FUSE_FSNOTIFY_Q_OVERFLOW;

	CHECK("bad: overflow off the root",
	      send_raw(f, gen, ovf, 0, 0, NULL, 0) == -EINVAL);
	CHECK("bad: overflow, root generation not 0",
	      send_raw(1, 1, ovf, 0, 0, NULL, 0) == -EINVAL);
	CHECK("bad: overflow with a name",
	      send_raw(1, 0, ovf, 0, 1, "z", 1) == -EINVAL);
	CHECK("bad: overflow with a cookie",
	      send_raw(1, 0, ovf, 7, 0, NULL, 0) == -EINVAL);
	CHECK("bad: overflow with another event",
	      send_raw(1, 0, ovf | FUSE_FSNOTIFY_MODIFY, 0, 0, NULL, 0)
	      == -EINVAL);
}

static void test_bad_frames(uint64_t f, uint64_t gen)
{
	static char big[65536 - 48];
	char n256[256];

	CHECK("bad: namelen past the frame",
	      send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 5, "abcd", 4) == -EINVAL);
	CHECK("bad: namelen short of the frame",
	      send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 3, "abcd", 4) == -EINVAL);
	CHECK("bad: '/' in name",
	      send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 3, "a/b", 3) == -EINVAL);
	CHECK("bad: NUL in name",
	      send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 3, "a\0b", 3) == -EINVAL);
	CHECK("bad: trailing NUL counted in namelen",
	      send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 2, "a", 2) == -EINVAL);
	CHECK("bad: dot-dot",
	      send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 2, "..", 2) == -EINVAL);
	memset(n256, 'x', sizeof(n256));
	CHECK("bad: 256-byte name", send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0,
	      256, n256, 256) == -EINVAL);
	memset(big, 'y', sizeof(big));
	CHECK("bad: oversize frame (64 KiB)", send_raw(1, 0,
	      FUSE_FSNOTIFY_CREATE, 0, sizeof(big), big, sizeof(big))
	      == -EINVAL);
	CHECK("bad: unknown nodeid", send_raw(999999, 1, FUSE_FSNOTIFY_CREATE,
	      0, 1, "z", 1) == -ENOENT);
	CHECK("bad: stale generation", send_raw(f, gen + 1,
	      FUSE_FSNOTIFY_MODIFY, 0, 0, NULL, 0) == -ENOENT);
	CHECK("bad: self event with a name", send_raw(1, 0,
	      FUSE_FSNOTIFY_DELETE_SELF, 0, 1, "z", 1) == -EINVAL);
	CHECK("bad: DELETE_SELF with another event",
	      send_raw(f, gen, FUSE_FSNOTIFY_DELETE_SELF |
		       FUSE_FSNOTIFY_ATTRIB, 0, 0, NULL, 0) == -EINVAL);
	CHECK("bad: entry and child event in one", send_raw(1, 0,
	      FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_MODIFY, 0, 1, "z", 1) ==
	      -EINVAL);
	CHECK("bad: entry event without a name", send_raw(1, 0,
	      FUSE_FSNOTIFY_CREATE, 0, 0, NULL, 0) == -EINVAL);
	CHECK("bad: unknown mask bit", send_raw(1, 0, FUSE_FSNOTIFY_CREATE |
	      0x00100000, 0, 1, "z", 1) == -EINVAL);
	CHECK("bad: no event bit", send_raw(1, 0, FUSE_FSNOTIFY_ISDIR, 0, 1,
	      "z", 1) == -EINVAL);
	CHECK("bad: cookie on a create", send_raw(1, 0, FUSE_FSNOTIFY_CREATE,
	      9, 1, "z", 1) == -EINVAL);
	CHECK("bad: entry event on a file", send_raw(f, gen,
	      FUSE_FSNOTIFY_CREATE, 0, 1, "z", 1) == -ENOTDIR);
	test_bad_overflow(f, gen);
	send_raw(1, 0, FUSE_FSNOTIFY_CREATE, 0, 0, NULL, 0);
	((struct fuse_out_header *)frame)->len = 16 + 8;
	CHECK("bad: short fixed part", vmfs_write_frame(frame, 16 + 8)
	      == -EINVAL);
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true };
	uint64_t f = 0, gen = 0;
	struct stat st;
	int fd;

	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("bad: mount vmfs", 0);
		return check_exit();
	}
	fd = inotify_init1(IN_CLOEXEC);
	CHECK("bad: watch the root", inotify_add_watch(fd, MNT, IN_CREATE |
	      IN_MODIFY | IN_DELETE) >= 0);
	CHECK("bad: local mknod f", mknod(MNT "/f", S_IFREG | 0644, 0) == 0);
	CHECK("bad: IN_CREATE f", vm_inotify_expect(fd, IN_CREATE, "f",
	      NULL));
	vmfs_node(1, "f", &f, &gen);
	test_bad_frames(f, gen);
	test_bad_push(fd, f, gen);

	CHECK("bad: a valid frame still works", vmfs_send_event(1, 0,
	      FUSE_FSNOTIFY_CREATE, 0, "ok") == 0);
	CHECK("bad: nothing delivered before the valid frame",
	      vm_inotify_expect(fd, IN_CREATE, "ok", NULL));
	CHECK("bad: mount still answers", stat(MNT "/f", &st) == 0);
	close(fd);
	vmfs_stop();
	return check_exit();
}
