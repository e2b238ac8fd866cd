// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor of a FUSE server here: a libfuse low-level server that keeps
 * nothing but a flat directory of up to N empty files named as `io
 * mkentries` names them (s0 .. sN-1), a bit each for whether it exists,
 * and answers LOOKUP, GETATTR, READDIR, CREATE and UNLINK from memory,
 * with no backing store and no other work. What an operation costs
 * through it, against the same operation on a native directory, is what
 * any FUSE server pays here before it does anything.
 *
 * usage: noop_fs [--empty] N TIMEOUT MOUNTPOINT [-f ...] (libfuse's options)
 * --empty: no file exists at first (for `io small`, which makes them).
 * TIMEOUT: seconds the kernel may keep names and attributes (0: every
 * stat is a LOOKUP).
 */
#define FUSE_USE_VERSION 34
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static long noop_n;
static double noop_timeout;
static unsigned char *noop_exists;	/* [i]: si exists */

/* Node ids: 1 the root, 2 + i the file si. */
static void noop_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	st->st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
}

static long noop_index(const char *name)
{
	char *end;
	long i;

	if (name[0] != 's' || !name[1])
		return -1;
	i = strtol(name + 1, &end, 10);
	return *end || i < 0 || i >= noop_n ? -1 : i;
}

static long noop_child(fuse_ino_t parent, const char *name)
{
	return parent == FUSE_ROOT_ID ? noop_index(name) : -1;
}

static void noop_entry(struct fuse_entry_param *e, long i)
{
	memset(e, 0, sizeof(*e));
	e->ino = 2 + i;
	e->attr_timeout = noop_timeout;
	e->entry_timeout = noop_timeout;
	noop_stat(e->ino, &e->attr);
}

static void noop_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	long i = noop_child(parent, name);

	if (i < 0 || !noop_exists[i]) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	noop_entry(&e, i);
	fuse_reply_entry(req, &e);
}

static void noop_create(fuse_req_t req, fuse_ino_t parent, const char *name,
			mode_t mode, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	long i = noop_child(parent, name);

	if (i < 0 || !S_ISREG(mode)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	if (noop_exists[i] && (fi->flags & O_EXCL)) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	noop_exists[i] = 1;
	noop_entry(&e, i);
	fi->fh = 0;
	fuse_reply_create(req, &e, fi);
}

static void noop_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	long i = noop_child(parent, name);

	if (i < 0 || !noop_exists[i]) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	noop_exists[i] = 0;
	fuse_reply_err(req, 0);
}

static void noop_getattr(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	struct stat st;

	noop_stat(ino, &st);
	fuse_reply_attr(req, &st, noop_timeout);
}

/* Offsets: 1 and 2 the dots, 3 + i the file si. */
static void noop_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			 off_t off, struct fuse_file_info *fi)
{
	char *buf = malloc(size), name[32];
	size_t used = 0, len;
	struct stat st;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (; off < 2 + noop_n; off++) {
		if (off >= 2 && !noop_exists[off - 2])
			continue;
		snprintf(name, sizeof(name), off == 0 ? "." : off == 1 ? ".." :
			 "s%ld", (long)off - 2);
		noop_stat(off < 2 ? FUSE_ROOT_ID : (fuse_ino_t)off, &st);
		len = fuse_add_direntry(req, buf + used, size - used, name,
					&st, off + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static const struct fuse_lowlevel_ops noop_ops = {
	.lookup = noop_lookup,
	.getattr = noop_getattr,
	.readdir = noop_readdir,
	.create = noop_create,
	.unlink = noop_unlink,
};

int main(int argc, char **argv)
{
	struct fuse_args args;
	struct fuse_cmdline_opts opts;
	struct fuse_session *se;
	char *prog = argv[0];
	int ret = 1, empty = argc > 1 && !strcmp(argv[1], "--empty");

	argc -= empty;
	argv += empty;
	if (argc < 4 || atol(argv[1]) <= 0) {
		fprintf(stderr,
			"usage: noop_fs [--empty] N TIMEOUT MOUNTPOINT [-f]\n");
		return 2;
	}
	noop_n = atol(argv[1]);
	noop_timeout = atof(argv[2]);
	noop_exists = malloc(noop_n);
	if (!noop_exists)
		return 1;
	memset(noop_exists, !empty, noop_n);
	args = (struct fuse_args)FUSE_ARGS_INIT(argc - 2, argv + 2);
	args.argv[0] = prog;
	if (fuse_parse_cmdline(&args, &opts) || !opts.mountpoint)
		return 2;
	se = fuse_session_new(&args, &noop_ops, sizeof(noop_ops), NULL);
	if (se && !fuse_session_mount(se, opts.mountpoint)) {
		fuse_daemonize(opts.foreground);
		ret = fuse_session_loop(se);
		fuse_session_unmount(se);
	}
	if (se)
		fuse_session_destroy(se);
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	free(noop_exists);
	return ret ? 1 : 0;
}
