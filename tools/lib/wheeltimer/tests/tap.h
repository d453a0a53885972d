/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tap.h - the few lines of TAP the library's tests print, in the shape
 * tools/ksft-summary counts: "# unit: NAME", "ok N name", "not ok N name"
 * with the failed check before it, "ok N name # SKIP why", and a kselftest
 * "# Totals:" line.
 *
 * A test is a void function run once, in the order given. CHECK() and
 * CHECK_EQ() fail it and tap_skip() skips it by jumping back to the runner
 * (longjmp), so the rest of the test, which relies on what was checked,
 * does not run. What the test had allocated is then left to the exit.
 */
#ifndef _WHEELTIMER_TAP_H
#define _WHEELTIMER_TAP_H

#include <setjmp.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct tap_test {
	const char *name;
	void (*fn)(void);
};

static jmp_buf tap_jmp;
static char tap_why[256];
/* Not locals of tap_run(), which longjmp() could leave stale. */
static int tap_i, tap_pass, tap_fail_count, tap_skip_count;

enum { TAP_PASS, TAP_FAIL, TAP_SKIP };

static noreturn void tap_fail(const char *file, int line, const char *what)
{
	printf("# %s:%d: check failed: %s\n", file, line, what);
	longjmp(tap_jmp, TAP_FAIL);
}

static noreturn void tap_fail_eq(const char *file, int line, const char *a,
				 const char *b, long long va, long long vb)
{
	printf("# %s:%d: check failed: %s == %s (%lld != %lld)\n", file, line,
	       a, b, va, vb);
	longjmp(tap_jmp, TAP_FAIL);
}

static noreturn void tap_skip(const char *why)
{
	snprintf(tap_why, sizeof(tap_why), "%s", why);
	longjmp(tap_jmp, TAP_SKIP);
}

#define CHECK(cond) do {						\
	if (!(cond))							\
		tap_fail(__FILE__, __LINE__, #cond);			\
} while (0)

/* CHECK(a == b) for integers, printing both sides when it fails. */
#define CHECK_EQ(a, b) do {						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (__a != __b)							\
		tap_fail_eq(__FILE__, __LINE__, #a, #b, __a, __b);	\
} while (0)

/* Run @n tests as one TAP unit; returns the number that failed. */
static int tap_run(const char *unit, const struct tap_test *tests, int n)
{
	int outcome;

	printf("# unit: %s\nTAP version 13\n1..%d\n", unit, n);
	fflush(stdout);
	for (tap_i = 0; tap_i < n; tap_i++) {
		outcome = setjmp(tap_jmp);
		if (outcome == TAP_PASS) {
			tests[tap_i].fn();
			printf("ok %d %s\n", tap_i + 1, tests[tap_i].name);
			tap_pass++;
		} else if (outcome == TAP_FAIL) {
			printf("not ok %d %s\n", tap_i + 1, tests[tap_i].name);
			tap_fail_count++;
		} else {
			printf("ok %d %s # SKIP %s\n", tap_i + 1,
			       tests[tap_i].name, tap_why);
			tap_skip_count++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       tap_pass, tap_fail_count, tap_skip_count);
	fflush(stdout);
	return tap_fail_count;
}

#endif /* _WHEELTIMER_TAP_H */
