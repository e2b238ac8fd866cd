// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame_server - a virtio-fs device backend for kernel/run-virtiofs-tests
 * that sends the guest crafted notifications: rnotifyfs's file system,
 * session and vhost-user transport (librnotify), with no host watch and
 * no delivery; its own thread writes the frames, as tests/vm's raw
 * server (vmfs) does over /dev/fuse.
 *
 *   frame_server SOCKET DIR
 *
 * With tests/virtiofs/vfs_frames in the guest (tag "frames", -o
 * remote_events), in turn:
 *   1. masks: the combined mask of the guest's marks reaches the server
 *      (its watch table, what rnotifyfs's delivery reads): an inotify
 *      watch on the root, one on f combined with a fanotify inode mark on
 *      f, a fanotify filesystem mark; then f's mask and the filesystem
 *      mask drop to 0 when those marks go.
 *      A sentinel CREATE on the root after each step tells the guest the
 *      step was seen.
 *   2. malformed frames: each refused by the guest's kernel, whose
 *      outcome (carried by its next FUSE_FETCH_NOTIFY) is the error a
 *      write of the frame to /dev/fuse returns (tests/vm/t_proto_bad.c),
 *      or EINVAL for a notification code a fetching guest does not take;
 *      then a valid frame is taken (outcome 0) and is the guest's next
 *      event: nothing of the bad ones was delivered.
 * Prints "PASS rnotifyfs:frames_NAME" / "FAIL rnotifyfs:frames_NAME: why"
 * lines, as the guest's checks do; ends when the VMM disconnects.
 */
#define FUSE_USE_VERSION 34

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/fs.h"
#include "fs/remote.h"
#include "../peer/proto_peer.h"
#include "protocol/proto_codec.h"
#include "protocol/proto_watches.h"
#include "rnotify_proto.h"
#include "session/serve_loop.h"
#include "session/session_io.h"
#include "session/vhost_io.h"

/* How long a step waits for the guest; it boots and tests other mounts. */
#define STEP_WAIT_S 600
#define MAX_WORKERS 4

static struct vhost_io *vio;
static struct session_io *sio;
static struct fs *fs;
static atomic_bool serving = true;
static int failures;
static unsigned char frame[8192];

static void check(const char *name, bool ok, const char *why)
{
	if (ok)
		printf("PASS rnotifyfs:frames_%s\n", name);
	else
		printf("FAIL rnotifyfs:frames_%s: %s\n", name, why);
	failures += !ok;
	fflush(stdout);
}

/* Into frame (tests/peer builds it); its length. */
static size_t build_raw(int code, uint64_t nodeid, uint64_t gen,
			uint32_t mask, uint32_t cookie, uint32_t namelen,
			const void *name, size_t name_bytes)
{
	return proto_build_raw_event(frame, sizeof(frame), code, nodeid, gen,
				     mask, cookie, namelen, name, name_bytes);
}

/* The guest's outcome of frame's first len bytes: 0 or a negative errno. */
static int send_frame(size_t len)
{
	struct iovec iov = { frame, len };

	return vhost_io_notify(vio, &iov, 1) < 0 ? -errno : 0;
}

/*
 * A valid remote CREATE of name in the root, as delivery sends one: the
 * file is made first.
 */
static int send_create(const char *name)
{
	struct proto_event ev = {
		.nodeid = FUSE_ROOT_ID,
		.mask = FUSE_FSNOTIFY_CREATE,
		.namelen = strlen(name),
		.name = name,
	};
	int fd = openat(fs_backing_fd(fs), name, O_WRONLY | O_CREAT | O_EXCL,
			0644);
	int len = proto_encode_event(frame, sizeof(frame), &ev);

	if (fd < 0)
		return -errno;
	close(fd);
	return len < 0 ? len : send_frame(len);
}

/* The node's mask (INODE) or the filesystem's has set and none of clear. */
static bool mask_is(uint64_t nodeid, uint32_t gen, bool filesystem,
		    uint64_t set, uint64_t clear)
{
	struct proto_watches *w = session_io_watches(sio);
	uint64_t m;

	m = filesystem ? proto_watches_fs_mask(w) :
			 proto_watches_mask(w, nodeid, gen);
	return (m & set) == set && !(m & clear);
}

struct mask_want {
	uint64_t nodeid;
	uint32_t gen;
	bool filesystem;
	uint64_t set, clear;
};

/* Waits (STEP_WAIT_S) until every want holds; false if not, or stopped. */
static bool wait_masks(const struct mask_want *want, int n)
{
	int tick, i;

	for (tick = 0; tick < STEP_WAIT_S * 100 && serving; tick++) {
		for (i = 0; i < n; i++)
			if (!mask_is(want[i].nodeid, want[i].gen,
				     want[i].filesystem, want[i].set,
				     want[i].clear))
				break;
		if (i == n)
			return true;
		usleep(10000);
	}
	return false;
}

/* Waits (STEP_WAIT_S) for the guest's f; false if it did not come. */
static bool wait_node(const char *name, uint64_t *nodeid, uint32_t *gen)
{
	int tick;

	for (tick = 0; tick < STEP_WAIT_S * 100 && serving; tick++) {
		if (fs_name_shown(fs, FUSE_ROOT_ID, name, nodeid) &&
		    fs_node_live(fs, *nodeid, gen))
			return true;
		usleep(10000);
	}
	return false;
}

/* The event bits: a mark's own flags (EVENT_ON_CHILD, ISDIR) aside. */
static const uint64_t all = FUSE_FSNOTIFY_OBJECT_EVENTS |
			    FUSE_FSNOTIFY_DIRENT_EVENTS | FUSE_FSNOTIFY_RENAME;

/*
 * The guest: an inotify watch on the root (CREATE, MODIFY, DELETE), one
 * on f (ATTRIB) and a fanotify inode mark on f (CLOSE_WRITE): f's mask is
 * their combination; a fanotify filesystem mark (MODIFY); then f's
 * inotify watch and the fanotify group go.
 */
static bool test_masks(uint64_t f, uint32_t fgen)
{
	const uint64_t root_set = FUSE_FSNOTIFY_CREATE | FUSE_FSNOTIFY_MODIFY |
				  FUSE_FSNOTIFY_DELETE;
	const uint64_t f_set = FUSE_FSNOTIFY_ATTRIB | FUSE_FSNOTIFY_CLOSE_WRITE;
	const struct mask_want marks[] = {
		{ FUSE_ROOT_ID, 0, false,
		  root_set | FUSE_FSNOTIFY_EVENT_ON_CHILD, all & ~root_set },
		{ f, fgen, false, f_set, all & ~f_set },
		{ FUSE_ROOT_ID, 0, true, FUSE_FSNOTIFY_MODIFY,
		  all & ~(uint64_t)FUSE_FSNOTIFY_MODIFY },
	};
	const struct mask_want gone[] = {
		{ FUSE_ROOT_ID, 0, false, root_set, all & ~root_set },
		{ f, fgen, false, 0, ~0ULL },
		{ FUSE_ROOT_ID, 0, true, 0, ~0ULL },
	};
	bool ok;

	ok = wait_masks(marks, 3);
	check("mask_combined", ok,
	      "root CREATE|MODIFY|DELETE, f ATTRIB|CLOSE_WRITE, filesystem MODIFY not seen");
	if (!ok)
		return false;
	check("mask_seen_sentinel", send_create("masks_seen") == 0,
	      "sentinel refused");
	ok = wait_masks(gone, 3);
	check("mask_removed", ok,
	      "f's mask and the filesystem mask did not drop to 0");
	if (!ok)
		return false;
	check("mask_removed_sentinel", send_create("masks_gone") == 0,
	      "sentinel refused");
	return true;
}

static void expect(const char *name, size_t len, int want)
{
	char why[96];
	int got = send_frame(len);

	snprintf(why, sizeof(why), "outcome %s, want %s",
		 got ? strerror(-got) : "0", strerror(-want));
	check(name, got == want, why);
}

/* What the kernel refuses over /dev/fuse too (tests/vm/t_proto_bad.c). */
static void test_bad_fsnotify(uint64_t f, uint32_t fgen)
{
	const int n = FUSE_NOTIFY_FSNOTIFY;
	const uint32_t create = FUSE_FSNOTIFY_CREATE;
	const uint32_t ovf = FUSE_FSNOTIFY_Q_OVERFLOW;
	char n256[256];

	memset(n256, 'x', sizeof(n256));
	expect("bad_namelen_past_frame",
	       build_raw(n, 1, 0, create, 0, 5, "abcd", 4), -EINVAL);
	expect("bad_namelen_short_of_frame",
	       build_raw(n, 1, 0, create, 0, 3, "abcd", 4), -EINVAL);
	expect("bad_slash_in_name",
	       build_raw(n, 1, 0, create, 0, 3, "a/b", 3), -EINVAL);
	expect("bad_nul_in_name",
	       build_raw(n, 1, 0, create, 0, 3, "a\0b", 3), -EINVAL);
	expect("bad_trailing_nul_counted",
	       build_raw(n, 1, 0, create, 0, 2, "a", 2), -EINVAL);
	expect("bad_dot_dot", build_raw(n, 1, 0, create, 0, 2, "..", 2),
	       -EINVAL);
	expect("bad_256_byte_name",
	       build_raw(n, 1, 0, create, 0, 256, n256, 256), -EINVAL);
	expect("bad_unknown_nodeid",
	       build_raw(n, 999999, 1, create, 0, 1, "z", 1), -ENOENT);
	expect("bad_stale_generation",
	       build_raw(n, f, fgen + 1, FUSE_FSNOTIFY_MODIFY, 0, 0, NULL, 0),
	       -ENOENT);
	expect("bad_entry_event_on_a_file",
	       build_raw(n, f, fgen, create, 0, 1, "z", 1), -ENOTDIR);
	expect("bad_self_event_with_name",
	       build_raw(n, 1, 0, FUSE_FSNOTIFY_DELETE_SELF, 0, 1, "z", 1),
	       -EINVAL);
	expect("bad_entry_and_child_event",
	       build_raw(n, 1, 0, create | FUSE_FSNOTIFY_MODIFY, 0, 1, "z", 1),
	       -EINVAL);
	expect("bad_entry_event_without_name",
	       build_raw(n, 1, 0, create, 0, 0, NULL, 0), -EINVAL);
	expect("bad_unknown_mask_bit",
	       build_raw(n, 1, 0, create | 0x00100000, 0, 1, "z", 1), -EINVAL);
	expect("bad_no_event_bit",
	       build_raw(n, 1, 0, FUSE_FSNOTIFY_ISDIR, 0, 1, "z", 1), -EINVAL);
	expect("bad_cookie_on_create",
	       build_raw(n, 1, 0, create, 9, 1, "z", 1), -EINVAL);
	expect("bad_overflow_off_root",
	       build_raw(n, f, fgen, ovf, 0, 0, NULL, 0), -EINVAL);
	expect("bad_overflow_root_generation",
	       build_raw(n, 1, 1, ovf, 0, 0, NULL, 0), -EINVAL);
	expect("bad_overflow_with_name",
	       build_raw(n, 1, 0, ovf, 0, 1, "z", 1), -EINVAL);
	expect("bad_overflow_with_cookie",
	       build_raw(n, 1, 0, ovf, 7, 0, NULL, 0), -EINVAL);
	build_raw(n, 1, 0, create, 0, 0, NULL, 0);
	expect("bad_short_fixed_part",
	       sizeof(struct fuse_out_header) + 8, -EINVAL);
}

/*
 * What only a fetching guest refuses: the codes it has no handler for
 * over a fetch (STORE and RETRIEVE need the server's own queue), and one
 * no kernel knows.
 */
static void test_bad_codes(void)
{
	expect("bad_code_store",
	       build_raw(FUSE_NOTIFY_STORE, 1, 0, 0, 0, 0, NULL, 0), -EINVAL);
	expect("bad_code_retrieve",
	       build_raw(FUSE_NOTIFY_RETRIEVE, 1, 0, 0, 0, 0, NULL, 0),
	       -EINVAL);
	expect("bad_code_unknown",
	       build_raw(0x7f0000ff, 1, 0, 0, 0, 0, NULL, 0), -EINVAL);
}

static void *crafter_main(void *arg)
{
	uint64_t f = 0;
	uint32_t fgen = 0;
	bool ok;

	(void)arg;
	ok = wait_node("f", &f, &fgen);
	check("guest_file", ok, "the guest's f never came");
	if (!ok || !test_masks(f, fgen))
		return NULL;
	test_bad_fsnotify(f, fgen);
	test_bad_codes();
	check("valid_after_bad", send_create("ok") == 0,
	      "a valid frame was refused");
	return NULL;
}

static void wake(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct fs_config fc = { .guest_callers = true, .max_inodes = 0 };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	struct sigaction sa = { .sa_handler = wake };
	struct fuse_session *se;
	pthread_t crafter;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: frame_server SOCKET DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fc.backing = argv[2];
	/* Names and attributes cached as by rnotifyfs -o cache=always. */
	fc.entry_timeout = fc.attr_timeout = 86400;
	fc.entry_coherent = fc.attr_coherent = 86400;
	fs = fs_new(&fc);
	sio = fs ? session_io_new(true, FUSE_HAS_FETCH_NOTIFY) : NULL;
	vio = sio ? vhost_io_accept(argv[1], -1) : NULL;
	if (!vio) {
		perror("frame_server");
		return 1;
	}
	fs_passthrough_want(fs, false);
	se = fuse_session_new(&args, fs_ops(), sizeof(*fs_ops()), fs);
	if (!se)
		return 1;
	fs_set_session(fs, se);
	if (vhost_io_start(vio, se, fs, sio) || session_io_serve_init(sio, se)) {
		fprintf(stderr, "frame_server: no session\n");
		return 1;
	}
	check("fetch_negotiated", session_io_active(sio),
	      "the guest did not take the extension at INIT");
	if (pthread_create(&crafter, NULL, crafter_main, NULL))
		return 1;
	ret = serve_loop_run(se, MAX_WORKERS, NULL);
	serving = false;
	vhost_io_stop(vio);
	pthread_join(crafter, NULL);
	fs_set_session(fs, NULL);
	fuse_session_destroy(se);
	vhost_io_free(vio);
	session_io_free(sio);
	fs_destroy(fs);
	return ret || failures ? 1 : 0;
}
