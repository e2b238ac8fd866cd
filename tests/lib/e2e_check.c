// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Check output with a reason: check.h's CHECK() prints the failed C
 * expression, but an event check must say which events were expected and
 * which arrived. Same line format ("PASS name" / "FAIL name: why"), same
 * failure counter (check_failures, defined by the test's main file).
 */
#include <stdarg.h>
#include <stdio.h>

#include "e2e.h"

void e2e_pass(const char *check)
{
	printf("PASS %s\n", check);
	fflush(stdout);
}

void e2e_fail(const char *check, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	check_failures++;
}

void e2e_info(const char *fmt, ...)
{
	va_list ap;

	printf("INFO ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}
