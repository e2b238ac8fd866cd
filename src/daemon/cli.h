/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command line: libfuse's conventions (-f, -d, -s, -o opt[,opt], -h, -V)
 * plus rnotifyfs's own -o options. Parsing only; no side effects but
 * messages on stderr.
 */
#ifndef RNOTIFY_DAEMON_CLI_H
#define RNOTIFY_DAEMON_CLI_H

#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stddef.h>

#include "deliver/delivery.h"

#define RNOTIFY_VERSION "0.1.0"
#define CLI_MAX_INODES_AUTO (-1L)	/* from the memory cgroup's limit */
#define CLI_MAX_INODES_MAX (1L << 40)

struct cli {
	char *backing;		/* realpath of BACKING */
	char *mountpoint;	/* realpath of MOUNTPOINT */
	bool foreground;
	bool debug;
	bool singlethread;
	bool check;		/* --check: report, do not mount */
	enum delivery_mode delivery;
	int watch_backend;	/* enum watch_backend */
	bool passthrough;	/* -o passthrough=auto (default) */
	double entry_timeout;	/* where the host watch may miss a change */
	double attr_timeout;
	double entry_coherent;	/* where it cannot (fs_config) */
	double attr_coherent;
	size_t queue_size;
	long max_inodes;	/* CLI_MAX_INODES_AUTO, 0 (none) or a bound */
	/* virtiofs mode: a vhost-user-fs backend (cli_vhost.c) */
	bool vhost;
	char *socket_path;	/* --socket-path, or NULL with socket_fd */
	int socket_fd;		/* --fd: a listening socket */
	int thread_pool;	/* --thread-pool-size; -1: not given */
	bool use_syslog;	/* --syslog */
	char *agent_socket;	/* -o agent_socket: the guest agent's channel */
	struct fuse_args args;	/* what is left for fuse_session_new() */
};

/*
 * Returns 0 to go on, 1 when the command is done (help, version), or a
 * negative errno after printing a one-line error (-EINVAL for a bad
 * command line).
 */
int cli_parse(int argc, char **argv, struct cli *cli);

/* cli_vhost.c: virtiofsd's command line, chosen by --socket-path or --fd. */
bool cli_vhost_wanted(int argc, char **argv);
int cli_vhost_parse(int argc, char **argv, struct cli *cli);
int cli_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_check_dir(const char *path, char **real);
void cli_free(struct cli *cli);

#endif
