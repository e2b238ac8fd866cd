// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * virtiofs mode's command line (src/daemon/cli_vhost.c): QEMU's documented
 * virtiofsd command line is taken as it is, and every virtiofsd option
 * rnotifyfs does not support is refused, never ignored.
 */
#include <unistd.h>

#include "../lib/check.h"
#include "daemon/cli.h"
#include "session/vhost_io.h"

CHECK_MAIN_DEFS;

/* Parses the words of line (space-separated, at most 15). */
static int parse(const char *line, struct cli *cli)
{
	char buf[512], *argv[16], *save = NULL, *w;
	int argc = 0;

	snprintf(buf, sizeof(buf), "rnotifyfs %s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 15;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return cli_parse(argc, argv, cli);
}

static void refused(const char *name, const char *line)
{
	struct cli cli;

	CHECK(name, parse(line, &cli) < 0);
	cli_free(&cli);
}

int main(void)
{
	struct cli cli;
	int ret;

	if (!vhost_io_available()) {
		refused("cli_vhost/refused_without_libvhost_user",
			"--socket-path=/tmp/s -o source=/tmp");
		return check_exit();
	}
	/* QEMU's documentation: docs/system/devices/vhost-user-fs.rst */
	ret = parse("--socket-path=/tmp/vhostqemu -o source=/tmp -o cache=always",
		    &cli);
	CHECK("cli_vhost/qemu_doc_line", ret == 0 && cli.vhost &&
	      !strcmp(cli.socket_path, "/tmp/vhostqemu") &&
	      cli.socket_fd == -1 && !strcmp(cli.backing, "/tmp") &&
	      cli.entry_timeout == 86400 && cli.attr_timeout == 86400 &&
	      cli.delivery == DELIVERY_AUTO && cli.max_inodes == 0 &&
	      !cli.passthrough && cli.foreground);
	cli_free(&cli);

	/* What libvirt passes: --fd, xattr, a thread pool, syslog. */
	ret = parse("--fd=3 -o source=/tmp,cache=none,xattr,flock --thread-pool-size=4 --syslog -f",
		    &cli);
	CHECK("cli_vhost/libvirt_line", ret == 0 && cli.vhost &&
	      !cli.socket_path && cli.socket_fd == 3 &&
	      cli.entry_timeout == 0 && cli.attr_timeout == 0 &&
	      cli.thread_pool == 4 && !cli.singlethread && cli.use_syslog);
	cli_free(&cli);

	ret = parse("--socket-path=/tmp/s -o source=/tmp --thread-pool-size=0 -o timeout=5 -o log_level=debug",
		    &cli);
	CHECK("cli_vhost/one_thread_timeout_debug", ret == 0 &&
	      cli.singlethread && cli.entry_timeout == 5 &&
	      cli.attr_timeout == 5 && cli.debug);
	cli_free(&cli);

	ret = parse("--socket-path=/tmp/s -o source=/tmp", &cli);
	CHECK("cli_vhost/defaults", ret == 0 && cli.entry_timeout == 1 &&
	      cli.attr_timeout == 1 && cli.thread_pool == -1 &&
	      !cli.singlethread && !cli.debug && !cli.use_syslog);
	cli_free(&cli);

	/* A stock guest's agent: delivery by replay, and nothing cached. */
	ret = parse("--socket-path=/tmp/s -o source=/tmp -o agent_socket=/tmp/a -o queue=64",
		    &cli);
	CHECK("cli_vhost/agent_socket", ret == 0 &&
	      cli.delivery == DELIVERY_REPLAY &&
	      !strcmp(cli.agent_socket, "/tmp/a") && cli.queue_size == 64 &&
	      cli.entry_timeout == 0 && cli.attr_timeout == 0);
	cli_free(&cli);
	refused("cli_vhost/agent_refuses_cache",
		"--socket-path=/tmp/s -o source=/tmp -o agent_socket=/tmp/a -o cache=auto");
	refused("cli_vhost/agent_refuses_timeout",
		"--socket-path=/tmp/s -o source=/tmp -o agent_socket=/tmp/a -o attr_timeout=1");
	refused("cli_vhost/agent_refuses_delivery_none",
		"--socket-path=/tmp/s -o source=/tmp -o agent_socket=/tmp/a -o delivery=none");

	refused("cli_vhost/refuses_sandbox",
		"--socket-path=/tmp/s -o source=/tmp -o sandbox=chroot");
	refused("cli_vhost/refuses_no_xattr",
		"--socket-path=/tmp/s -o source=/tmp -o no_xattr");
	refused("cli_vhost/refuses_writeback",
		"--socket-path=/tmp/s -o source=/tmp -o writeback");
	refused("cli_vhost/refuses_daemonize",
		"--socket-path=/tmp/s -o source=/tmp --daemonize");
	refused("cli_vhost/refuses_a_positional",
		"--socket-path=/tmp/s -o source=/tmp /mnt");
	refused("cli_vhost/refuses_replay",
		"--socket-path=/tmp/s -o source=/tmp -o delivery=replay");
	refused("cli_vhost/needs_source", "--socket-path=/tmp/s");
	refused("cli_vhost/source_must_exist",
		"--socket-path=/tmp/s -o source=/nonexistent/dir");
	refused("cli_vhost/bad_cache",
		"--socket-path=/tmp/s -o source=/tmp -o cache=sometimes");
	refused("cli_vhost/path_and_fd",
		"--socket-path=/tmp/s --fd=3 -o source=/tmp");
	refused("cli_vhost/bad_pool",
		"--socket-path=/tmp/s -o source=/tmp --thread-pool-size=-2");
	refused("cli_vhost/negative_timeout",
		"--socket-path=/tmp/s -o source=/tmp -o timeout=-3");
	refused("cli_vhost/bad_log_level",
		"--socket-path=/tmp/s -o source=/tmp -o log_level=loud");
	return check_exit();
}
