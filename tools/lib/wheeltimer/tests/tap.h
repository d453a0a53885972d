/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tap.h - the few lines of TAP the library's tests print, in the shape
 * tools/ksft-summary counts: "# unit: NAME", "ok N name", "not ok N name"
 * with the failed check before it, "ok N name # SKIP why", and a kselftest
 * "# Totals:" line.
 *
 * A test is a void function; CHECK() fails it and returns, SKIP() skips
 * it and returns. Tests run in the order given, each once.
 */
#ifndef _WHEELTIMER_TAP_H
#define _WHEELTIMER_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

static int tap_failed, tap_skipped;
static char tap_why[256];

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("# %s:%d: check failed: %s\n", __FILE__,	\
		       __LINE__, #cond);				\
		tap_failed = 1;						\
		return;							\
	}								\
} while (0)

/* CHECK(a == b) for integers, printing both sides when it fails. */
#define CHECK_EQ(a, b) do {						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (__a != __b) {						\
		printf("# %s:%d: check failed: %s == %s (%lld != %lld)\n", \
		       __FILE__, __LINE__, #a, #b, __a, __b);		\
		tap_failed = 1;						\
		return;							\
	}								\
} while (0)

#define SKIP(...) do {							\
	snprintf(tap_why, sizeof(tap_why), __VA_ARGS__);		\
	tap_skipped = 1;						\
	return;								\
} while (0)

/* Run @n tests as one TAP unit; returns the number that failed. */
static int tap_run(const char *unit, const struct tap_test *tests, int n)
{
	int i, pass = 0, fail = 0, skip = 0;

	printf("# unit: %s\nTAP version 13\n1..%d\n", unit, n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		tap_failed = 0;
		tap_skipped = 0;
		tests[i].fn();
		if (tap_failed) {
			printf("not ok %d %s\n", i + 1, tests[i].name);
			fail++;
		} else if (tap_skipped) {
			printf("ok %d %s # SKIP %s\n", i + 1, tests[i].name,
			       tap_why);
			skip++;
		} else {
			printf("ok %d %s\n", i + 1, tests[i].name);
			pass++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       pass, fail, skip);
	fflush(stdout);
	return fail;
}

#endif /* _WHEELTIMER_TAP_H */
