// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pure fanotify and inotify parsers on synthetic buffers: every valid
 * record type, then each kind of corruption. Every buffer is copied into
 * an exact-size heap block, so under ASan a read past its end fails the
 * run. Also the expectation ring and the file handle cache.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <linux/fanotify.h>

#include "watch/handle_cache.h"
#include "watch/fanotify_decode.h"
#include "watch/inotify_decode.h"
#include "watch/own_expect.h"
#include "../lib/check.h"

CHECK_MAIN_DEFS;

/* ---- building fanotify buffers ---- */

struct fbuf {
	unsigned char b[4096];
	size_t len;
	size_t ev;		/* start of the record being built */
};

static void f_put(struct fbuf *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void f_begin(struct fbuf *f, uint64_t mask, int32_t pid)
{
	struct fanotify_event_metadata md = {
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = sizeof(md),
		.mask = mask,
		.fd = FAN_NOFD,
		.pid = pid,
	};

	f->ev = f->len;
	f_put(f, &md, sizeof(md));
}

static void f_end(struct fbuf *f)
{
	uint32_t len = (uint32_t)(f->len - f->ev);

	memcpy(f->b + f->ev, &len, 4);
}

/* A fid info record with a handle of hlen bytes and maybe a name. */
static void f_fid(struct fbuf *f, uint8_t type, uint32_t hlen,
		  const char *name)
{
	struct fanotify_event_info_header hdr = { .info_type = type };
	size_t start = f->len;
	uint32_t fsid[2] = { 1, 2 };
	int32_t htype = 1;
	unsigned char h[FAN_DECODE_MAX_HANDLE + 8];

	memset(h, 0xab, sizeof(h));
	f_put(f, &hdr, sizeof(hdr));
	f_put(f, fsid, sizeof(fsid));
	f_put(f, &hlen, 4);
	f_put(f, &htype, 4);
	f_put(f, h, hlen < sizeof(h) ? hlen : 8);
	if (name)
		f_put(f, name, strlen(name) + 1);
	while ((f->len - start) % 4)
		f->b[f->len++] = 0;
	hdr.len = (uint16_t)(f->len - start);
	memcpy(f->b + start, &hdr, sizeof(hdr));
}

struct seen {
	unsigned int n;
	struct fan_record last;
	char dname[NAME_MAX + 1], oname[NAME_MAX + 1], nname[NAME_MAX + 1];
};

static void on_rec(void *arg, const struct fan_record *r)
{
	struct seen *s = arg;

	s->n++;
	s->last = *r;
	s->dname[0] = s->oname[0] = s->nname[0] = '\0';
	if (r->dfid.name)
		strcpy(s->dname, r->dfid.name);
	if (r->old.name)
		strcpy(s->oname, r->old.name);
	if (r->new.name)
		strcpy(s->nname, r->new.name);
	/* Touch every handle byte: ASan catches a pointer past the end. */
	if (r->fid.present && r->fid.handle[r->fid.len - 1] != 0xab)
		s->n += 1000;
}

/* Decodes a copy of exactly len bytes. */
static unsigned int f_decode(const void *b, size_t len, struct seen *s,
			     unsigned int *errors)
{
	unsigned char *copy = malloc(len ? len : 1);
	unsigned int n;

	memcpy(copy, b, len);
	memset(s, 0, sizeof(*s));
	*errors = 0;
	n = fan_decode(copy, len, on_rec, s, errors);
	free(copy);
	return n;
}

static void test_fan_valid(void)
{
	struct fbuf f = { .len = 0 };
	unsigned int err;
	struct seen s;

	f_begin(&f, FAN_CREATE | FAN_ONDIR, 42);
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "dir1");
	f_fid(&f, FAN_EVENT_INFO_TYPE_FID, 8, NULL);
	f_end(&f);
	CHECK("fan create: one record", f_decode(f.b, f.len, &s, &err) == 1 &&
	      err == 0);
	CHECK("fan create: fields", s.last.mask == (FAN_CREATE | FAN_ONDIR) &&
	      s.last.pid == 42 && s.last.fd == FAN_NOFD &&
	      s.last.dfid.present && s.last.dfid.len == 8 &&
	      s.last.dfid.fsid[0] == 1 && s.last.dfid.fsid[1] == 2 &&
	      s.last.fid.present && !s.last.fid.name &&
	      strcmp(s.dname, "dir1") == 0 && !s.last.old.present);

	f.len = 0;
	f_begin(&f, FAN_RENAME, 7);
	f_fid(&f, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, 12, "a");
	f_fid(&f, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, 12, "b");
	f_fid(&f, FAN_EVENT_INFO_TYPE_FID, 12, NULL);
	f_end(&f);
	f_begin(&f, FAN_MODIFY, 8);
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, ".");
	f_fid(&f, FAN_EVENT_INFO_TYPE_FID, 8, NULL);
	f_end(&f);
	f_begin(&f, FAN_Q_OVERFLOW, -1);
	f_end(&f);
	CHECK("fan rename+modify+overflow: three records",
	      f_decode(f.b, f.len, &s, &err) == 3 && err == 0);
	CHECK("fan overflow is last", s.last.mask == FAN_Q_OVERFLOW);
	f.len = 0;
	f_begin(&f, FAN_RENAME, 7);
	f_fid(&f, FAN_EVENT_INFO_TYPE_OLD_DFID_NAME, 12, "a");
	f_fid(&f, FAN_EVENT_INFO_TYPE_NEW_DFID_NAME, 12, "b");
	f_end(&f);
	f_decode(f.b, f.len, &s, &err);
	CHECK("fan rename: both halves", strcmp(s.oname, "a") == 0 &&
	      strcmp(s.nname, "b") == 0 && s.last.old.len == 12);

	f.len = 0;
	f_begin(&f, FAN_CREATE, 1);
	f_fid(&f, FAN_EVENT_INFO_TYPE_PIDFD, 0, NULL);	/* unknown: skipped */
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "x");
	f_end(&f);
	CHECK("fan unknown info type skipped",
	      f_decode(f.b, f.len, &s, &err) == 1 && err == 0 &&
	      strcmp(s.dname, "x") == 0);
}

/* One record with a corruption; expect it rejected with one error. */
static void fan_reject(const char *name, const struct fbuf *f)
{
	unsigned int err;
	struct seen s;
	unsigned int n = f_decode(f->b, f->len, &s, &err);

	CHECK(name, n == 0 && err == 1);
}

static void test_fan_corrupt(void)
{
	struct fbuf f = { .len = 0 }, g;
	uint32_t v;
	uint16_t h16;
	char longname[NAME_MAX + 2];

	f_begin(&f, FAN_CREATE, 1);
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "name");
	f_end(&f);

	g = f;
	g.len = 10;
	fan_reject("fan truncated header", &g);
	g = f;
	g.len -= 4;
	fan_reject("fan event_len past the end", &g);
	g = f;
	v = 8;
	memcpy(g.b, &v, 4);
	fan_reject("fan event_len smaller than the header", &g);
	g = f;
	g.b[4] = 2;
	fan_reject("fan wrong version", &g);
	g = f;
	h16 = 0;
	memcpy(g.b + sizeof(struct fanotify_event_metadata) + 2, &h16, 2);
	fan_reject("fan info hdr.len 0", &g);
	g = f;
	h16 = 200;
	memcpy(g.b + sizeof(struct fanotify_event_metadata) + 2, &h16, 2);
	fan_reject("fan info hdr.len past the end", &g);
	g = f;
	v = 0x7fffffff;
	memcpy(g.b + sizeof(struct fanotify_event_metadata) + 12, &v, 4);
	fan_reject("fan handle_bytes absurd", &g);
	g = f;
	v = 0;
	memcpy(g.b + sizeof(struct fanotify_event_metadata) + 12, &v, 4);
	fan_reject("fan handle_bytes 0", &g);

	g.len = 0;
	f_begin(&g, FAN_CREATE, 1);
	f_fid(&g, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "abcd");
	f_end(&g);
	memset(g.b + g.len - 8, 'z', 8);	/* the NUL and its padding */
	fan_reject("fan name without NUL", &g);

	g.len = 0;
	f_begin(&g, FAN_CREATE, 1);
	f_fid(&g, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "a/b");
	f_end(&g);
	fan_reject("fan name with slash", &g);
	g.len = 0;
	f_begin(&g, FAN_CREATE, 1);
	f_fid(&g, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "");
	f_end(&g);
	fan_reject("fan empty name", &g);
	memset(longname, 'n', sizeof(longname));
	longname[NAME_MAX + 1] = '\0';
	g.len = 0;
	f_begin(&g, FAN_CREATE, 1);
	f_fid(&g, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, longname);
	f_end(&g);
	fan_reject("fan name longer than NAME_MAX", &g);
	g.len = 0;
	f_begin(&g, FAN_CREATE, 1);
	f_fid(&g, FAN_EVENT_INFO_TYPE_FID, 8, NULL);
	f_fid(&g, FAN_EVENT_INFO_TYPE_FID, 8, NULL);
	f_end(&g);
	fan_reject("fan repeated info record", &g);
}

/* A bad record between two good ones: skipped, the others kept. */
static void test_fan_skip(void)
{
	struct fbuf f = { .len = 0 };
	unsigned int err;
	struct seen s;

	f_begin(&f, FAN_CREATE, 1);
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "one");
	f_end(&f);
	f_begin(&f, FAN_CREATE, 2);
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "t/wo");
	f_end(&f);
	f_begin(&f, FAN_DELETE, 3);
	f_fid(&f, FAN_EVENT_INFO_TYPE_DFID_NAME, 8, "three");
	f_end(&f);
	CHECK("fan bad middle record skipped",
	      f_decode(f.b, f.len, &s, &err) == 2 && err == 1 &&
	      s.last.pid == 3 && strcmp(s.dname, "three") == 0);
	CHECK("fan empty buffer", f_decode(f.b, 0, &s, &err) == 0 &&
	      err == 0);
}

/* ---- inotify ---- */

static size_t i_put(unsigned char *b, size_t off, int wd, uint32_t mask,
		    uint32_t cookie, const char *name, uint32_t len)
{
	struct inotify_event ev = {
		.wd = wd, .mask = mask, .cookie = cookie, .len = len,
	};

	memcpy(b + off, &ev, sizeof(ev));
	memset(b + off + sizeof(ev), 0, len);
	if (name)
		memcpy(b + off + sizeof(ev), name,
		       strlen(name) < len ? strlen(name) + 1 : len);
	return off + sizeof(ev) + len;
}

/* Decoded names point into the copy: rebased here for the checks. */
static unsigned char i_keep[1024];

static size_t i_decode(const unsigned char *b, size_t len,
		       struct inotify_record *out, unsigned int *errors)
{
	unsigned char *copy = malloc(len ? len : 1);
	size_t i, n;

	memcpy(copy, b, len);
	*errors = 0;
	n = inotify_decode(copy, len, out, 16, errors);
	memcpy(i_keep, copy, len);
	for (i = 0; i < n; i++)
		if (out[i].name[0])
			out[i].name = (const char *)i_keep +
				(out[i].name - (const char *)copy);
	free(copy);
	return n;
}

static void test_inotify(void)
{
	unsigned char b[1024];
	struct inotify_record r[16];
	unsigned int err;
	size_t len = 0, n;

	len = i_put(b, len, 1, IN_CREATE, 0, "file", 16);
	len = i_put(b, len, 1, IN_MOVED_FROM | IN_ISDIR, 77, "d", 16);
	len = i_put(b, len, 2, IN_MOVED_TO | IN_ISDIR, 77, "e", 16);
	len = i_put(b, len, 1, IN_ATTRIB | IN_ISDIR, 0, NULL, 0);
	len = i_put(b, len, -1, IN_Q_OVERFLOW, 0, NULL, 0);
	n = i_decode(b, len, r, &err);
	CHECK("ino five records", n == 5 && err == 0);
	CHECK("ino fields", r[0].wd == 1 && r[0].mask == IN_CREATE &&
	      strcmp(r[0].name, "file") == 0 && r[1].cookie == 77 &&
	      strcmp(r[2].name, "e") == 0 && r[2].wd == 2 &&
	      r[3].name[0] == '\0' && r[4].mask == IN_Q_OVERFLOW);

	len = i_put(b, 0, 1, IN_CREATE, 0, "file", 16);
	n = i_decode(b, len - 1, r, &err);
	CHECK("ino record past the end", n == 0 && err == 1);
	n = i_decode(b, 10, r, &err);
	CHECK("ino truncated header", n == 0 && err == 1);

	len = i_put(b, 0, 1, IN_CREATE, 0, NULL, 8);
	memset(b + sizeof(struct inotify_event), 'x', 8);
	len = i_put(b, len, 1, IN_DELETE, 0, "ok", 8);
	n = i_decode(b, len, r, &err);
	CHECK("ino name without NUL skipped", n == 1 && err == 1 &&
	      strcmp(r[0].name, "ok") == 0 && r[0].mask == IN_DELETE);
	len = i_put(b, 0, 1, IN_CREATE, 0, "a/b", 8);
	n = i_decode(b, len, r, &err);
	CHECK("ino name with slash", n == 0 && err == 1);
	len = i_put(b, 0, 1, IN_CREATE, 0, NULL, 0);
	memcpy(b + 12, &(uint32_t){ 0xfffffff0 }, 4);
	n = i_decode(b, len, r, &err);
	CHECK("ino absurd len", n == 0 && err == 1);
}

/* ---- own-change expectations and the handle cache ---- */

static void test_expect(void)
{
	static struct own_expect x;
	struct rn_id d1 = { .dev = 1, .ino = 10 }, d2 = { .dev = 1, .ino = 11 };
	unsigned int i;

	own_expect_begin(&x, &d1, "a", RN_EV_ALL);
	CHECK("expect: other dir not matched",
	      !own_expect_match(&x, &d2, "a", RN_EV_MODIFY, NULL));
	CHECK("expect: other name not matched",
	      !own_expect_match(&x, &d1, "b", RN_EV_MODIFY, NULL));
	CHECK("expect: matched while in progress",
	      own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_drain_begin(&x);
	own_expect_drained(&x);
	CHECK("expect: a drain does not end a change in progress",
	      own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_drain_begin(&x);
	/* It ends during a drain. */
	own_expect_end(&x, &d1, "a", RN_EV_ALL, NULL);
	CHECK("expect: matched again and again (not consumed)",
	      own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL) &&
	      own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_drained(&x);
	CHECK("expect: the drain in progress at the end does not close it",
	      own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_drain_begin(&x);
	own_expect_drained(&x);
	CHECK("expect: forgotten after a drain begun after the end",
	      !own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_begin(&x, &d1, "a", RN_EV_ALL);
	/* It ends while the reader is idle. */
	own_expect_end(&x, &d1, "a", RN_EV_ALL, NULL);
	own_expect_drain_begin(&x);
	CHECK("expect: open during the next drain",
	      own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_drained(&x);
	CHECK("expect: closed once that drain completes",
	      !own_expect_match(&x, &d1, "a", RN_EV_MODIFY, NULL));
	own_expect_begin(&x, &d1, "a/b", RN_EV_ALL);
	CHECK("expect: bad name ignored",
	      !own_expect_match(&x, &d1, "a/b", RN_EV_MODIFY, NULL));
	own_expect_begin(&x, &d2, "", RN_EV_ALL);
	CHECK("expect: object target matched",
	      own_expect_match(&x, &d2, "", RN_EV_MODIFY, NULL));
	own_expect_end(&x, &d2, "", RN_EV_ALL, NULL);
	own_expect_begin(&x, &d1, "old", RN_EV_ALL);
	for (i = 0; i < OWN_EXPECT_MAX; i++) {
		struct rn_id d = { .dev = 2, .ino = i };

		own_expect_begin(&x, &d, "n", RN_EV_ALL);
		own_expect_end(&x, &d, "n", RN_EV_ALL, NULL);
	}
	CHECK("expect: a change in progress is never evicted",
	      own_expect_match(&x, &d1, "old", RN_EV_MODIFY, NULL));
	own_expect_begin(&x, &d2, "c", RN_EV_BIT(RN_EV_CLOSE_WRITE));
	CHECK("expect: a close hides its CLOSE_WRITE",
	      own_expect_match(&x, &d2, "c", RN_EV_CLOSE_WRITE, NULL));
	CHECK("expect: a close does not hide a MODIFY",
	      !own_expect_match(&x, &d2, "c", RN_EV_MODIFY, NULL));
}

static struct own_stamp stamp(long sec, long nsec, off_t size)
{
	struct own_stamp s = { .set = true, .size = size };

	s.ctime.tv_sec = sec;
	s.ctime.tv_nsec = nsec;
	return s;
}

/* A remote change right after an own one moves the object's stamp. */
static void test_expect_stamp(void)
{
	static struct own_expect x;
	struct rn_id f = { .dev = 1, .ino = 20 }, d = { .dev = 1, .ino = 21 };
	struct own_stamp left = stamp(5, 100, 3), moved = stamp(5, 200, 3);
	struct own_stamp grew = stamp(5, 100, 4), later = stamp(6, 0, 9);

	own_expect_begin(&x, &f, "", RN_EV_ALL);
	CHECK("stamp: in progress, own whatever the stamp",
	      own_expect_match(&x, &f, "", RN_EV_MODIFY, &moved));
	own_expect_end(&x, &f, "", RN_EV_ALL, &left);
	CHECK("stamp: the stamp it left is own",
	      own_expect_match(&x, &f, "", RN_EV_MODIFY, &left));
	CHECK("stamp: a newer ctime is not own",
	      !own_expect_match(&x, &f, "", RN_EV_MODIFY, &moved));
	CHECK("stamp: another size is not own",
	      !own_expect_match(&x, &f, "", RN_EV_MODIFY, &grew));
	CHECK("stamp: unknown now is own",
	      own_expect_match(&x, &f, "", RN_EV_MODIFY, NULL));
	own_expect_begin(&x, &f, "", RN_EV_BIT(RN_EV_CLOSE_WRITE));
	own_expect_end(&x, &f, "", RN_EV_BIT(RN_EV_CLOSE_WRITE), NULL);
	CHECK("stamp: a close keeps the write's stamp",
	      !own_expect_match(&x, &f, "", RN_EV_CLOSE_WRITE, &moved) &&
	      own_expect_match(&x, &f, "", RN_EV_CLOSE_WRITE, &left));
	own_expect_begin(&x, &f, "", RN_EV_BIT(RN_EV_ATTRIB));
	own_expect_end(&x, &f, "", RN_EV_BIT(RN_EV_ATTRIB), &later);
	CHECK("stamp: a later own change moves every target's stamp",
	      own_expect_match(&x, &f, "", RN_EV_MODIFY, &later) &&
	      own_expect_match(&x, &f, "", RN_EV_CLOSE_WRITE, &later));
	own_expect_begin(&x, &d, "n", RN_EV_ALL);
	own_expect_end(&x, &d, "n", RN_EV_ALL, &left);
	CHECK("stamp: a name's object with the stamp it left is own",
	      own_expect_match(&x, &d, "n", RN_EV_MODIFY, &left));
	CHECK("stamp: a write to a name's object since is not own",
	      !own_expect_match(&x, &d, "n", RN_EV_MODIFY, &moved) &&
	      !own_expect_match(&x, &d, "n", RN_EV_CLOSE_WRITE, &moved));
	CHECK("stamp: a CREATE, DELETE or MOVE is never compared",
	      own_expect_match(&x, &d, "n", RN_EV_CREATE, &moved) &&
	      own_expect_match(&x, &d, "n", RN_EV_DELETE, &moved) &&
	      own_expect_match(&x, &d, "n", RN_EV_MOVE, &moved));
	own_expect_drain_begin(&x);
	own_expect_drained(&x);
	CHECK("stamp: the window still closes at a drain",
	      !own_expect_match(&x, &f, "", RN_EV_MODIFY, &later));
}

/* A full table reuses the slot that held the stamp: it is kept. */
static void test_expect_stamp_full(void)
{
	static struct own_expect x;
	struct rn_id f = { .dev = 1, .ino = 30 };
	struct own_stamp left = stamp(7, 1, 1), moved = stamp(7, 2, 1);
	unsigned int i;

	own_expect_begin(&x, &f, "", RN_EV_ALL);
	own_expect_end(&x, &f, "", RN_EV_ALL, &left);
	for (i = 1; i < OWN_EXPECT_MAX; i++) {
		struct rn_id busy = { .dev = 3, .ino = i };

		own_expect_begin(&x, &busy, "", RN_EV_ALL);
	}
	own_expect_begin(&x, &f, "", RN_EV_BIT(RN_EV_CLOSE_WRITE));
	own_expect_end(&x, &f, "", RN_EV_BIT(RN_EV_CLOSE_WRITE), NULL);
	CHECK("stamp: kept when its slot is the one reused",
	      !own_expect_match(&x, &f, "", RN_EV_CLOSE_WRITE, &moved) &&
	      own_expect_match(&x, &f, "", RN_EV_CLOSE_WRITE, &left));
}

static void test_cache(void)
{
	struct handle_cache *c = handle_cache_new(16);
	unsigned char h[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rn_id id = { .dev = 3, .ino = 4, .gen = 5 }, got;
	bool inside = false;
	unsigned int i, hits = 0;

	handle_cache_put(c, 1, h, 8, &id, true);
	CHECK("cache hit", handle_cache_get(c, 1, h, 8, &got, &inside) &&
	      inside && rn_id_equal(&got, &id));
	CHECK("cache type is part of the key",
	      !handle_cache_get(c, 2, h, 8, &got, &inside));
	for (i = 0; i < 100; i++) {
		h[0] = (unsigned char)i;
		handle_cache_put(c, 1, h, 8, &id, false);
	}
	for (i = 0; i < 100; i++) {
		h[0] = (unsigned char)i;
		hits += handle_cache_get(c, 1, h, 8, &got, &inside);
	}
	CHECK("cache bounded (the older generation dropped when full)",
	      hits > 0 && hits <= 16);
	/* One in use all along stays, however many new ones come. */
	h[0] = 200;
	handle_cache_put(c, 1, h, 8, &id, true);
	for (i = 0, hits = 0; i < 100; i++) {
		h[0] = (unsigned char)i;
		handle_cache_put(c, 1, h, 8, &id, false);
		h[0] = 200;
		hits += handle_cache_get(c, 1, h, 8, &got, &inside);
	}
	CHECK("cache keeps what is in use", hits == 100);
	handle_cache_forget(c, false);
	h[0] = 99;
	CHECK("cache forget drops the answers of one side",
	      !handle_cache_get(c, 1, h, 8, &got, &inside));
	h[0] = 200;
	CHECK("cache forget keeps the other side's",
	      handle_cache_get(c, 1, h, 8, &got, &inside) && inside);
	handle_cache_put(c, 1, h, 8, &id, false);
	handle_cache_forget(c, false);
	CHECK("cache: a newer answer replaces the older one",
	      !handle_cache_get(c, 1, h, 8, &got, &inside));
	handle_cache_clear(c);
	CHECK("cache clear", !handle_cache_get(c, 1, h, 8, &got, &inside));
	handle_cache_free(c);
}

int main(void)
{
	test_fan_valid();
	test_fan_corrupt();
	test_fan_skip();
	test_inotify();
	test_expect();
	test_expect_stamp();
	test_expect_stamp_full();
	test_cache();
	return check_exit();
}
