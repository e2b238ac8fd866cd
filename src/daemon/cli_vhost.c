// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line of virtiofs mode: virtiofsd's option names (QEMU 7.2's
 * C virtiofsd, `virtiofsd --help`), so that QEMU's documented command
 * line and libvirt's <binary path=.../> start rnotifyfs in its place.
 * What rnotifyfs supports is taken; every other virtiofsd option is
 * refused by name, never silently ignored.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session/vhost_io.h"

struct cli_vraw {
	char *socket_path;
	int fd;
	int thread_pool;
	char *source;
	char *cache;
	char *log_level;
	char *delivery;
	char *agent_socket;
	unsigned long queue_size;
	double timeout;		/* < 0: not given */
	double entry_timeout;
	double attr_timeout;
	int foreground;
	int debug;
	int use_syslog;
	int help;
	int version;
	int caps;
	int accepted;		/* options that are always on here */
	char *refused;		/* the first option refused */
};

#define V_OPT(t, p, v) { t, offsetof(struct cli_vraw, p), v }

static const struct fuse_opt cli_vspec[] = {
	V_OPT("--socket-path=%s", socket_path, 0),
	V_OPT("--fd=%d", fd, 0),
	V_OPT("--thread-pool-size=%d", thread_pool, 0),
	V_OPT("source=%s", source, 0),
	V_OPT("cache=%s", cache, 0),
	V_OPT("log_level=%s", log_level, 0),
	V_OPT("delivery=%s", delivery, 0),
	V_OPT("agent_socket=%s", agent_socket, 0),
	V_OPT("queue=%lu", queue_size, 0),
	V_OPT("timeout=%lf", timeout, 0),
	V_OPT("entry_timeout=%lf", entry_timeout, 0),
	V_OPT("attr_timeout=%lf", attr_timeout, 0),
	V_OPT("-f", foreground, 1),
	V_OPT("-d", debug, 1),
	V_OPT("debug", debug, 1),
	V_OPT("--syslog", use_syslog, 1),
	V_OPT("-h", help, 1),
	V_OPT("--help", help, 1),
	V_OPT("-V", version, 1),
	V_OPT("--version", version, 1),
	V_OPT("--print-capabilities", caps, 1),
	V_OPT("xattr", accepted, 1),
	V_OPT("flock", accepted, 1),
	FUSE_OPT_END
};

bool cli_vhost_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--socket-path", 13) ||
		    !strncmp(argv[i], "--fd", 4) ||
		    !strcmp(argv[i], "--print-capabilities"))
			return true;
	}
	return false;
}

/* Anything not in cli_vspec: remembered, refused after parsing. */
static int cli_vrefuse(void *data, const char *arg, int key,
		       struct fuse_args *outargs)
{
	struct cli_vraw *raw = data;

	if (!raw->refused)
		raw->refused = strdup(arg);
	return 0;
}

static int cli_vcache(const struct cli_vraw *raw, struct cli *cli)
{
	const char *c = raw->cache ? raw->cache : "auto";
	double t;

	/*
	 * A stock guest takes no invalidation: with the agent, a read right
	 * after an event sees the new data only if the guest caches nothing.
	 */
	if (raw->agent_socket) {
		if ((raw->cache && strcmp(raw->cache, "none")) ||
		    raw->timeout > 0 || raw->entry_timeout > 0 ||
		    raw->attr_timeout > 0)
			return cli_error(EINVAL, "agent_socket: only cache=none (a stock guest takes no cache invalidation)");
		c = "none";
	}
	if (!strcmp(c, "auto"))
		t = 1.0;
	else if (!strcmp(c, "always"))
		t = 86400.0;
	else if (!strcmp(c, "none"))
		t = 0.0;
	else
		return cli_error(EINVAL, "cache=%s: expected auto, always or none", c);
	if (raw->timeout >= 0)
		t = raw->timeout;
	cli->entry_timeout = raw->entry_timeout >= 0 ? raw->entry_timeout : t;
	cli->attr_timeout = raw->attr_timeout >= 0 ? raw->attr_timeout : t;
	return 0;
}

static int cli_vconvert(struct cli_vraw *raw, struct cli *cli)
{
	const char *level = raw->log_level ? raw->log_level : "info";
	int err;

	if (raw->refused)
		return cli_error(EINVAL, "%s: not supported in virtiofs mode (see rnotifyfs --help)",
				 raw->refused);
	if (raw->socket_path && raw->fd >= 0)
		return cli_error(EINVAL, "--socket-path and --fd: give one");
	if (!raw->socket_path && raw->fd < 0)
		return cli_error(EINVAL, "--fd=%d: not a file descriptor", raw->fd);
	if (!raw->source)
		return cli_error(EINVAL, "-o source=DIR is needed with --socket-path or --fd");
	if (raw->delivery && strcmp(raw->delivery, "none") &&
	    strcmp(raw->delivery, "auto") && strcmp(raw->delivery, "protocol") &&
	    strcmp(raw->delivery, "replay"))
		return cli_error(EINVAL, "delivery=%s: over virtiofs delivery is auto, protocol, replay (with -o agent_socket) or none",
				 raw->delivery);
	if (raw->delivery && !strcmp(raw->delivery, "replay") &&
	    !raw->agent_socket)
		return cli_error(EINVAL, "delivery=replay over virtiofs needs -o agent_socket (replay needs a mount)");
	if (raw->delivery && (!strcmp(raw->delivery, "none") ||
			      !strcmp(raw->delivery, "protocol")) &&
	    raw->agent_socket)
		return cli_error(EINVAL, "agent_socket with delivery=%s: give one",
				 raw->delivery);
	if (raw->queue_size &&
	    (raw->queue_size < 16 || raw->queue_size > (1UL << 24)))
		return cli_error(EINVAL, "queue=%lu: expected 16 to 16777216",
				 raw->queue_size);
	if (raw->thread_pool < -1)
		return cli_error(EINVAL, "--thread-pool-size=%d: expected 0 or more",
				 raw->thread_pool);
	if (strcmp(level, "debug") && strcmp(level, "info") &&
	    strcmp(level, "warn") && strcmp(level, "err"))
		return cli_error(EINVAL, "log_level=%s: expected debug, info, warn or err",
				 level);
	if ((raw->timeout < 0 && raw->timeout != -1) ||
	    (raw->entry_timeout < 0 && raw->entry_timeout != -1) ||
	    (raw->attr_timeout < 0 && raw->attr_timeout != -1))
		return cli_error(EINVAL, "timeouts must not be negative");
	err = cli_vcache(raw, cli);
	if (!err)
		err = cli_check_dir(raw->source, &cli->backing);
	if (err)
		return err;
	cli->vhost = true;
	cli->socket_fd = raw->fd;
	cli->socket_path = raw->socket_path;
	raw->socket_path = NULL;
	cli->thread_pool = raw->thread_pool;
	cli->use_syslog = raw->use_syslog;
	cli->debug = raw->debug || !strcmp(level, "debug");
	/* virtiofsd's default, and QEMU's documentation runs it so. */
	cli->foreground = true;
	cli->singlethread = raw->thread_pool == 0;
	/*
	 * Remote changes: replayed through the guest's agent, or fetched by
	 * a guest kernel that has the series, or not at all.
	 */
	if (raw->agent_socket)
		cli->delivery = DELIVERY_REPLAY;
	else if (!raw->delivery || !strcmp(raw->delivery, "auto"))
		cli->delivery = DELIVERY_AUTO;
	else if (!strcmp(raw->delivery, "none"))
		cli->delivery = DELIVERY_NONE;
	else
		cli->delivery = DELIVERY_PROTOCOL;
	cli->agent_socket = raw->agent_socket;
	raw->agent_socket = NULL;
	/* Asking the guest to forget needs notifications it cannot take. */
	cli->max_inodes = 0;
	cli->passthrough = false;
	cli->queue_size = raw->queue_size ? raw->queue_size : 65536;
	return 0;
}

int cli_vhost_parse(int argc, char **argv, struct cli *cli)
{
	struct cli_vraw raw = { .fd = -1, .thread_pool = -1, .timeout = -1,
				.entry_timeout = -1, .attr_timeout = -1 };
	int ret = -EINVAL;

	memset(cli, 0, sizeof(*cli));
	cli->socket_fd = -1;
	cli->args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (fuse_opt_parse(&cli->args, &raw, cli_vspec, cli_vrefuse))
		goto out;
	if (!raw.help && !raw.version && !vhost_io_available()) {
		ret = cli_error(ENOTSUP, "built without libvhost-user: no virtiofs mode (run scripts/setup-vhost, then make)");
	} else if (raw.caps) {
		/* What libvirt asks virtiofsd, answered as virtiofsd does. */
		printf("{\n  \"type\": \"fs\"\n}\n");
		ret = 1;
	} else if (raw.help || raw.version) {
		/* cli_parse() without the vhost options prints them. */
		char *one[] = { argv[0], raw.help ? "--help" : "--version",
				NULL };

		fuse_opt_free_args(&cli->args);
		ret = cli_parse(2, one, cli);
	} else if (!(ret = cli_vconvert(&raw, cli))) {
		/* The session gets libfuse's options only: no mount. */
		fuse_opt_free_args(&cli->args);
		cli->args = (struct fuse_args)FUSE_ARGS_INIT(0, NULL);
		if (fuse_opt_add_arg(&cli->args, argv[0]) ||
		    (cli->debug && fuse_opt_add_arg(&cli->args, "-odebug")))
			ret = cli_error(ENOMEM, "out of memory");
	}
out:
	free(raw.socket_path);
	free(raw.source);
	free(raw.cache);
	free(raw.log_level);
	free(raw.delivery);
	free(raw.agent_socket);
	free(raw.refused);
	return ret;
}
