// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the agent's wire format (src/protocol/agent_wire.c): each
 * message encodes to one line and decodes back to itself; names travel as
 * hex whatever their bytes; and every line that is not exactly a message
 * (the channel is hostile input both ways) is refused.
 */
#include <errno.h>
#include <string.h>

#include "../lib/check.h"
#include "protocol/agent_wire.h"

CHECK_MAIN_DEFS;

/* Encodes m and decodes the line back into *back: 0 or an errno. */
static int round_trip(const struct agent_msg *m, struct agent_msg *back,
		      char *line, size_t size)
{
	int len = agent_wire_encode(m, line, size);

	if (len < 0)
		return len;
	if (line[len - 1] != '\n' || memchr(line, '\n', len - 1))
		return -EPROTO;
	return agent_wire_decode(line, len - 1, back);
}

static void test_round_trips(void)
{
	struct agent_msg call = { .kind = AGENT_CALL, .seq = 7,
				  .op = AGENT_RENAME,
				  .arg = { 3, 65535 } }, back;
	struct agent_msg hello = { .kind = AGENT_HELLO,
				   .seq = 18446744073709551615ull,
				   .tid = 123, .uid = 0 };
	struct agent_msg res = { .kind = AGENT_RESULT, .seq = 9,
				 .ret = 0, .id = 42, .gen = 4000000000u };
	struct agent_msg err = { .kind = AGENT_RESULT, .seq = 9,
				 .ret = -ENOENT };
	char line[AGENT_LINE_MAX];

	strcpy(call.name, "a b\nc\xff");
	memset(call.name2, 'x', AGENT_NAME_MAX);
	CHECK("agent_wire/rename_round_trip",
	      !round_trip(&call, &back, line, sizeof(line)) &&
	      back.op == AGENT_RENAME && back.seq == 7 &&
	      back.arg[0] == 3 && back.arg[1] == 65535 &&
	      !strcmp(back.name, call.name) &&
	      !strcmp(back.name2, call.name2));
	CHECK("agent_wire/hello_round_trip",
	      !round_trip(&hello, &back, line, sizeof(line)) &&
	      back.kind == AGENT_HELLO && back.seq == hello.seq &&
	      back.tid == 123 && back.uid == 0);
	CHECK("agent_wire/node_result_round_trip",
	      !round_trip(&res, &back, line, sizeof(line)) &&
	      back.id == 42 && back.gen == 4000000000u && back.ret == 0);
	CHECK("agent_wire/errno_result_round_trip",
	      !round_trip(&err, &back, line, sizeof(line)) &&
	      back.ret == -ENOENT && !strcmp(line, "R 9 -2\n"));
	CHECK("agent_wire/too_small_buffer",
	      agent_wire_encode(&call, line, 40) == -ENOSPC);
}

static void test_bad_names_not_sent(void)
{
	struct agent_msg m = { .kind = AGENT_CALL, .op = AGENT_UNLINK };
	char line[AGENT_LINE_MAX];
	static const char *const bad[] = { "", ".", "..", "a/b", "/" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(m.name, bad[i]);
		CHECK_IN(bad[i], "agent_wire/bad_name_not_encoded",
			 agent_wire_encode(&m, line, sizeof(line)) == -EINVAL);
	}
	m.op = AGENT_OP_COUNT;
	strcpy(m.name, "f");
	CHECK("agent_wire/unknown_op_not_encoded",
	      agent_wire_encode(&m, line, sizeof(line)) == -EINVAL);
}

static int decode(const char *line)
{
	struct agent_msg m;

	return agent_wire_decode(line, strlen(line), &m);
}

static void test_refused_lines(void)
{
	static const char *const bad[] = {
		"", "C", "X 1", "C 1 UNLINK 0 66 0 extra",
		"C 1 UNLINK 0 66", "C 1 UNLINK 0 2f 0",	/* "/" */
		"C 1 UNLINK 0 2e2e 0", "C 1 UNLINK 0 2E 0",	/* "..", "." */
		"C 1 UNLINK 0 6 0", "C 1 UNLINK 0 6G 0", "C 1 UNLINK 0 00 0",
		"C 01 UNLINK 0 66 0", "C 1 UNLINK -1 66 0",
		"C 1 unlink 0 66 0", "C 1 UNLINK  0 66 0", "C 1 UNLINK 0 66 0 ",
		"C 18446744073709551616 TOUCH 0", "C 1 NOPE 0",
		"R 1 -0", "R 1 -4096", "R 1 2147483648", "R 1 -2 5 6",
		"R 1 0 0 1", "R 1 0 1 4294967296", "H 1 0 0", "H 1 5",
		"A", "A x",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_IN(bad[i], "agent_wire/refused", decode(bad[i]) == -EINVAL);
	CHECK("agent_wire/nul_refused",
	      agent_wire_decode("C 1 TOUCH 0\0", 12, &(struct agent_msg){ 0 })
	      == -EINVAL);
	CHECK("agent_wire/accepted", !decode("C 1 UNLINK 0 66 1") && !decode("A 5") &&
	      !decode("R 3 -2") && !decode("R 3 7") && !decode("H 9 1 0"));
}

int main(void)
{
	test_round_trips();
	test_bad_names_not_sent();
	test_refused_lines();
	return check_exit();
}
