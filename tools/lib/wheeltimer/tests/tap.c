// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * tap.c - the runner of tap.h: each test between a setjmp() and the
 * longjmp() of a failed check or a skip
 */
#include <setjmp.h>
#include <stdio.h>

#include "tap.h"

enum { TAP_PASS, TAP_FAIL, TAP_SKIP };

static jmp_buf tap_jmp;
static char tap_why[256];
/* Not locals of tap_run(), which longjmp() could leave stale. */
static int tap_i, tap_pass, tap_fail_count, tap_skip_count;

noreturn void tap_fail(const char *file, int line, const char *what)
{
	printf("# %s:%d: check failed: %s\n", file, line, what);
	longjmp(tap_jmp, TAP_FAIL);
}

noreturn void tap_fail_eq(const char *file, int line, const char *a,
			  const char *b, long long va, long long vb)
{
	printf("# %s:%d: check failed: %s == %s (%lld != %lld)\n", file, line,
	       a, b, va, vb);
	longjmp(tap_jmp, TAP_FAIL);
}

noreturn void tap_skip(const char *why)
{
	snprintf(tap_why, sizeof(tap_why), "%s", why);
	longjmp(tap_jmp, TAP_SKIP);
}

/* Run one test, numbered tap_i + 1, and print its line. */
static void tap_one(const struct tap_test *t)
{
	int outcome = setjmp(tap_jmp);

	if (outcome == TAP_PASS) {
		t->fn();
		printf("ok %d %s\n", tap_i + 1, t->name);
		tap_pass++;
	} else if (outcome == TAP_FAIL) {
		printf("not ok %d %s\n", tap_i + 1, t->name);
		tap_fail_count++;
	} else {
		printf("ok %d %s # SKIP %s\n", tap_i + 1, t->name, tap_why);
		tap_skip_count++;
	}
	fflush(stdout);
}

int tap_run(const char *unit, const struct tap_test *const *tables)
{
	const struct tap_test *t;
	int n = 0, i;

	for (i = 0; tables[i]; i++)
		for (t = tables[i]; t->name; t++)
			n++;
	printf("# unit: %s\nTAP version 13\n1..%d\n", unit, n);
	fflush(stdout);
	tap_i = 0;
	for (i = 0; tables[i]; i++)
		for (t = tables[i]; t->name; t++, tap_i++)
			tap_one(t);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       tap_pass, tap_fail_count, tap_skip_count);
	fflush(stdout);
	return tap_fail_count;
}
