// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fuse_log.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deliver/proto/proto.h"
#include "deliver/replay/replay.h"
#include "delivery.h"
#include "event_pump.h"
#include "fs/remote.h"
#include "session/session_io.h"
#include "watch/watch.h"

struct delivery {
	struct watch *watch;
	struct event_queue *queue;
	struct event_pump *pump;
	struct replay *replay;
	struct proto_send *send;
	struct fs *fs;
	struct fs *hooked;	/* whose change hook points at watch */
	struct delivery_config cfg;
	struct session_io *sio;	/* the session's, from the start */
	struct event_sink backend;	/* what the pump feeds, through ours */
};

static bool resolve_dir(void *arg, const void *handle, size_t len, int type,
			struct rn_id *id)
{
	return fs_resolve_dir_handle(arg, handle, len, type, id);
}

static int held_object(void *arg, const void *handle, size_t len, int type,
		       struct rn_id *id)
{
	return fs_held_handle(arg, handle, len, type, id);
}

static void own_change(void *arg, const struct rn_id *id, const char *name,
		       unsigned int kinds, bool ended, const struct stat *after)
{
	watch_own_change(arg, id, name, kinds, ended, after);
}

/* Replay reaches directories by file handle: open_by_handle_at(). */
static bool can_replay(void)
{
	return geteuid() == 0;
}

static void send_free(struct delivery *d)
{
	struct proto_send_stats st;

	proto_send_free(d->send, &st);
	if (d->cfg.debug)
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: notified %lu, skipped %lu, failed %lu, lookups %lu, directories looked up %lu, overflows %lu, by name %lu (sent again with the entry %lu), new entries refused by name %lu\n",
			 st.events, st.skipped, st.failed, st.lookups,
			 st.dirs_held, st.overflows, st.by_name,
			 st.with_entry, st.new_refused);
}

/*
 * What the host's fanotify queue may hold unread while the replay queue is
 * full (FIONREAD bytes: about 100 a short event, a little more in kernel
 * memory, charged to our cgroup): some 650,000 events, as many again as
 * the default queue=N holds.
 */
#define HOST_UNREAD_MAX ((size_t)64 << 20)

static void delivery_free(struct delivery *d)
{
	struct replay_stats st;

	/* The thread replaying when told to stop ends after its event. */
	replay_abandon(d->replay);
	event_pump_stop(d->pump);
	if (d->send)
		send_free(d);
	if (d->replay) {
		replay_stop(d->replay, &st);
		if (st.abandoned)
			fuse_log(FUSE_LOG_INFO,
				 "rnotifyfs: stopping: %lu remote events read and left unreplayed (the mount goes)\n",
				 st.abandoned);
		if (d->cfg.debug)
			fuse_log(FUSE_LOG_INFO,
				 "rnotifyfs: replayed %lu, skipped %lu, failed %lu, overflows %lu, backlogs on one CPU %lu, without an agent %lu\n",
				 st.replayed, st.skipped, st.failed,
				 st.overflows, st.held, st.unreached);
	}
	/* FUSE handlers still run: none may call into a closed watch. */
	if (d->hooked)
		fs_set_change_hook(d->hooked, NULL, NULL);
	watch_close(d->watch);
	event_queue_free(d->queue);
	free(d);
}

/*
 * Replay: the pump's threads fill a queue and take turns draining it, so
 * that one reads the host while the other replays. 0, or a negative errno.
 */
static int replay_backend(struct delivery *d, struct cpu_pin *pin,
			  bool private_mounts, struct event_sink *sink)
{
	struct replay_config rc = {
		.fs = d->fs,
		.mountpoint = d->cfg.mountpoint,
		.sys = d->cfg.replay_sys,
		.sys_arg = d->cfg.replay_sys_arg,
		.no_notify = d->cfg.no_notify,
		.pin = pin,
		.private_mounts = private_mounts,
		.session = d->sio,
	};

	d->queue = event_queue_new(d->cfg.queue_size);
	if (!d->queue)
		return -errno;
	/* A burst past the queue then waits in the host's, and is not lost. */
	if (watch_keeps_unread(d->watch))
		event_queue_wait_for_room(d->queue, watch_fd(d->watch),
					  HOST_UNREAD_MAX);
	rc.queue = d->queue;
	d->replay = replay_new(&rc);
	if (!d->replay)
		return -errno;
	/* It acts on held files' link counts only: link_count_changed(). */
	watch_link_counts(d->watch, held_object, d->fs);
	*sink = (struct event_sink){
		.event = replay_queue_event,
		.drained = replay_drained,
		.thread_init = replay_thread_init,
		.arg = d->replay,
	};
	return 0;
}

/* Protocol: the pump thread sends each event itself. 0, or a negative errno. */
static int protocol_backend(struct delivery *d, int fuse_fd,
			    bool private_mounts, struct event_sink *sink)
{
	struct proto_send_config pc = {
		.fs = d->fs,
		.watches = session_io_watches(d->sio),
		.fuse_fd = fuse_fd,
		.mountpoint = d->cfg.mountpoint,
		.private_mounts = private_mounts,
		.session = d->sio,
		.notify = d->cfg.notify,
		.notify_ctx = d->cfg.notify_ctx,
	};

	/*
	 * proto_events.c names a created or deleted object by its directory
	 * and name (a new one is pushed, if at all, by the gen of its handle:
	 * fs_entry_push()), and reads other objects' ids only to find the
	 * node the kernel holds: one it does not hold needs no id, and is
	 * pushed by that gen too.
	 */
	pc.link_counts = watch_objects(d->watch, RN_EV_BIT(RN_EV_CREATE) |
				       RN_EV_BIT(RN_EV_DELETE), held_object,
				       d->fs);
	d->send = proto_send_new(&pc);
	if (!d->send)
		return -errno;
	*sink = (struct event_sink){
		.event = proto_send_event,
		.drained = proto_send_drained,
		.arg = d->send,
	};
	return 0;
}

/*
 * The host watcher first: its limits are the user's (fs.fanotify.*,
 * fs.inotify.*), so a refusal is said before anything is mounted. 0, or
 * a negative errno after watch_open() said why.
 */
static int delivery_watch(struct delivery *d)
{
	struct watch_config wc = {
		.backing_fd = fs_backing_fd(d->fs),
		.backend = d->cfg.watch_backend,
		.resolve = resolve_dir,
		.resolve_arg = d->fs,
	};

	d->watch = watch_open(&wc);
	if (!d->watch)
		return -errno;
	if (!strcmp(watch_backend_name(d->watch), "inotify")) {
		fs_set_change_hook(d->fs, own_change, d->watch);
		d->hooked = d->fs;
	}
	return 0;
}

bool delivery_allows_passthrough(const struct delivery *d)
{
	return !d || d->hooked == NULL;
}

/*
 * A link to a file the client holds was made or removed, perhaps outside
 * the export, where the scope drops the events of that name: its link
 * count and attributes go (files with several links keep their
 * attributes for attr_timeout only, fs/cache_policy.c). Replay makes no
 * event of it, as before: the host reports it to the file's own marks
 * only, and a replayed ATTRIB would reach its directory's watchers too.
 */
static void link_count_changed(struct delivery *d, const struct rn_event *ev)
{
	uint64_t node;
	uint32_t gen;

	if (fs_node_of(d->fs, &ev->obj, &node, &gen))
		fs_inval_inode(d->fs, node);
}

/*
 * The kernel's close of a backing file it opened for a writer on the
 * mount is not a remote change (fs/passthrough.h). A directory moved out
 * of the export is out of the client's reach before it hears of it.
 */
static void sink_event(void *arg, const struct rn_event *ev)
{
	struct delivery *d = arg;

	if (ev->kind == RN_EV_DELETE && ev->moved && ev->isdir)
		fs_boundary_moved(d->fs);
	if (ev->kind == RN_EV_CLOSE_WRITE &&
	    fs_passthrough_backing_close(d->fs, &ev->obj))
		return;
	if (ev->link_count && d->replay) {
		link_count_changed(d, ev);
		return;
	}
	d->backend.event(d->backend.arg, ev);
}

static void sink_drained(void *arg)
{
	struct delivery *d = arg;

	if (d->backend.drained)
		d->backend.drained(d->backend.arg);
}

static int sink_thread_init(void *arg)
{
	struct delivery *d = arg;

	return d->backend.thread_init ?
	       d->backend.thread_init(d->backend.arg) : 0;
}

/* The backend, then the pump that feeds it: 0, or a negative errno. */
static int delivery_chain(struct delivery *d, int fuse_fd,
			  struct cpu_pin *pin, bool private_mounts)
{
	struct event_sink sink = {
		.event = sink_event,
		.drained = sink_drained,
		.thread_init = sink_thread_init,
		.arg = d,
	};
	int ret;

	/* The kernel's protocol when it was negotiated at INIT. */
	ret = d->sio && session_io_active(d->sio) ?
	      protocol_backend(d, fuse_fd, private_mounts, &d->backend) :
	      replay_backend(d, pin, private_mounts, &d->backend);
	if (ret)
		return ret;
	fs_passthrough_closes_taken(d->fs);
	d->pump = event_pump_start(d->watch, &sink,
				   d->replay ? EVENT_PUMP_MAX_THREADS : 1);
	return d->pump ? 0 : -errno;
}

/* Why delivery cannot run as asked, or NULL if it can. */
static const char *delivery_refused(const struct delivery_config *cfg,
				    const struct session_io *sio)
{
	if (cfg->replay_sys)
		return NULL;	/* the guest's agent replays, as guest root */
	if (!cfg->mountpoint && !session_io_active(sio))
		return "the virtiofs guest did not take remote fsnotify with notification fetching (its kernel needs the kernel/ series)";
	if (cfg->mode == DELIVERY_PROTOCOL && !session_io_active(sio))
		return session_io_offered(sio) ?
		       "the kernel offered remote fsnotify but it was not accepted" :
		       "delivery=protocol: this kernel does not offer remote fsnotify (it needs the kernel/ series)";
	if (!session_io_active(sio) && !can_replay())
		return "remote change delivery needs root (open_by_handle_at) unless the kernel speaks the protocol";
	return NULL;
}

struct delivery *delivery_new(const struct delivery_config *cfg,
			      struct fs *fs, bool *fatal)
{
	struct delivery *d;

	*fatal = false;
	if (cfg->mode == DELIVERY_NONE)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: cannot start delivery: %s\n",
			 strerror(errno));
		*fatal = true;
		return NULL;
	}
	d->cfg = *cfg;
	d->fs = fs;
	/* watch_open() logged why. */
	if (delivery_watch(d) < 0) {
		delivery_free(d);
		*fatal = true;
		return NULL;
	}
	return d;
}

struct delivery *delivery_start(struct delivery *d, struct session_io *sio,
				int fuse_fd, struct cpu_pin *pin,
				bool private_mounts, bool *fatal)
{
	const char *why;
	bool all;
	int ret;

	*fatal = false;
	if (!d)
		return NULL;
	d->sio = sio;
	why = delivery_refused(&d->cfg, sio);
	if (why) {
		*fatal = d->cfg.mode != DELIVERY_AUTO;
		fuse_log(*fatal ? FUSE_LOG_ERR : FUSE_LOG_WARNING,
			 "rnotifyfs: %s%s\n", why,
			 *fatal ? "" : "; serving without delivery");
		delivery_free(d);
		return NULL;
	}
	ret = delivery_chain(d, fuse_fd, pin, private_mounts);
	if (ret < 0) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: cannot start delivery: %s\n",
			 strerror(-ret));
		delivery_free(d);
		*fatal = true;
		return NULL;
	}
	all = watch_sees_all(d->watch, fs_backing_fd(d->fs), &why);
	fs_cache_coherent(d->fs, all, why);
	fuse_log(FUSE_LOG_INFO, "rnotifyfs: watch: %s; delivery: %s\n",
		 watch_describe(d->watch), d->send ? "protocol" : "replay");
	return d;
}

void delivery_stop(struct delivery *d)
{
	if (d)
		delivery_free(d);
}
