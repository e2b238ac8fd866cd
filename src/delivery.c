// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fuse_log.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deliver/replay.h"
#include "delivery.h"
#include "event_pump.h"
#include "watch/watch.h"

struct delivery {
	struct watch *watch;
	struct event_queue *queue;
	struct event_pump *pump;
	struct replay *replay;
	bool debug;
};

static bool resolve_dir(void *arg, const void *handle, size_t len, int type,
			struct rn_id *id)
{
	return fs_resolve_dir_handle(arg, handle, len, type, id);
}

static void own_change(void *arg, const struct rn_id *id, const char *name,
		       unsigned int kinds, bool ended)
{
	watch_own_change(arg, id, name, kinds, ended);
}

/* Replay reaches directories by file handle: open_by_handle_at(). */
static bool can_replay(void)
{
	return geteuid() == 0;
}

static void delivery_free(struct delivery *d)
{
	struct replay_stats st;

	event_pump_stop(d->pump);
	if (!d->pump && d->queue)
		event_queue_close(d->queue);
	if (d->replay) {
		replay_stop(d->replay, &st);
		if (d->debug)
			fuse_log(FUSE_LOG_INFO,
				 "rnotifyfs: replayed %lu, skipped %lu, failed %lu, overflows %lu\n",
				 st.replayed, st.skipped, st.failed,
				 st.overflows);
	}
	watch_close(d->watch);
	event_queue_free(d->queue);
	free(d);
}

static int delivery_chain(struct delivery *d, const struct cli *cli,
			  struct fs *fs)
{
	struct watch_config wc = {
		.backing_fd = fs_backing_fd(fs),
		.backend = cli->watch_backend,
		.resolve = resolve_dir,
		.resolve_arg = fs,
	};

	d->watch = watch_open(&wc);
	if (!d->watch)
		return -1;
	if (!strcmp(watch_backend_name(d->watch), "inotify"))
		fs_set_change_hook(fs, own_change, d->watch);
	d->queue = event_queue_new(cli->queue_size);
	if (!d->queue)
		return -1;
	d->replay = replay_new(fs, d->queue, cli->mountpoint);
	if (!d->replay || replay_start(d->replay))
		return -1;
	d->pump = event_pump_start(d->watch, d->queue);
	return d->pump ? 0 : -1;
}

struct delivery *delivery_start(const struct cli *cli, struct fs *fs,
				bool *fatal)
{
	struct delivery *d;

	*fatal = false;
	if (cli->delivery == CLI_DELIVERY_NONE)
		return NULL;
	if (!can_replay()) {
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: remote change delivery needs root (open_by_handle_at); serving without it\n");
		*fatal = cli->delivery == CLI_DELIVERY_REPLAY;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		*fatal = true;
		return NULL;
	}
	d->debug = cli->debug;
	if (delivery_chain(d, cli, fs)) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: cannot start delivery: %s\n",
			 strerror(errno));
		delivery_free(d);
		*fatal = true;
		return NULL;
	}
	fuse_log(FUSE_LOG_DEBUG, "rnotifyfs: delivery: replay, watch: %s\n",
		 watch_backend_name(d->watch));
	return d;
}

void delivery_stop(struct delivery *d)
{
	if (d)
		delivery_free(d);
}
