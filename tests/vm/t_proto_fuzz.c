// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * t_proto_fuzz - FUSE_NOTIFY_FSNOTIFY frames at random, for FUZZ_SECONDS,
 * against a mount with nodes the kernel holds (files and directories),
 * an inotify watch, a fanotify filesystem mark reporting fids and a
 * dnotify watch.  Frames are built near the valid ones, where the parser
 * has the most to decide: nodeids and generations mostly real, masks
 * mostly of known bits, names short, sometimes with '/', NUL or "..",
 * entries and rename parts present or not, and the length off by a few
 * bytes now and then.  The kernel must neither crash nor warn (the
 * harness reads the console), must still serve the mount, and must
 * still deliver a valid remote event afterwards.  The seed is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/check.h"
#include "rnotify_proto.h"
#include "vmfs.h"
#include "vmwatch.h"

CHECK_MAIN_DEFS;

#define MNT "/mnt/proto_fuzz"
#define FUZZ_SECONDS 8
#define NFILES 16
#define NDIRS 4

static unsigned char frame[4096];
static uint64_t node[NFILES + NDIRS + 1], gen[NFILES + NDIRS + 1];
static unsigned int nnodes;
static int in, fan;

static const uint32_t event_bits[] = {
	FUSE_FSNOTIFY_MODIFY, FUSE_FSNOTIFY_ATTRIB, FUSE_FSNOTIFY_CLOSE_WRITE,
	FUSE_FSNOTIFY_MOVED_FROM, FUSE_FSNOTIFY_MOVED_TO, FUSE_FSNOTIFY_CREATE,
	FUSE_FSNOTIFY_DELETE, FUSE_FSNOTIFY_DELETE_SELF,
	FUSE_FSNOTIFY_MOVE_SELF, FUSE_FSNOTIFY_ISDIR, FUSE_FSNOTIFY_RENAME,
	FUSE_FSNOTIFY_Q_OVERFLOW, FUSE_FSNOTIFY_ACCESS, FUSE_FSNOTIFY_OPEN,
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)random() % n;
}

static void pick_node(uint64_t *id, uint64_t *g)
{
	unsigned int i = pick(nnodes);

	*id = node[i];
	*g = gen[i];
	switch (pick(16)) {
	case 0:
		*g = random();
		break;
	case 1:
		*id = ((uint64_t)random() << 32) | random();
		break;
	case 2:
		*id = pick(4);
		break;
	}
}

static uint32_t pick_mask(void)
{
	uint32_t mask = 0;
	unsigned int i, n = 1 + pick(3);

	if (!pick(16))
		return random();
	for (i = 0; i < n; i++)
		mask |= event_bits[pick(sizeof(event_bits) /
					sizeof(event_bits[0]))];
	return mask;
}

static size_t put_name(size_t at, uint32_t *len)
{
	static const char alphabet[] = "ab.f0/\0\xff";
	uint32_t i, n = pick(4) ? pick(6) : pick(300);

	if (at + n > sizeof(frame))
		n = sizeof(frame) - at;
	for (i = 0; i < n; i++)
		frame[at + i] = pick(8) ? (unsigned char)('a' + pick(3)) :
				(unsigned char)alphabet[pick(sizeof(alphabet) - 1)];
	if (n == 2 && !pick(4))
		memcpy(frame + at, "..", 2);
	*len = n;
	return at + n;
}

static size_t put_entry(size_t at)
{
	struct fuse_entry_out e = { 0 };
	uint64_t g;

	pick_node(&e.nodeid, &g);
	if (!pick(4))
		e.nodeid = 1000 + pick(64);	/* a node vmfs never made */
	e.generation = g;
	e.entry_valid = pick(2) ? 60 : 0;
	e.attr_valid = pick(2) ? 60 : 0;
	e.attr.ino = e.nodeid;
	e.attr.mode = pick(2) ? S_IFREG | 0644 : S_IFDIR | 0755;
	if (!pick(8))
		e.attr.mode = random();
	e.attr.nlink = pick(3);
	e.attr.size = pick(16) ? pick(1 << 20) : (uint64_t)-1;
	if (at + sizeof(e) > sizeof(frame))
		return at;
	memcpy(frame + at, &e, sizeof(e));
	return at + sizeof(e);
}

/* One random frame into frame; its length. */
static size_t build(void)
{
	struct fuse_out_header oh = { .error = FUSE_NOTIFY_FSNOTIFY };
	struct fuse_notify_fsnotify_out out = { 0 };
	struct fuse_fsnotify_rename_out rn = { 0 };
	size_t at = sizeof(oh) + sizeof(out);
	int change;

	pick_node(&out.nodeid, &out.generation);
	out.mask = pick_mask();
	out.cookie = pick(3) ? 0 : 1 + pick(4);
	out.flags = pick(4) ? 0 : pick(5);
	if (pick(3))
		at = put_name(at, &out.namelen);
	if (out.mask & FUSE_FSNOTIFY_RENAME && pick(4)) {
		pick_node(&rn.newdir, &rn.newdir_generation);
		memcpy(frame + at, &rn, sizeof(rn));
		at = put_name(at + sizeof(rn), &rn.namelen);
		memcpy(frame + at - rn.namelen - sizeof(rn), &rn, sizeof(rn));
	}
	if (pick(2))
		at = put_entry(at);
	if (!pick(8))
		out.namelen += pick(2) ? 1 : -1;
	change = pick(8) ? 0 : (int)pick(9) - 4;
	if ((int)at + change >= (int)sizeof(oh))
		at += change;
	oh.len = at;
	memcpy(frame, &oh, sizeof(oh));
	memcpy(frame + sizeof(oh), &out, sizeof(out));
	return at;
}

/* Keep the watchers' queues from filling: read what is there. */
static void drain(int fd)
{
	char buf[8192];

	while (poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0) == 1
	       && read(fd, buf, sizeof(buf)) > 0)
		;
}

static bool make_nodes(void)
{
	char name[16];
	unsigned int i;
	bool ok = true;

	node[0] = 1;
	gen[0] = 0;
	nnodes = 1;
	for (i = 0; i < NFILES + NDIRS; i++) {
		snprintf(name, sizeof(name), "%c%u", i < NDIRS ? 'd' : 'f', i);
		ok = ok && !vmfs_remote_create(1, name, i < NDIRS ?
					       S_IFDIR | 0755 : S_IFREG | 0644,
					       &node[nnodes]);
		ok = ok && !vmfs_send_push(1, 0, FUSE_FSNOTIFY_ATTRIB |
					   (i < NDIRS ? FUSE_FSNOTIFY_ISDIR : 0),
					   name);
		ok = ok && !vmfs_node(1, name, &node[nnodes], &gen[nnodes]);
		nnodes++;
	}
	return ok;
}

int main(void)
{
	struct vmfs_opts opts = { .fsnotify = true, .export_support = true };
	unsigned int seed = time(NULL), frames = 0, accepted = 0, refused = 0;
	long end;
	struct stat st;
	uint64_t id;
	int dir;

	/*
	 * Before vmfs's thread starts, so that it blocks dnotify's signal too;
	 * once too many are queued, dnotify sends SIGIO instead.
	 */
	CHECK("fuzz: dnotify signal blocked", vm_dnotify_block() == 0);
	signal(SIGIO, SIG_IGN);
	mkdir(MNT, 0755);
	if (vmfs_start(MNT, &opts)) {
		CHECK("fuzz: mount vmfs", 0);
		return check_exit();
	}
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME |
			    FAN_REPORT_FID | FAN_NONBLOCK, O_RDONLY);
	CHECK("fuzz: protocol on", vmfs_fsnotify_on());
	CHECK("fuzz: nodes in core", make_nodes());
	CHECK("fuzz: inotify watch on the root",
	      inotify_add_watch(in, MNT, IN_ALL_EVENTS) >= 0);
	CHECK("fuzz: inotify watch on d0",
	      inotify_add_watch(in, MNT "/d0", IN_ALL_EVENTS) >= 0);
	CHECK("fuzz: fanotify filesystem mark",
	      fanotify_mark(fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM |
			    FAN_MARK_REMOTE,
			    FAN_CREATE | FAN_DELETE | FAN_MOVE | FAN_RENAME |
			    FAN_ATTRIB | FAN_MODIFY | FAN_ONDIR, AT_FDCWD,
			    MNT) == 0);
	dir = open(MNT, O_RDONLY | O_DIRECTORY);
	CHECK("fuzz: dnotify on the root", dir >= 0 &&
	      vm_dnotify_arm(dir, DN_CREATE | DN_DELETE | DN_RENAME |
			     DN_MODIFY | DN_ATTRIB) == 0);

	printf("# fuzz seed %u\n", seed);
	fflush(stdout);
	srandom(seed);
	end = now_ms() + FUZZ_SECONDS * 1000;
	while (now_ms() < end) {
		if (vmfs_write_frame(frame, build()) == 0)
			accepted++;
		else
			refused++;
		frames++;
		if (!(frames % 64)) {
			drain(in);
			drain(fan);
		}
	}
	printf("# fuzz: %u frames in %d s, %u accepted, %u refused\n",
	       frames, FUZZ_SECONDS, accepted, refused);
	CHECK("fuzz: frames written", frames > 0);
	CHECK("fuzz: some accepted, some refused", accepted && refused);
	drain(in);
	drain(fan);
	CHECK("fuzz: the mount still answers", stat(MNT, &st) == 0);
	/* A fresh watch: a random DELETE_SELF may have ended the others */
	close(in);
	in = inotify_init1(IN_CLOEXEC);
	CHECK("fuzz: a new inotify watch on the root",
	      inotify_add_watch(in, MNT, IN_CREATE) >= 0);
	CHECK("fuzz: remote create after the fuzz",
	      !vmfs_remote_create(1, "after", S_IFREG | 0644, &id) &&
	      !vmfs_send_event(1, 0, FUSE_FSNOTIFY_CREATE, 0, "after"));
	CHECK("fuzz: inotify: its CREATE arrives",
	      vm_inotify_expect(in, IN_CREATE, "after", NULL));
	close(dir);
	close(in);
	close(fan);
	vmfs_stop();
	return check_exit();
}
