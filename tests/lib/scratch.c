// SPDX-License-Identifier: GPL-2.0-or-later
/* A scratch tree for the live watch tests (see scratch.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"

static char scratch_base[64];

int scratch_make(const char *prefix)
{
	snprintf(scratch_base, sizeof(scratch_base), "/tmp/%s.XXXXXX", prefix);
	return mkdtemp(scratch_base) ? 0 : -1;
}

const char *scratch(const char *rel)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", scratch_base, rel);
	return buf[i];
}

void scratch_remove(void)
{
	if (!scratch_base[0])
		return;
	if (fork() == 0) {
		execlp("rm", "rm", "-rf", scratch_base, (char *)NULL);
		_exit(127);
	}
	wait(NULL);
}

void scratch_in_child(void (*fn)(void), const char *test)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		printf("FAIL %s: a change failed\n", test);
		exit(1);
	}
}

void must(int rc)
{
	if (rc < 0)
		_exit(4);
}
