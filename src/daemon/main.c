// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnotifyfs: exports a backing directory over FUSE and delivers changes
 * made to it from outside the mount to inotify/fanotify watchers on the
 * mount. This file wires the parts together and owns the process's life:
 * parse, mount, daemonize, serve, and on SIGINT/SIGTERM/SIGHUP stop the
 * delivery chain while the session still serves it, then unmount. In
 * virtiofs mode (--socket-path) nothing is mounted: the session serves a
 * VM guest through the vhost-user transport until its VMM disconnects.
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "util/cpu_pin.h"
#include "deliver/delivery.h"
#include "util/log_out.h"
#include "util/remote_events.h"
#include "mount_gone.h"
#include "fs/fs.h"
#include "fs/remote.h"
#include "session/session_io.h"
#include "session/serve_loop.h"
#include "session/vhost_io.h"
#include "agent/agent.h"
#include "deliver/agent/agent_link.h"
#include "rnotify_proto.h"
#include "watchdog.h"

struct server {
	struct cli cli;
	struct fs *fs;
	struct fuse_session *se;
	struct delivery *delivery;
	struct session_io *sio;
	bool private_mounts;	/* the mount table is watched */
	struct cpu_pin pin;	/* the threads that answer requests */
	sigset_t stop_signals;
	pthread_t stopper;
	pthread_t loop_thread;
	struct watchdog *watchdog;
	struct vhost_io *vio;	/* virtiofs mode's transport, once started */
	/* virtiofs mode: se changes with each mount of the guest's. */
	pthread_mutex_t se_lock;	/* se, stopping; the stopper's */
	bool stopping;
	struct fuse_session *retired;	/* the guest's mount before se's */
};

/*
 * The file system holds one O_PATH fd per inode the kernel knows, so a
 * large tree exhausts the usual soft limit of 1024 (and even 20000): take
 * as many as the system allows (root may raise the hard limit up to
 * fs.nr_open), as libfuse's passthrough_hp does.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	unsigned long nr_open = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (nr_open > rl.rlim_max) {
		struct rlimit want = { nr_open, nr_open };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			return;
	}
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/* Workers answering requests at once, at most (libfuse's default). */
#define SERVE_MAX_WORKERS 10
static_assert(SERVE_MAX_WORKERS < CPU_PIN_MEMBERS, "a worker left unheld");

/* Only interrupts the loop's wait, so that it sees the session has exited. */
static void wake_handler(int sig)
{
	(void)sig;
}

/*
 * Waits for a stop signal (or the one main sends once the session has
 * ended by itself), stops delivery while the loop can still answer the
 * replayer, then ends the loop: the session is marked exited and the loop
 * thread's wait is interrupted by SIGUSR1 (no SA_RESTART).
 */
static void *stopper_main(void *arg)
{
	struct server *s = arg;
	int sig;

	sigwait(&s->stop_signals, &sig);
	delivery_stop(s->delivery);
	s->delivery = NULL;
	fs_stop_shedding(s->fs);
	fuse_session_exit(s->se);
	pthread_kill(s->loop_thread, SIGUSR1);
	return NULL;
}

/*
 * A worker is stuck in a request on a backing store that stopped
 * answering: waiting could take forever, and freeing the session under it
 * would crash. Detach the mount and end the process: the kernel then
 * fails the stuck request with ENOTCONN, and the watchdog, not released,
 * aborts the connection.
 */
static void leave_stuck(struct server *s)
{
	fuse_log(FUSE_LOG_ERR,
		 "rnotifyfs: a request still waits for the backing store 2 s after the stop: exiting without its answer\n");
	fuse_session_unmount(s->se);
	_exit(1);
}

/* The session's loop on this thread (-s), or on up to workers threads. */
static int run_loop(struct server *s, unsigned int workers)
{
	int ret;

	if (!s->cli.singlethread)
		return serve_loop_run(s->se, workers, &s->pin);
	cpu_pin_join(&s->pin);
	ret = fuse_session_loop(s->se);
	cpu_pin_leave(&s->pin);
	return ret;
}

static int serve_session(struct server *s)
{
	struct sigaction wake = { .sa_handler = wake_handler };
	bool fatal;
	int ret;

	sigaction(SIGUSR1, &wake, NULL);
	s->loop_thread = pthread_self();
	/* Delivery's mode depends on what INIT negotiated. */
	if (session_io_serve_init(s->sio, s->se)) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: no INIT from the kernel\n");
		return 1;
	}
	s->delivery = delivery_start(s->delivery, s->sio,
				     fuse_session_fd(s->se), &s->pin,
				     s->private_mounts, &fatal);
	if (fatal)
		return 1;
	if (pthread_create(&s->stopper, NULL, stopper_main, s)) {
		delivery_stop(s->delivery);
		s->delivery = NULL;
		return 1;
	}
	ret = run_loop(s, SERVE_MAX_WORKERS);
	pthread_kill(s->stopper, SIGTERM);
	pthread_join(s->stopper, NULL);
	if (ret == SERVE_LOOP_STUCK)
		leave_stuck(s);
	return ret ? 1 : 0;
}

/* Delivery requests its own mount: a watchdog covers a sudden death. */
static int serve(struct server *s)
{
	int ret;

	if (s->cli.delivery != DELIVERY_NONE) {
		s->watchdog = watchdog_start(s->cli.mountpoint,
					     !s->cli.foreground);
		if (!s->watchdog)
			fuse_log(FUSE_LOG_WARNING,
				 "rnotifyfs: no watchdog (%s): if the server is killed while delivering, abort the connection by hand\n",
				 strerror(errno));
	}
	ret = serve_session(s);
	watchdog_release(s->watchdog);
	return ret;
}

/* How long the kernel may take to end the connection after users unmount. */
#define CONNECTION_END_MS 2000

/*
 * Users unmounted it, and the threads that held our copies of the mount
 * have ended: the kernel ends the connection once those copies are gone.
 * Then fuse_session_unmount() only frees what it holds, and leaves alone
 * the mount point, which may be someone else's by now.
 */
static bool connection_ended(struct fuse_session *se)
{
	struct pollfd p = { .fd = fuse_session_fd(se) };

	if (poll(&p, 1, CONNECTION_END_MS) == 1 && (p.revents & POLLERR))
		return true;
	fuse_log(FUSE_LOG_ERR,
		 "rnotifyfs: the connection still lives %d ms after the unmount\n",
		 CONNECTION_END_MS);
	return false;
}

/*
 * Something was mounted or unmounted below BACKING: the host watch saw
 * nothing of it, and a directory the client keeps may now show another.
 */
static void mounts_below_changed(void *arg)
{
	struct server *s = arg;

	fuse_log(FUSE_LOG_INFO,
		 "rnotifyfs: mounts below %s changed: the kernel's caches are dropped\n",
		 s->cli.backing);
	fs_cache_drop_all(s->fs);
}

/*
 * A kernel with the series gives the protocol's events to inotify and
 * dnotify watchers only if the administrator said so (the sysctl; libfuse
 * cannot pass the mount option): auto takes the protocol then, or when
 * replay, whose events reach every watcher, cannot run (not root).
 */
static bool wants_protocol(const struct cli *cli)
{
	if (cli->delivery == DELIVERY_PROTOCOL) {
		if (remote_events_for_inotify() == 0)
			fuse_log(FUSE_LOG_WARNING,
				 "rnotifyfs: inotify and dnotify watchers of the mount get no remote events: %s is 0 (fanotify marks need FAN_MARK_REMOTE)\n",
				 REMOTE_EVENTS_SYSCTL);
		return true;
	}
	return cli->delivery == DELIVERY_AUTO &&
	       (geteuid() != 0 || remote_events_for_inotify() != 0);
}

static int mount_and_serve(struct server *s)
{
	struct agent_link *link = NULL;
	struct mount_gone *gone;
	struct fs_config fc = {
		.backing = s->cli.backing,
		.entry_timeout = s->cli.entry_timeout,
		.attr_timeout = s->cli.attr_timeout,
		.entry_coherent = s->cli.entry_coherent,
		.attr_coherent = s->cli.attr_coherent,
		.max_inodes = s->cli.max_inodes,
		.debug = s->cli.debug,
	};
	struct delivery_config dc = {
		.mode = s->cli.delivery,
		.watch_backend = s->cli.watch_backend,
		.mountpoint = s->cli.mountpoint,
		.queue_size = s->cli.queue_size,
		.debug = s->cli.debug,
	};
	bool fatal;
	int ret = 1, err;

	s->fs = fs_new(&fc);
	if (!s->fs) {
		fprintf(stderr, "rnotifyfs: %s: %s\n", s->cli.backing,
			strerror(errno));
		return 1;
	}
	if (s->cli.agent_socket) {
		link = agent_link_new(s->cli.agent_socket);
		if (!link) {
			fprintf(stderr, "rnotifyfs: agent_socket=%s: %s\n",
				s->cli.agent_socket, strerror(errno));
			goto out_fs;
		}
		dc.replay_sys = &agent_link_sys;
		dc.replay_sys_arg = link;
	}
	s->delivery = delivery_new(&dc, s->fs, &fatal);
	if (fatal)
		goto out_fs;
	fs_passthrough_want(s->fs, s->cli.passthrough &&
			    delivery_allows_passthrough(s->delivery));
	s->se = fuse_session_new(&s->cli.args, fs_ops(), sizeof(*fs_ops()),
				 s->fs);
	if (!s->se)
		goto out_fs;
	fs_set_session(s->fs, s->se);
	if (fuse_session_mount(s->se, s->cli.mountpoint))
		goto out_session;
	s->sio = session_io_install(s->se, s->fs, wants_protocol(&s->cli));
	if (!s->sio)
		goto out_unmount;
	if (fuse_daemonize(s->cli.foreground))
		goto out_unmount;
	if (!s->cli.foreground)
		log_out_syslog();
	err = link ? agent_link_start(link) : 0;
	if (err) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: agent_socket=%s: %s\n",
			 s->cli.agent_socket, strerror(-err));
		goto out_unmount;
	}
	/* Threads inherit the mask: only the stopper takes these signals. */
	pthread_sigmask(SIG_BLOCK, &s->stop_signals, NULL);
	gone = mount_gone_start(s->cli.mountpoint);
	mount_gone_below(gone, s->cli.backing, mounts_below_changed, s);
	s->private_mounts = gone != NULL;
	if (!gone)
		fuse_log(FUSE_LOG_WARNING,
			 "rnotifyfs: cannot watch the mount table (%s): umount fails while a remote change is replayed or a remote writer holds a file open\n",
			 strerror(errno));
	ret = serve(s);
	if (mount_gone_stop(gone) && !connection_ended(s->se))
		goto out_session;
out_unmount:
	fuse_session_unmount(s->se);
out_session:
	fs_set_session(s->fs, NULL);
	fuse_session_destroy(s->se);
out_fs:
	/* Left when delivery never started. */
	delivery_stop(s->delivery);
	agent_link_free(link);
	fs_destroy(s->fs);
	session_io_free(s->sio);
	return ret;
}

/*
 * virtiofs mode's stopper: ends the loop only. Delivery is stopped once
 * the loop has ended (vhost_serve()): it makes no request through a
 * mount, and it may not have started yet when a signal comes.
 */
static void *vhost_stopper_main(void *arg)
{
	struct server *s = arg;
	int sig;

	sigwait(&s->stop_signals, &sig);
	pthread_mutex_lock(&s->se_lock);
	s->stopping = true;
	fuse_session_exit(s->se);
	pthread_mutex_unlock(&s->se_lock);
	pthread_kill(s->loop_thread, SIGUSR1);
	return NULL;
}

/*
 * A session for one mount of the guest's: fuse_session_new() consumes
 * the options it parses, so each gets a copy of them.
 */
static struct fuse_session *vhost_session_new(struct server *s)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se = NULL;
	int i;

	for (i = 0; i < s->cli.args.argc; i++)
		if (fuse_opt_add_arg(&args, s->cli.args.argv[i]))
			goto out;
	se = fuse_session_new(&args, fs_ops(), sizeof(*fs_ops()), s->fs);
out:
	fuse_opt_free_args(&args);
	return se;
}

/* What the last session's kernel held is dropped: see fs.h. */
static void vhost_forget_last_kernel(struct server *s)
{
	unsigned long dirs;
	long nodes;

	if (fs_forget_last_kernel(s->fs, &nodes, &dirs))
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: a new session: out of memory: the last one's nodes stay until the server exits\n");
	else
		fuse_log(FUSE_LOG_INFO,
			 "rnotifyfs: a new session: the last one's kernel held %ld nodes and %lu open directories, dropped\n",
			 nodes, dirs);
}

/*
 * The guest unmounted, or rebooted: its next mount is a new session on
 * the same device, delivery and file system (virtiofsd's answer to a
 * second INIT). The old session is kept until the next one is replaced:
 * a delivery thread may still be inside a notification through it (fs
 * reads its session without a lock). 0, or 1 if the server stops.
 */
static int vhost_next_session(struct server *s)
{
	struct fuse_session *se = vhost_session_new(s);
	bool stopping;
	int err;

	if (!se)
		return 1;
	err = vhost_io_next_session(s->vio, se);
	if (err) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: a new session: %s\n",
			 strerror(-err));
		fuse_session_destroy(se);
		return 1;
	}
	if (s->retired)
		fuse_session_destroy(s->retired);
	pthread_mutex_lock(&s->se_lock);
	s->retired = s->se;
	s->se = se;
	stopping = s->stopping;
	pthread_mutex_unlock(&s->se_lock);
	fs_set_session(s->fs, se);
	vhost_forget_last_kernel(s);
	return stopping;
}

/*
 * Delivery to a guest whose kernel negotiated it at INIT (the first
 * request, read here): 0, or 1 if it was asked for and cannot run, or
 * the session ended first.
 */
static int vhost_start_delivery(struct server *s, struct delivery *d)
{
	bool fatal;

	if (session_io_serve_init(s->sio, s->se)) {
		delivery_stop(d);
		return fuse_session_exited(s->se) ? 0 : 1;
	}
	s->delivery = delivery_start(d, s->sio, -1, &s->pin, false, &fatal);
	return fatal ? 1 : 0;
}

/*
 * The session's loop with the stopper, for virtiofs mode: no mount to
 * watch, no watchdog (nothing of ours to abort).
 */
static int vhost_serve_session(struct server *s, struct delivery *d)
{
	struct sigaction wake = { .sa_handler = wake_handler };
	unsigned int workers = SERVE_MAX_WORKERS;
	int ret;

	sigaction(SIGUSR1, &wake, NULL);
	s->loop_thread = pthread_self();
	if (pthread_create(&s->stopper, NULL, vhost_stopper_main, s)) {
		delivery_stop(d);
		return 1;
	}
	if (vhost_start_delivery(s, d)) {
		fuse_session_exit(s->se);
		pthread_kill(s->stopper, SIGTERM);
		pthread_join(s->stopper, NULL);
		return 1;
	}
	if (s->cli.thread_pool > 0 &&
	    (unsigned int)s->cli.thread_pool < workers)
		workers = s->cli.thread_pool;
	do {
		ret = run_loop(s, workers);
	} while (!ret && vhost_io_guest_ended(s->vio) && !vhost_next_session(s));
	pthread_kill(s->stopper, SIGTERM);
	pthread_join(s->stopper, NULL);
	if (ret == SERVE_LOOP_STUCK) {
		fuse_log(FUSE_LOG_ERR,
			 "rnotifyfs: a request still waits for the backing store 2 s after the stop: exiting without its answer\n");
		_exit(1);
	}
	return ret ? 1 : 0;
}

/* Delivery's notifications in virtiofs mode: ctx is the server. */
static ssize_t vhost_notify_frame(void *ctx, const void *buf, size_t len)
{
	struct server *s = ctx;
	struct iovec iov = { (void *)buf, len };

	return vhost_io_notify(s->vio, &iov, 1);
}

/*
 * Remote changes in virtiofs mode: with -o agent_socket, replays made in
 * the guest by its agent (agent_link.h); else notifications a guest
 * kernel with the series fetches (vhost_notify_frame()). 0, or 1 after
 * saying why not.
 */
static int vhost_delivery_config(struct server *s, struct delivery_config *dc,
				 struct agent_link **link)
{
	int err;

	*link = NULL;
	dc->mode = s->cli.delivery;
	dc->watch_backend = s->cli.watch_backend;
	dc->queue_size = s->cli.queue_size;
	dc->debug = s->cli.debug;
	if (!s->cli.agent_socket) {
		dc->notify = vhost_notify_frame;
		dc->notify_ctx = s;
		return 0;
	}
	*link = agent_link_new(s->cli.agent_socket);
	err = *link ? agent_link_start(*link) : -errno;
	if (err) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: agent_socket=%s: %s\n",
			 s->cli.agent_socket, strerror(-err));
		agent_link_free(*link);
		*link = NULL;
		return 1;
	}
	dc->replay_sys = &agent_link_sys;
	dc->replay_sys_arg = *link;
	/* A stock guest: cache=none instead (cli_vhost.c). */
	dc->no_notify = true;
	return 0;
}

/*
 * In virtiofs mode the watchers are in the guest, whose kernel gives them
 * the fetched events or not by its own mount option and sysctl: this
 * host's sysctl and euid say nothing of them (unlike wants_protocol()'s),
 * so auto and protocol always offer the guest notification fetching.
 */
static bool vhost_wants_fetch(const struct cli *cli)
{
	return cli->delivery == DELIVERY_AUTO ||
	       cli->delivery == DELIVERY_PROTOCOL;
}

/*
 * virtiofs mode: the file system of the /dev/fuse mode, served to a VM
 * guest over vhost-user. Every guest user is a caller like any other
 * (fs/caller.h), with the ids the request carries and no supplementary
 * groups: a guest's pid means nothing on this host, but to the gate,
 * which knows the guest's agent by it (agent_link.h).
 */
static int vhost_serve(struct server *s)
{
	struct fs_config fc = {
		.backing = s->cli.backing,
		.entry_timeout = s->cli.entry_timeout,
		.attr_timeout = s->cli.attr_timeout,
		.entry_coherent = s->cli.entry_timeout,
		.attr_coherent = s->cli.attr_timeout,
		.max_inodes = 0,
		.debug = s->cli.debug,
		.guest_callers = true,
	};
	struct delivery_config dc = { 0 };
	struct agent_link *link;
	struct delivery *d = NULL;
	struct vhost_io *vio;
	bool fatal;
	int ret = 1, err;

	if (s->cli.use_syslog)
		log_out_syslog();
	s->fs = fs_new(&fc);
	if (!s->fs) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: %s: %s\n", s->cli.backing,
			 strerror(errno));
		return 1;
	}
	fs_passthrough_want(s->fs, false);
	if (vhost_delivery_config(s, &dc, &link))
		goto out_fs;
	d = delivery_new(&dc, s->fs, &fatal);
	if (fatal)
		goto out_delivery;
	s->sio = session_io_new(vhost_wants_fetch(&s->cli), FUSE_HAS_FETCH_NOTIFY);
	if (!s->sio)
		goto out_delivery;
	vio = vhost_io_accept(s->cli.socket_path, s->cli.socket_fd);
	if (!vio) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: %s: %s\n",
			 s->cli.socket_path ? s->cli.socket_path : "--fd",
			 strerror(errno));
		goto out_delivery;
	}
	pthread_mutex_init(&s->se_lock, NULL);
	s->se = vhost_session_new(s);
	if (!s->se)
		goto out_vio;
	fs_set_session(s->fs, s->se);
	/* Threads inherit the mask: only the stopper takes these signals. */
	pthread_sigmask(SIG_BLOCK, &s->stop_signals, NULL);
	err = vhost_io_start(vio, s->se, s->fs, s->sio);
	if (err) {
		fuse_log(FUSE_LOG_ERR, "rnotifyfs: vhost-user: %s\n",
			 strerror(-err));
		goto out_session;
	}
	s->vio = vio;
	ret = vhost_serve_session(s, d);
	d = NULL;
	/*
	 * Ends the waits of a notification in flight, so that delivery
	 * stops; an agent's replay in flight ends with the agent's channel
	 * or its time limit (agent_link.c).
	 */
	vhost_io_stop(vio);
	delivery_stop(s->delivery);
	s->delivery = NULL;
out_session:
	fs_set_session(s->fs, NULL);
	fuse_session_destroy(s->se);
	if (s->retired)
		fuse_session_destroy(s->retired);
out_vio:
	vhost_io_free(vio);
out_delivery:
	delivery_stop(d);
	session_io_free(s->sio);
out_fs:
	delivery_stop(s->delivery);
	agent_link_free(link);
	fs_destroy(s->fs);
	return ret;
}

int main(int argc, char **argv)
{
	struct server s = { 0 };
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--agent"))
		return agent_main(argc, argv);
	ret = cli_parse(argc, argv, &s.cli);

	if (ret) {
		cli_free(&s.cli);
		return ret < 0 ? 1 : 0;
	}
	raise_fd_limit();
	/* Before any thread: the home of every thread a replay holds. */
	cpu_pin_init(&s.pin);
	log_out_stderr(s.cli.debug);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&s.stop_signals);
	sigaddset(&s.stop_signals, SIGINT);
	sigaddset(&s.stop_signals, SIGTERM);
	sigaddset(&s.stop_signals, SIGHUP);
	if (s.cli.check)
		ret = check_run(&s.cli);
	else if (s.cli.vhost)
		ret = vhost_serve(&s);
	else
		ret = mount_and_serve(&s);
	log_out_flush();
	cpu_pin_destroy(&s.pin);
	cli_free(&s.cli);
	return ret;
}
