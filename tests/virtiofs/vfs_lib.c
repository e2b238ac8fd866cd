// SPDX-License-Identifier: GPL-2.0-or-later
/* vfs_tools' helpers: files, names and tree descriptions (vfs_tools.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "vfs_tools.h"

const char *label;
char why[8192];	/* the first failed check of the scenario */


/* A check that does not end the scenario (for helpers returning a value). */
static void note(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

int put(const char *path, const void *buf, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The whole file into buf (at most size bytes); its length or -errno. */
ssize_t get(const char *path, void *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < size &&
	       (n = read(fd, (char *)buf + got, size - got)) > 0)
		got += n;
	close(fd);
	return got;
}

bool has(const char *path, const char *want)
{
	char buf[4096];
	ssize_t n = get(path, buf, sizeof(buf));

	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}

void fill(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

static uint64_t hash(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir, but . and ..; count into *n. NULL on error. */
char **names(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v ? v : calloc(1, sizeof(*v));
}

void names_free(char **v, int n)
{
	while (n--)
		free(v[n]);
	free(v);
}

/*
 * A description of the tree at dir: one line per object, sorted by path,
 * with type, mode, size, link count, mtime, link target, content hash and
 * xattrs; no inode numbers or ctimes. Appended to *out (malloc'ed).
 */
static void describe(const char *dir, const char *rel, char **out,
		     size_t *len)
{
	char path[4096], line[8192], tgt[512], x[2048];
	static unsigned char data[4 << 20];
	struct stat st;
	char **v;
	int n, i;
	ssize_t k, xl;

	v = names(dir, &n);
	if (!v) {
		note("opendir %s: %s", dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
		if (lstat(path, &st)) {
			note("lstat %s: %s", path, strerror(errno));
			continue;
		}
		tgt[0] = 0;
		k = 0;
		if (S_ISLNK(st.st_mode)) {
			k = readlink(path, tgt, sizeof(tgt) - 1);
			tgt[k < 0 ? 0 : k] = 0;
			k = 0;
		} else if (S_ISREG(st.st_mode)) {
			k = get(path, data, sizeof(data));
		}
		xl = S_ISLNK(st.st_mode) ? 0 :
		     listxattr(path, x, sizeof(x));
		snprintf(line, sizeof(line),
			 "%s%s%s %o %o %lld %lu %lld %s %016llx %zd\n", rel,
			 *rel ? "/" : "", v[i], (unsigned)(st.st_mode >> 12),
			 (unsigned)(st.st_mode & 07777),
			 S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size,
			 S_ISDIR(st.st_mode) ? 0UL : (unsigned long)st.st_nlink,
			 S_ISLNK(st.st_mode) ? 0LL : (long long)st.st_mtime,
			 tgt, (unsigned long long)hash(data, k > 0 ? k : 0),
			 xl < 0 ? 0 : xl);
		*out = realloc(*out, *len + strlen(line) + 1);
		strcpy(*out + *len, line);
		*len += strlen(line);
		if (S_ISDIR(st.st_mode)) {
			char sub[4096];

			snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
				 v[i]);
			describe(path, sub, out, len);
		}
	}
	names_free(v, n);
}

char *describe_tree(const char *dir)
{
	char *out = strdup("");
	size_t len = 0;

	describe(dir, "", &out, &len);
	return out;
}

/* The source tree of tools.sh's make_source_tree, as tar -x makes it. */
