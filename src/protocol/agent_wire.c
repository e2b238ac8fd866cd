// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's wire format (agent_wire.h): pure, length-checked, and the
 * same code on both ends.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agent_wire.h"

/* Per op: its name, then 'n' for a number and 's' for a name, in order. */
static const struct {
	const char *name;
	const char *args;
} agent_ops[AGENT_OP_COUNT] = {
	[AGENT_OPEN_NODE] = { "OPEN_NODE", "nnn" },
	[AGENT_OPENAT] = { "OPENAT", "nsnn" },
	[AGENT_REOPEN] = { "REOPEN", "nn" },
	[AGENT_NODE_OF] = { "NODE_OF", "n" },
	[AGENT_MKNOD] = { "MKNOD", "nsnn" },
	[AGENT_MKDIR] = { "MKDIR", "nsn" },
	[AGENT_SYMLINK] = { "SYMLINK", "ns" },
	[AGENT_LINK] = { "LINK", "nns" },
	[AGENT_UNLINK] = { "UNLINK", "nsn" },
	[AGENT_RENAME] = { "RENAME", "nsns" },
	[AGENT_WRITE_BYTE] = { "WRITE_BYTE", "n" },
	[AGENT_TRUNCATE0] = { "TRUNCATE0", "n" },
	[AGENT_CHOWN_LINK] = { "CHOWN_LINK", "nnn" },
	[AGENT_CHMOD] = { "CHMOD", "nn" },
	[AGENT_TOUCH] = { "TOUCH", "n" },
	[AGENT_CLOSE] = { "CLOSE", "n" },
};

const char *agent_op_name(enum agent_op op)
{
	return (unsigned int)op < AGENT_OP_COUNT ? agent_ops[op].name : "?";
}

int agent_op_nargs(enum agent_op op)
{
	return (unsigned int)op < AGENT_OP_COUNT ?
	       (int)strlen(agent_ops[op].args) : -1;
}

/* A name a replay may use: one path component, never . or .. */
static bool name_ok(const char *s, size_t len)
{
	if (len == 0 || len > AGENT_NAME_MAX || memchr(s, '/', len) ||
	    memchr(s, '\0', len))
		return false;
	return !(len == 1 && s[0] == '.') &&
	       !(len == 2 && s[0] == '.' && s[1] == '.');
}

/* Appends to buf at *at; false once it does not fit. */
static bool put(char *buf, size_t size, size_t *at, const char *fmt,
		unsigned long long v)
{
	int n = snprintf(buf + *at, size - *at, fmt, v);

	if (n < 0 || (size_t)n >= size - *at)
		return false;
	*at += n;
	return true;
}

static bool put_name(char *buf, size_t size, size_t *at, const char *name)
{
	size_t len = strnlen(name, AGENT_NAME_MAX + 1);

	if (!name_ok(name, len) || *at + 1 + 2 * len >= size)
		return false;
	buf[(*at)++] = ' ';
	for (size_t i = 0; i < len; i++) {
		snprintf(buf + *at, 3, "%02x", (unsigned char)name[i]);
		*at += 2;
	}
	return true;
}

/* A known op whose names are names. */
static bool call_valid(const struct agent_msg *m)
{
	const char *spec;
	int str = 0;

	if ((unsigned int)m->op >= AGENT_OP_COUNT)
		return false;
	for (spec = agent_ops[m->op].args; *spec; spec++) {
		const char *name = *spec == 's' && str++ ? m->name2 : m->name;

		if (*spec == 's' &&
		    !name_ok(name, strnlen(name, AGENT_NAME_MAX + 1)))
			return false;
	}
	return true;
}

static bool encode_call(const struct agent_msg *m, char *buf, size_t size,
			size_t *at)
{
	const char *spec;
	int num = 0, str = 0;

	if (!put(buf, size, at, "C %llu ", m->seq) ||
	    *at + strlen(agent_ops[m->op].name) >= size)
		return false;
	*at += sprintf(buf + *at, "%s", agent_ops[m->op].name);
	for (spec = agent_ops[m->op].args; *spec; spec++) {
		if (*spec == 'n') {
			if (!put(buf, size, at, " %llu", m->arg[num++]))
				return false;
		} else if (!put_name(buf, size, at,
				     str++ ? m->name2 : m->name)) {
			return false;
		}
	}
	return true;
}

int agent_wire_encode(const struct agent_msg *m, char *buf, size_t size)
{
	size_t at = 0;
	bool ok;

	switch (m->kind) {
	case AGENT_HELLO:
		ok = put(buf, size, &at, "H %llu", m->seq) &&
		     put(buf, size, &at, " %llu", m->tid) &&
		     put(buf, size, &at, " %llu", m->uid);
		break;
	case AGENT_ACCEPT:
		ok = put(buf, size, &at, "A %llu", m->seq);
		break;
	case AGENT_CALL:
		if (!call_valid(m))
			return -EINVAL;
		ok = encode_call(m, buf, size, &at);
		break;
	case AGENT_RESULT:
		ok = put(buf, size, &at, "R %llu", m->seq) &&
		     put(buf, size, &at, m->ret < 0 ? " -%llu" : " %llu",
			 m->ret < 0 ? -(uint64_t)m->ret : (uint64_t)m->ret);
		if (ok && m->ret == 0 && m->id)
			ok = put(buf, size, &at, " %llu", m->id) &&
			     put(buf, size, &at, " %llu", m->gen);
		break;
	default:
		return -EINVAL;
	}
	if (!ok || at + 1 >= size)
		return -ENOSPC;
	buf[at++] = '\n';
	buf[at] = '\0';
	return (int)at;
}

/* The decoder's cursor over one line. */
struct cursor {
	const char *p, *end;
};

/* The next space-separated token; false at the end of the line. */
static bool token(struct cursor *c, const char **tok, size_t *len)
{
	if (c->p == c->end)
		return false;
	if (*c->p != ' ')
		return false;
	c->p++;
	*tok = c->p;
	while (c->p < c->end && *c->p != ' ')
		c->p++;
	*len = c->p - *tok;
	return *len > 0;
}

/* Decimal digits, no leading zero, at most max. */
static bool digits(const char *t, size_t len, uint64_t max, uint64_t *v)
{
	if (len == 0 || len > 20 || (len > 1 && t[0] == '0'))
		return false;
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)t[i] - '0';

		if (d > 9 || *v > (max - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	return true;
}

static bool number(struct cursor *c, uint64_t max, uint64_t *v)
{
	const char *t;
	size_t len;

	return token(c, &t, &len) && digits(t, len, max, v);
}

/* A result: 0 or more (an fd), or minus an errno. */
static bool signed_number(struct cursor *c, int64_t *v)
{
	const char *t;
	size_t len;
	uint64_t u;

	if (!token(c, &t, &len))
		return false;
	if (t[0] != '-') {
		if (!digits(t, len, INT32_MAX, &u))
			return false;
		*v = (int64_t)u;
		return true;
	}
	if (!digits(t + 1, len - 1, 4095, &u) || !u)
		return false;
	*v = -(int64_t)u;
	return true;
}

static bool hex_name(struct cursor *c, char *out)
{
	const char *t;
	size_t len;

	if (!token(c, &t, &len) || len % 2 || len / 2 > AGENT_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i += 2) {
		unsigned int v = 0;

		for (int k = 0; k < 2; k++) {
			char ch = t[i + k];

			v <<= 4;
			if (ch >= '0' && ch <= '9')
				v |= ch - '0';
			else if (ch >= 'a' && ch <= 'f')
				v |= ch - 'a' + 10;
			else
				return false;
		}
		out[i / 2] = (char)v;
	}
	out[len / 2] = '\0';
	return name_ok(out, len / 2);
}

static bool decode_call(struct cursor *c, struct agent_msg *m)
{
	const char *t, *spec;
	size_t len;
	int num = 0, str = 0, op;

	if (!number(c, UINT64_MAX, &m->seq) || !token(c, &t, &len))
		return false;
	for (op = 0; op < AGENT_OP_COUNT; op++)
		if (strlen(agent_ops[op].name) == len &&
		    !memcmp(agent_ops[op].name, t, len))
			break;
	if (op == AGENT_OP_COUNT)
		return false;
	m->op = op;
	for (spec = agent_ops[op].args; *spec; spec++) {
		bool ok = *spec == 'n' ?
			  number(c, UINT64_MAX, &m->arg[num++]) :
			  hex_name(c, str++ ? m->name2 : m->name);

		if (!ok)
			return false;
	}
	return true;
}

static bool decode_result(struct cursor *c, struct agent_msg *m)
{
	uint64_t id, gen;

	if (!number(c, UINT64_MAX, &m->seq) || !signed_number(c, &m->ret))
		return false;
	if (c->p == c->end)
		return true;
	if (m->ret != 0 || !number(c, UINT64_MAX, &id) || !id ||
	    !number(c, UINT32_MAX, &gen))
		return false;
	m->id = id;
	m->gen = (uint32_t)gen;
	return true;
}

int agent_wire_decode(const char *line, size_t len, struct agent_msg *m)
{
	struct cursor c = { line + 1, line + len };
	uint64_t tid = 0, uid = 0;
	bool ok;

	memset(m, 0, sizeof(*m));
	if (len < 3 || len >= AGENT_LINE_MAX || memchr(line, '\0', len))
		return -EINVAL;
	m->kind = line[0];
	switch (line[0]) {
	case AGENT_HELLO:
		ok = number(&c, UINT64_MAX, &m->seq) &&
		     number(&c, INT32_MAX, &tid) && tid > 0 &&
		     number(&c, UINT32_MAX, &uid);
		m->tid = (uint32_t)tid;
		m->uid = (uint32_t)uid;
		break;
	case AGENT_ACCEPT:
		ok = number(&c, UINT64_MAX, &m->seq);
		break;
	case AGENT_CALL:
		ok = decode_call(&c, m);
		break;
	case AGENT_RESULT:
		ok = decode_result(&c, m);
		break;
	default:
		ok = false;
	}
	return ok && c.p == c.end ? 0 : -EINVAL;
}
