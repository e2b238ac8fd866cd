// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --check report. Each line tries the real thing where it can (the
 * host watcher is opened on BACKING exactly as a mount would open it)
 * rather than guessing from versions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "session/init_probe.h"
#include "util/remote_events.h"
#include "watch/watch.h"

static bool check_fuse_device(void)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("/dev/fuse:        unusable: %s\n", strerror(errno));
		return false;
	}
	close(fd);
	printf("/dev/fuse:        ok\n");
	return true;
}

/* Why caches expire, or NULL if they are kept until invalidated. */
static const char *check_cache_why = "no host watch";

static bool check_watcher(const struct cli *cli)
{
	struct watch_config wc = { .backend = cli->watch_backend };
	struct watch *w;
	bool ok;

	wc.backing_fd = open(cli->backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (wc.backing_fd < 0) {
		printf("host watcher:     %s: %s\n", cli->backing,
		       strerror(errno));
		return false;
	}
	w = watch_open(&wc);
	ok = w != NULL;
	if (!ok)
		printf("host watcher:     none: %s\n", strerror(errno));
	else if (!strcmp(watch_backend_name(w), "fanotify"))
		printf("host watcher:     %s; the server's own changes are told apart by pid\n",
		       watch_describe(w));
	else
		printf("host watcher:     %s (fanotify was refused or not asked for); own changes are told apart by bracketing them\n",
		       watch_describe(w));
	if (watch_sees_all(w, wc.backing_fd, &check_cache_why))
		check_cache_why = NULL;
	watch_close(w);
	close(wc.backing_fd);
	return ok;
}

/*
 * Remote events reach fanotify marks added with FAN_MARK_REMOTE, and
 * inotify and dnotify watchers only with the administrator's consent.
 */
static void check_remote_events(void)
{
	int on = remote_events_for_inotify();

	if (on < 0)
		printf("remote events:    %s: %s\n", REMOTE_EVENTS_SYSCTL,
		       strerror(-on));
	else if (on)
		printf("remote events:    to inotify and dnotify watchers (%s is 1) and fanotify marks with FAN_MARK_REMOTE\n",
		       REMOTE_EVENTS_SYSCTL);
	else
		printf("remote events:    to fanotify marks with FAN_MARK_REMOTE only: inotify and dnotify watchers need %s set to 1 (delivery=auto replays instead, as root)\n",
		       REMOTE_EVENTS_SYSCTL);
}

/* The kernel's own answer, from a throwaway mount's INIT. */
static bool check_protocol(void)
{
	bool offered = false;
	int err = init_probe(&offered);

	if (err)
		printf("kernel protocol:  unknown: probe mount: %s\n",
		       strerror(-err));
	else if (offered)
		printf("kernel protocol:  offered (a kernel with the rnotify series): events are sent as notifications\n");
	else
		printf("kernel protocol:  not offered by this kernel (it needs the series in kernel/)\n");
	if (!err && offered)
		check_remote_events();
	return !err && offered;
}

/* What a mount with these options would do; 0 if it delivers. */
static int check_mode(const struct cli *cli, bool fuse, bool replay,
		      bool protocol)
{
	const char *mode = "none (the mount is served, remote changes are not delivered)";
	int ret = 1;

	if (cli->delivery == DELIVERY_NONE) {
		mode = "none (delivery=none)";
	} else if (protocol) {
		mode = "protocol";
		ret = 0;
	} else if (cli->delivery == DELIVERY_PROTOCOL) {
		mode = "no mount: delivery=protocol needs a kernel that offers it";
	} else if (replay) {
		mode = "replay";
		ret = 0;
	}
	printf("mode at mount:    %s\n", fuse ? mode : "no mount is possible");
	return fuse ? ret : 1;
}

/*
 * What the kernel may cache at a mount with these options
 * (fs/cache_policy.c): until invalidated only where delivery runs and the
 * host watch sees every change.
 */
static void check_caches(const struct cli *cli, bool delivers)
{
	const char *why = delivers ? check_cache_why :
			  "remote changes are not delivered";

	if (!why && cli->entry_coherent >= FS_CACHE_UNTIL_INVALIDATED &&
	    cli->attr_coherent >= FS_CACHE_UNTIL_INVALIDATED)
		printf("caches:           names and attributes kept until invalidated: every change is seen, and invalidated before its event (1 s for objects on other mounts inside the export, and for the attributes of files with several links); so are file pages and listings from one open to the next, and missing names where the kernel has FUSE_NOTIFY_INC_EPOCH (Linux 6.16+)\n");
	else if (!why)
		printf("caches:           names %g s, attributes %g s, as given (every change is seen)\n",
		       cli->entry_coherent, cli->attr_coherent);
	else
		printf("caches:           names %g s, attributes %g s: %s\n",
		       cli->entry_timeout, cli->attr_timeout,
		       why);
}

int check_run(const struct cli *cli)
{
	bool fuse = check_fuse_device();
	bool watcher = check_watcher(cli);
	bool root = geteuid() == 0;
	bool replay = watcher && root && cli->delivery != DELIVERY_PROTOCOL;
	bool protocol;
	int ret;

	printf("replay delivery:  %s\n", root ?
	       "possible (running as root: open_by_handle_at on the mount)" :
	       "impossible: needs root (open_by_handle_at on the mount)");
	protocol = fuse && check_protocol() && watcher &&
		   cli->delivery != DELIVERY_REPLAY;
	/* As the mount decides: auto replays, as root, for inotify's sake */
	if (protocol && cli->delivery == DELIVERY_AUTO && root &&
	    remote_events_for_inotify() == 0)
		protocol = false;
	ret = check_mode(cli, fuse, replay, protocol);
	check_caches(cli, !ret);
	return ret;
}
