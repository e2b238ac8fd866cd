// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "watch/watch.h"

/* Raw -o values, converted and checked after parsing. */
struct cli_raw {
	char *delivery;
	char *watch;
	char *passthrough;
	double entry_timeout;
	double attr_timeout;
	unsigned long queue_size;
	char *max_inodes;
	char *agent_socket;
	char *backing;
	int check;
};

#define CLI_OPT(t, p) { t, offsetof(struct cli_raw, p), 1 }

static const struct fuse_opt cli_spec[] = {
	CLI_OPT("delivery=%s", delivery),
	CLI_OPT("watch=%s", watch),
	CLI_OPT("passthrough=%s", passthrough),
	CLI_OPT("entry_timeout=%lf", entry_timeout),
	CLI_OPT("attr_timeout=%lf", attr_timeout),
	CLI_OPT("queue=%lu", queue_size),
	CLI_OPT("max_inodes=%s", max_inodes),
	CLI_OPT("agent_socket=%s", agent_socket),
	CLI_OPT("--check", check),
	FUSE_OPT_END
};

static void cli_usage(const char *prog)
{
	printf("usage: %s [options] BACKING MOUNTPOINT\n"
	       "       %s --check [-o watch=BACKEND] [BACKING]\n"
	       "       %s --socket-path=PATH -o source=DIR [options]\n"
	       "       %s --agent [--port=NAME | --channel=PATH] [-d] MOUNTPOINT\n\n"
	       "Exports the directory BACKING at MOUNTPOINT. Changes made to BACKING\n"
	       "from outside the mount reach inotify and fanotify watchers on MOUNTPOINT\n"
	       "as if they had been made through it.\n\n"
	       "options:\n"
	       "    -h, --help             print this help and exit\n"
	       "    -V, --version          print the version and exit\n"
	       "    --check                say which delivery mode this machine\n"
	       "                           allows for BACKING (default .) and why\n"
	       "    -f                     stay in the foreground\n"
	       "    -d, -o debug           print every request (implies -f)\n"
	       "    -s                     serve requests on one thread\n"
	       "    -o opt[,opt...]        mount options (see mount.fuse3(8)), and:\n"
	       "      delivery=MODE        auto | protocol | replay | none\n"
	       "                           (default auto: protocol if the kernel\n"
	       "                           offers it and inotify watchers get its\n"
	       "                           events, else replay)\n"
	       "      watch=BACKEND        auto | fanotify | inotify (default auto)\n"
	       "      passthrough=MODE     auto | off (default auto: files opened\n"
	       "                           only for reading are read by the kernel\n"
	       "                           from BACKING directly, where the kernel\n"
	       "                           allows it: Linux 6.9+, server as root)\n"
	       "      entry_timeout=SECS   name cache lifetime (default: see --check)\n"
	       "      attr_timeout=SECS    attribute cache lifetime (default: see\n"
	       "                           --check)\n"
	       "      queue=N              remote events held for delivery\n"
	       "                           (default 65536)\n"
	       "      max_inodes=N         objects the kernel may keep the server\n"
	       "                           holding; past N it is asked to forget\n"
	       "                           idle files (default: from the memory\n"
	       "                           cgroup's limit, none without one;\n"
	       "                           0: no bound)\n"
	       "      agent_socket=PATH    replay remote changes through an agent\n"
	       "                           (rnotifyfs --agent) that connects to\n"
	       "                           PATH: in virtiofs mode, the guest's,\n"
	       "                           by a virtio-serial port (with cache=none)\n"
	       "    --agent                run as the agent in a virtiofs guest on\n"
	       "                           MOUNTPOINT (rnotifyfs --agent --help)\n"
	       "    --socket-path=PATH     virtiofs mode: serve a VM guest as a\n"
	       "                           vhost-user-fs backend (QEMU\n"
	       "                           vhost-user-fs-pci) listening on PATH;\n"
	       "                           nothing is mounted, the options below\n"
	       "                           and virtiofsd option names apply\n"
	       "    --fd=N                 virtiofs mode on the listening socket N\n"
	       "    --thread-pool-size=N   virtiofs mode: at most N threads answer\n"
	       "                           requests (0: one; default and at most 10)\n"
	       "    --syslog               virtiofs mode: log to syslog\n"
	       "    --print-capabilities   print the vhost-user device type\n"
	       "      source=DIR           virtiofs mode: the exported directory\n"
	       "      cache=MODE           virtiofs mode: auto | always | none: the\n"
	       "                           guest caches names and attributes for\n"
	       "                           1 s, a day, or not at all (default auto)\n"
	       "      timeout=SECS         virtiofs mode: both of those lifetimes\n"
	       "      log_level=LEVEL      virtiofs mode: debug | info | warn | err\n"
	       "      delivery=MODE        virtiofs mode: auto | protocol | none\n"
	       "                           (replay: with agent_socket, the default)\n",
	       prog, prog, prog, prog);
}

static int cli_keep_positional(void *data, const char *arg, int key,
			       struct fuse_args *outargs)
{
	struct cli_raw *raw = data;

	if (key == FUSE_OPT_KEY_NONOPT && !raw->backing) {
		raw->backing = strdup(arg);
		return 0;
	}
	return 1;
}

/* Prints a one-line error; returns -err, for the caller to return. */
int cli_error(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rnotifyfs: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -err;
}

int cli_check_dir(const char *path, char **real)
{
	struct stat st;

	if (stat(path, &st))
		return cli_error(errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_error(ENOTDIR, "%s: not a directory", path);
	*real = realpath(path, NULL);
	if (!*real)
		return cli_error(errno, "%s: %s", path, strerror(errno));
	return 0;
}

/* A mount point that already has a file system mounted on it is busy. */
static int cli_check_not_mounted(const char *mnt)
{
	char parent[PATH_MAX];
	struct stat st, pst;

	if (!strcmp(mnt, "/"))
		return cli_error(EBUSY, "%s: mount point is busy", mnt);
	snprintf(parent, sizeof(parent), "%s/..", mnt);
	if (stat(mnt, &st) || stat(parent, &pst))
		return cli_error(errno, "%s: %s", mnt, strerror(errno));
	if (st.st_dev != pst.st_dev)
		return cli_error(EBUSY,
				 "%s: mount point is busy (something is mounted there)",
				 mnt);
	return 0;
}

/* max_inodes=N: digits only, so that "-1" or "10k" is refused. */
static int cli_max_inodes(const char *s, struct cli *cli)
{
	char *end;

	cli->max_inodes = CLI_MAX_INODES_AUTO;
	if (!s)
		return 0;
	errno = 0;
	cli->max_inodes = strtol(s, &end, 10);
	if (!*s || *end || *s < '0' || *s > '9' || errno ||
	    cli->max_inodes > CLI_MAX_INODES_MAX)
		return cli_error(EINVAL,
				 "max_inodes=%s: expected 0 (no bound) to %ld",
				 s, CLI_MAX_INODES_MAX);
	return 0;
}

/*
 * A timeout given applies everywhere; one not given is 1 s where the
 * host watch may miss a change, and until invalidated where it cannot
 * (fs/cache_policy.c).
 */
static void cli_timeouts(const struct cli_raw *raw, struct cli *cli)
{
	bool entry = raw->entry_timeout >= 0, attr = raw->attr_timeout >= 0;

	cli->entry_timeout = entry ? raw->entry_timeout : 1.0;
	cli->attr_timeout = attr ? raw->attr_timeout : 1.0;
	cli->entry_coherent = entry ? raw->entry_timeout :
				      FS_CACHE_UNTIL_INVALIDATED;
	cli->attr_coherent = attr ? raw->attr_timeout :
				    FS_CACHE_UNTIL_INVALIDATED;
}

static int cli_convert(const struct cli_raw *raw, struct cli *cli)
{
	const char *d = raw->delivery ? raw->delivery : "auto";
	const char *w = raw->watch ? raw->watch : "auto";

	if (!strcmp(d, "auto"))
		cli->delivery = DELIVERY_AUTO;
	else if (!strcmp(d, "protocol"))
		cli->delivery = DELIVERY_PROTOCOL;
	else if (!strcmp(d, "replay"))
		cli->delivery = DELIVERY_REPLAY;
	else if (!strcmp(d, "none"))
		cli->delivery = DELIVERY_NONE;
	else
		return cli_error(EINVAL,
				 "delivery=%s: expected auto, protocol, replay or none",
				 d);
	if (!strcmp(w, "auto"))
		cli->watch_backend = WATCH_AUTO;
	else if (!strcmp(w, "fanotify"))
		cli->watch_backend = WATCH_FANOTIFY;
	else if (!strcmp(w, "inotify"))
		cli->watch_backend = WATCH_INOTIFY;
	else
		return cli_error(EINVAL,
				 "watch=%s: expected auto, fanotify or inotify",
				 w);
	if (!raw->passthrough || !strcmp(raw->passthrough, "auto"))
		cli->passthrough = true;
	else if (!strcmp(raw->passthrough, "off"))
		cli->passthrough = false;
	else
		return cli_error(EINVAL, "passthrough=%s: expected auto or off",
				 raw->passthrough);
	if ((raw->entry_timeout < 0 && raw->entry_timeout != -1) ||
	    (raw->attr_timeout < 0 && raw->attr_timeout != -1))
		return cli_error(EINVAL, "timeouts must not be negative");
	if (raw->queue_size < 16 || raw->queue_size > (1UL << 24))
		return cli_error(EINVAL, "queue=%lu: expected 16 to 16777216",
				 raw->queue_size);
	cli_timeouts(raw, cli);
	cli->queue_size = raw->queue_size;
	if (raw->agent_socket && cli->delivery != DELIVERY_AUTO &&
	    cli->delivery != DELIVERY_REPLAY)
		return cli_error(EINVAL, "agent_socket: replays; not with delivery=%s",
				 raw->delivery);
	if (raw->agent_socket) {
		cli->delivery = DELIVERY_REPLAY;
		cli->agent_socket = strdup(raw->agent_socket);
		if (!cli->agent_socket)
			return cli_error(ENOMEM, "out of memory");
	}
	return cli_max_inodes(raw->max_inodes, cli);
}

static int cli_paths(struct cli_raw *raw, struct fuse_cmdline_opts *o,
		     struct cli *cli)
{
	int ret;

	if (!raw->backing || !o->mountpoint)
		return cli_error(EINVAL,
				 "usage: rnotifyfs [options] BACKING MOUNTPOINT (see --help)");
	ret = cli_check_dir(raw->backing, &cli->backing);
	if (!ret)
		ret = cli_check_dir(o->mountpoint, &cli->mountpoint);
	if (!ret)
		ret = cli_check_not_mounted(cli->mountpoint);
	if (ret)
		return ret;
	if (access("/dev/fuse", R_OK | W_OK))
		return cli_error(errno,
				 "/dev/fuse: %s (is the fuse module loaded?)",
				 strerror(errno));
	return 0;
}

/* What the mount option group below must parse back to, besides fsname. */
static const char *const cli_fixed_opts[] = {
	"subtype=rnotifyfs", "default_permissions",
};
#define CLI_FIXED_OPTS (sizeof(cli_fixed_opts) / sizeof(cli_fixed_opts[0]))

struct cli_reparse {
	char *fsname;
	unsigned int fixed;	/* cli_fixed_opts seen, one bit each */
	bool other;		/* anything else: an injected option */
};

static int cli_reparse_opt(void *data, const char *arg, int key,
			   struct fuse_args *outargs)
{
	struct cli_reparse *r = data;
	size_t i;

	for (i = 0; key == FUSE_OPT_KEY_OPT && i < CLI_FIXED_OPTS; i++) {
		if (!strcmp(arg, cli_fixed_opts[i]) && !(r->fixed & 1U << i)) {
			r->fixed |= 1U << i;
			return 0;
		}
	}
	r->other = true;
	return 0;
}

/*
 * Parses group as libfuse will (fuse_opt, the same parser): does it give
 * our fixed options and fsname=backing, and nothing else?
 */
static bool cli_group_exact(const char *group, const char *backing)
{
	static const struct fuse_opt spec[] = {
		{ "fsname=%s", offsetof(struct cli_reparse, fsname), 0 },
		FUSE_OPT_END
	};
	char *argv[] = { "rnotifyfs", "-o", (char *)group, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct cli_reparse r = { 0 };
	bool exact;

	exact = !fuse_opt_parse(&args, &r, spec, cli_reparse_opt) &&
		!r.other && r.fixed == (1U << CLI_FIXED_OPTS) - 1 &&
		r.fsname && !strcmp(r.fsname, backing);
	free(r.fsname);
	fuse_opt_free_args(&args);
	return exact;
}

/*
 * fsname shows BACKING in mount tables; default_permissions makes the
 * kernel check modes as on any local file system. BACKING may hold any
 * byte but NUL, and libfuse's option parser splits at ',' and takes '\'
 * as an escape: unescaped, a backing directory named "a,allow_other"
 * would mount with allow_other (issue #30). fuse_opt_add_opt_escaped()
 * escapes both; the kernel then shows the source in /proc/self/mountinfo
 * byte for byte, with its own octal escapes for space, tab, newline and
 * '\'. The group is parsed back before use, so that a parser that
 * unescaped differently refuses to mount instead of mounting with
 * options nobody asked for. 0, or a negative errno (-ENOMEM unsaid).
 */
static int cli_mount_options(struct cli *cli)
{
	char *group = NULL, *fsname = NULL, *opt = NULL;
	size_t i;
	int ret = -ENOMEM;

	for (i = 0; i < CLI_FIXED_OPTS; i++)
		if (fuse_opt_add_opt(&group, cli_fixed_opts[i]))
			goto out;
	if (asprintf(&fsname, "fsname=%s", cli->backing) < 0) {
		fsname = NULL;
		goto out;
	}
	if (fuse_opt_add_opt_escaped(&group, fsname))
		goto out;
	if (!cli_group_exact(group, cli->backing)) {
		ret = cli_error(EINVAL,
				"%s: cannot be given to libfuse as the mount's name without changing it or its options; not mounted",
				cli->backing);
		goto out;
	}
	if (asprintf(&opt, "-o%s", group) < 0) {
		opt = NULL;
		goto out;
	}
	ret = fuse_opt_add_arg(&cli->args, opt) ? -ENOMEM : 0;
out:
	free(opt);
	free(fsname);
	free(group);
	return ret;
}

int cli_parse(int argc, char **argv, struct cli *cli)
{
	struct cli_raw raw = { .entry_timeout = -1, .attr_timeout = -1,
			       .queue_size = 65536 };
	struct fuse_cmdline_opts o = { 0 };
	int ret = -EINVAL;	/* libfuse said why */

	if (cli_vhost_wanted(argc, argv))
		return cli_vhost_parse(argc, argv, cli);
	memset(cli, 0, sizeof(*cli));
	cli->args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (fuse_opt_parse(&cli->args, &raw, cli_spec, cli_keep_positional) ||
	    fuse_parse_cmdline(&cli->args, &o))
		goto out;
	if (o.show_help) {
		cli_usage(argv[0]);
		ret = 1;
	} else if (o.show_version) {
		printf("rnotifyfs %s (libfuse %s)\n", RNOTIFY_VERSION,
		       fuse_pkgversion());
		ret = 1;
	} else if (raw.check) {
		cli->check = true;
		cli->backing = realpath(raw.backing ? raw.backing : ".", NULL);
		if (!cli->backing)
			ret = cli_error(errno, "%s: %s",
					raw.backing ? raw.backing : ".",
					strerror(errno));
		else
			ret = cli_convert(&raw, cli);
	} else {
		ret = cli_convert(&raw, cli);
		if (!ret)
			ret = cli_paths(&raw, &o, cli);
		if (!ret)
			ret = cli_mount_options(cli);
		if (!ret) {
			cli->foreground = o.foreground;
			cli->debug = o.debug;
			cli->singlethread = o.singlethread;
		}
	}
out:
	free(o.mountpoint);
	free(raw.delivery);
	free(raw.watch);
	free(raw.passthrough);
	free(raw.max_inodes);
	free(raw.agent_socket);
	free(raw.backing);
	return ret;
}

void cli_free(struct cli *cli)
{
	free(cli->backing);
	free(cli->mountpoint);
	free(cli->socket_path);
	free(cli->agent_socket);
	fuse_opt_free_args(&cli->args);
}
