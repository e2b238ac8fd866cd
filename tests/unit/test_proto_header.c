// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_proto_header - include/rnotify_proto.h and the kernel series agree.
 *
 * The uapi additions of kernel/patches/ (one directory per posting; the
 * lines the patches add to include/uapi/linux/fuse.h and fanotify.h and
 * their context, in the series' order, so that a later patch's
 * definition of a constant is the one that counts)
 * are parsed for every constant of the protocol, as a #define or an enum
 * member; each value is evaluated (numbers, shifts, ORs of other
 * constants) and compared with the value the compiler sees in our header.
 * The structures are compared field by field, as text, with the changes
 * later patches make to a field line applied (a hunk that changes a
 * field need not show its structure's first line).  The patches are
 * found relative to the test binary
 * (BUILD/tests/test_proto_header -> ../../kernel/patches), or in
 * $RNOTIFY_PATCH_DIR.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rnotify_proto.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

#define UAPI "include/uapi/linux/fuse.h"
#define UAPI_FANOTIFY "include/uapi/linux/fanotify.h"

static char uapi[65536];	/* added uapi lines, '+' stripped */

/*
 * A line a patch replaced, with the lines before it in its hunk (up to
 * CONTEXT of them), whitespace-normalised: from becomes to.
 */
#define CONTEXT 3
#define MAX_SUBS 16
static struct { char from[512], to[512]; } subs[MAX_SUBS];
static int nsubs;

/* line without its diff mark, blanks squeezed to one space, trimmed */
static void squeeze(const char *line, char *out, size_t size)
{
	size_t o = 0;
	int space = 0;

	for (line++; *line && o + 2 < size; line++) {
		if (isspace((unsigned char)*line)) {
			space = o > 0;
			continue;
		}
		if (space)
			out[o++] = ' ';
		space = 0;
		out[o++] = *line;
	}
	out[o] = '\0';
}

/* Lines before the change in the hunk, oldest first, and how many. */
struct hunk_run {
	char line[CONTEXT][128];
	int n;
};

static void run_push(struct hunk_run *r, const char *line)
{
	if (r->n == CONTEXT) {
		memmove(r->line[0], r->line[1],
			sizeof(r->line[0]) * (CONTEXT - 1));
		r->n--;
	}
	squeeze(line, r->line[r->n++], sizeof(r->line[0]));
}

static void run_text(const struct hunk_run *r, const char *last, char *out,
		     size_t size)
{
	int i;

	out[0] = '\0';
	for (i = 0; i < r->n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s ",
			 r->line[i]);
	snprintf(out + strlen(out), size - strlen(out), "%s", last);
}

/* A '-' line followed by a '+' line: one replaced line. */
static void note_change(struct hunk_run *r, const char *removed,
			const char *added)
{
	char old[128], new[128];

	if (nsubs == MAX_SUBS)
		return;
	squeeze(removed, old, sizeof(old));
	squeeze(added, new, sizeof(new));
	run_text(r, old, subs[nsubs].from, sizeof(subs[nsubs].from));
	run_text(r, new, subs[nsubs].to, sizeof(subs[nsubs].to));
	nsubs++;
}

/* path = the repository's top (BUILD/tests/.. /..) + rel. */
static void repo_path(const char *rel, char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	if (snprintf(path, size, "%s/../../%s", exe, rel) >= (int)size)
		path[0] = '\0';
}

static void patch_dir(char *dir, size_t size)
{
	if (getenv("RNOTIFY_PATCH_DIR"))
		snprintf(dir, size, "%s", getenv("RNOTIFY_PATCH_DIR"));
	else
		repo_path("kernel/patches", dir, size);
}

/*
 * Append the lines the fuse.h and fanotify.h hunks of one patch leave in the file (added
 * and context lines) to uapi[]: a patch that changes a definition's
 * continuation lines shows its first line as context. Each hunk starts
 * with a line "@@", so that a definition whose continuation lines a
 * hunk's context cuts short can be told from a whole one.
 */
static void collect(FILE *f)
{
	char line[512], removed[512] = "";
	struct hunk_run run = { .n = 0 };
	int in_uapi = 0;

	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "diff --git ", 11))
			in_uapi = strstr(line, " b/" UAPI) ||
				  strstr(line, " b/" UAPI_FANOTIFY);
		if (!in_uapi)
			continue;
		if (!strncmp(line, "@@", 2)) {
			strncat(uapi, "@@\n", sizeof(uapi) - strlen(uapi) - 1);
			run.n = 0;
		} else if (line[0] == '-' && line[1] != '-') {
			snprintf(removed, sizeof(removed), "%s", line);
			continue;
		} else if ((line[0] == '+' && line[1] != '+') ||
			   line[0] == ' ') {
			if (removed[0] && line[0] == '+')
				note_change(&run, removed, line);
			strncat(uapi, line + 1, sizeof(uapi) - strlen(uapi) - 1);
			run_push(&run, line);
		}
		removed[0] = '\0';
	}
}

/* A patch, or a posting's directory of patches (1-fixes, 2-fsnotify...) */
static int is_patch(const struct dirent *de)
{
	return strstr(de->d_name, ".patch") != NULL ||
	       (de->d_type == DT_DIR && isdigit((unsigned char)de->d_name[0]));
}

/*
 * The patches of dir in name order, which is the series' (postings
 * 1-..., 2-..., each 0001-..., 0002-...); returns how many.
 */
static int load_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent **de;
	int i, count, n = 0;
	FILE *f;

	count = scandir(dir, &de, is_patch, alphasort);
	for (i = 0; i < count; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     de[i]->d_name) >= (int)sizeof(path)) {
			free(de[i]);
			continue;
		}
		if (de[i]->d_type == DT_DIR) {
			n += load_dir(path);
		} else {
			f = fopen(path, "r");
			if (f) {
				collect(f);
				fclose(f);
				n++;
			}
		}
		free(de[i]);
	}
	if (count >= 0)
		free(de);
	return n;
}

static int load_patches(void)
{
	char dir[PATH_MAX];

	patch_dir(dir, sizeof(dir));
	return load_dir(dir);
}

/* Does the definition at s end before its hunk does? */
static int whole(const char *s)
{
	const char *nl;

	while ((nl = strchr(s, '\n'))) {
		if (nl == s || nl[-1] != '\\')
			return 1;
		if (!strncmp(nl + 1, "@@", 2))
			return 0;
		s = nl + 1;
	}
	return 0;
}

/*
 * Where the last whole definition of NAME ("#define NAME" or "NAME =")
 * starts.
 */
static const char *last_definition(const char *name)
{
	size_t len = strlen(name);
	const char *p, *found = NULL;

	for (p = uapi; (p = strstr(p, name)); p += len) {
		const char *s = p + len;
		int def = p >= uapi + 8 && !strncmp(p - 8, "#define ", 8);

		if (isalnum((unsigned char)*s) || *s == '_')
			continue;
		while (*s == ' ' || *s == '\t')
			s++;
		if ((def || *s == '=') && whole(p))
			found = p;
	}
	return found;
}

/* The body of NAME: "#define NAME body" (with continuations) or "NAME =". */
static int find_body(const char *name, char *body, size_t size)
{
	const char *s = last_definition(name);
	size_t o = 0;

	if (!s)
		return 0;
	for (s += strlen(name); *s == ' ' || *s == '\t'; s++)
		;
	if (*s == '=')
		s++;
	for (; *s && *s != '\n' && *s != ','; s++) {
		if (*s == '\\' && s[1] == '\n') {
			s++;
			continue;
		}
		if (o + 1 < size)
			body[o++] = *s;
	}
	body[o] = '\0';
	return 1;
}

static int eval(const char *expr, uint64_t *val, int depth);

/* One OR term: a number, "1 << n", "1ULL << n" or another constant. */
static int eval_term(char *t, uint64_t *val, int depth)
{
	char body[1024], *shift, *end;

	while (*t == ' ' || *t == '\t' || *t == '(')
		t++;
	for (end = t + strlen(t); end > t && strchr(" \t)", end[-1]); end--)
		;
	*end = '\0';
	if (isdigit((unsigned char)*t)) {
		*val = strtoull(t, &end, 0);
		while (*end == 'U' || *end == 'L')
			end++;
		shift = strstr(end, "<<");
		if (shift)
			*val <<= strtoull(shift + 2, NULL, 0);
		return 1;
	}
	return find_body(t, body, sizeof(body)) && eval(body, val, depth + 1);
}

static int eval(const char *expr, uint64_t *val, int depth)
{
	char buf[1024], *term, *save = NULL;
	uint64_t v;

	if (depth > 8)
		return 0;
	snprintf(buf, sizeof(buf), "%s", expr);
	*val = 0;
	for (term = strtok_r(buf, "|", &save); term;
	     term = strtok_r(NULL, "|", &save)) {
		if (!eval_term(term, &v, depth))
			return 0;
		*val |= v;
	}
	return 1;
}

static void check_const(const char *name, uint64_t want)
{
	char label[128], body[1024];
	uint64_t got = 0;

	snprintf(label, sizeof(label), "header: %s agrees with the patch",
		 name);
	if (!find_body(name, body, sizeof(body)) || !eval(body, &got, 0))
		printf("# %s not found in the patches\n", name);
	else if (got != want)
		printf("# %s: patch 0x%llx, header 0x%llx\n", name,
		       (unsigned long long)got, (unsigned long long)want);
	CHECK(label, got == want);
}

/* Field lines of "struct NAME {...}", whitespace-normalised. */
static void struct_fields(const char *text, const char *name, char *out,
			  size_t size)
{
	char key[128];
	const char *p, *end;
	size_t o = 0;
	int space = 0;

	snprintf(key, sizeof(key), "struct %s {", name);
	out[0] = '\0';
	p = strstr(text, key);
	if (!p)
		return;
	end = strstr(p, "};");
	for (p += strlen(key); end && p < end && o + 1 < size; p++) {
		if (isspace((unsigned char)*p)) {
			space = o > 0;
			continue;
		}
		if (space && o + 2 < size)
			out[o++] = ' ';
		space = 0;
		out[o++] = *p;
	}
	out[o] = '\0';
}

/* The replaced lines, in the patches' order, in fields */
static void apply_changes(char *fields, size_t size)
{
	char out[1024];
	char *at;
	int i;

	for (i = 0; i < nsubs; i++) {
		at = strstr(fields, subs[i].from);
		if (!at)
			continue;
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - fields),
			 fields, subs[i].to, at + strlen(subs[i].from));
		snprintf(fields, size, "%s", out);
	}
}

static void check_struct(const char *header, const char *name)
{
	char mine[1024], theirs[1024], label[128];

	struct_fields(header, name, mine, sizeof(mine));
	struct_fields(uapi, name, theirs, sizeof(theirs));
	apply_changes(theirs, sizeof(theirs));
	snprintf(label, sizeof(label), "header: struct %s agrees", name);
	if (strcmp(mine, theirs))
		printf("# header: {%s}\n# patch:  {%s}\n", mine, theirs);
	CHECK(label, mine[0] && !strcmp(mine, theirs));
}

static char *read_header(void)
{
	static char text[32768];
	char path[PATH_MAX];
	size_t n = 0;
	FILE *f;

	repo_path("include/rnotify_proto.h", path, sizeof(path));
	f = fopen(path, "r");
	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	return text;
}

#define CONST(name) check_const(#name, (uint64_t)(name))

int main(void)
{
	CHECK("header: kernel patches found", load_patches() > 0);
	CHECK("header: patches add to " UAPI, uapi[0] != '\0');

	CONST(FUSE_HAS_FSNOTIFY);
	CONST(FUSE_FSNOTIFY);
	CONST(FUSE_NOTIFY_FSNOTIFY);
	CONST(FUSE_FSNOTIFY_INODE);
	CONST(FUSE_FSNOTIFY_FILESYSTEM);
	CONST(FUSE_FSNOTIFY_ACCESS);
	CONST(FUSE_FSNOTIFY_MODIFY);
	CONST(FUSE_FSNOTIFY_ATTRIB);
	CONST(FUSE_FSNOTIFY_CLOSE_WRITE);
	CONST(FUSE_FSNOTIFY_CLOSE_NOWRITE);
	CONST(FUSE_FSNOTIFY_OPEN);
	CONST(FUSE_FSNOTIFY_MOVED_FROM);
	CONST(FUSE_FSNOTIFY_MOVED_TO);
	CONST(FUSE_FSNOTIFY_CREATE);
	CONST(FUSE_FSNOTIFY_DELETE);
	CONST(FUSE_FSNOTIFY_DELETE_SELF);
	CONST(FUSE_FSNOTIFY_MOVE_SELF);
	CONST(FUSE_FSNOTIFY_Q_OVERFLOW);
	CONST(FUSE_FSNOTIFY_EVENT_ON_CHILD);
	CONST(FUSE_FSNOTIFY_RENAME);
	CONST(FUSE_FSNOTIFY_ISDIR);
	CONST(FUSE_FSNOTIFY_DIRENT_EVENTS);
	CONST(FUSE_FSNOTIFY_OBJECT_EVENTS);
	CONST(FUSE_FSNOTIFY_CHILD_EVENTS);
	CONST(FUSE_FSNOTIFY_NEW_ENTRY_EVENTS);
	CONST(FUSE_FSNOTIFY_WATCH_EVENTS);
	CONST(FUSE_FSNOTIFY_NAME_MAX);
	CONST(FUSE_FSNOTIFY_NO_CHILD);
	CONST(FUSE_FSNOTIFY_NO_PARENT);
	CONST(FUSE_HAS_FETCH_NOTIFY);
	CONST(FUSE_FETCH_NOTIFY);
	CONST(FUSE_FETCH_NOTIFY_END);
	CONST(FAN_MARK_REMOTE);
	CONST(FAN_REMOTE);

	check_struct(read_header(), "fuse_fsnotify_in");
	check_struct(read_header(), "fuse_notify_fsnotify_out");
	check_struct(read_header(), "fuse_fsnotify_rename_out");
	check_struct(read_header(), "fuse_fetch_notify_in");
	check_struct(read_header(), "fuse_fetch_notify_out");
	CHECK("header: structs are 8-byte multiples",
	      sizeof(struct fuse_fsnotify_in) % 8 == 0 &&
	      sizeof(struct fuse_notify_fsnotify_out) % 8 == 0 &&
	      sizeof(struct fuse_fsnotify_rename_out) % 8 == 0);
	return check_exit();
}
